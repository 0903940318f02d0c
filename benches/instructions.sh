#!/usr/bin/env bash
# Instructions per proxied request, counted by callgrind: a figure that does not move with the machine's load,
# unlike the req/s of benches/load.sh, so a change to the forwarding path can be judged on a busy machine.
# From the repository root:
#
#   bash benches/instructions.sh                       # builds the release binary, VARIANTS as in load.sh
#   WAF_BIN=/tmp/old-waf VARIANTS=no-rules bash benches/instructions.sh
#   MIX_ONLY=2 VARIANTS=enforce bash benches/instructions.sh   # one request kind of the mix (1 GET with query and
#                                                              # cookies, 2 form POST, 3 JSON POST, 4 static GET)
#   ANSWER=data-1m.json RESPONSES=true RULE_DIRS=rules,crs-942,crs VARIANTS=enforce bash benches/instructions.sh
#       # GETs of one answer of benches/responses.sh (page-{2k,64k,1m}.html, data-{2k,64k,1m}.json) from an nginx
#       # serving them, with the response rules on: what forwarding (and inspecting) an answer of that size costs
#   PER_CONNECTION=1 VARIANTS=no-rules bash benches/instructions.sh   # what a new connection costs: per request with
#                                      # keep-alive, per request with a new connection for each, and the difference
#   SLOW_SHAPES="silent trickle" VARIANTS=no-rules bash benches/instructions.sh   # what a slow client costs: COUNT
#                                      # (1,000) connections of each shape of benches/slow-clients.sh, bounds 2 s
#
# Default workers, nginx upstream answering 200, wrk with the benign mix of load.sh (4 connections, slowed down by
# valgrind to a few thousand requests); counting is switched on only for the measured run, after a warm-up.
# KEEP_CALLGRIND=DIR keeps each run's callgrind output there (`callgrind_annotate` shows where they went).
# Counts user-space instructions of waf only (not the kernel's, not nginx's).
# Needs: nginx, wrk, valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_MEASURED="${SECONDS_MEASURED:-10}"
RULE_DIRS="${RULE_DIRS:-rules,crs-942}"
VARIANTS="${VARIANTS:-enforce no-rules disabled}"
# Ports: other benches use the same defaults; set them when one may be running at the same time.
UPSTREAM_PORT="${UPSTREAM_PORT:-18091}" WAF_PORT="${WAF_PORT:-18093}"

SCRIPT=instructions.sh
source benches/harness.sh
require_tools nginx wrk valgrind callgrind_control
waf_binary
# wrk's requests: the benign mix, or GETs of one answer.
load=(-s benches/load-mix.lua "http://127.0.0.1:$WAF_PORT/")
if [ -n "${ANSWER:-}" ]; then
  benign_answers "$work/www"
  [ -f "$work/www/$ANSWER" ] || { echo "$SCRIPT: no answer $ANSWER (page-2k.html ... data-1m.json)" >&2; exit 1; }
  start_nginx upstream 1 "server { listen 127.0.0.1:$UPSTREAM_PORT; root $work/www;
    types { text/html html; application/json json; } }"
  load=("http://127.0.0.1:$WAF_PORT/$ANSWER")
else
  start_upstream "$UPSTREAM_PORT"
fi

# Starts waf with $work/waf.yml under callgrind, counting nothing until `callgrind_control -i on "$vg"`.
start_counted() {
  rm -f "$work/callgrind.out"
  # Its log (a line per rule match) in a directory of its own: waf watches its configuration's directory.
  mkdir -p "$work/logs"
  valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/callgrind.out" \
    "$WAF_BIN" --config "$work/waf.yml" >"$work/logs/waf.log" 2>"$work/logs/valgrind.log" &
  vg=$!
  pids+=("$vg")
  for _ in $(seq 300); do
    curl -s -o /dev/null "http://127.0.0.1:$WAF_PORT/health" && break
    sleep 0.2
  done
}

# Stops it: `instructions` counted, the profile kept as KEEP_CALLGRIND/callgrind-NAME.out when asked.
stop_counted() { # name
  callgrind_control -i off "$vg" >/dev/null 2>&1
  kill "$vg"
  wait "$vg" 2>/dev/null || true
  instructions=$(awk '/^totals:/ {print $2}' "$work/callgrind.out")
  if [ -n "${KEEP_CALLGRIND:-}" ]; then cp "$work/callgrind.out" "$KEEP_CALLGRIND/callgrind-$1.out"; fi
}

# Counts one run of VARIANT into `requests` (wrk's) and `instructions` (waf's). With CLOSE=1 every request asks
# for its connection to be closed, so each comes on a new connection.
count() { # variant, close (0 or 1)
  export CLOSE="$2"
  local out
  waf_variant_config "$1" "$WAF_PORT" "$UPSTREAM_PORT" "$work/waf.yml"
  start_counted
  wrk -t1 -c4 -d3s "${load[@]}" >/dev/null
  callgrind_control -i on "$vg" >/dev/null 2>&1
  out=$(wrk -t1 -c4 -d"${SECONDS_MEASURED}s" "${load[@]}")
  stop_counted "$1-close$2"
  if grep -q "Non-2xx" <<<"$out"; then
    echo "instructions.sh: $1 answered part of the benign mix with non-2xx" >&2; exit 1
  fi
  requests=$(awk '/requests in/ {print $1}' <<<"$out")
}

if [ -n "${SLOW_SHAPES:-}" ]; then
  COUNT="${COUNT:-1000}"
  if [ -z "${GEN_BIN:-}" ]; then
    cargo build --release -q -p waf-runtime --example slow_clients
    GEN_BIN="${CARGO_TARGET_DIR:-target}/release/examples/slow_clients"
  fi
  ulimit -n "$(ulimit -Hn)"
  printf '%-16s %-16s %14s\n' "variant" "shape" "per connection"
  for variant in $VARIANTS; do
    for shape in $SLOW_SHAPES; do
      waf_variant_config "$variant" "$WAF_PORT" "$UPSTREAM_PORT" "$work/waf.yml"
      # Every client bound at 2 s; the limits raised, as all of them are 127.0.0.1 (as in slow-clients.sh).
      sed -i "s|http_port: $WAF_PORT}|http_port: $WAF_PORT, first_byte_timeout_sec: 2, header_read_timeout_sec: 2, \
body_read_timeout_sec: 2, keepalive_timeout_sec: 2, max_connections: $((COUNT + 1000)), \
max_connections_per_client: $((COUNT + 1000))}|" "$work/waf.yml"
      grep -q "first_byte_timeout_sec: 2" "$work/waf.yml" || { echo "$SCRIPT: could not set the bounds" >&2; exit 1; }
      start_counted
      callgrind_control -i on "$vg" >/dev/null 2>&1
      # Returns once the proxy has closed every connection; fails if one outlived its bound + 1 s.
      SHAPES="$shape" "$GEN_BIN" "127.0.0.1:$WAF_PORT" "$COUNT" 2 >"$work/generator.log" ||
        { cat "$work/generator.log" >&2; exit 1; }
      stop_counted "$variant-$shape"
      printf '%-16s %-16s %14s\n' "waf-$variant" "$shape" "$((instructions / COUNT))"
    done
  done
  exit 0
fi

if [ "${PER_CONNECTION:-0}" = 1 ]; then
  # A new connection per request is asked for by the mix's requests (CLOSE=1 in load-mix.lua).
  [ -z "${ANSWER:-}" ] || { echo "$SCRIPT: PER_CONNECTION=1 runs the benign mix, not ANSWER" >&2; exit 1; }
  printf '%-16s %14s %14s %14s\n' "variant" "keep-alive" "new conn." "per connection"
  for variant in $VARIANTS; do
    count "$variant" 0
    kept=$((instructions / requests))
    count "$variant" 1
    new=$((instructions / requests))
    printf '%-16s %14s %14s %14s\n' "waf-$variant" "$kept" "$new" "$((new - kept))"
  done
  exit 0
fi

printf '%-16s %9s %16s %14s\n' "variant" "requests" "instructions" "per request"
for variant in $VARIANTS; do
  count "$variant" 0
  printf '%-16s %9s %16s %14s\n' "waf-$variant" "$requests" "$instructions" "$((instructions / requests))"
done
