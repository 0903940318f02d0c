#!/usr/bin/env bash
# The cost of response inspection (docs/proxy.md, "Responses"): `waf` with `rules.responses` on and off in front
# of the same nginx upstream serving HTML and JSON answers of 2 KB, 64 KB and 1 MB (static files: the upstream's
# own cost is the same for both), each answer loaded with wrk on its own. HTML bodies are inspected (read whole up
# to `response_body.limit_bytes`, 512 KiB, and evaluated), JSON bodies stream through with their head inspected.
# Run by hand from the repository root, on an otherwise idle machine:
#
#   bash benches/responses.sh                  # release build, 10 s per answer and variant
#   DURATION=5 CONNECTIONS=16 bash benches/responses.sh
#
# Needs nginx and wrk (apt-get install -y nginx wrk). Prints requests/s and p99 latency per answer and variant, and
# the ratio on/off; refuses to report if any answer was not a 200.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION="${DURATION:-10}"
CONNECTIONS="${CONNECTIONS:-16}"
RULE_DIRS="${RULE_DIRS:-rules,crs-942,crs}"
UPSTREAM_PORT=18181 ON_PORT=18182 OFF_PORT=18183

SCRIPT=responses.sh
source benches/harness.sh
require_tools nginx wrk
waf_binary

# Benign pages: prose in HTML paragraphs, and JSON records, repeated to each size.
mkdir -p "$work/www"
python3 - "$work/www" <<'PY'
import json, sys
out = sys.argv[1]
para = ("<p>Our bakery opens at seven. Fresh bread, croissants and seasonal tarts are made every morning "
        "with flour from the mill down the road; orders for parties are taken a day ahead.</p>\n")
record = {"id": 1, "name": "Sourdough loaf", "price": 4.5, "tags": ["bread", "daily"], "stock": 12}
for label, size in (("2k", 2048), ("64k", 65536), ("1m", 1 << 20)):
    body = "<html><head><title>Bakery</title></head><body>\n"
    while len(body) < size:
        body += para
    open(f"{out}/page-{label}.html", "w").write(body + "</body></html>\n")
    items, length = [], 2
    while length < size:
        items.append(dict(record, id=len(items)))
        length += len(json.dumps(items[-1])) + 2
    open(f"{out}/data-{label}.json", "w").write(json.dumps(items))
PY

# nginx's workers run as an unprivileged user: they must be able to read the pages.
chmod a+rx "$work" "$work/www"
chmod a+r "$work"/www/*
start_nginx upstream 1 "server { listen 127.0.0.1:$UPSTREAM_PORT; root $work/www;
  types { text/html html; application/json json; } }"

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
CONF
  "$WAF_BIN" --config "$work/waf-$variant.yml" >"$work/waf-$variant.log" 2>&1 &
  pids+=($!)
done

for port in $UPSTREAM_PORT $ON_PORT $OFF_PORT; do
  for _ in $(seq 200); do
    curl -sf -o /dev/null "http://127.0.0.1:$port/page-2k.html" && break
    sleep 0.1
  done
done

# req/s and p99 of one wrk run, or a refusal when an answer was not 2xx.
run() { # port, path
  local out
  out="$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency "http://127.0.0.1:$1$2")"
  if grep -q 'Non-2xx' <<<"$out"; then
    echo "$SCRIPT: non-2xx answers on $2 (port $1):" >&2
    echo "$out" >&2
    exit 1
  fi
  local rps p99
  rps="$(awk '/Requests\/sec/ {print $2}' <<<"$out")"
  p99="$(awk '$1 == "99%" {print $2}' <<<"$out")"
  echo "$rps $p99"
}

printf '%-16s %14s %10s %14s %10s %8s\n' answer "on req/s" "on p99" "off req/s" "off p99" on/off
for path in /page-2k.html /page-64k.html /page-1m.html /data-2k.json /data-64k.json /data-1m.json; do
  on="$(run $ON_PORT "$path")" || exit 1
  off="$(run $OFF_PORT "$path")" || exit 1
  read -r on_rps on_p99 <<<"$on"
  read -r off_rps off_p99 <<<"$off"
  printf '%-16s %14s %10s %14s %10s %8s\n' "$path" "$on_rps" "$on_p99" "$off_rps" "$off_p99" \
    "$(awk -v a="$on_rps" -v b="$off_rps" 'BEGIN { printf "%.2f", a / b }')"
done
