"""code-snippets.txt: code, shell commands, SQL, configuration files, stack traces and log excerpts in text fields,
as developer communities and support tools receive them: forum and Q&A posts (Discourse /posts.json, phpBB, Stack
Overflow-style question forms), support tickets (Zendesk/Freshdesk/Jira-like JSON: subject, description, comments),
CI and hosting settings saved through web UIs (GitHub Actions and GitLab CI YAML, Dockerfiles, nginx and Apache
config, Kubernetes manifests, .env templates, crontabs), pastebin-style uploads, code-review comments and chat
messages. Sent as JSON and as form fields (urlencoded and multipart).
"""
import random

from . import snippets, text
from .common import (Corpus, alnum, api_ref, bearer, cookie_header, email, fetch, form, form_post, hexid, host,
                     jsonb, pick, uid, weighted)

INTROS = ["Here's what I have:", "This is my current setup:", "Minimal repro below.", "Relevant part of the config:",
          "I get this when I run it:", "Full output:", "Tried this, no luck:", "Works with this change:",
          "Voici mon code :", "Hier ist mein Code:", "Este es el error:", "コードはこちらです：", "Вот лог:", "Kod aşağıda:"]
OUTROS = ["Any ideas? Thanks in advance.", "What am I doing wrong?", "Using {a} on {b}.", "Happens ~1 in 10 runs.",
          "Edit: fixed a typo in the question.", "Merci !", "Danke!", "¿Alguna idea?", "よろしくお願いします。", "Спасибо!"]


def post_body(rng, fenced=True):
    code, lang = snippets.snippet(rng)
    out = [pick(rng, [snippets.question_title(rng), text.sentence(rng, "en")]), pick(rng, INTROS)]
    out.append(f"```{lang}\n{code}\n```" if fenced else "\n".join("    " + ln for ln in code.splitlines()))
    if rng.random() < 0.4:
        code2, lang2 = snippets.snippet(rng)
        out += [pick(rng, INTROS), f"```{lang2}\n{code2}\n```" if fenced else code2]
    out.append(pick(rng, OUTROS).replace("{a}", pick(rng, snippets.TECH)).replace("{b}", pick(rng, snippets.TECH)))
    return "\n\n".join(out)


def discourse(rng, c):
    hst, ref = api_ref(rng, "forum", "forum", f"/t/{alnum(rng, 8).lower()}/{rng.randint(1, 99999)}")
    body = {"raw": post_body(rng), "topic_id": rng.randint(1, 99999), "category": rng.randint(1, 40), "nested_post": True,
            "reply_to_post_number": pick(rng, [None, rng.randint(1, 80)]), "archetype": "regular"}
    if rng.random() < 0.3:
        body = {"title": snippets.question_title(rng), "raw": body["raw"], "category": rng.randint(1, 40), "tags": rng.sample(["docker", "nginx", "sql", "python", "ci"], 2)}
    c.add("POST", "/posts.json", fetch(rng, hst, ref, content_type="application/json", cookie=cookie_header(rng),
                                       extra=[("X-CSRF-Token", alnum(rng, 86)), ("Discourse-Logged-In", "true"), ("Discourse-Present", "true"),
                                              ("X-Requested-With", "XMLHttpRequest")]), jsonb(body))


def qa_form(rng, c):
    hst = host(rng, "forum")
    fields = [("title", snippets.question_title(rng)), ("post-text", post_body(rng, fenced=rng.random() < 0.6)),
              ("tagnames", " ".join(rng.sample(["python", "docker", "nginx", "postgresql", "bash", "kubernetes", "javascript", "sql", "yaml"], 3))),
              ("fkey", hexid(rng, 64)), ("author", ""), ("i1l", alnum(rng, 12))]
    c.add("POST", "/questions/ask/submit", form_post(rng, hst, f"https://{hst}/questions/ask", "application/x-www-form-urlencoded",
                                                     cookie=cookie_header(rng)), form(fields))


def ticket(rng, c):
    hst, ref = api_ref(rng, pick(rng, ["support", "help", "api"]), "support")
    code, lang = snippets.snippet(rng)
    desc = "\n\n".join([text.prose(rng, pick(rng, text.LANGUAGES), 2), pick(rng, INTROS), code,
                        f"Ref: {snippets.ticket_ref(rng)} | env: {pick(rng, ['prod', 'staging'])} | browser: {pick(rng, ['Chrome 131', 'Firefox 133', 'Safari 18'])}"])
    body = pick(rng, [
        {"ticket": {"subject": snippets.question_title(rng), "comment": {"body": desc, "public": True},
                    "requester": {"name": text.name(rng), "email": email(rng)}, "priority": pick(rng, ["low", "normal", "high", "urgent"]),
                    "tags": ["api", pick(rng, ["bug", "question", "incident"])], "custom_fields": [{"id": rng.randint(10 ** 7, 10 ** 8), "value": lang}]}},
        {"fields": {"project": {"key": pick(rng, ["OPS", "WEB", "API"])}, "summary": snippets.question_title(rng),
                    "description": desc.replace("```", "{code}"), "issuetype": {"name": pick(rng, ["Bug", "Task", "Incident"])},
                    "labels": ["customer-reported"]}},
        {"description": desc, "subject": snippets.question_title(rng), "email": email(rng), "priority": rng.randint(1, 4), "status": 2,
         "cc_emails": [email(rng)], "type": pick(rng, ["Problem", "Question", "Incident"])}])
    c.add(pick(rng, ["POST", "POST", "PUT"]), pick(rng, ["/api/v2/tickets.json", "/rest/api/2/issue", "/api/v2/tickets", f"/api/v2/tickets/{rng.randint(1, 99999)}.json"]),
          fetch(rng, hst, ref, content_type="application/json", auth=bearer(rng)), jsonb(body))


def ci_settings(rng, c):
    hst, ref = api_ref(rng, "app", "app", f"/{alnum(rng, 6).lower()}/settings/ci")
    gen = pick(rng, [snippets.github_actions, snippets.gitlab_ci, snippets.dockerfile, snippets.nginx, snippets.apache,
                     snippets.k8s, snippets.env_file, snippets.crontab])
    content = gen(rng)
    kind = rng.randrange(3)
    if kind == 0:  # file save through a web editor (GitHub-style contents API: base64)
        import base64
        body = {"message": pick(rng, ["Update " + pick(rng, ["ci.yml", "Dockerfile", "nginx.conf"]), "Fix deploy step", "Bump Node to 22"]),
                "content": base64.b64encode(content.encode()).decode(), "sha": hexid(rng, 40), "branch": pick(rng, ["main", "develop", "fix/ci"])}
        c.add("PUT", f"/repos/{alnum(rng, 6).lower()}/{pick(rng, ['api', 'web'])}/contents/{pick(rng, ['.github/workflows/ci.yml', 'Dockerfile', 'deploy/nginx.conf'])}",
              fetch(rng, hst, ref, content_type="application/json", accept="application/vnd.github+json", auth=bearer(rng),
                    extra=[("X-GitHub-Api-Version", "2022-11-28")]), jsonb(body))
    elif kind == 1:  # raw text in JSON
        c.add(pick(rng, ["POST", "PATCH"]), pick(rng, ["/api/v1/pipelines/config", "/api/projects/" + str(rng.randint(1, 9999)) + "/files", "/api/sites/settings"]),
              fetch(rng, hst, ref, content_type="application/json", auth=bearer(rng)),
              jsonb({"path": pick(rng, [".gitlab-ci.yml", "Dockerfile", "nginx/default.conf", "k8s/deployment.yaml", ".env.example", "crontab"]),
                     "content": content, "commit_message": text.title(rng, "en"), "encoding": "text"}))
    else:  # form textarea (hosting control panels)
        fields = [("config", content), ("name", pick(rng, ["default", "staging vhost", "worker"])), ("_token", alnum(rng, 40)),
                  ("restart", pick(rng, ["0", "1"]))]
        c.add("POST", pick(rng, ["/panel/sites/42/nginx", "/admin/cron/save", "/settings/build"]),
              form_post(rng, hst, ref, "application/x-www-form-urlencoded", cookie=cookie_header(rng)), form(fields))


def paste(rng, c):
    hst = host(rng, pick(rng, ["paste", "www"]))
    code, lang = snippets.snippet(rng)
    if rng.random() < 0.5:
        fields = [("content", code), ("syntax", lang), ("expiry_days", pick(rng, ["1", "7", "30"])), ("title", pick(rng, ["", snippets.question_title(rng)]))]
        c.add("POST", "/", form_post(rng, hst, f"https://{hst}/", "application/x-www-form-urlencoded", cookie=cookie_header(rng)), form(fields))
    else:
        boundary = "----WebKitFormBoundary" + alnum(rng, 16)
        fn = pick(rng, ["error.log", "docker-compose.yml", "query.sql", "main.py", "nginx.conf", "trace.txt"])
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n{snippets.question_title(rng)}\r\n"
                f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{fn}\"\r\nContent-Type: text/plain\r\n\r\n{code}\r\n"
                f"--{boundary}--\r\n")
        c.add("POST", "/api/pastes", fetch(rng, hst, f"https://{hst}/new", content_type=f"multipart/form-data; boundary={boundary}", accept="*/*"), body)


def review_comment(rng, c):
    hst, ref = api_ref(rng, "api", "git", f"/{alnum(rng, 6).lower()}/web/pull/{rng.randint(1, 5000)}/files")
    code, lang = snippets.snippet(rng)
    body = {"body": pick(rng, ["nit: ", "Suggestion:\n", "Could we use this instead?\n", "LGTM, one question -- ", ""]) +
                    (f"```suggestion\n{code}\n```" if rng.random() < 0.5 else f"`{code.splitlines()[0][:60]}` {text.sentence(rng, 'en')}"),
            "commit_id": hexid(rng, 40), "path": pick(rng, ["src/app.py", "deploy/nginx.conf", "db/migrations/0042_add_index.sql", ".github/workflows/ci.yml"]),
            "line": rng.randint(1, 400), "side": "RIGHT"}
    c.add("POST", f"/repos/{alnum(rng, 6).lower()}/web/pulls/{rng.randint(1, 5000)}/comments",
          fetch(rng, hst, ref, content_type="application/json", accept="application/vnd.github+json", auth=bearer(rng)), jsonb(body))


def chat(rng, c):
    hst, ref = api_ref(rng, "chat", "chat")
    code, lang = snippets.snippet(rng)
    msg = f"{pick(rng, ['hey, anyone seen this?', 'prod is down again :(', 'fixed it with', 'fyi', 'ok so'])}\n```\n{code}\n```"
    c.add("POST", "/api/chat.postMessage", fetch(rng, hst, ref, content_type="application/json; charset=utf-8", auth=bearer(rng), cookie=cookie_header(rng)),
          jsonb({"channel": "C" + alnum(rng, 10).upper(), "text": msg, "thread_ts": pick(rng, [None, f"{rng.randint(1700000000, 1760000000)}.{rng.randint(100000, 999999)}"]),
                 "client_msg_id": uid(rng)}))


def build(n=2000, seed=0xC0DE5):
    rng = random.Random(seed)
    c = Corpus("code-snippets")
    makers = [(4, discourse), (2, qa_form), (4, ticket), (3, ci_settings), (2, paste), (2, review_comment), (2, chat)]
    for _ in range(n):
        weighted(rng, makers)(rng, c)
    return c
