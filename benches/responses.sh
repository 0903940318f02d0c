#!/usr/bin/env bash
# The cost of response inspection (docs/proxy.md, "Responses"): `waf` with `rules.responses` on and off, and
# nginx + ModSecurity v3 with the same CRS and its recommended response settings (SecResponseBodyAccess On,
# text/plain text/html text/xml, 512 KiB; benches/harness.sh) in front of the same nginx upstream serving HTML and
# JSON answers of 2 KB, 64 KB and 1 MB (static files: the upstream's own cost is the same for all), each answer
# loaded with wrk on its own. HTML bodies are inspected (read whole up to `response_body.limit_bytes`, 512 KiB, and
# evaluated), JSON bodies stream through with their head inspected; ModSecurity does the same with its own
# settings. Then the time to the first byte of a server-sent event stream (never inspected) through waf on and
# off and straight from its upstream: the median of TTFB_RUNS (default 20) curl runs each.
# Run by hand from the repository root, on an otherwise idle machine:
#
#   bash benches/responses.sh                  # release build, 10 s per answer and variant
#   DURATION=5 CONNECTIONS=16 bash benches/responses.sh
#   MODSEC=0 bash benches/responses.sh         # waf alone
#
# Needs nginx, wrk and curl (apt-get install -y nginx wrk curl), and for ModSecurity libnginx-mod-http-modsecurity
# and the CRS in CRS_DIR (default third_party/crs; MODSEC_MODULE and UNICODE_MAP as in benches/crs-compare.sh).
# Prints requests/s and p99 latency per answer and variant, the ratios waf on/off and waf on/ModSecurity (the bar
# of issue 29: at least 20x), and the stream's first-byte times; refuses to report if any answer was not a 200.
# Then each proxy's CPU time per request (user + system from /proc, waf's process, nginx + ModSecurity's master
# and workers; not wrk's nor the upstream's) and ModSecurity's over waf on's: the requests/s of a shared machine
# move with whatever else runs on it, the CPU a request costs each proxy much less.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION="${DURATION:-10}"
CONNECTIONS="${CONNECTIONS:-16}"
RULE_DIRS="${RULE_DIRS:-rules,crs-942,crs}"
MODSEC="${MODSEC:-1}"
CRS_DIR="${CRS_DIR:-third_party/crs}"
MODSEC_MODULE="${MODSEC_MODULE:-/usr/lib/nginx/modules/ngx_http_modsecurity_module.so}"
UNICODE_MAP="${UNICODE_MAP:-/etc/nginx/unicode.mapping}"
TTFB_RUNS="${TTFB_RUNS:-20}"
UPSTREAM_PORT=18181 ON_PORT=18182 OFF_PORT=18183 MODSEC_PORT=18184 EVENTS_PORT=18185

SCRIPT=responses.sh
source benches/harness.sh
require_tools nginx wrk curl
if [ "$MODSEC" != 0 ]; then
  [ -f "$MODSEC_MODULE" ] || { echo "$SCRIPT: no ModSecurity module at $MODSEC_MODULE (apt-get install -y libnginx-mod-http-modsecurity; or MODSEC=0)" >&2; exit 1; }
  [ -f "$CRS_DIR/crs-setup.conf.example" ] || { echo "$SCRIPT: no CRS in $CRS_DIR (set CRS_DIR; or MODSEC=0)" >&2; exit 1; }
  CRS_DIR="$(realpath "$CRS_DIR")"
fi
waf_binary

# The answers (benches/harness.sh), in a $work opened to nginx's unprivileged workers (ModSecurity's data
# directory is in it too).
benign_answers "$work/www"
start_nginx upstream 1 "server { listen 127.0.0.1:$UPSTREAM_PORT; root $work/www;
  types { text/html html; application/json json; } }"
if [ "$MODSEC" != 0 ]; then
  modsecurity_config "$work/modsecurity.conf"
  # A worker per core, as waf has one request thread per core.
  start_nginx modsec auto "server { listen 127.0.0.1:$MODSEC_PORT;
      modsecurity on; modsecurity_rules_file $work/modsecurity.conf;
      location / { proxy_pass http://127.0.0.1:$UPSTREAM_PORT; } }" "load_module $MODSEC_MODULE;"
  modsec_master=${pids[-1]}
fi

# A server-sent event stream: the first event at once, the next a minute later (no proxy may wait for it).
python3 - "$EVENTS_PORT" <<'PY' &
import http.server, sys, time
class Events(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        event = b"data: first\n\n"
        self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
        self.wfile.flush()
        time.sleep(60)
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Events)
server.daemon_threads = True
server.serve_forever()
PY
pids+=($!)

dir_list=""
IFS=',' read -r -a dirs <<<"$RULE_DIRS"
for d in "${dirs[@]}"; do dir_list+="'$(realpath "$d")', "; done
for variant in on off; do
  port=$ON_PORT
  responses=true
  if [ "$variant" = off ]; then port=$OFF_PORT responses=false; fi
  cat >"$work/waf-$variant.yml" <<CONF
waf:
  server: {listen_address: 127.0.0.1, http_port: $port}
  upstream: {default: 'http://127.0.0.1:$UPSTREAM_PORT'}
  rules: {directories: [${dir_list%, }], paranoia_level: 1, responses: $responses}
  logging: {level: warn, access: {enabled: false}}
  domains: {events.test: {default_upstream: 'http://127.0.0.1:$EVENTS_PORT'}}
CONF
  # The log in a directory of its own: waf watches its configuration's directory for changes, and every line
  # written there woke its reloader (two lines a request here: wrk's Host is an address, CRS 920350).
  mkdir -p "$work/logs"
  "$WAF_BIN" --config "$work/waf-$variant.yml" >"$work/logs/waf-$variant.log" 2>&1 &
  pids+=($!)
  declare "waf_$variant=$!"
done

ports="$UPSTREAM_PORT $ON_PORT $OFF_PORT"
[ "$MODSEC" != 0 ] && ports+=" $MODSEC_PORT"
for port in $ports; do
  for _ in $(seq 200); do
    curl -sf -o /dev/null "http://127.0.0.1:$port/page-2k.html" && break
    sleep 0.1
  done
done

# CPU time (user + system, in clock ticks) of processes, their threads included.
cpu_ticks() { # pids...
  local total=0 p
  for p in "$@"; do
    read -r -a f <"/proc/$p/stat"
    total=$((total + f[13] + f[14]))
  done
  echo "$total"
}
hz=$(getconf CLK_TCK)

# req/s, p99 and the CPU µs per request of `pids` of one wrk run, or a refusal when an answer was not 2xx.
run() { # port, path, pids...
  local port=$1 path=$2 out before after
  shift 2
  before=$(cpu_ticks "$@")
  out="$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency "http://127.0.0.1:$port$path")"
  after=$(cpu_ticks "$@")
  if grep -q 'Non-2xx' <<<"$out"; then
    echo "$SCRIPT: non-2xx answers on $path (port $port):" >&2
    echo "$out" >&2
    exit 1
  fi
  local rps p99 requests
  rps="$(awk '/Requests\/sec/ {print $2}' <<<"$out")"
  p99="$(awk '$1 == "99%" {print $2}' <<<"$out")"
  requests="$(awk '/requests in/ {print $1}' <<<"$out")"
  echo "$rps $p99 $(awk -v t=$((after - before)) -v hz="$hz" -v n="$requests" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }')"
}

echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, wrk -t2 -c$CONNECTIONS -d${DURATION}s; waf $WAF_BIN, rules $RULE_DIRS"
printf '%-15s %10s %8s %10s %8s %10s %8s %7s %9s\n' answer "on req/s" "on p99" "off req/s" "off p99" \
  "modsec r/s" "mod p99" on/off on/modsec
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
cpu_rows=()
for path in /page-2k.html /page-64k.html /page-1m.html /data-2k.json /data-64k.json /data-1m.json; do
  # shellcheck disable=SC2154 # waf_on and waf_off are declared above
  on="$(run $ON_PORT "$path" "$waf_on")" || exit 1
  off="$(run $OFF_PORT "$path" "$waf_off")" || exit 1
  modsec="- - -"
  if [ "$MODSEC" != 0 ]; then
    # shellcheck disable=SC2046 # the master and its workers, one pid each
    modsec="$(run $MODSEC_PORT "$path" "$modsec_master" $(pgrep -P "$modsec_master"))" || exit 1
  fi
  read -r on_rps on_p99 on_cpu <<<"$on"
  read -r off_rps off_p99 off_cpu <<<"$off"
  read -r modsec_rps modsec_p99 modsec_cpu <<<"$modsec"
  printf '%-15s %10s %8s %10s %8s %10s %8s %7s %9s\n' "$path" "$on_rps" "$on_p99" "$off_rps" "$off_p99" \
    "$modsec_rps" "$modsec_p99" "$(ratio "$on_rps" "$off_rps")" "$(ratio "$on_rps" "${modsec_rps/-/0}")"
  cpu_rows+=("$(printf '%-15s %10s %10s %10s %10s' "$path" "$on_cpu" "$off_cpu" "$modsec_cpu" \
    "$(ratio "${modsec_cpu/-/0}" "$on_cpu")")")
done
echo
echo "proxy CPU per request (µs, user + system)"
printf '%-15s %10s %10s %10s %10s\n' answer "waf on" "waf off" modsec modsec/on
printf '%s\n' "${cpu_rows[@]}"

# Time to the first byte of the event stream: curl gives up after a second (the stream never ends) and reports
# when the first byte came.
ttfb() { # port, host
  local times=() t
  for _ in $(seq "$TTFB_RUNS"); do
    t="$(curl -s -o /dev/null -m 1 -H "Host: $2" -w '%{time_starttransfer}' "http://127.0.0.1:$1/events" || true)"
    times+=("$t")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "%.2f ms", a[int((NR + 1) / 2)] * 1000 }'
}
echo
echo "first byte of a server-sent event stream (median of $TTFB_RUNS): upstream $(ttfb $EVENTS_PORT events.test)," \
  "waf responses on $(ttfb $ON_PORT events.test), off $(ttfb $OFF_PORT events.test)"
