#!/usr/bin/env bash
# Load test of the waf proxy against Debian's nginx as a bare reverse proxy, both in front of the same fast
# upstream (nginx answering 200). Run by hand, on an otherwise idle machine, from the repository root:
#
#   bash benches/load.sh                 # builds the release binary, 3 s warm-up per target, then 15 s per run,
#                                        # A B A B, then 60 s memory run
#   DURATION=30 bash benches/load.sh
#   VARIANTS="no-rules disabled" bash benches/load.sh
#   UNIQUE=1 bash benches/load.sh        # every request with its own query, cookie and body values (see load-mix.lua)
#
# VARIANTS (default "enforce no-rules disabled") chooses the waf configurations measured, each its own process:
# `enforce` (the rule directories, mode enforce), `no-rules` (an empty rule directory, mode enforce: the cost of
# the forwarding path alone), `disabled` (the rule directories, mode disabled: no inspection) and `traffic`
# (enforce plus IP lists with 100,000 entries, a rate limit and GeoIP, none of them refusing: the cost of the
# traffic controls, docs/traffic-controls.md). Controls on vs off: VARIANTS="enforce traffic". `access-off` and
# `access-file` are `enforce` with the access log off, and on in JSON to a file (the other variants keep the
# default: JSON to stdout, which goes to a file here); its cost: VARIANTS="access-off access-file" (the
# access-file variant's line count is printed at the end: at least the requests wrk counted, none dropped).
#
# Needs: nginx and wrk (apt-get install -y nginx wrk), and the rule directories of the shipped default, `rules`,
# `crs-942` and `crs` (override with RULE_DIRS=dir1,dir2). Prints requests/s, p50, p99 and server CPU per request for each run,
# with its ratio to the nginx run just before it, refuses to report if any benign request got a non-2xx answer, and
# samples the memory of the first variant's proxy over 60 s.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION="${DURATION:-15}"
WARMUP="${WARMUP:-3}"
MEMORY_SECONDS="${MEMORY_SECONDS:-60}"
CONNECTIONS="${CONNECTIONS:-64}"
RULE_DIRS="${RULE_DIRS:-rules,crs-942,crs}"
VARIANTS="${VARIANTS:-enforce no-rules disabled}"
UPSTREAM_PORT=18081 NGINX_PROXY_PORT=18082 FIRST_WAF_PORT=18083

SCRIPT=load.sh
source benches/harness.sh
require_tools nginx wrk
waf_binary

start_upstream "$UPSTREAM_PORT"
start_nginx proxy auto "upstream app { server 127.0.0.1:$UPSTREAM_PORT; keepalive 256; }
  server { listen 127.0.0.1:$NGINX_PROXY_PORT; client_max_body_size 1m;
    location / { proxy_pass http://app; proxy_http_version 1.1; proxy_set_header Connection '';
      proxy_set_header Host \$host; proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto \$scheme; } }"

declare -A waf_port waf_pid
port=$FIRST_WAF_PORT
for variant in $VARIANTS; do
  waf_variant_config "$variant" "$port" "$UPSTREAM_PORT" "$work/waf-$variant.yml"
  "$WAF_BIN" --config "$work/waf-$variant.yml" >"$work/waf-$variant.log" 2>&1 &
  waf_pid[$variant]=$!
  pids+=($!)
  waf_port[$variant]=$port
  port=$((port + 1))
done

wait_port() {
  for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0
    sleep 0.1
  done
  echo "load.sh: nothing answers on port $1" >&2; cat "$work"/*/logs/error.log "$work"/waf-*.log >&2; exit 1
}
wait_port "$UPSTREAM_PORT"; wait_port "$NGINX_PROXY_PORT"
for variant in $VARIANTS; do
  wait_port "${waf_port[$variant]}"
  health=$(curl -s "http://127.0.0.1:${waf_port[$variant]}/health")
  rules_loaded=$(sed -n 's/.*"rules_loaded":\([0-9]*\).*/\1/p' <<<"$health")
  mode=$(sed -n 's/.*"mode":"\([a-z]*\)".*/\1/p' <<<"$health")
  echo "waf $variant: $rules_loaded rules loaded at paranoia level 1, mode $mode"
done

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

nginx_rps=""
run() { # label, port, pids...
  local label=$1 port=$2; shift 2
  local before after out
  before=$(cpu_ticks "$@")
  out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s benches/load-mix.lua "http://127.0.0.1:$port/")
  after=$(cpu_ticks "$@")
  if grep -q "Non-2xx" <<<"$out"; then
    echo "load.sh: $label answered part of the benign mix with non-2xx:" >&2; echo "$out" >&2; exit 1
  fi
  local rps p50 p99 requests cpu_us ratio
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p50=$(awk '$1=="50%" {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  requests=$(awk '/requests in/ {print $1}' <<<"$out")
  cpu_us=$(awk -v t=$((after - before)) -v hz="$hz" -v n="$requests" 'BEGIN {printf "%.1f", t / hz * 1e6 / n}')
  [ -n "$nginx_rps" ] || nginx_rps=$rps
  ratio=$(awk -v a="$rps" -v b="$nginx_rps" 'BEGIN {printf "%.0f%%", 100 * a / b}')
  printf '%-12s %10s %9s %9s %11s %9s\n' "$label" "$rps" "$p50" "$p99" "$cpu_us" "$ratio"
}

# Every target first gets WARMUP seconds of the same load, not reported: connection pools, per-thread caches and
# the allocator's heaps fill then, so the first measured run is not partly a start-up.
for port in "$NGINX_PROXY_PORT" $(for v in $VARIANTS; do echo "${waf_port[$v]}"; done); do
  wrk -t2 -c"$CONNECTIONS" -d"${WARMUP}s" -s benches/load-mix.lua "http://127.0.0.1:$port/" >/dev/null
done

printf '%-12s %10s %9s %9s %11s %9s\n' "target" "req/s" "p50" "p99" "CPU us/req" "vs nginx"
# shellcheck disable=SC2046
for round in 1 2; do
  nginx_rps=""
  run "nginx-proxy" "$NGINX_PROXY_PORT" $(nginx_proxy_pids)
  for variant in $VARIANTS; do
    run "waf-$variant" "${waf_port[$variant]}" "${waf_pid[$variant]}"
  done
done

echo
first=${VARIANTS%% *}
echo "waf-$first memory (VmRSS) under load for ${MEMORY_SECONDS}s:"
wrk -t2 -c"$CONNECTIONS" -d"${MEMORY_SECONDS}s" -s benches/load-mix.lua "http://127.0.0.1:${waf_port[$first]}/" >"$work/wrk-mem.txt" &
wrk_pid=$!
samples=()
for _ in $(seq 0 10 "$MEMORY_SECONDS"); do
  samples+=("$(awk '/VmRSS/ {print $2}' "/proc/${waf_pid[$first]}/status")")
  sleep 10
done
wait "$wrk_pid"
echo "  RSS kB every 10 s: ${samples[*]}"
if grep -q "Non-2xx" "$work/wrk-mem.txt"; then echo "load.sh: non-2xx answers during the memory run" >&2; exit 1; fi
for variant in $VARIANTS; do
  blocked=$(curl -s "http://127.0.0.1:${waf_port[$variant]}/metrics" | awk '$1=="waf_blocked_total" {print $2}')
  echo "  waf-$variant waf_blocked_total after all runs: ${blocked:-0}"
done
for variant in $VARIANTS; do
  [ "$variant" = access-file ] || continue
  sleep 1 # the writer thread's last batch
  requests=$(curl -s "http://127.0.0.1:${waf_port[$variant]}/metrics" | awk '$1=="waf_requests_total" {print $2}')
  lines=$(wc -l <"$work/access-${waf_port[$variant]}.log")
  echo "  waf-$variant access log: $lines lines, waf_requests_total ${requests:-?} (this /metrics request included)"
done
