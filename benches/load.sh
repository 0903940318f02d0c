#!/usr/bin/env bash
# Load test of the waf proxy against Debian's nginx as a bare reverse proxy, both in front of the same fast
# upstream (nginx answering 200). Run by hand, on an otherwise idle machine, from the repository root:
#
#   bash benches/load.sh                 # builds the release binary, 15 s per run, A B A B, then 60 s memory run
#   DURATION=30 bash benches/load.sh
#
# Needs: nginx and wrk (apt-get install -y nginx wrk), and the rule directories `rules` and `crs-942`
# (override with RULE_DIRS=dir1,dir2). Prints requests/s, p50, p99 and server CPU per request for each run,
# refuses to report if any benign request got a non-2xx answer, and samples the proxy's memory over 60 s.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION="${DURATION:-15}"
MEMORY_SECONDS="${MEMORY_SECONDS:-60}"
CONNECTIONS="${CONNECTIONS:-64}"
RULE_DIRS="${RULE_DIRS:-rules,crs-942}"
UPSTREAM_PORT=18081 NGINX_PROXY_PORT=18082 WAF_PORT=18083

for tool in nginx wrk; do
  command -v "$tool" >/dev/null || { echo "load.sh: $tool not found (apt-get install -y nginx wrk)" >&2; exit 1; }
done
IFS=',' read -r -a dirs <<<"$RULE_DIRS"
for d in "${dirs[@]}"; do
  [ -d "$d" ] || { echo "load.sh: rule directory $d not found (set RULE_DIRS)" >&2; exit 1; }
done

if [ -z "${WAF_BIN:-}" ]; then
  cargo build --release -q -p waf-runtime --bin waf
  WAF_BIN="${CARGO_TARGET_DIR:-target}/release/waf"
fi

work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# nginx in the foreground (daemon off), its own prefix, logs off: we measure proxying, not disk writes.
start_nginx() { # name, body of the http block
  local dir="$work/$1"
  mkdir -p "$dir/logs" "$dir/tmp"
  cat >"$dir/nginx.conf" <<CONF
worker_processes ${2};
daemon off;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $dir/tmp;
  proxy_temp_path $dir/tmp;
  fastcgi_temp_path $dir/tmp;
  uwsgi_temp_path $dir/tmp;
  scgi_temp_path $dir/tmp;
  $3
}
CONF
  nginx -p "$dir" -c "$dir/nginx.conf" &
  pids+=($!)
}

start_nginx upstream 1 "server { listen 127.0.0.1:$UPSTREAM_PORT; client_max_body_size 1m;
    location / { client_body_buffer_size 64k; return 200 'ok\n'; } }"
start_nginx proxy auto "upstream app { server 127.0.0.1:$UPSTREAM_PORT; keepalive 256; }
  server { listen 127.0.0.1:$NGINX_PROXY_PORT; client_max_body_size 1m;
    location / { proxy_pass http://app; proxy_http_version 1.1; proxy_set_header Connection '';
      proxy_set_header Host \$host; proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto \$scheme; } }"

dir_list=""
for d in "${dirs[@]}"; do dir_list+="'$(realpath "$d")', "; done
cat >"$work/waf.yml" <<CONF
waf:
  mode: enforce
  server: {listen_address: 127.0.0.1, http_port: $WAF_PORT}
  upstream: {default: 'http://127.0.0.1:$UPSTREAM_PORT'}
  rules: {directories: [${dir_list%, }], paranoia_level: 1}
  logging: {level: warn}
CONF
"$WAF_BIN" --config "$work/waf.yml" >"$work/waf.log" 2>&1 &
waf_pid=$!
pids+=("$waf_pid")

wait_port() {
  for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0
    sleep 0.1
  done
  echo "load.sh: nothing answers on port $1" >&2; cat "$work"/*/logs/error.log "$work/waf.log" >&2; exit 1
}
wait_port "$UPSTREAM_PORT"; wait_port "$NGINX_PROXY_PORT"; wait_port "$WAF_PORT"
rules_loaded=$(curl -s "http://127.0.0.1:$WAF_PORT/health" | sed -n 's/.*"rules_loaded":\([0-9]*\).*/\1/p')
echo "waf: $rules_loaded rules loaded from $RULE_DIRS at paranoia level 1, mode enforce"

# Server CPU time (user+system, in clock ticks) of a process and its children threads; nginx: all its workers.
cpu_ticks() { # pids...
  local total=0
  for p in "$@"; do
    read -r -a f <"/proc/$p/stat"
    total=$((total + f[13] + f[14]))
  done
  echo "$total"
}
nginx_proxy_pids() { echo "$(cat "$work/proxy/nginx.pid") $(pgrep -P "$(cat "$work/proxy/nginx.pid")" | tr '\n' ' ')"; }
hz=$(getconf CLK_TCK)

results=()
run() { # label, port, pids...
  local label=$1 port=$2; shift 2
  local before after out
  before=$(cpu_ticks "$@")
  out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s benches/load-mix.lua "http://127.0.0.1:$port/")
  after=$(cpu_ticks "$@")
  if grep -q "Non-2xx" <<<"$out"; then
    echo "load.sh: $label answered part of the benign mix with non-2xx:" >&2; echo "$out" >&2; exit 1
  fi
  local rps p50 p99 requests cpu_us
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p50=$(awk '$1=="50%" {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  requests=$(awk '/requests in/ {print $1}' <<<"$out")
  cpu_us=$(awk -v t=$((after - before)) -v hz="$hz" -v n="$requests" 'BEGIN {printf "%.1f", t / hz * 1e6 / n}')
  results+=("$(printf '%-12s %10s %9s %9s %14s' "$label" "$rps" "$p50" "$p99" "$cpu_us")")
  echo "${results[-1]}"
}

printf '%-12s %10s %9s %9s %14s\n' "target" "req/s" "p50" "p99" "CPU us/req"
# shellcheck disable=SC2046
for round in 1 2; do
  run "nginx-proxy" "$NGINX_PROXY_PORT" $(nginx_proxy_pids)
  run "waf" "$WAF_PORT" "$waf_pid"
done

echo
echo "waf memory (VmRSS) under load for ${MEMORY_SECONDS}s:"
wrk -t2 -c"$CONNECTIONS" -d"${MEMORY_SECONDS}s" -s benches/load-mix.lua "http://127.0.0.1:$WAF_PORT/" >"$work/wrk-mem.txt" &
wrk_pid=$!
samples=()
for _ in $(seq 0 10 "$MEMORY_SECONDS"); do
  samples+=("$(awk '/VmRSS/ {print $2}' "/proc/$waf_pid/status")")
  sleep 10
done
wait "$wrk_pid"
echo "  RSS kB every 10 s: ${samples[*]}"
if grep -q "Non-2xx" "$work/wrk-mem.txt"; then echo "load.sh: non-2xx answers during the memory run" >&2; exit 1; fi
blocked=$(curl -s "http://127.0.0.1:$WAF_PORT/metrics" | awk '$1=="waf_blocked_total" {print $2}')
echo "  waf_blocked_total after all runs: ${blocked:-0}"
