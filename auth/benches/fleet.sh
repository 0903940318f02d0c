#!/usr/bin/env bash
# The auth service as a fleet: the token endpoint (client_credentials, HTTP Basic) of three replicas behind nginx
# on one PostgreSQL database and one Redis, against one replica behind the same nginx, in alternating rounds (1, 3,
# 1, 3, ...) so a change in the machine's load hits both; then dynamic client registration (RFC 7591) under load
# through the three replicas, each request from its own X-Forwarded-For address so the registration itself is
# measured (one INSERT and the Redis-counted limit), not the 429 of one address. Medians are printed.
#
# Usage: [AUTH_BIN=path] [ROUNDS=3] bash auth/benches/fleet.sh [seconds] [connections]
#        (needs PostgreSQL's initdb/pg_ctl, redis-server, nginx, wrk, curl; builds release unless AUTH_BIN is set)
# On one machine the replicas share its cores with nginx, PostgreSQL, Redis and wrk: the figure says what the
# fleet's coordination costs (the load balancer's hop, no per-process client cache, Redis-counted limits), not
# what three machines would give.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-10}"
connections="${2:-32}"
rounds="${ROUNDS:-3}"
replicas=3

for tool in redis-server nginx wrk curl; do
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || { echo "fleet.sh: $tool not found" >&2; exit 1; }
done
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
pg_bin="$(dirname "$(find /usr/lib/postgresql -name initdb -path '*/bin/*' | sort -V | tail -n1)")"
[ -x "$pg_bin/initdb" ] || { echo "fleet.sh: PostgreSQL not found (apt-get install postgresql)" >&2; exit 1; }
if [ -z "${AUTH_BIN:-}" ]; then
  cargo build --release -q -p auth --bin auth
  AUTH_BIN="${CARGO_TARGET_DIR:-target}/release/auth"
fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

work="$(mktemp -d)"
chmod 755 "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  pg stop -m immediate >/dev/null 2>&1 || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# PostgreSQL refuses to run as root: as root, the cluster belongs to the postgres user.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
pg_port="$(free_port)"
mkdir -p "$work/pg"
[ "$(id -u)" = 0 ] && chown postgres: "$work/pg"
as_pg "$pg_bin/initdb" -D "$work/pg/data" -A trust -U postgres --no-sync -E UTF8 >/dev/null
pg() {
  as_pg "$pg_bin/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -w \
    -o "-c listen_addresses=127.0.0.1 -c port=$pg_port -c unix_socket_directories=$work/pg" "$@"
}
pg start >/dev/null
redis_port="$(free_port)"
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no >"$work/redis.log" 2>&1 &
pids+=($!)

export SQL_HOST=127.0.0.1 SQL_PORT="$pg_port" SQL_USER=postgres SQL_DATABASE=postgres
export KVSTORE_URL="redis://127.0.0.1:$redis_port" RUST_LOG=warn TRUSTED_PROXIES=127.0.0.1
export COOKIE_SESSION_SECRET=0123456789abcdef0123456789abcdef-bench SECRET_KEY_BASE=bench
export REGISTRATION_LIMIT_PER_HOUR=1000
"$AUTH_BIN" migrate >/dev/null
"$AUTH_BIN" authority add --domain localhost --name Bench >/dev/null
client="$("$AUTH_BIN" client add --domain localhost --name bench --redirect-uri https://localhost/cb)"
id="$(sed -E 's/.*"client_id":"([^"]+)".*/\1/' <<<"$client")"
secret="$(sed -E 's/.*"client_secret":"([^"]+)".*/\1/' <<<"$client")"

servers=""
for _ in $(seq "$replicas"); do
  port="$(free_port)"
  "$AUTH_BIN" -b 127.0.0.1 -p "$port" 2>>"$work/auth.log" &
  pids+=($!)
  servers="$servers server 127.0.0.1:$port;"
  curl -s --retry 50 --retry-delay 0 --retry-connrefused --retry-max-time 60 -o /dev/null \
    "http://127.0.0.1:$port/auth/healthz"
  [ -z "${first:-}" ] && first="server 127.0.0.1:$port;"
done
one_port="$(free_port)" three_port="$(free_port)"
mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<NGINX
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work/nginx/body; proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi; uwsgi_temp_path $work/nginx/uwsgi; scgi_temp_path $work/nginx/scgi;
  upstream one { $first keepalive 64; }
  upstream three { $servers keepalive 64; }
  server { listen 127.0.0.1:$one_port;
    location / { proxy_pass http://one; proxy_http_version 1.1; proxy_set_header Connection "";
      proxy_set_header Host localhost; proxy_set_header X-Forwarded-For \$http_x_forwarded_for; } }
  server { listen 127.0.0.1:$three_port;
    location / { proxy_pass http://three; proxy_http_version 1.1; proxy_set_header Connection "";
      proxy_set_header Host localhost; proxy_set_header X-Forwarded-For \$http_x_forwarded_for; } }
}
NGINX
"$nginx_bin" -p "$work/nginx" -c "$work/nginx/nginx.conf" -g 'daemon off;' &
pids+=($!)
for port in "$one_port" "$three_port"; do
  curl -s --retry 50 --retry-delay 0 --retry-connrefused --retry-max-time 30 -o /dev/null \
    "http://127.0.0.1:$port/auth/healthz"
done

cat >"$work/token.lua" <<LUA
wrk.method = "POST"
wrk.body = "grant_type=client_credentials"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = "Basic $(printf '%s:%s' "$id" "$secret" | base64 -w0)"
LUA
cat >"$work/register.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"client_name":"bench agent","redirect_uris":["http://127.0.0.1:43123/callback"]}'
wrk.headers["Content-Type"] = "application/json"
local n = 0
request = function()
  n = n + 1
  -- A new client address per request (198.18.0.0/15, the benchmarking range).
  local address = string.format("198.18.%d.%d", math.floor(n / 250) % 250, n % 250 + 1)
  -- wrk.format takes the headers whole, so the request's own table carries Content-Type too.
  return wrk.format(nil, nil, { ["Content-Type"] = "application/json", ["X-Forwarded-For"] = address })
end
LUA
# wrk's requests/s, or fails the run when any answer was not 2xx.
rate() { # script port path
  local out
  out="$(wrk -t2 -c"$connections" -d"${seconds}s" -s "$1" "http://127.0.0.1:$2$3")"
  if grep -q "Non-2xx" <<<"$out"; then echo "fleet.sh: non-2xx answers on port $2 $3:" >&2; echo "$out" >&2; exit 1; fi
  awk '/Requests\/sec/ {printf "%d\n", $2}' <<<"$out"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: >"$work/one"; : >"$work/three"
for round in $(seq "$rounds"); do
  one="$(rate "$work/token.lua" "$one_port" /auth/token)"
  three="$(rate "$work/token.lua" "$three_port" /auth/token)"
  echo "round $round: client_credentials tokens/s: 1 replica $one, $replicas replicas $three"
  echo "$one" >>"$work/one"; echo "$three" >>"$work/three"
done
registrations="$(rate "$work/register.lua" "$three_port" /auth/register)"
echo "median client_credentials tokens/s: 1 replica $(median <"$work/one"), $replicas replicas $(median <"$work/three")" \
  "(PostgreSQL, Redis, nginx, wrk on $(nproc) cores)"
echo "registrations/s through $replicas replicas: $registrations"
