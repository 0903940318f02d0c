#!/usr/bin/env bash
# Instructions per proxied request, counted by callgrind: a figure that does not move with the machine's load,
# unlike the req/s of benches/load.sh, so a change to the forwarding path can be judged on a busy machine.
# From the repository root:
#
#   bash benches/instructions.sh                       # builds the release binary, VARIANTS as in load.sh
#   WAF_BIN=/tmp/old-waf VARIANTS=no-rules bash benches/instructions.sh
#   MIX_ONLY=2 VARIANTS=enforce bash benches/instructions.sh   # one request kind of the mix (1 GET with query and
#                                                              # cookies, 2 form POST, 3 JSON POST, 4 static GET)
#   PER_CONNECTION=1 VARIANTS=no-rules bash benches/instructions.sh   # what a new connection costs: per request with
#                                      # keep-alive, per request with a new connection for each, and the difference
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
start_upstream "$UPSTREAM_PORT"

# Counts one run of VARIANT into `requests` (wrk's) and `instructions` (waf's). With CLOSE=1 every request asks
# for its connection to be closed, so each comes on a new connection.
count() { # variant, close (0 or 1)
  export CLOSE="$2"
  waf_variant_config "$1" "$WAF_PORT" "$UPSTREAM_PORT" "$work/waf.yml"
  rm -f "$work/callgrind.out"
  valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/callgrind.out" \
    "$WAF_BIN" --config "$work/waf.yml" >"$work/waf.log" 2>"$work/valgrind.log" &
  local vg=$! out
  pids+=("$vg")
  for _ in $(seq 300); do
    curl -s -o /dev/null "http://127.0.0.1:$WAF_PORT/health" && break
    sleep 0.2
  done
  wrk -t1 -c4 -d3s -s benches/load-mix.lua "http://127.0.0.1:$WAF_PORT/" >/dev/null
  callgrind_control -i on "$vg" >/dev/null 2>&1
  out=$(wrk -t1 -c4 -d"${SECONDS_MEASURED}s" -s benches/load-mix.lua "http://127.0.0.1:$WAF_PORT/")
  callgrind_control -i off "$vg" >/dev/null 2>&1
  kill "$vg"
  wait "$vg" 2>/dev/null || true
  if grep -q "Non-2xx" <<<"$out"; then
    echo "instructions.sh: $1 answered part of the benign mix with non-2xx" >&2; exit 1
  fi
  requests=$(awk '/requests in/ {print $1}' <<<"$out")
  instructions=$(awk '/^totals:/ {print $2}' "$work/callgrind.out")
  if [ -n "${KEEP_CALLGRIND:-}" ]; then cp "$work/callgrind.out" "$KEEP_CALLGRIND/callgrind-$1-close$2.out"; fi
}

if [ "${PER_CONNECTION:-0}" = 1 ]; then
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
