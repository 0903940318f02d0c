#!/usr/bin/env bash
# Slow clients under a benign load: COUNT connections of each slow shape (silent, request line alone, header
# lines trickled, idle keep-alive, a body that stops) held against the waf proxy while wrk runs a benign load,
# all on loopback. Run by hand, from the repository root:
#
#   bash benches/slow-clients.sh                      # release builds; 2,000 of each shape, bounds 10 s, 3 runs
#   COUNT=500 BOUND=3 RUNS=1 bash benches/slow-clients.sh
#
# Each run is a quiet wrk run, then the same wrk run while the slow clients are held (wrk starts WRK_DELAY after
# them and lasts DURATION, the bound by default, so it measures while they are open; the bursts of opening and of
# closing them included unless set otherwise, e.g. BOUND=15 WRK_DELAY=4 DURATION=8 for only the time they are
# held). Prints, per shape, how many
# connections the proxy closed within their bound + 1 s (from the moment the stage's clock started) and what it
# answered; wrk's p99 on both runs and their ratio; the CPU the proxy spent in each (its share of the slow
# clients' cost) and the generator's. Ends with the medians. Fails if any slow connection outlived its bound + 1 s.
#
# With two CPUs or more the proxy is pinned to PROXY_CPUS (default 0) and everything else (wrk, the generator, the
# upstream) to LOAD_CPUS (default: the others), so the load does not take the proxy's CPU; the proxy gets one
# worker per CPU it has. Needs nginx, wrk, taskset and GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."

COUNT="${COUNT:-2000}"
BOUND="${BOUND:-10}"
DURATION="${DURATION:-$BOUND}"
# When wrk starts after the generator: 1 s takes in the burst of 5 x COUNT connections opening; past the time
# they take to open, and with BOUND > WRK_DELAY + DURATION, wrk measures only while they are held.
WRK_DELAY="${WRK_DELAY:-1}"
RUNS="${RUNS:-3}"
CONNECTIONS="${CONNECTIONS:-32}"
RULE_DIRS="${RULE_DIRS:-rules}"
UPSTREAM_PORT=18091 WAF_PORT=18092

SCRIPT=slow-clients.sh
source benches/harness.sh
require_tools nginx wrk taskset
[ -x /usr/bin/time ] || { echo "$SCRIPT: /usr/bin/time not found (apt-get install -y time)" >&2; exit 1; }
waf_binary
if [ -z "${GEN_BIN:-}" ]; then
  cargo build --release -q -p waf-runtime --example slow_clients
  GEN_BIN="${CARGO_TARGET_DIR:-target}/release/examples/slow_clients"
fi
# 5 x COUNT connections open at once in the generator (and as many in the proxy, which raises its own limit).
ulimit -n "$(ulimit -Hn)"

cpus=$(nproc)
if [ "$cpus" -ge 2 ]; then
  PROXY_CPUS="${PROXY_CPUS:-0}"
  LOAD_CPUS="${LOAD_CPUS:-1-$((cpus - 1))}"
  # This shell and all it starts from now on (upstream, wrk, generator) run on LOAD_CPUS; the proxy on its own.
  taskset -pc "$LOAD_CPUS" $$ >/dev/null
  pin_proxy=(taskset -c "$PROXY_CPUS")
  workers=$(taskset -c "$PROXY_CPUS" nproc)
  echo "proxy on CPU $PROXY_CPUS (workers: $workers), wrk, generator and upstream on CPU $LOAD_CPUS"
else
  pin_proxy=()
  workers=1
  echo "one CPU: nothing pinned"
fi

start_upstream "$UPSTREAM_PORT"
waf_variant_config enforce "$WAF_PORT" "$UPSTREAM_PORT" "$work/waf.yml"
# Every client bound at BOUND; room for COUNT connections of every shape from one address (the limits'
# defaults would refuse them: they are all 127.0.0.1).
sed -i "s|server: {listen_address: 127.0.0.1, http_port: $WAF_PORT}|server: {listen_address: 127.0.0.1, http_port: $WAF_PORT, \
workers: $workers, first_byte_timeout_sec: $BOUND, header_read_timeout_sec: $BOUND, body_read_timeout_sec: $BOUND, \
keepalive_timeout_sec: $BOUND, max_connections: $((COUNT * 5 + 1000)), max_connections_per_client: $((COUNT * 5 + 1000))}|" \
  "$work/waf.yml"
grep -q "first_byte_timeout_sec: $BOUND" "$work/waf.yml" || { echo "$SCRIPT: could not set the bounds" >&2; exit 1; }
"${pin_proxy[@]}" "$WAF_BIN" --config "$work/waf.yml" >"$work/waf.log" 2>&1 &
waf_pid=$!
pids+=("$waf_pid")
for _ in $(seq 300); do
  curl -s -o /dev/null "http://127.0.0.1:$WAF_PORT/" && break
  sleep 0.1
done

# CPU seconds (user + system) a process has used so far.
cpu_of() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"; }
to_ms() { awk '{ v=$1; if (v ~ /us$/) { sub(/us$/,"",v); v/=1000 } else if (v ~ /ms$/) { sub(/ms$/,"",v) } else if (v ~ /s$/) { sub(/s$/,"",v); v*=1000 } printf "%.3f", v }'; }
# wrk's p99 in ms, and the proxy's CPU seconds during it.
benign() {
  local before p99
  before=$(cpu_of "$waf_pid")
  p99=$(wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency "http://127.0.0.1:$WAF_PORT/" | awk '$1=="99%" {print $2}' | to_ms)
  echo "$p99 $(awk -v a="$before" -v b="$(cpu_of "$waf_pid")" 'BEGIN { printf "%.2f", b - a }')"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

status=0
: >"$work/results"
for run in $(seq "$RUNS"); do
  read -r quiet quiet_cpu < <(benign)
  /usr/bin/time -f "%U %S" -o "$work/gen-time" "$GEN_BIN" "127.0.0.1:$WAF_PORT" "$COUNT" "$BOUND" >"$work/slow.txt" &
  slow=$!
  sleep "$WRK_DELAY"
  read -r loaded loaded_cpu < <(benign)
  wait "$slow" || status=$?
  echo "run $run:"
  cat "$work/slow.txt"
  read -r gen_user gen_sys <"$work/gen-time"
  ratio=$(awk -v q="$quiet" -v l="$loaded" 'BEGIN { printf "%.2f", l / q }')
  echo "  benign p99: quiet $quiet ms, with the slow clients $loaded ms (${ratio}x); proxy CPU ${quiet_cpu} s quiet," \
    "${loaded_cpu} s loaded (${DURATION} s each); generator CPU ${gen_user} s user, ${gen_sys} s system"
  echo "$quiet $loaded $ratio $quiet_cpu $loaded_cpu" >>"$work/results"
  # The slow connections are all closed (the generator waited for them); let the proxy settle.
  sleep 2
done
curl -s "http://127.0.0.1:$WAF_PORT/metrics" | grep -E '^waf_(connection_timeouts|connections_refused)_total'
echo "medians of $RUNS runs: benign p99 quiet $(cut -d' ' -f1 "$work/results" | median) ms," \
  "with the slow clients $(cut -d' ' -f2 "$work/results" | median) ms, ratio $(cut -d' ' -f3 "$work/results" | median)x;" \
  "proxy CPU $(cut -d' ' -f4 "$work/results" | median) s quiet, $(cut -d' ' -f5 "$work/results" | median) s loaded"
exit "$status"
