#!/usr/bin/env bash
# The token endpoint against panva's oidc-provider (the OpenID-certified Node server) in the same run: both issue
# RS256 JWT access tokens by the client_credentials grant (HTTP Basic client authentication), signed with the same
# RSA-2048 key, both driven by wrk on this machine's cores. Rounds alternate (auth, oidc-provider, auth, ...) so a
# change in the machine's load hits both; the medians and their ratio are printed, and the machine's own signing
# rate (`openssl speed -multi 2 rsa2048`) to compare both with.
#
# Usage: [AUTH_BIN=path] [ROUNDS=3] benches/auth-vs-oidc-provider.sh [seconds] [connections]
#        (needs wrk, openssl, node and npm; installs oidc-provider from npm as auth/tests/oidc_provider pins it;
#        builds release unless AUTH_BIN names a binary)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
connections="${2:-32}"
rounds="${ROUNDS:-3}"
if [ -n "${AUTH_BIN:-}" ]; then
  auth="$AUTH_BIN"
else
  cargo build --release -q -p auth
  auth="${CARGO_TARGET_DIR:-target}/release/auth"
fi
[ -d auth/tests/oidc_provider/node_modules/oidc-provider ] \
  || npm ci --prefix auth/tests/oidc_provider --no-audit --no-fund --silent
work="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# One key for both.
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/key.pem" 2>/dev/null
export DATA_DIR="$work/auth" RUST_LOG=warn JWT_SECRET="$(base64 -w0 "$work/key.pem")"
"$auth" authority add --domain 127.0.0.1 --name Bench >/dev/null
client="$("$auth" client add --domain 127.0.0.1 --name bench --redirect-uri https://localhost/cb)"
id="$(sed -E 's/.*"client_id":"([^"]+)".*/\1/' <<<"$client")"
secret="$(sed -E 's/.*"client_secret":"([^"]+)".*/\1/' <<<"$client")"

auth_port="$(free_port)"
"$auth" -b 127.0.0.1 -p "$auth_port" 2>"$work/auth.log" &
pids+=($!)
peer_port="$(free_port)"
# The script is copied beside node_modules so `import 'oidc-provider'` resolves there.
cp benches/oidc-provider-token.mjs auth/tests/oidc_provider/.bench-token.mjs
trap 'cleanup; rm -f auth/tests/oidc_provider/.bench-token.mjs' EXIT
NODE_ENV=production PORT="$peer_port" KEY_PEM="$work/key.pem" CLIENT_ID="$id" CLIENT_SECRET="$secret" \
  node auth/tests/oidc_provider/.bench-token.mjs >"$work/peer.log" 2>&1 &
pids+=($!)

basic="$(printf '%s:%s' "$id" "$secret" | base64 -w0)"
token() { curl -s -X POST -H "Authorization: Basic $basic" -d grant_type=client_credentials "$1"; }
for url in "http://127.0.0.1:$auth_port/auth/token" "http://127.0.0.1:$peer_port/token"; do
  for _ in $(seq 100); do token "$url" 2>/dev/null | grep -q access_token && break; sleep 0.1; done
  answer="$(token "$url")"
  # Both must answer with an RS256 JWT access token.
  header="$(sed -E 's/.*"access_token":"([^".]+)\..*/\1/' <<<"$answer" | tr '_-' '/+')"
  while [ $(( ${#header} % 4 )) -ne 0 ]; do header="$header="; done
  base64 -d <<<"$header" 2>/dev/null | grep -q '"RS256"' \
    || { echo "$url did not issue an RS256 JWT: $answer" >&2; cat "$work"/*.log >&2; exit 1; }
done
cat >"$work/token.lua" <<LUA
wrk.method = "POST"
wrk.body = "grant_type=client_credentials"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = "Basic $basic"
LUA
rate() {
  wrk -t2 -c"$connections" -d"${seconds}s" -s "$work/token.lua" "$1" >"$work/wrk.txt"
  if grep -q "Non-2xx" "$work/wrk.txt"; then echo "non-2xx answers from $1:" >&2; cat "$work/wrk.txt" >&2; exit 1; fi
  awk '/Requests\/sec/ {print $2}' "$work/wrk.txt"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ours=(); theirs=()
for round in $(seq "$rounds"); do
  ours+=("$(rate "http://127.0.0.1:$auth_port/auth/token")")
  theirs+=("$(rate "http://127.0.0.1:$peer_port/token")")
  echo "round $round: auth ${ours[-1]} tokens/s, oidc-provider ${theirs[-1]} tokens/s"
done
for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
pids=()
signs="$(openssl speed -multi 2 -seconds "$seconds" rsa2048 2>/dev/null | awk '/^rsa 2048/ {print $(NF-1)}')"
a="$(printf '%s\n' "${ours[@]}" | median)"
b="$(printf '%s\n' "${theirs[@]}" | median)"
echo "auth median: $a tokens/s"
echo "oidc-provider median: $b tokens/s"
echo "openssl rsa2048 signs/s (2 processes): $signs"
awk -v a="$a" -v b="$b" -v s="$signs" 'BEGIN {
  printf "ratio auth / oidc-provider: %.2fx\n", a / b
  printf "of the signing rate: auth %.0f%%, oidc-provider %.0f%%\n", 100 * a / s, 100 * b / s }'
