#!/usr/bin/env bash
# Reliability of the waf proxy under load, with real processes (nginx upstream, wrk load), from the repository root:
#
#   bash benches/reliability.sh                  # every short scenario: reload-yaml reload-artifact sigterm upstream
#   SCENARIOS="soak" SOAK_SECONDS=600 bash benches/reliability.sh     # the 10-minute memory soak (by hand)
#   WAF_BIN=target/debug/waf bash benches/reliability.sh              # a prebuilt binary (CI uses the debug one)
#   RULE_DIRS=rules bash benches/reliability.sh     # the rule directories reloaded (default rules,crs-942; CI: rules,
#                                                   # since a debug build compiles crs-942 slowly at each reload)
#
# Scenarios, each failing the script when its claim does not hold:
#   reload-yaml      rules reloaded RELOADS (100) times (a rule file edited, then SIGHUP) during a wrk load:
#                    zero failed requests (no socket error, no non-2xx), every reload counted by the proxy; the
#                    load lasts until the last reload is counted (at most RELOAD_LOAD_SECONDS, 900)
#   reload-artifact  the same with a compiled artifact swapped atomically (two artifacts in turn: the first rule
#                    directory with lazy regexes, every directory with dense DFAs)
#   sigterm          SIGTERM while 32 requests are in flight at a slow upstream: every one completes with 200,
#                    the proxy exits 0
#   upstream         the upstream killed and restarted under load: only 502 while it is down, then 200 again
#                    from the same proxy process
#   soak             SOAK_SECONDS of load; the proxy's memory (RSS) sampled every 30 s must stay flat
#                    (last sample within 20 % of the one after the first minute)
# Needs nginx, wrk, python3 (apt-get install -y nginx wrk).
set -euo pipefail
cd "$(dirname "$0")/.."

SCENARIOS="${SCENARIOS:-reload-yaml reload-artifact sigterm upstream}"
RELOADS="${RELOADS:-100}"
SOAK_SECONDS="${SOAK_SECONDS:-600}"
# The most a reload scenario may take: its load runs until the last reload is counted, then stops.
RELOAD_LOAD_SECONDS="${RELOAD_LOAD_SECONDS:-900}"
UPSTREAM_PORT=18091 WAF_PORT=18092 SLOW_PORT=18093
RULE_DIRS="${RULE_DIRS:-rules,crs-942}"

SCRIPT=reliability.sh
source benches/harness.sh
require_tools nginx wrk python3
waf_binary
rulec_bin="$(dirname "$WAF_BIN")/rulec"

# wrk counting answers by status: prints "status N count" lines and the socket errors.
cat >"$work/count.lua" <<'LUA'
counts = {}  -- global: the main thread reads it from each thread with get()
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init() counts = {} end
function response(status) counts[status] = (counts[status] or 0) + 1 end
function done(summary)
  local total = {}
  for _, t in ipairs(threads) do
    for status, n in pairs(t:get("counts")) do total[status] = (total[status] or 0) + n end
  end
  for status, n in pairs(total) do io.write(string.format("status %d %d\n", status, n)) end
  local e = summary.errors
  io.write(string.format("socket errors %d\n", e.connect + e.read + e.write + e.timeout))
end
LUA

load() { # seconds, output file; `exec` so that `load ... &` gives wrk's pid, and wrk stops early on SIGINT
  exec wrk -t2 -c16 -d"${1}s" -s "$work/count.lua" "http://127.0.0.1:$WAF_PORT/search?q=shoes&page=2" >"$2"
}
statuses() { grep '^status ' "$1" | awk '{print $2}' | sort -u | tr '\n' ' '; }
count_of() { awk -v s="$2" '$1 == "status" && $2 == s {print $3}' "$1"; }
socket_errors() { awk '/^socket errors/ {print $3}' "$1"; }
metric() { # name with labels, as printed by /metrics
  curl -s "http://127.0.0.1:$WAF_PORT/metrics" | awk -v m="$1" 'index($0, m " ") == 1 {print $2}'
}
fail() { echo "FAIL $*" >&2; exit 1; }

waf_pid=""
start_waf() { # config file
  "$WAF_BIN" --config "$1" >"$work/waf.log" 2>&1 &
  waf_pid=$!
  pids+=("$waf_pid")
  curl -s --retry 50 --retry-delay 0 --retry-connrefused --retry-max-time 60 -o /dev/null \
    "http://127.0.0.1:$WAF_PORT/health" || fail "waf did not start: $(tail -n 5 "$work/waf.log")"
}
stop_waf() { kill "$waf_pid" 2>/dev/null || true; wait "$waf_pid" 2>/dev/null || true; }

write_config() { # file, rules block, upstream port
  cat >"$1" <<CONF
waf:
  server: {listen_address: 127.0.0.1, http_port: $WAF_PORT, shutdown_grace_sec: 10}
  upstream: {default: 'http://127.0.0.1:$3'}
  rules: $2
  logging: {level: warn}
CONF
}

upstream_pid() { echo "${pids[0]}"; }
start_upstream "$UPSTREAM_PORT"

# Reloads RELOADS times while wrk runs, each by `change` then SIGHUP; then checks wrk saw only 200s.
reload_under_load() { # name, change function
  local before after i out="$work/$1.wrk"
  before="$(metric 'waf_reloads_total{what="rules"}')"
  (load "$RELOAD_LOAD_SECONDS" "$out") &
  local wrk_pid=$!
  sleep 1
  for i in $(seq "$RELOADS"); do
    "$2" "$i"
    kill -HUP "$waf_pid"
    # Signals sent while a reload runs coalesce: wait for this one to be counted before the next.
    local deadline=$(( SECONDS + 30 ))
    until [ "$(metric 'waf_reloads_total{what="rules"}')" -ge $(( before + i )) ]; do
      [ "$SECONDS" -lt "$deadline" ] || fail "$1: reload $i not done within 30 s"
      sleep 0.05
    done
  done
  kill -0 "$wrk_pid" 2>/dev/null || fail "$1: the load ended before the reloads did: raise RELOAD_LOAD_SECONDS"
  # wrk prints its counts when interrupted, as at the end of its duration.
  sleep 1
  kill -INT "$wrk_pid"
  wait "$wrk_pid"
  after="$(metric 'waf_reloads_total{what="rules"}')"
  echo "$1: $(( after - before )) rule reloads; answers: $(grep '^status' "$out" | tr '\n' ' ')$(grep '^socket' "$out")"
  [ "$(statuses "$out")" = "200 " ] || fail "$1: answers other than 200 during reloads"
  [ "$(socket_errors "$out")" = 0 ] || fail "$1: socket errors during reloads"
  [ $(( after - before )) -ge "$RELOADS" ] || fail "$1: only $(( after - before )) of $RELOADS reloads happened"
}

for scenario in $SCENARIOS; do
  case "$scenario" in
    reload-yaml)
      mkdir -p "$work/rules"
      IFS=',' read -r -a dirs <<<"$RULE_DIRS"
      for d in "${dirs[@]}"; do cp -r "$d" "$work/rules/"; done
      write_config "$work/yaml.yml" "{directories: ['$work/rules'], paranoia_level: 1, reload_interval_sec: 3600}" "$UPSTREAM_PORT"
      start_waf "$work/yaml.yml"
      # Each reload reads a changed file (a comment appended to a rule file).
      edit_rule() { echo "# reload $1" >>"$work/rules/rules/sqli.yaml"; }
      reload_under_load reload-yaml edit_rule
      stop_waf
      ;;
    reload-artifact)
      IFS=',' read -r -a dirs <<<"$RULE_DIRS"
      # Two different sets, so each swap changes what is enforced: the first directory with lazy regexes, then
      # every directory with dense DFAs.
      "$rulec_bin" compile "${dirs[0]}" --paranoia 1 --dfa-size-limit 0 -o "$work/a.wafc" >/dev/null
      "$rulec_bin" compile "${dirs[@]}" --paranoia 1 -o "$work/b.wafc" >/dev/null
      cp "$work/a.wafc" "$work/live.wafc"
      write_config "$work/artifact.yml" "{artifact: '$work/live.wafc', paranoia_level: 1, reload_interval_sec: 3600}" "$UPSTREAM_PORT"
      start_waf "$work/artifact.yml"
      # Published as a deployment would: a full copy, then an atomic rename over the live file.
      swap_artifact() {
        if [ $(( $1 % 2 )) = 1 ]; then cp "$work/b.wafc" "$work/next.wafc"; else cp "$work/a.wafc" "$work/next.wafc"; fi
        mv "$work/next.wafc" "$work/live.wafc"
      }
      reload_under_load reload-artifact swap_artifact
      stop_waf
      ;;
    sigterm)
      # An upstream that takes 2 s per answer, so the requests are in flight when SIGTERM arrives.
      python3 - "$SLOW_PORT" >"$work/slow.log" 2>&1 <<'PY' &
import sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class Slow(BaseHTTPRequestHandler):
    def do_GET(self):
        time.sleep(2)
        self.send_response(200); self.send_header("Content-Length", "3"); self.end_headers(); self.wfile.write(b"ok\n")
    def log_message(self, *a): pass
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Slow).serve_forever()
PY
      pids+=($!)
      write_config "$work/slow.yml" "{directories: [rules, crs-942], paranoia_level: 1}" "$SLOW_PORT"
      start_waf "$work/slow.yml"
      curl -s --retry 20 --retry-delay 0 --retry-connrefused -o /dev/null "http://127.0.0.1:$SLOW_PORT/" || true
      for i in $(seq 32); do
        curl -s -o /dev/null -w '%{http_code}\n' "http://127.0.0.1:$WAF_PORT/slow?i=$i" >"$work/inflight.$i" &
      done
      sleep 0.5
      kill -TERM "$waf_pid"
      wait_status=0
      wait "$waf_pid" || wait_status=$?
      sleep 2.5
      ok="$(cat "$work"/inflight.* | grep -c '^200$' || true)"
      echo "sigterm: $ok of 32 requests in flight completed with 200; waf exited $wait_status"
      [ "$ok" = 32 ] || fail "sigterm: requests in flight failed: $(sort "$work"/inflight.* | uniq -c | tr '\n' ' ')"
      [ "$wait_status" = 0 ] || fail "sigterm: waf exited $wait_status"
      ;;
    upstream)
      write_config "$work/up.yml" "{directories: [rules, crs-942], paranoia_level: 1}" "$UPSTREAM_PORT"
      start_waf "$work/up.yml"
      pid_before="$waf_pid"
      load 15 "$work/upstream.wrk" &
      wrk_pid=$!
      sleep 4
      up="$(upstream_pid)"
      kill "$up"; wait "$up" 2>/dev/null || true
      sleep 4
      start_upstream "$UPSTREAM_PORT"
      wait "$wrk_pid"
      sleep 1
      after="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$WAF_PORT/search?q=after")"
      echo "upstream: answers: $(grep '^status' "$work/upstream.wrk" | tr '\n' ' '); after the restart: $after"
      [ "$(statuses "$work/upstream.wrk")" = "200 502 " ] || fail "upstream: expected only 200 and 502 answers"
      [ "$after" = 200 ] && kill -0 "$pid_before" || fail "upstream: no recovery without a restart"
      stop_waf
      ;;
    soak)
      write_config "$work/soak.yml" "{directories: [rules, crs-942], paranoia_level: 1}" "$UPSTREAM_PORT"
      start_waf "$work/soak.yml"
      (load "$SOAK_SECONDS" "$work/soak.wrk") &
      wrk_pid=$!
      samples=()
      for (( t = 30; t <= SOAK_SECONDS; t += 30 )); do
        sleep 30
        samples+=("$(awk '/^VmRSS/ {print $2}' "/proc/$waf_pid/status")")
      done
      wait "$wrk_pid"
      echo "soak: ${SOAK_SECONDS}s, RSS every 30 s (kB): ${samples[*]}; answers: $(grep '^status' "$work/soak.wrk" | tr '\n' ' ')"
      [ "$(statuses "$work/soak.wrk")" = "200 " ] || fail "soak: answers other than 200"
      first="${samples[1]:-${samples[0]}}" last="${samples[-1]}"
      [ $(( last * 100 )) -le $(( first * 120 )) ] || fail "soak: memory grew from $first kB to $last kB"
      stop_waf
      ;;
    *) fail "unknown scenario $scenario" ;;
  esac
done
echo "reliability: all of [$SCENARIOS] passed"
