#!/usr/bin/env bash
# HTTPS speed of the waf proxy against Debian's nginx terminating TLS with the same certificate and key, both in
# front of the same fast upstream (nginx answering 200). Run by hand, on an otherwise idle machine, from the
# repository root:
#
#   bash benches/tls.sh                  # builds the release binary; 3 s warm-up per target, then 15 s per run,
#                                        # nginx then waf, twice
#   DURATION=30 KEY=rsa bash benches/tls.sh
#
# Two measures, each as requests per second and its ratio to the nginx run just before it:
# - keep-alive: HTTPS requests on CONNECTIONS long-lived TLS connections (the cost of TLS records and proxying);
# - handshakes: every request on a new connection (`Connection: close`), so requests/s = full TLS handshakes/s
#   (wrk resumes no sessions).
# The waf runs in enforce mode with the rule directories (RULE_DIRS, default rules,crs-942). KEY: ec (P-256,
# default) or rsa (2048). Needs nginx, wrk and openssl. Refuses to report if any request got a non-2xx answer.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION="${DURATION:-15}"
WARMUP="${WARMUP:-3}"
CONNECTIONS="${CONNECTIONS:-64}"
HANDSHAKE_CONNECTIONS="${HANDSHAKE_CONNECTIONS:-16}"
RULE_DIRS="${RULE_DIRS:-rules,crs-942}"
KEY="${KEY:-ec}"
UPSTREAM_PORT=18181 NGINX_TLS_PORT=18182 WAF_HTTP_PORT=18183 WAF_TLS_PORT=18184

SCRIPT=tls.sh
source benches/harness.sh
require_tools nginx wrk openssl
waf_binary

case "$KEY" in
  ec) key_args=(-newkey ec -pkeyopt ec_paramgen_curve:P-256) ;;
  rsa) key_args=(-newkey rsa:2048) ;;
  *) echo "tls.sh: KEY is ec or rsa" >&2; exit 1 ;;
esac
openssl req -x509 "${key_args[@]}" -nodes -days 2 -subj /CN=bench.test \
  -addext "subjectAltName=DNS:bench.test,IP:127.0.0.1" -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null

start_upstream "$UPSTREAM_PORT"
# nginx as a TLS-terminating reverse proxy with the protocol versions the waf allows.
start_nginx proxy auto "upstream app { server 127.0.0.1:$UPSTREAM_PORT; keepalive 256; }
  server { listen 127.0.0.1:$NGINX_TLS_PORT ssl; client_max_body_size 1m;
    ssl_certificate $work/cert.pem; ssl_certificate_key $work/key.pem; ssl_protocols TLSv1.2 TLSv1.3;
    location / { proxy_pass http://app; proxy_http_version 1.1; proxy_set_header Connection '';
      proxy_set_header Host \$host; proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto \$scheme; } }"

waf_variant_config enforce "$WAF_HTTP_PORT" "$UPSTREAM_PORT" "$work/waf.yml"
sed -i "s|http_port: $WAF_HTTP_PORT}|http_port: $WAF_HTTP_PORT, https_enabled: true, https_port: $WAF_TLS_PORT, \
tls: {cert_file: '$work/cert.pem', key_file: '$work/key.pem'}}|" "$work/waf.yml"
"$WAF_BIN" --config "$work/waf.yml" >"$work/waf.log" 2>&1 &
waf_pid=$!
pids+=($!)

wait_port() { # port
  for _ in $(seq 100); do
    curl -sk -o /dev/null "https://127.0.0.1:$1/" && return 0
    sleep 0.1
  done
  echo "tls.sh: nothing answers HTTPS on port $1" >&2; cat "$work"/*/logs/error.log "$work/waf.log" >&2; exit 1
}
wait_port "$NGINX_TLS_PORT"; wait_port "$WAF_TLS_PORT"
echo "certificate: $KEY; $(nproc) cores; nginx worker_processes auto; waf workers: one per core"

nginx_rps=""
run() { # label, port, wrk options...
  local label=$1 port=$2 out rps ratio; shift 2
  out=$(wrk -t2 -d"${DURATION}s" "$@" "https://127.0.0.1:$port/")
  if grep -q "Non-2xx\|Socket errors" <<<"$out"; then
    echo "tls.sh: $label: errors or non-2xx answers:" >&2; echo "$out" >&2; exit 1
  fi
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  [ -n "$nginx_rps" ] || nginx_rps=$rps
  ratio=$(awk -v a="$rps" -v b="$nginx_rps" 'BEGIN {printf "%.0f%%", 100 * a / b}')
  printf '%-26s %12s %9s\n' "$label" "$rps" "$ratio"
}

for port in "$NGINX_TLS_PORT" "$WAF_TLS_PORT"; do
  wrk -t2 -c"$CONNECTIONS" -d"${WARMUP}s" "https://127.0.0.1:$port/" >/dev/null
done
printf '%-26s %12s %9s\n' "target" "req/s" "vs nginx"
for round in 1 2; do
  nginx_rps=""
  run "nginx keep-alive" "$NGINX_TLS_PORT" -c"$CONNECTIONS"
  run "waf keep-alive" "$WAF_TLS_PORT" -c"$CONNECTIONS"
  nginx_rps=""
  run "nginx handshakes" "$NGINX_TLS_PORT" -c"$HANDSHAKE_CONNECTIONS" -H "Connection: close"
  run "waf handshakes" "$WAF_TLS_PORT" -c"$HANDSHAKE_CONNECTIONS" -H "Connection: close"
  echo "(round $round)"
done
handshakes=$(curl -s "http://127.0.0.1:$WAF_HTTP_PORT/metrics" | awk '$1=="waf_tls_handshakes_total" {print $2}')
echo "waf_tls_handshakes_total after all runs: ${handshakes:-0} (waf pid $waf_pid)"
