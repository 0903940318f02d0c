#!/usr/bin/env bash
# Upstream speed: the waf proxy to an HTTPS upstream against Debian's nginx `proxy_pass https://` with an upstream
# keepalive pool, and a pool of three upstream servers against one. Run by hand, on an otherwise idle machine,
# from the repository root:
#
#   bash benches/upstreams.sh            # builds the release binary; 3 s warm-up per target, then DURATION s per
#                                        # run, every target in turn, twice
#   DURATION=30 bash benches/upstreams.sh
#
# Targets, all sending the benign mix of load.sh (benches/load-mix.lua) with the proxy's rules left out (an empty
# rule directory: what is measured is the way to the upstream):
# - nginx-https: nginx, `proxy_pass https://` to an nginx HTTPS upstream, `keepalive 256`, sessions reused;
# - waf-https: waf to the same upstream (`upstream.http2: off`: nginx speaks HTTP/1.1 to upstreams, so the same
#   protocol), certificate verified against the bench's CA (nginx does not verify: its default);
# - waf-pool-1: waf to one plain HTTP upstream server; waf-pool-3: waf to a round_robin pool of three (three
#   listeners of the same nginx upstream): the cost of choosing a server.
# Prints requests/s, p50, p99 and the ratio to the first target of its pair (nginx-https for waf-https,
# waf-pool-1 for waf-pool-3). Refuses to report if any request got a non-2xx answer. Needs nginx, wrk, openssl.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION="${DURATION:-15}"
WARMUP="${WARMUP:-3}"
CONNECTIONS="${CONNECTIONS:-64}"
UPSTREAM_TLS_PORT=18281 UPSTREAM_PORTS=(18282 18283 18284) NGINX_PORT=18285
WAF_HTTPS_PORT=18286 WAF_POOL1_PORT=18287 WAF_POOL3_PORT=18288

SCRIPT=upstreams.sh
source benches/harness.sh
require_tools nginx wrk openssl
waf_binary

# A CA and a leaf for 127.0.0.1 it signs: the upstream serves the leaf, the waf trusts the CA (upstream.tls.ca_file).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=bench-ca \
  -keyout "$work/ca.key" -out "$work/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 \
  -keyout "$work/key.pem" -out "$work/leaf.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >"$work/leaf.ext"
openssl x509 -req -in "$work/leaf.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -days 2 \
  -extfile "$work/leaf.ext" -out "$work/cert.pem" 2>/dev/null

start_nginx upstream 1 "server { listen 127.0.0.1:$UPSTREAM_TLS_PORT ssl; ssl_certificate $work/cert.pem;
    ssl_certificate_key $work/key.pem; keepalive_requests 100000;
    location / { client_max_body_size 1m; client_body_buffer_size 64k; return 200 'ok\n'; } }
  server { listen 127.0.0.1:${UPSTREAM_PORTS[0]}; listen 127.0.0.1:${UPSTREAM_PORTS[1]};
    listen 127.0.0.1:${UPSTREAM_PORTS[2]}; keepalive_requests 100000;
    location / { client_max_body_size 1m; client_body_buffer_size 64k; return 200 'ok\n'; } }"
start_nginx proxy auto "upstream tls_app { server 127.0.0.1:$UPSTREAM_TLS_PORT; keepalive 256; }
  server { listen 127.0.0.1:$NGINX_PORT; client_max_body_size 1m;
    location / { proxy_pass https://tls_app; proxy_http_version 1.1; proxy_set_header Connection '';
      proxy_ssl_session_reuse on; proxy_set_header Host \$host;
      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for; proxy_set_header X-Forwarded-Proto \$scheme; } }"

mkdir -p "$work/empty-rules"
start_waf() { # port, upstream settings (flow mapping entries)
  cat >"$work/waf-$1.yml" <<CONF
waf:
  server: {listen_address: 127.0.0.1, http_port: $1}
  upstream: {$2}
  rules: {directories: ['$work/empty-rules']}
  logging: {level: warn, access: {enabled: false}}
CONF
  "$WAF_BIN" --config "$work/waf-$1.yml" >"$work/waf-$1.log" 2>&1 &
  pids+=($!)
}
start_waf "$WAF_HTTPS_PORT" "default: 'https://127.0.0.1:$UPSTREAM_TLS_PORT', http2: off, tls: {ca_file: '$work/ca.pem'}"
start_waf "$WAF_POOL1_PORT" "default: 'http://127.0.0.1:${UPSTREAM_PORTS[0]}'"
start_waf "$WAF_POOL3_PORT" "servers: ['http://127.0.0.1:${UPSTREAM_PORTS[0]}', 'http://127.0.0.1:${UPSTREAM_PORTS[1]}', 'http://127.0.0.1:${UPSTREAM_PORTS[2]}']"

for port in "$NGINX_PORT" "$WAF_HTTPS_PORT" "$WAF_POOL1_PORT" "$WAF_POOL3_PORT"; do
  for _ in $(seq 100); do
    code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/" || true)
    [ "$code" = 200 ] && break
    sleep 0.1
  done
  [ "$code" = 200 ] || { echo "upstreams.sh: port $port answers $code" >&2; cat "$work"/*.log "$work"/*/logs/error.log >&2; exit 1; }
done

base_rps=""
run() { # label, port, baseline (1: this run is the ratio's base)
  local out rps p50 p99 ratio
  out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s benches/load-mix.lua "http://127.0.0.1:$2/")
  if grep -q "Non-2xx" <<<"$out"; then
    echo "upstreams.sh: $1 answered part of the benign mix with non-2xx:" >&2; echo "$out" >&2; exit 1
  fi
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p50=$(awk '$1=="50%" {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  [ "$3" = 1 ] && base_rps=$rps
  ratio=$(awk -v a="$rps" -v b="$base_rps" 'BEGIN {printf "%.0f%%", 100 * a / b}')
  printf '%-12s %10s %9s %9s %9s\n' "$1" "$rps" "$p50" "$p99" "$ratio"
}

for port in "$NGINX_PORT" "$WAF_HTTPS_PORT" "$WAF_POOL1_PORT" "$WAF_POOL3_PORT"; do
  wrk -t2 -c"$CONNECTIONS" -d"${WARMUP}s" -s benches/load-mix.lua "http://127.0.0.1:$port/" >/dev/null
done
printf '%-12s %10s %9s %9s %9s\n' "target" "req/s" "p50" "p99" "vs base"
for _ in 1 2; do
  run nginx-https "$NGINX_PORT" 1
  run waf-https "$WAF_HTTPS_PORT" 0
  run waf-pool-1 "$WAF_POOL1_PORT" 1
  run waf-pool-3 "$WAF_POOL3_PORT" 0
done
# The pool really spread the load: every server answered a share.
curl -s "http://127.0.0.1:$WAF_POOL3_PORT/metrics" | grep '^waf_upstream_server_requests_total' || true
