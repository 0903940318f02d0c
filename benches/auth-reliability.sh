#!/usr/bin/env bash
# Reliability of the auth service with a real PostgreSQL and Redis, from the repository root:
#
#   bash benches/auth-reliability.sh                        # builds release unless AUTH_BIN names a binary
#   AUTH_BIN=target/debug/auth bash benches/auth-reliability.sh
#
# Scenarios, each failing the script when its claim does not hold:
#   postgres-restart  tokens issued (client_credentials) under a wrk load while PostgreSQL is stopped for
#                     PG_DOWN_SECONDS (3) and started again: while it is down a request waits for a connection at
#                     most the pool's 5 s acquire timeout, then answers 200 (PostgreSQL is back) or 5xx, never
#                     hangs; afterwards the same process issues tokens again (no restart), and every token it
#                     issued (answered 200) before, during and after the outage is still active (introspection)
#   redis-down        Redis frozen (SIGSTOP: connections and commands hang, the worst case) and then killed:
#                     every sign-in still answers 202, none slower than Redis's 1 s timeout plus the slowest
#                     sign-in with Redis up (login events are published off the request path)
# Needs PostgreSQL (initdb, pg_ctl), redis-server, wrk, curl.
set -euo pipefail
cd "$(dirname "$0")/.."

PG_DOWN_SECONDS="${PG_DOWN_SECONDS:-3}"
AUTH_PORT=18094 PG_PORT=18095 REDIS_PORT=18096
# Redis's connect and command timeout in the service (auth/src/events.rs).
REDIS_TIMEOUT_MS=1000
# The PostgreSQL pool's acquire timeout (auth/src/store/postgres.rs), and what a request may take beyond it.
PG_ACQUIRE_MS=5000 SLACK_MS=2000

for tool in redis-server wrk curl; do
  command -v "$tool" >/dev/null || { echo "auth-reliability.sh: $tool not found" >&2; exit 1; }
done
pg_bin="$(dirname "$(find /usr/lib/postgresql -name initdb -path '*/bin/*' | sort -V | tail -n1)")"
[ -x "$pg_bin/initdb" ] || { echo "auth-reliability.sh: PostgreSQL not found (apt-get install postgresql)" >&2; exit 1; }
if [ -z "${AUTH_BIN:-}" ]; then
  cargo build --release -q -p auth --bin auth
  AUTH_BIN="${CARGO_TARGET_DIR:-target}/release/auth"
fi

work="$(mktemp -d)"
chmod 755 "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
  pg stop -m immediate >/dev/null 2>&1 || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL $*" >&2; tail -n 20 "$work/auth.log" >&2 || true; exit 1; }

# PostgreSQL refuses to run as root: as root, the cluster belongs to the postgres user.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
mkdir -p "$work/pg"
[ "$(id -u)" = 0 ] && chown postgres: "$work/pg"
as_pg "$pg_bin/initdb" -D "$work/pg/data" -A trust -U postgres --no-sync -E UTF8 >/dev/null
pg() { # pg_ctl action...
  as_pg "$pg_bin/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -w \
    -o "-c listen_addresses=127.0.0.1 -c port=$PG_PORT -c unix_socket_directories=$work/pg -c fsync=off" "$@"
}
pg start >/dev/null

redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no >"$work/redis.log" 2>&1 &
redis_pid=$!
pids+=("$redis_pid")

export SQL_HOST=127.0.0.1 SQL_PORT="$PG_PORT" SQL_USER=postgres SQL_DATABASE=postgres
export KVSTORE_URL="redis://127.0.0.1:$REDIS_PORT" RUST_LOG=warn BCRYPT_COST=4
# The 30 sign-ins of redis-down come from one address for one account: above the default throttles (10 a minute).
export SIGNIN_ATTEMPTS_PER_ACCOUNT=100 SIGNIN_ATTEMPTS_PER_ADDRESS=100
"$AUTH_BIN" migrate >/dev/null
"$AUTH_BIN" authority add --domain localhost --name Reliability >/dev/null
"$AUTH_BIN" user add --domain localhost --email ada@example.com --password 'correct horse' >/dev/null
client="$("$AUTH_BIN" client add --domain localhost --name reliability --redirect-uri https://localhost/cb)"
id="$(sed -E 's/.*"client_id":"([^"]+)".*/\1/' <<<"$client")"
secret="$(sed -E 's/.*"client_secret":"([^"]+)".*/\1/' <<<"$client")"
basic="Authorization: Basic $(printf '%s:%s' "$id" "$secret" | base64 -w0)"

"$AUTH_BIN" -b 127.0.0.1 -p "$AUTH_PORT" >"$work/auth.log" 2>&1 &
auth_pid=$!
pids+=("$auth_pid")
base="http://localhost:$AUTH_PORT"
curl -s --retry 50 --retry-delay 0 --retry-connrefused --retry-max-time 60 -o /dev/null "$base/auth/healthz" \
  || fail "auth did not start"

# One token request: prints "status milliseconds", and appends the token to FILE when it is 200. Never waits over
# 30 s (status 000: no answer).
issue() { # file
  local answer status
  answer="$(curl -s -m 30 -w '\n%{http_code} %{time_total}' -X POST -H "$basic" -d grant_type=client_credentials \
    "$base/auth/token")" || { echo "000 30000"; return; }
  status="${answer##*$'\n'}"
  [ "${status%% *}" = 200 ] && sed -E 's/.*"access_token":"([^"]+)".*/\1/' <<<"${answer%$'\n'*}" >>"$1"
  awk '{printf "%s %d\n", $1, $2 * 1000}' <<<"$status"
}

# postgres-restart
tokens="$work/tokens"
: >"$tokens"
for _ in $(seq 5); do [ "$(issue "$tokens" | cut -d' ' -f1)" = 200 ] || fail "postgres-restart: no token before"; done
cat >"$work/token.lua" <<LUA
wrk.method = "POST"
wrk.body = "grant_type=client_credentials"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = "${basic#Authorization: }"
LUA
wrk -t1 -c4 -d"$(( PG_DOWN_SECONDS + 10 ))s" -s "$work/token.lua" "$base/auth/token" >"$work/load.wrk" &
wrk_pid=$!
pids+=("$wrk_pid")
# Sequential requests next to the load: their tokens are kept, their statuses show the outage.
(
  end=$(( SECONDS + PG_DOWN_SECONDS + 8 ))
  while [ "$SECONDS" -lt "$end" ]; do issue "$tokens"; done
) >"$work/statuses" &
probe_pid=$!
sleep 2
pg stop -m fast >/dev/null
sleep "$PG_DOWN_SECONDS"
pg start >/dev/null
wait "$probe_pid"
wait "$wrk_pid"
after="$(issue "$tokens" | cut -d' ' -f1)"
summary="$(cut -d' ' -f1 "$work/statuses" | sort | uniq -c | awk '{printf "%s×%s ", $2, $1}')"
longest="$(sort -k2 -n "$work/statuses" | tail -n1 | cut -d' ' -f2)"
echo "postgres-restart: sequential answers ${summary}(000: none within 30 s), the longest ${longest} ms; after: $after"
grep -qvE '^(200|5[0-9][0-9]) ' "$work/statuses" && fail "postgres-restart: answers other than 200 and 5xx"
[ "$longest" -le $(( PG_ACQUIRE_MS + SLACK_MS )) ] || fail "postgres-restart: a request waited $longest ms"
# A request met the outage when it failed or waited for PostgreSQL to come back.
awk -v d="$PG_DOWN_SECONDS" '$1 != 200 || $2 >= d * 500 {met = 1} END {exit !met}' "$work/statuses" \
  || fail "postgres-restart: no request met the outage (raise PG_DOWN_SECONDS)"
[ "$after" = 200 ] && kill -0 "$auth_pid" || fail "postgres-restart: no recovery without a restart"
issued="$(wc -l <"$tokens")"
inactive=0
while read -r token; do
  curl -s -X POST -H "$basic" --data-urlencode "token=$token" "$base/auth/introspect" | grep -q '"active":true' \
    || inactive=$(( inactive + 1 ))
done <"$tokens"
echo "postgres-restart: $issued tokens issued (before, during, after), $inactive of them no longer active;" \
  "wrk: $(awk '/requests in/ {print $1, "requests"} /Non-2xx/ {print $NF, "non-2xx"}' "$work/load.wrk" | tr '\n' ' ')"
[ "$inactive" = 0 ] || fail "postgres-restart: issued tokens were lost"

# redis-down
signin_ms() { # prints "status milliseconds"
  curl -s -o /dev/null -m 30 -w '%{http_code} %{time_total}\n' -H 'Content-Type: application/json' \
    -d '{"email":"ada@example.com","password":"correct horse"}' "$base/auth/signin" \
    | awk '{printf "%s %d\n", $1, $2 * 1000}'
}
slowest() { sort -k2 -n "$1" | tail -n1 | awk '{print $2}'; }
for _ in $(seq 10); do signin_ms; done >"$work/up"
kill -STOP "$redis_pid"
for _ in $(seq 10); do signin_ms; done >"$work/frozen"
kill -CONT "$redis_pid"; kill "$redis_pid"; wait "$redis_pid" 2>/dev/null || true
for _ in $(seq 10); do signin_ms; done >"$work/down"
echo "redis-down: slowest sign-in with Redis up $(slowest "$work/up") ms, frozen $(slowest "$work/frozen") ms," \
  "killed $(slowest "$work/down") ms"
limit=$(( $(slowest "$work/up") + REDIS_TIMEOUT_MS ))
for phase in frozen down; do
  [ "$(awk '{print $1}' "$work/$phase" | sort -u)" = 202 ] || fail "redis-down: a sign-in with Redis $phase failed"
  [ "$(slowest "$work/$phase")" -le "$limit" ] || fail "redis-down: a sign-in with Redis $phase took over $limit ms"
done
kill -0 "$auth_pid" || fail "redis-down: the service died"
echo "auth reliability: postgres-restart and redis-down passed"
