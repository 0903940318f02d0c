#!/usr/bin/env bash
# Load test of the auth service's token endpoint (client_credentials), against the machine's own RSA-2048 signing
# rate measured in the same run: every token costs one RSA signature and one oauth_tokens row, so the ratio
# says how much of the CPU the rest of the path takes. Then GET /auth/userinfo with a user's Bearer token from the
# code flow (one RSA verification, the token's row and the user read per request).
#
# Usage: [AUTH_BIN=path] benches/auth-client-credentials.sh [seconds] [connections]
#        (needs wrk and openssl; builds release unless AUTH_BIN names a binary)
# The server and the load generator share the machine, as the targets of issue 7 assume.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
connections="${2:-16}"
# AUTH_BIN: a prebuilt binary instead (e.g. a copy of the previous build, for a before/after comparison).
if [ -n "${AUTH_BIN:-}" ]; then
  auth="$AUTH_BIN"
else
  cargo build --release -q -p auth
  auth="${CARGO_TARGET_DIR:-target}/release/auth"
fi
work="$(mktemp -d)"
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
export DATA_DIR="$work" RUST_LOG=warn
"$auth" authority add --domain localhost --name Bench >/dev/null
"$auth" user add --domain localhost --email bench@localhost --password 'bench password' >/dev/null
client="$("$auth" client add --domain localhost --name bench --redirect-uri https://localhost/cb)"
id="$(sed -E 's/.*"client_id":"([^"]+)".*/\1/' <<<"$client")"
secret="$(sed -E 's/.*"client_secret":"([^"]+)".*/\1/' <<<"$client")"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$auth" -b 127.0.0.1 -p "$port" 2>"$work/server.log" &
server=$!
for _ in $(seq 50); do curl -fs "http://localhost:$port/auth/healthz" >/dev/null && break; sleep 0.1; done
cat >"$work/token.lua" <<LUA
wrk.method = "POST"
wrk.body = "grant_type=client_credentials"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = "Basic $(printf '%s:%s' "$id" "$secret" | base64 -w0)"
LUA
status="$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Basic $(printf '%s:%s' "$id" "$secret" | base64 -w0)" \
  -d grant_type=client_credentials "http://localhost:$port/auth/token")"
[ "$status" = 200 ] || { echo "token endpoint answered $status" >&2; cat "$work/server.log" >&2; exit 1; }
tokens="$(wrk -t2 -c"$connections" -d"${seconds}s" -s "$work/token.lua" "http://localhost:$port/auth/token" \
  | awk '/Requests\/sec/ {print $2}')"
# A user token by the code flow: sign in, authorize, redeem.
base="http://localhost:$port"
curl -fs -c "$work/jar" -H 'Content-Type: application/json' \
  -d '{"email":"bench@localhost","password":"bench password"}' "$base/auth/signin"
location="$(curl -fs -b "$work/jar" -o /dev/null -w '%{redirect_url}' \
  "$base/auth/authorize?response_type=code&client_id=$id&redirect_uri=https%3A%2F%2Flocalhost%2Fcb")"
code="$(sed -E 's/.*[?&]code=([^&]+).*/\1/' <<<"$location")"
access="$(curl -fs -u "$id:$secret" -d grant_type=authorization_code -d "code=$code" \
  --data-urlencode redirect_uri=https://localhost/cb "$base/auth/token" | sed -E 's/.*"access_token":"([^"]+)".*/\1/')"
status="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $access" "$base/auth/userinfo")"
[ "$status" = 200 ] || { echo "userinfo answered $status" >&2; cat "$work/server.log" >&2; exit 1; }
# The server's CPU time per request (user + system, from /proc): less swayed by the other load on the machine
# than the request rate is.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
before="$(cpu_ticks)"
wrk -t2 -c"$connections" -d"${seconds}s" -H "Authorization: Bearer $access" "$base/auth/userinfo" >"$work/userinfo.txt"
after="$(cpu_ticks)"
userinfo="$(awk '/Requests\/sec/ {print $2}' "$work/userinfo.txt")"
userinfo_cpu="$(awk -v t="$((after - before))" -v hz="$(getconf CLK_TCK)" \
  '/requests in/ {printf "%.0f", t / hz * 1e6 / $1}' "$work/userinfo.txt")"
kill "$server"; server=""
signs="$(openssl speed -multi 2 -seconds "$seconds" rsa2048 2>/dev/null | awk '/^rsa 2048/ {print $(NF-1)}')"
echo "client_credentials tokens/s: $tokens"
echo "openssl rsa2048 signs/s (2 processes): $signs"
awk -v t="$tokens" -v s="$signs" 'BEGIN { printf "ratio: %.0f%% of the machine'"'"'s RSA-2048 signing rate\n", 100 * t / s }' 
echo "userinfo requests/s: $userinfo"
echo "userinfo server CPU per request: $userinfo_cpu µs"
awk -v u="$userinfo" 'BEGIN { printf "userinfo: %.0f%% of the 10,000 requests/s target\n", u / 100 }'

