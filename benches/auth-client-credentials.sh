#!/usr/bin/env bash
# Load test of the auth service's token endpoint (client_credentials), against the machine's own RSA-2048 signing
# rate measured in the same run: every token costs one RSA signature and one oauth_tokens row, so the ratio
# says how much of the CPU the rest of the path takes.
#
# Usage: benches/auth-client-credentials.sh [seconds] [connections]   (needs wrk and openssl; builds release)
# The server and the load generator share the machine, as the targets of issue 7 assume.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
connections="${2:-16}"
cargo build --release -q -p auth
auth="${CARGO_TARGET_DIR:-target}/release/auth"
work="$(mktemp -d)"
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
export DATA_DIR="$work" RUST_LOG=warn
"$auth" authority add --domain localhost --name Bench >/dev/null
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
kill "$server"; server=""
signs="$(openssl speed -multi 2 -seconds "$seconds" rsa2048 2>/dev/null | awk '/^rsa 2048/ {print $(NF-1)}')"
echo "client_credentials tokens/s: $tokens"
echo "openssl rsa2048 signs/s (2 processes): $signs"
awk -v t="$tokens" -v s="$signs" 'BEGIN { printf "ratio: %.0f%% of the machine'"'"'s RSA-2048 signing rate\n", 100 * t / s }' 
