#!/usr/bin/env bash
# Slow clients under a benign load: COUNT connections of each slow shape (silent, request line alone, header
# lines trickled, idle keep-alive, a body that stops) held against the waf proxy while wrk runs a benign load,
# all on loopback. Run by hand, from the repository root:
#
#   bash benches/slow-clients.sh                      # builds the release binary; 2,000 of each shape, bounds 5 s
#   COUNT=500 BOUND=3 WAF_BIN=target/debug/waf bash benches/slow-clients.sh
#
# Prints, per shape, how many connections the proxy closed within their bound + 1 s (from the moment the stage's
# clock started) and what it answered, then wrk's p99 latency on a quiet run and during the slow clients, and
# their ratio. Fails if any slow connection outlived its bound + 1 s. Needs nginx, wrk and python3.
set -euo pipefail
cd "$(dirname "$0")/.."

COUNT="${COUNT:-2000}"
BOUND="${BOUND:-5}"
DURATION="${DURATION:-$((BOUND + 10))}"
CONNECTIONS="${CONNECTIONS:-32}"
RULE_DIRS="${RULE_DIRS:-rules}"
UPSTREAM_PORT=18091 WAF_PORT=18092

SCRIPT=slow-clients.sh
source benches/harness.sh
require_tools nginx wrk python3
waf_binary

start_upstream "$UPSTREAM_PORT"
waf_variant_config enforce "$WAF_PORT" "$UPSTREAM_PORT" "$work/waf.yml"
# Every client bound at BOUND; room for COUNT connections of every shape from one address (the limits'
# defaults would refuse them: they are all 127.0.0.1).
sed -i "s|server: {listen_address: 127.0.0.1, http_port: $WAF_PORT}|server: {listen_address: 127.0.0.1, http_port: $WAF_PORT, \
first_byte_timeout_sec: $BOUND, header_read_timeout_sec: $BOUND, body_read_timeout_sec: $BOUND, keepalive_timeout_sec: $BOUND, \
max_connections: $((COUNT * 5 + 1000)), max_connections_per_client: $((COUNT * 5 + 1000))}|" "$work/waf.yml"
grep -q "first_byte_timeout_sec: $BOUND" "$work/waf.yml" || { echo "$SCRIPT: could not set the bounds" >&2; exit 1; }
"$WAF_BIN" --config "$work/waf.yml" >"$work/waf.log" 2>&1 &
pids+=($!)
for _ in $(seq 300); do
  curl -s -o /dev/null "http://127.0.0.1:$WAF_PORT/" && break
  sleep 0.1
done

p99() { awk '$1=="99%" {print $2}'; }
quiet=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency "http://127.0.0.1:$WAF_PORT/" | p99)

python3 benches/slow_clients.py 127.0.0.1 "$WAF_PORT" "$COUNT" "$BOUND" >"$work/slow.txt" &
slow=$!
sleep 1
loaded=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency "http://127.0.0.1:$WAF_PORT/" | p99)
status=0
wait "$slow" || status=$?
cat "$work/slow.txt"
curl -s "http://127.0.0.1:$WAF_PORT/metrics" | grep -E '^waf_(connection_timeouts|connections_refused)_total'
to_ms() { awk '{ v=$1; if (v ~ /us$/) { sub(/us$/,"",v); v/=1000 } else if (v ~ /ms$/) { sub(/ms$/,"",v) } else if (v ~ /s$/) { sub(/s$/,"",v); v*=1000 } printf "%.3f", v }'; }
q=$(to_ms <<<"$quiet") l=$(to_ms <<<"$loaded")
echo "benign p99: quiet $quiet, with the slow clients $loaded ($(awk -v q="$q" -v l="$l" 'BEGIN { printf "%.2fx", l / q }'))"
exit "$status"
