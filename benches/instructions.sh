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
#
# Default workers, nginx upstream answering 200, wrk with the benign mix of load.sh (4 connections, slowed down by
# valgrind to a few thousand requests); counting is switched on only for the measured run, after a warm-up.
# Counts user-space instructions of waf only (not the kernel's, not nginx's).
# Needs: nginx, wrk, valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_MEASURED="${SECONDS_MEASURED:-10}"
RULE_DIRS="${RULE_DIRS:-rules,crs-942}"
VARIANTS="${VARIANTS:-enforce no-rules disabled}"
UPSTREAM_PORT=18091 WAF_PORT=18093

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

printf '%-16s %9s %16s %14s\n' "variant" "requests" "instructions" "per request"
for variant in $VARIANTS; do
  waf_variant_config "$variant" "$WAF_PORT" "$UPSTREAM_PORT" "$work/waf.yml"
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
  wrk -t1 -c4 -d3s "${load[@]}" >/dev/null
  callgrind_control -i on "$vg" >/dev/null 2>&1
  out=$(wrk -t1 -c4 -d"${SECONDS_MEASURED}s" "${load[@]}")
  callgrind_control -i off "$vg" >/dev/null 2>&1
  kill "$vg"
  wait "$vg" 2>/dev/null || true
  if grep -q "Non-2xx" <<<"$out"; then
    echo "instructions.sh: $variant answered part of the benign mix with non-2xx" >&2; exit 1
  fi
  requests=$(awk '/requests in/ {print $1}' <<<"$out")
  instructions=$(awk '/^totals:/ {print $2}' "$work/callgrind.out")
  printf '%-16s %9s %16s %14s\n' "waf-$variant" "$requests" "$instructions" "$((instructions / requests))"
done
