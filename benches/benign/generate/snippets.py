"""Code, shell, SQL, configuration, stack traces and logs as developers paste them into forum posts, support tickets
and CI settings. Each generator fills a real-world shape (a GitHub Actions workflow, a Dockerfile, an nginx server
block, a Python traceback...) with random identifiers, paths, versions and values, so no two are alike.
"""
from .common import alnum, hexid, pick, uid

TABLES = ["users", "orders", "order_items", "products", "customers", "invoices", "sessions", "events", "payments",
          "accounts", "posts", "comments", "inventory", "shipments", "audit_log", "tenants", "subscriptions"]
COLS = ["id", "user_id", "created_at", "updated_at", "status", "email", "total", "amount", "name", "country",
        "sku", "quantity", "price", "deleted_at", "tenant_id", "last_login", "plan", "currency", "title", "slug"]
FUNCS = ["load_config", "parse_order", "fetch_user", "sync_inventory", "render_invoice", "retry_payment",
         "build_index", "send_digest", "resize_image", "normalize_email", "compute_totals", "export_csv"]
PKGS = ["requests", "numpy", "pandas", "django", "flask", "fastapi", "sqlalchemy", "boto3", "pydantic", "celery"]
NPM = ["react", "next", "express", "axios", "lodash", "vite", "typescript", "prisma", "zod", "dayjs", "webpack"]
PATHS = ["/var/www/html", "/srv/app", "/home/deploy/current", "/opt/service", "/usr/src/app", "/app",
         "C:\\Users\\dev\\source\\repos\\Shop", "/Users/anna/projects/api"]
IMAGES = ["python:3.12-slim", "node:20-alpine", "golang:1.23", "rust:1.83", "nginx:1.27-alpine",
          "postgres:16", "redis:7", "eclipse-temurin:21-jre", "mcr.microsoft.com/dotnet/aspnet:8.0", "ubuntu:24.04"]


def ident(rng):
    return pick(rng, ["item", "row", "user", "cfg", "resp", "data", "order", "ctx", "result", "payload", "acc",
                      "entry", "node", "buf", "tmp", "conn", "client", "job"])


def sql(rng):
    t, t2 = rng.sample(TABLES, 2)
    c = rng.sample(COLS, 4)
    kind = rng.randrange(9)
    if kind == 0:
        return (f"SELECT {c[0]}, {c[1]}, COUNT(*) AS n\nFROM {t}\nWHERE {c[2]} >= '2024-{rng.randint(1, 12):02d}-01'"
                f"\n  AND {c[3]} IS NOT NULL\nGROUP BY {c[0]}, {c[1]}\nHAVING COUNT(*) > {rng.randint(1, 50)}\n"
                f"ORDER BY n DESC\nLIMIT {rng.randint(5, 100)};")
    if kind == 1:
        return (f"SELECT o.id, o.total, c.email\nFROM {t} o\nLEFT JOIN {t2} c ON c.id = o.{c[1]}\n"
                f"WHERE o.status IN ('paid', 'shipped') AND c.country = '{pick(rng, ['DE', 'FR', 'US', 'JP'])}';")
    if kind == 2:
        return (f"UPDATE {t} SET {c[0]} = '{pick(rng, ['active', 'archived', 'pending'])}', updated_at = NOW() "
                f"WHERE id = {rng.randint(1, 99999)};")
    if kind == 3:
        return (f"CREATE TABLE {t} (\n  id BIGSERIAL PRIMARY KEY,\n  {c[1]} TEXT NOT NULL,\n  {c[2]} TIMESTAMPTZ "
                f"DEFAULT now(),\n  {c[3]} NUMERIC(10,2) CHECK ({c[3]} >= 0)\n);\nCREATE INDEX idx_{t}_{c[1]} ON {t} "
                f"({c[1]});")
    if kind == 4:
        return (f"INSERT INTO {t} ({c[0]}, {c[1]}) VALUES ('{pick(rng, ['O''Reilly', 'Smith', 'Müller'])}', "
                f"{rng.randint(1, 500)}) ON CONFLICT ({c[0]}) DO UPDATE SET {c[1]} = EXCLUDED.{c[1]};")
    if kind == 5:
        return (f"WITH recent AS (\n  SELECT * FROM {t} WHERE {c[2]} > now() - interval '{rng.randint(1, 90)} days'\n)"
                f"\nSELECT r.{c[0]}, SUM(r.{c[3]}) OVER (PARTITION BY r.{c[1]}) FROM recent r;")
    if kind == 6:
        return f"DELETE FROM {t} WHERE {c[2]} < '2023-01-01' -- old rows, we keep 2 years\n  AND {c[0]} = 'expired';"
    if kind == 7:
        return (f"EXPLAIN ANALYZE SELECT * FROM {t} WHERE lower({c[1]}) LIKE '%{pick(rng, ['gmail', 'shop', 'test'])}%';"
                f"\n-- Seq Scan on {t}  (cost=0.00..{rng.randint(100, 99999)}.00 rows={rng.randint(1, 5000)} width=64)")
    return (f"ALTER TABLE {t} ADD COLUMN {c[1]} varchar({pick(rng, [32, 64, 255])}) DEFAULT NULL;\n"
            f"UPDATE {t} SET {c[1]} = '' WHERE {c[1]} IS NULL;")


def shell(rng):
    p = pick(rng, PATHS[:6])
    kind = rng.randrange(10)
    if kind == 0:
        return f"cd {p} && git pull origin main && npm ci && npm run build"
    if kind == 1:
        return f"sudo systemctl restart {pick(rng, ['nginx', 'php8.3-fpm', 'gunicorn', 'docker'])} && journalctl -u {pick(rng, ['nginx', 'app'])} -n 50 --no-pager"
    if kind == 2:
        return f"find {p} -name '*.log' -mtime +{rng.randint(3, 30)} -exec rm {{}} \\;"
    if kind == 3:
        return f"tar -czf backup-$(date +%F).tar.gz {p}/uploads && scp backup-*.tar.gz deploy@10.0.{rng.randint(0, 9)}.{rng.randint(2, 250)}:/backups/"
    if kind == 4:
        return f"docker run --rm -it -p {rng.randint(3000, 9000)}:80 -v $(pwd):/data {pick(rng, IMAGES)} sh"
    if kind == 5:
        return f"ps aux | grep {pick(rng, ['node', 'python', 'java'])} | grep -v grep | awk '{{print $2}}'"
    if kind == 6:
        return f"curl -sS -H 'Authorization: Bearer $TOKEN' https://api.example.com/v2/{pick(rng, TABLES)}?limit=10 | jq '.data[] | {{id, status}}'"
    if kind == 7:
        return f"kubectl -n {pick(rng, ['prod', 'staging', 'default'])} logs deploy/{pick(rng, ['api', 'worker', 'web'])} --tail=200 -f"
    if kind == 8:
        return f"pip install '{pick(rng, PKGS)}>=2,<3' && python -m {pick(rng, ['pytest', 'mypy', 'black'])} -q"
    return f"for f in *.{pick(rng, ['jpg', 'png', 'csv'])}; do echo \"$f\"; done > list.txt; wc -l list.txt"


def python(rng):
    f, v = pick(rng, FUNCS), ident(rng)
    return (f"def {f}({v}, *, timeout={rng.randint(1, 30)}):\n    \"\"\"{pick(rng, ['Why does this hang?', 'Works locally.', 'TODO: retry'])}\"\"\"\n"
            f"    with open(f\"{pick(rng, PATHS[:5])}/{{{v}}}.json\", encoding=\"utf-8\") as fh:\n"
            f"        data = json.load(fh)\n    return [x for x in data.get(\"{pick(rng, COLS)}\", []) if x]\n")


def javascript(rng):
    v = ident(rng)
    return (f"const {v} = await fetch(`/api/{pick(rng, TABLES)}/${{id}}`, {{\n  method: '{pick(rng, ['POST', 'PATCH', 'PUT'])}',\n"
            f"  headers: {{ 'Content-Type': 'application/json' }},\n  body: JSON.stringify({{ {pick(rng, COLS)}: value }}),\n}});\n"
            f"if (!{v}.ok) throw new Error(`HTTP ${{{v}.status}}`);\nconsole.log(await {v}.json());")


def go(rng):
    return (f"func {pick(rng, ['Handle', 'Load', 'Sync'])}{pick(rng, ['Orders', 'Users', 'Config'])}(w http.ResponseWriter, r *http.Request) {{\n"
            f"\tctx, cancel := context.WithTimeout(r.Context(), {rng.randint(1, 30)}*time.Second)\n\tdefer cancel()\n"
            f"\tif err := db.QueryRowContext(ctx, \"SELECT count(*) FROM {pick(rng, TABLES)}\").Scan(&n); err != nil {{\n"
            f"\t\thttp.Error(w, err.Error(), 500)\n\t\treturn\n\t}}\n}}")


def rust(rng):
    return (f"fn {pick(rng, FUNCS)}(path: &Path) -> Result<Vec<String>, Box<dyn Error>> {{\n"
            f"    let text = fs::read_to_string(path)?;\n    Ok(text.lines().filter(|l| !l.starts_with('#')).map(str::to_owned).collect())\n}}")


def php(rng):
    return (f"<?php\n$stmt = $pdo->prepare('SELECT * FROM {pick(rng, TABLES)} WHERE {pick(rng, COLS)} = ?');\n"
            f"$stmt->execute([$_GET['id'] ?? 0]);\nforeach ($stmt as $row) {{\n    echo htmlspecialchars($row['name']), \"<br>\";\n}}")


def java(rng):
    return (f"public List<{pick(rng, ['Order', 'User', 'Invoice'])}> findRecent(int days) {{\n"
            f"    return repo.findAll().stream()\n        .filter(o -> o.getCreatedAt().isAfter(Instant.now().minus(days, ChronoUnit.DAYS)))\n"
            f"        .sorted(Comparator.comparing(o -> o.getTotal()))\n        .collect(Collectors.toList());\n}}")


def csharp(rng):
    return (f"var items = await _db.{pick(rng, ['Orders', 'Users', 'Products'])}\n    .Where(x => x.Status == \"{pick(rng, ['Paid', 'Open'])}\" && x.Total > {rng.randint(1, 500)})\n"
            f"    .OrderByDescending(x => x.CreatedAt)\n    .Take({rng.randint(5, 50)})\n    .ToListAsync(ct);")


def powershell(rng):
    return (f"Get-ChildItem -Path C:\\inetpub\\logs\\LogFiles -Recurse -Filter *.log |\n  Where-Object {{ $_.LastWriteTime -lt (Get-Date).AddDays(-{rng.randint(7, 60)}) }} |\n"
            f"  Remove-Item -WhatIf")


def github_actions(rng):
    tool = pick(rng, ["python", "node"])
    versions = '"3.11", "3.12"' if tool == "python" else "18, 20, 22"
    setup = "python@v5" if tool == "python" else "node@v4"
    install = "pip install -r requirements.txt" if tool == "python" else "npm ci"
    test = pick(rng, ["pytest -x --cov=src", "npm test -- --ci", "make lint test"])
    runner = pick(rng, ["ubuntu-latest", "ubuntu-24.04", "macos-14", "windows-latest"])
    return (f"name: CI\non:\n  push:\n    branches: [ main ]\n  pull_request:\njobs:\n  test:\n    runs-on: {runner}\n"
            f"    strategy:\n      matrix:\n        {tool}: [{versions}]\n"
            f"    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-{setup}\n"
            f"      - run: |\n          {install}\n          {test}\n"
            f"      - name: Upload\n        if: ${{{{ failure() }}}}\n        uses: actions/upload-artifact@v4\n        with:\n"
            f"          name: logs-${{{{ matrix.{tool} }}}}\n          path: ./reports/**\n")


def gitlab_ci(rng):
    return (f"stages: [build, test, deploy]\nvariables:\n  DOCKER_DRIVER: overlay2\nbuild:\n  stage: build\n  image: {pick(rng, IMAGES)}\n"
            f"  script:\n    - {pick(rng, ['make build', 'cargo build --release', 'go build ./...'])}\n  artifacts:\n    paths: [dist/]\n"
            f"deploy:\n  stage: deploy\n  only: [main]\n  script:\n    - rsync -avz --delete dist/ deploy@$DEPLOY_HOST:{pick(rng, PATHS[:5])}/\n")


def dockerfile(rng):
    img = pick(rng, IMAGES)
    return (f"FROM {img} AS build\nWORKDIR /src\nCOPY . .\nRUN {pick(rng, ['apt-get update && apt-get install -y --no-install-recommends build-essential && rm -rf /var/lib/apt/lists/*', 'npm ci && npm run build', 'pip install --no-cache-dir -r requirements.txt'])}\n\n"
            f"FROM {pick(rng, ['gcr.io/distroless/base-debian12', 'alpine:3.20', img])}\nCOPY --from=build /src/dist /app\n"
            f"ENV PORT={rng.randint(3000, 9000)} TZ=Europe/Berlin\nEXPOSE {rng.randint(3000, 9000)}\nUSER 1000:1000\n"
            f"HEALTHCHECK CMD wget -qO- http://localhost:$PORT/health || exit 1\nCMD [\"{pick(rng, ['node', 'python', '/app/server'])}\", \"{pick(rng, ['server.js', 'main.py', '--config=/etc/app.yml'])}\"]\n")


def nginx(rng):
    h = f"{pick(rng, ['shop', 'api', 'www'])}.example.{pick(rng, ['com', 'org'])}"
    return (f"server {{\n    listen 443 ssl http2;\n    server_name {h};\n    root {pick(rng, PATHS[:4])}/public;\n"
            f"    ssl_certificate /etc/letsencrypt/live/{h}/fullchain.pem;\n    client_max_body_size {rng.randint(1, 100)}m;\n\n"
            f"    location / {{\n        try_files $uri $uri/ /index.php?$query_string;\n    }}\n"
            f"    location ~ \\.php$ {{\n        fastcgi_pass unix:/run/php/php8.{rng.randint(1, 3)}-fpm.sock;\n        include fastcgi_params;\n    }}\n"
            f"    location /api/ {{\n        proxy_pass http://127.0.0.1:{rng.randint(3000, 9000)};\n        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;\n    }}\n}}")


def apache(rng):
    return (f"<VirtualHost *:80>\n    ServerName www.example.{pick(rng, ['com', 'net'])}\n    DocumentRoot /var/www/{pick(rng, ['html', 'site', 'wordpress'])}\n"
            f"    <Directory /var/www/>\n        AllowOverride All\n        Require all granted\n    </Directory>\n"
            f"    RewriteEngine On\n    RewriteCond %{{HTTPS}} off\n    RewriteRule ^(.*)$ https://%{{HTTP_HOST}}$1 [R=301,L]\n"
            f"    ErrorLog ${{APACHE_LOG_DIR}}/error.log\n</VirtualHost>")


def k8s(rng):
    app = pick(rng, ["api", "web", "worker", "checkout"])
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {app}\nspec:\n  replicas: {rng.randint(1, 6)}\n"
            f"  template:\n    spec:\n      containers:\n        - name: {app}\n          image: registry.example.com/{app}:{rng.randint(1, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}\n"
            f"          resources:\n            limits: {{ cpu: \"{rng.randint(1, 4)}\", memory: {pick(rng, ['256Mi', '512Mi', '1Gi'])} }}\n"
            f"          envFrom:\n            - secretRef: {{ name: {app}-env }}\n")


def env_file(rng):
    return (f"NODE_ENV=production\nDATABASE_URL=postgres://app:changeme@db:5432/{pick(rng, ['shop', 'app', 'prod'])}\n"
            f"REDIS_URL=redis://cache:6379/0\nLOG_LEVEL={pick(rng, ['info', 'debug', 'warn'])}\nALLOWED_HOSTS=.example.com,localhost\n")


def traceback(rng):
    f = pick(rng, FUNCS)
    kind = rng.randrange(5)
    if kind == 0:
        return (f"Traceback (most recent call last):\n  File \"{pick(rng, PATHS[:6])}/app/views.py\", line {rng.randint(10, 900)}, in {f}\n"
                f"    obj = Model.objects.get(pk=pk)\n  File \"/usr/local/lib/python3.12/site-packages/django/db/models/query.py\", line 649, in get\n"
                f"    raise self.model.DoesNotExist(\ndjango.core.exceptions.ObjectDoesNotExist: {pick(rng, ['Order', 'User'])} matching query does not exist.")
    if kind == 1:
        return (f"java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"<local{rng.randint(1, 9)}>\" is null\n"
                f"\tat com.example.shop.{pick(rng, ['OrderService', 'CartController'])}.{f}({pick(rng, ['OrderService', 'CartController'])}.java:{rng.randint(20, 500)})\n"
                f"\tat org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:885)\n\tat java.base/java.lang.Thread.run(Thread.java:1583)")
    if kind == 2:
        return (f"TypeError: Cannot read properties of undefined (reading '{pick(rng, COLS)}')\n    at {f} (webpack-internal:///./src/{pick(rng, ['App', 'Cart', 'Checkout'])}.tsx:{rng.randint(1, 300)}:{rng.randint(1, 80)})\n"
                f"    at renderWithHooks (node_modules/react-dom/cjs/react-dom.development.js:15486:18)")
    if kind == 3:
        return (f"panic: runtime error: index out of range [{rng.randint(1, 9)}] with length {rng.randint(0, 1)}\n\ngoroutine {rng.randint(1, 400)} [running]:\n"
                f"main.{f}(...)\n\t/src/cmd/server/main.go:{rng.randint(10, 300)} +0x1d4\nexit status 2")
    return (f"System.InvalidOperationException: Sequence contains no elements\n   at System.Linq.ThrowHelper.ThrowNoElementsException()\n"
            f"   at Shop.Api.Controllers.{pick(rng, ['Orders', 'Users'])}Controller.Get(Int32 id) in C:\\src\\Shop.Api\\Controllers\\OrdersController.cs:line {rng.randint(10, 200)}")


def log_excerpt(rng):
    ip = f"{rng.randint(1, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    kind = rng.randrange(4)
    if kind == 0:
        return "\n".join(
            f"{ip} - - [25/Nov/2024:{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d} +0000] \"{pick(rng, ['GET', 'POST'])} "
            f"/{pick(rng, TABLES)}/{rng.randint(1, 999)}?page={rng.randint(1, 9)} HTTP/1.1\" {pick(rng, [200, 200, 301, 404, 502])} {rng.randint(100, 90000)} \"-\" \"Mozilla/5.0\""
            for _ in range(rng.randint(2, 5)))
    if kind == 1:
        return (f"{rng.randint(2024, 2025)}/11/{rng.randint(10, 28)} 10:{rng.randint(10, 59)}:07 [error] {rng.randint(100, 9999)}#0: *{rng.randint(1, 99999)} upstream timed out "
                f"(110: Connection timed out) while reading response header from upstream, client: {ip}, server: example.com, "
                f"request: \"GET /api/v1/{pick(rng, TABLES)} HTTP/1.1\", upstream: \"http://127.0.0.1:{rng.randint(3000, 9000)}/api/v1/{pick(rng, TABLES)}\"")
    if kind == 2:
        return (f"Nov {rng.randint(10, 28)} 03:{rng.randint(10, 59)}:11 web-{rng.randint(1, 9)} kernel: [{rng.randint(1000, 99999)}.{rng.randint(100000, 999999)}] Out of memory: Killed process {rng.randint(1000, 60000)} "
                f"({pick(rng, ['node', 'java', 'python3'])}) total-vm:{rng.randint(1000000, 9000000)}kB")
    return "\n".join(f"{{\"level\":\"{pick(rng, ['info', 'warn', 'error'])}\",\"ts\":\"2025-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T0{rng.randint(0, 9)}:12:33Z\","
                     f"\"msg\":\"{pick(rng, ['request finished', 'retrying', 'cache miss'])}\",\"trace_id\":\"{hexid(rng, 32)}\"}}" for _ in range(rng.randint(2, 4)))


def crontab(rng):
    return (f"# m h dom mon dow command\n{rng.randint(0, 59)} {rng.randint(0, 23)} * * * /usr/bin/php {pick(rng, PATHS[:4])}/artisan schedule:run >> /dev/null 2>&1\n"
            f"*/{pick(rng, [5, 10, 15])} * * * * /usr/local/bin/backup.sh --target s3://backups-{alnum(rng, 6).lower()}/ 2>&1 | logger -t backup")


def package_json(rng):
    deps = {p: f"^{rng.randint(0, 18)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}" for p in rng.sample(NPM, 4)}
    import json
    return json.dumps({"name": f"@example/{pick(rng, ['web', 'api', 'ui'])}", "private": True,
                       "scripts": {"dev": "vite", "build": "tsc && vite build", "test": "vitest run"},
                       "dependencies": deps}, indent=2)


LANG_FENCE = [(sql, "sql"), (shell, "bash"), (python, "python"), (javascript, "js"), (go, "go"), (rust, "rust"),
              (php, "php"), (java, "java"), (csharp, "csharp"), (powershell, "powershell"), (github_actions, "yaml"),
              (gitlab_ci, "yaml"), (dockerfile, "dockerfile"), (nginx, "nginx"), (apache, "apache"), (k8s, "yaml"),
              (env_file, "ini"), (traceback, "text"), (log_excerpt, "text"), (crontab, "text"), (package_json, "json")]


def snippet(rng):
    """(code, fence language) of any kind."""
    gen, lang = pick(rng, LANG_FENCE)
    return gen(rng), lang


QUESTIONS = [
    "Why does this {w} fail only in production?", "How do I fix \"{e}\" after upgrading?",
    "{w} works on my machine but not in CI", "Is there a cleaner way to write this {w}?",
    "Getting {e} when I run the {w} below", "Migrating our {w} from {a} to {b} -- any gotchas?",
    "Slow {w} (takes {k}s) -- what am I missing?", "Best practice for {w} with {a}?",
]
WHAT = ["query", "script", "Dockerfile", "workflow", "nginx config", "cron job", "deployment", "migration",
        "function", "vhost", "pipeline", "handler"]
ERRORS = ["permission denied", "502 Bad Gateway", "ECONNRESET", "ModuleNotFoundError: No module named 'yaml'",
          "duplicate key value violates unique constraint", "exit code 137", "certificate verify failed",
          "Segmentation fault (core dumped)", "CORS policy: No 'Access-Control-Allow-Origin' header"]
TECH = ["MySQL 5.7", "Postgres 16", "Node 18", "Node 22", "Python 3.8", "Python 3.12", "Apache", "nginx",
        "Docker Compose v1", "Kubernetes", "Heroku", "Jenkins", "GitHub Actions", "Ubuntu 20.04", "Debian 12"]


def question_title(rng):
    return (pick(rng, QUESTIONS).replace("{w}", pick(rng, WHAT)).replace("{e}", pick(rng, ERRORS))
            .replace("{a}", pick(rng, TECH)).replace("{b}", pick(rng, TECH)).replace("{k}", str(rng.randint(2, 90))))


def ticket_ref(rng):
    return pick(rng, [f"#{rng.randint(100, 99999)}", f"JIRA-{rng.randint(100, 9999)}", f"INC{rng.randint(1000000, 9999999)}",
                      f"GH-{rng.randint(1, 5000)}", hexid(rng, 7), uid(rng)[:8]])
