# Sourced by benches/load.sh and benches/instructions.sh (from the repository root): what both need to put `waf`
# in front of an nginx upstream. Expects `set -euo pipefail` and SCRIPT (the caller's name, for messages).

require_tools() { # tool...
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "$SCRIPT: $tool not found (apt-get install -y nginx wrk valgrind)" >&2; exit 1; }
  done
}

# WAF_BIN, or the release binary built now.
waf_binary() {
  if [ -z "${WAF_BIN:-}" ]; then
    cargo build --release -q -p waf-runtime --bin waf
    WAF_BIN="${CARGO_TARGET_DIR:-target}/release/waf"
  fi
}

# A scratch directory `$work`, removed with every process started into `pids` when the script exits.
work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# nginx in the foreground (daemon off), its own prefix, logs off: we measure proxying, not disk writes. The
# optional fourth argument goes into the main context (load_module).
start_nginx() { # name, worker_processes, body of the http block[, main context directives]
  local dir="$work/$1"
  mkdir -p "$dir/logs" "$dir/tmp"
  cat >"$dir/nginx.conf" <<CONF
${4:-}
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

# The upstream every target forwards to: nginx answering 200 to anything.
start_upstream() { # port
  start_nginx upstream 1 "server { listen 127.0.0.1:$1; client_max_body_size 1m;
    location / { client_body_buffer_size 64k; return 200 'ok\n'; } }"
}

# Benign answers of 2 KB, 64 KB and 1 MB in DIR, readable by nginx's workers: page-{2k,64k,1m}.html (prose in HTML
# paragraphs) and data-{2k,64k,1m}.json (JSON records), each repeated to its size.
benign_answers() { # dir
  mkdir -p "$1"
  python3 - "$1" <<'PY'
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
  chmod a+rx "$work" "$1"
  chmod a+r "$1"/*
}

# Writes the `waf` configuration of a variant to FILE: `enforce` (the RULE_DIRS directories, mode enforce),
# `no-rules` (an empty rule directory, mode enforce: the forwarding path alone), `disabled` (the directories, mode
# disabled: no inspection). RESPONSES=true turns the response rules on (`rules.responses`).
waf_variant_config() { # variant, port, upstream port, file
  local dir_list="" mode rule_dirs d logging="{level: warn}"
  local -a dirs
  IFS=',' read -r -a dirs <<<"$RULE_DIRS"
  for d in "${dirs[@]}"; do
    [ -d "$d" ] || { echo "$SCRIPT: rule directory $d not found (set RULE_DIRS)" >&2; exit 1; }
    dir_list+="'$(realpath "$d")', "
  done
  mkdir -p "$work/empty-rules"
  case "$1" in
    enforce) mode=enforce rule_dirs="${dir_list%, }" ;;
    no-rules) mode=enforce rule_dirs="'$work/empty-rules'" ;;
    disabled) mode=disabled rule_dirs="${dir_list%, }" ;;
    traffic) mode=enforce rule_dirs="${dir_list%, }" ;;
    # The access log (docs/proxy.md) off, or JSON to a file; the other variants keep the default (JSON to stdout,
    # which the scripts send to a file).
    access-off) mode=enforce rule_dirs="${dir_list%, }" logging="{level: warn, access: {enabled: false}}" ;;
    access-file)
      mode=enforce rule_dirs="${dir_list%, }"
      logging="{level: warn, access: {format: json, path: '$work/access-$2.log'}}"
      ;;
    *) echo "$SCRIPT: unknown variant $1 (enforce, no-rules, disabled, traffic, access-off, access-file)" >&2; exit 1 ;;
  esac
  cat >"$4" <<CONF
waf:
  mode: $mode
  server: {listen_address: 127.0.0.1, http_port: $2}
  upstream: {default: 'http://127.0.0.1:$3'}
  rules: {directories: [$rule_dirs], paranoia_level: 1, responses: ${RESPONSES:-false}}
  logging: $logging
CONF
  [ "$1" = traffic ] && traffic_controls_config >>"$4"
  return 0
}

# `traffic`: enforce plus every traffic control on, none of them refusing the load's client (127.0.0.1): an allow
# list, a deny file of 100,000 single addresses (none adjacent, so none merge), a rate limit far above the load,
# and GeoIP when $TEST_PYTHON has mmdb-writer (.ci/requirements.txt) to build a database with.
traffic_controls_config() {
  awk 'BEGIN { for (i = 0; i < 100000; i++) { n = 2 * i; printf "10.%d.%d.%d\n", int(n / 65536), int(n / 256) % 256, n % 256 } }' \
    >"$work/deny-100k.txt"
  cat <<CONF
  ip_filter: {allow: [127.0.0.0/8, '::1'], deny_file: '$work/deny-100k.txt'}
  rate_limit: {enabled: true, requests: 1000000000, window_sec: 1000}
CONF
  if [ -n "${TEST_PYTHON:-}" ] && "$TEST_PYTHON" -c 'import mmdb_writer' 2>/dev/null; then
    "$TEST_PYTHON" - "$work/country.mmdb" <<'PY'
import sys
from netaddr import IPSet
from mmdb_writer import MMDBWriter
w = MMDBWriter(ip_version=6, ipv4_compatible=True, database_type='GeoLite2-Country')
w.insert_network(IPSet(['127.0.0.0/8']), {'country': {'iso_code': 'FR'}})
w.insert_network(IPSet(['198.51.100.0/24']), {'country': {'iso_code': 'ZZ'}})
w.to_db_file(sys.argv[1])
PY
    echo "  geoip: {enabled: true, database: '$work/country.mmdb', deny_countries: [ZZ], unknown: deny}"
  else
    echo "$SCRIPT: TEST_PYTHON has no mmdb-writer: the traffic variant runs without GeoIP" >&2
  fi
}

# ModSecurity's recommended settings (modsecurity.conf-recommended of ModSecurity v3, as Debian ships it in
# /etc/nginx/modsecurity.conf) with the engine on and response bodies inspected, then the CRS as its INSTALL says:
# the setup file, then the rules. The audit log records refused requests (4xx/5xx) as JSON lines: their rule ids,
# by client address. Writes FILE; needs CRS_DIR (absolute) and UNICODE_MAP (benches/crs-compare.sh,
# benches/responses.sh).
modsecurity_config() { # file
  mkdir -p "$work/modsec-data"
  chmod 1777 "$work/modsec-data"
  cat >"$1" <<CONF
SecRuleEngine On
SecRequestBodyAccess On
SecRule REQUEST_HEADERS:Content-Type "^(?:application(?:/soap\+|/)|text/)xml" \\
  "id:'200000',phase:1,t:none,t:lowercase,pass,nolog,ctl:requestBodyProcessor=XML"
SecRule REQUEST_HEADERS:Content-Type "^application/json" \\
  "id:'200001',phase:1,t:none,t:lowercase,pass,nolog,ctl:requestBodyProcessor=JSON"
SecRequestBodyLimit 13107200
SecRequestBodyNoFilesLimit 131072
SecRequestBodyLimitAction Reject
SecRequestBodyJsonDepthLimit 512
SecArgumentsLimit 1000
SecRule &ARGS "@ge 1000" \\
  "id:'200007',phase:2,t:none,log,deny,status:400,\\
  msg:'Failed to fully parse request body due to large argument count',severity:2"
SecRule REQBODY_ERROR "!@eq 0" \\
  "id:'200002',phase:2,t:none,log,deny,status:400,msg:'Failed to parse request body.',\\
  logdata:'%{reqbody_error_msg}',severity:2"
SecRule MULTIPART_STRICT_ERROR "!@eq 0" \\
  "id:'200003',phase:2,t:none,log,deny,status:400,msg:'Multipart request body failed strict validation: \\
PE %{REQBODY_PROCESSOR_ERROR}, BQ %{MULTIPART_BOUNDARY_QUOTED}, BW %{MULTIPART_BOUNDARY_WHITESPACE}, \\
DB %{MULTIPART_DATA_BEFORE}, DA %{MULTIPART_DATA_AFTER}, HF %{MULTIPART_HEADER_FOLDING}, LF %{MULTIPART_LF_LINE}, \\
SM %{MULTIPART_MISSING_SEMICOLON}, IQ %{MULTIPART_INVALID_QUOTING}, IP %{MULTIPART_INVALID_PART}, \\
IH %{MULTIPART_INVALID_HEADER_FOLDING}, FL %{MULTIPART_FILE_LIMIT_EXCEEDED}'"
SecRule MULTIPART_UNMATCHED_BOUNDARY "@eq 1" \\
  "id:'200004',phase:2,t:none,log,deny,msg:'Multipart parser detected a possible unmatched boundary.'"
SecPcreMatchLimit 1000
SecPcreMatchLimitRecursion 1000
SecRule TX:/^MSC_/ "!@streq 0" \\
  "id:'200005',phase:2,t:none,deny,msg:'ModSecurity internal error flagged: %{MATCHED_VAR_NAME}'"
SecResponseBodyAccess On
SecResponseBodyMimeType text/plain text/html text/xml
SecResponseBodyLimit 524288
SecResponseBodyLimitAction ProcessPartial
SecTmpDir $work/modsec-data
SecDataDir $work/modsec-data
SecAuditEngine RelevantOnly
SecAuditLogRelevantStatus "^(?:5|4(?!04))"
SecAuditLogParts ABHZ
SecAuditLogType Serial
SecAuditLogFormat JSON
SecAuditLog $work/modsec-audit.log
SecArgumentSeparator &
SecCookieFormat 0
SecUnicodeMapFile $UNICODE_MAP 20127
SecStatusEngine Off

Include $CRS_DIR/crs-setup.conf.example
# Paranoia level 1 and inbound threshold 5 are the CRS defaults; set as crs-setup.conf.example shows, to be explicit.
SecAction "id:900000,phase:1,pass,t:none,nolog,tag:'OWASP_CRS',setvar:tx.blocking_paranoia_level=1"
SecAction "id:900110,phase:1,pass,t:none,nolog,tag:'OWASP_CRS',\\
  setvar:tx.inbound_anomaly_score_threshold=5,setvar:tx.outbound_anomaly_score_threshold=4"
Include $CRS_DIR/rules/*.conf
CONF
}
