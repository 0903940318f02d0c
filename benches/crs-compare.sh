#!/usr/bin/env bash
# Detection and false positives of waf against nginx + ModSecurity v3 + the full OWASP CRS at paranoia level 1,
# measured on the same requests in one run: the measurement that chooses the default rule set the proxy ships.
# Run by hand from the repository root:
#
#   bash benches/crs-compare.sh                          # builds the release binaries; waf on rules,crs-942,crs
#   RULE_DIRS=rules,crs-942 bash benches/crs-compare.sh  # the current default rule set
#   WAF_BIN=target/debug/waf bash benches/crs-compare.sh # binaries already built (rulec beside waf)
#   SAMPLE=10 bash benches/crs-compare.sh                # every 10th request only: a quick look
#   REQUEST_TESTS=0 LOAD_SECONDS=0 bash benches/crs-compare.sh  # the response tests alone
#
# Starts an upstream (nginx answering 200 with a marker header), nginx + ModSecurity v3 loading the CRS of CRS_DIR
# (crs-setup.conf.example, paranoia 1, anomaly threshold 5, SecRuleEngine On and ModSecurity's recommended
# settings) and waf (RULE_DIRS, paranoia 1, mode enforce), both in front of the upstream, then sends every request
# to both, raw over a socket (benches/crs_compare.py):
#   - attack:  every CRS go-ftw test of CRS_DIR/tests/REQUEST-9* that expects a rule to fire (expect_ids or a log
#              regex), at PL1 even those written for rules of paranoia 2 to 4, so both proxies are scored on the
#              same set;
#   - benign:  the CRS tests that expect named rules not to fire, the 36,000 normal requests of CSIC 2010
#              (CSIC_DIR, Host rewritten to the proxy), and the corpus of benches/benign/: the generated files
#              (make_corpus.py there), the GitHub REST client and webhook requests of benches/benign/github-api/ and
#              the multipart uploads of benches/benign/multipart-edge-cases/ (one request per .http file, sent
#              byte-exact).
# Prints, per corpus and per CRS file: requests, how many each proxy blocked (403) or otherwise refused (another
# status of its own, connection closed, timeout; reported apart and scored like a block: detected on attacks, a
# false positive on benign requests), the ratios waf/ModSecurity, a verdict on the target (detection at least
# ModSecurity's, false positives at most a third of ModSecurity's), the rule ids in each proxy's false positives
# and the attack tests ModSecurity stops but waf forwards. Exits non-zero only when the setup fails.
# Then the 95 CRS response tests (CRS_DIR/tests/RESPONSE-9*; RESPONSE_TESTS=0 skips them, REQUEST_TESTS=0 skips
# the request corpora above) through both, each in front of benches/reflect_upstream.py (go-ftw's albedo: a test
# asks it for a status, headers and body): waf with `rules.responses: true`, ModSecurity with its recommended
# response settings (SecResponseBodyAccess On, text/plain text/html text/xml, 512 KiB), both detection-only at
# paranoia level 4 (benches/crs_compare_responses.py says why), each test judged from the logs as go-ftw judges
# it; prints both pass counts and every failure.
# Then the throughput of both on the benign browser mix of benches/load.sh (wrk, 64 connections, LOAD_SECONDS each,
# default 10, 0 skips; nginx + ModSecurity with a worker per core for this part, as waf has), alternating
# ModSecurity, waf, ModSecurity, waf: requests/s, non-2xx answers and the ratio of the medians.
#
# Needs: nginx, libnginx-mod-http-modsecurity and python3 (apt-get install -y nginx libnginx-mod-http-modsecurity
# python3); the CRS (rules, crs-setup.conf.example, tests) in CRS_DIR (default third_party/crs) and, when you have
# it, CSIC 2010 in CSIC_DIR (its terms allow research use but grant no redistribution, so it is not in the
# repository: benches/benign/README.md says where to get it; without CSIC_DIR that corpus is left out). Other settings: CONCURRENCY (connections per proxy,
# default 4), TIMEOUT (seconds per answer, default 10), DETAILS (a file for every request's outcome and rule ids at
# both proxies, JSON lines; RESPONSE_DETAILS the same for the response tests), RULEC_BIN (default: rulec beside WAF_BIN, else the release build), MODSEC_MODULE and
# UNICODE_MAP (Debian's paths by default).
set -euo pipefail
cd "$(dirname "$0")/.."

CRS_DIR="${CRS_DIR:-third_party/crs}"
CSIC_DIR="${CSIC_DIR:-}"
RULE_DIRS="${RULE_DIRS:-rules,crs-942,crs}"
CONCURRENCY="${CONCURRENCY:-4}"
TIMEOUT="${TIMEOUT:-10}"
SAMPLE="${SAMPLE:-0}"
STARTUP_SECONDS="${STARTUP_SECONDS:-600}" # a debug build compiles the whole CRS slowly
# Debian's module (package libnginx-mod-http-modsecurity; /etc/nginx/modules-enabled loads the same file).
MODSEC_MODULE="${MODSEC_MODULE:-/usr/lib/nginx/modules/ngx_http_modsecurity_module.so}"
UNICODE_MAP="${UNICODE_MAP:-/etc/nginx/unicode.mapping}"
LOAD_SECONDS="${LOAD_SECONDS:-10}"
REQUEST_TESTS="${REQUEST_TESTS:-1}"
RESPONSE_TESTS="${RESPONSE_TESTS:-1}"
UPSTREAM_PORT=18091 MODSEC_PORT=18092 WAF_PORT=18093 MODSEC_LOAD_PORT=18094
REFLECT_PORT=18095 MODSEC_RESPONSES_PORT=18096 WAF_RESPONSES_PORT=18097

SCRIPT=crs-compare.sh
source benches/harness.sh

fail() { echo "$SCRIPT: $*" >&2; exit 1; }

install="apt-get install -y nginx libnginx-mod-http-modsecurity python3 curl"
for tool in nginx python3 curl; do
  command -v "$tool" >/dev/null || fail "$tool not found ($install)"
done
[ -f "$MODSEC_MODULE" ] || fail "no ModSecurity module at $MODSEC_MODULE ($install; or set MODSEC_MODULE)"
[ -f "$UNICODE_MAP" ] || fail "no unicode.mapping at $UNICODE_MAP ($install; or set UNICODE_MAP)"
if [ ! -f "$CRS_DIR/crs-setup.conf.example" ] || [ ! -d "$CRS_DIR/rules" ] || [ ! -d "$CRS_DIR/tests" ]; then
  fail "$CRS_DIR does not hold the CRS (crs-setup.conf.example, rules/, tests/); set CRS_DIR"
fi
csic_files=()
if [ -n "$CSIC_DIR" ]; then
  for f in "$CSIC_DIR"/*.txt; do
    # CSIC 2010 ships normal and anomalous files: only normal traffic is benign.
    case "$(basename "$f")" in *[Nn]ormal*) csic_files+=("$(realpath "$f")") ;; esac
  done
  [ "${#csic_files[@]}" -gt 0 ] || fail "no CSIC 2010 normal traffic (normal*.txt) in $CSIC_DIR"
else
  echo "CSIC_DIR not set: CSIC 2010 is left out (benches/benign/README.md says where to get it)" >&2
fi
CRS_DIR="$(realpath "$CRS_DIR")"

waf_binary
if [ -z "${RULEC_BIN:-}" ]; then
  if [ -x "$(dirname "$WAF_BIN")/rulec" ]; then
    RULEC_BIN="$(dirname "$WAF_BIN")/rulec"
  else
    cargo build --release -q -p waf-compiler --bin rulec
    RULEC_BIN="${CARGO_TARGET_DIR:-target}/release/rulec"
  fi
fi
"$RULEC_BIN" ftw-requests --help >/dev/null 2>&1 ||
  fail "$RULEC_BIN has no ftw-requests command: rebuild it (cargo build -p waf-compiler --bin rulec) or set RULEC_BIN"

# nginx started as root runs its workers as nobody: they must reach their temp directories under $work (mktemp
# makes it 0700) to buffer large request bodies, and ModSecurity's data directory, or they answer 500.
chmod 711 "$work"

# The upstream answers everything with 200 and a marker header: a response that carries it reached the
# application; any other response is the proxy's own. Generous limits, so the upstream refuses nothing a proxy
# forwards.
start_nginx upstream 1 "server { listen 127.0.0.1:$UPSTREAM_PORT; client_max_body_size 0;
    large_client_header_buffers 8 64k; add_header X-Compare-Upstream 1 always;
    location / { return 200 'ok\n'; } }"

modsecurity_config "$work/modsecurity.conf"

# One worker: the audit log is one file, written by one process. client_max_body_size as ModSecurity's own
# limit (SecRequestBodyLimit), so nginx refuses no body before ModSecurity sees it.
start_nginx modsec 1 "server { listen 127.0.0.1:$MODSEC_PORT; client_max_body_size 13m;
    modsecurity on; modsecurity_rules_file $work/modsecurity.conf;
    location / { proxy_pass http://127.0.0.1:$UPSTREAM_PORT; proxy_set_header Host \$http_host;
      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for; } }" "load_module $MODSEC_MODULE;"

waf_variant_config enforce "$WAF_PORT" "$UPSTREAM_PORT" "$work/waf.yml"
"$WAF_BIN" --config "$work/waf.yml" >"$work/waf.log" 2>&1 &
pids+=($!)

# Ready: the port answers (a waf in debug build takes minutes to compile the whole CRS).
wait_ready() { # port, name
  local deadline=$((SECONDS + STARTUP_SECONDS))
  until curl -s -o /dev/null "http://127.0.0.1:$1/"; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      cat "$work"/*/logs/error.log "$work/waf.log" >&2 || true
      fail "$2 does not answer on port $1"
    fi
    for p in "${pids[@]}"; do
      kill -0 "$p" 2>/dev/null || { cat "$work"/*/logs/error.log "$work/waf.log" >&2 || true; fail "$2 exited"; }
    done
    sleep 0.5
  done
}
wait_ready "$UPSTREAM_PORT" upstream
wait_ready "$MODSEC_PORT" "nginx + ModSecurity"
wait_ready "$WAF_PORT" waf

# Both proxies must forward a plain request to the upstream (marker present) and refuse an obvious attack.
for target in "ModSecurity $MODSEC_PORT" "waf $WAF_PORT"; do
  name=${target% *} port=${target#* }
  curl -s -D - -o /dev/null -H "Host: localhost" "http://127.0.0.1:$port/index.html" |
    grep -qi '^x-compare-upstream: 1' || fail "$name does not forward a plain GET to the upstream"
  sqli="/?id=1%27%20OR%20%271%27=%271"
  code=$(curl -s -o /dev/null -w '%{http_code}' -H "Host: localhost" "http://127.0.0.1:$port$sqli")
  [ "$code" = 403 ] || fail "$name answers $code, not 403, to a SQL injection: is the rule engine on?"
done

health=$(curl -s "http://127.0.0.1:$WAF_PORT/health")
echo "waf: $WAF_BIN, rule directories $RULE_DIRS, $(sed -n 's/.*"rules_loaded":\([0-9]*\).*/\1/p' <<<"$health") rules" \
  "loaded, paranoia level 1, mode $(sed -n 's/.*"mode":"\([a-z]*\)".*/\1/p' <<<"$health")"
echo "peer: $(nginx -v 2>&1 | sed 's/^nginx version: //') + libmodsecurity3" \
  "$(dpkg-query -W -f '${Version}' libmodsecurity3 2>/dev/null || echo '?') + CRS" \
  "$(sed -n 's/.*ver:.\(OWASP_CRS\/[^'"'"']*\).*/\1/p' "$CRS_DIR/rules/REQUEST-901-INITIALIZATION.conf" | head -1)" \
  "($CRS_DIR), paranoia level 1, anomaly threshold 5"
sampling=""
[ "$SAMPLE" -gt 1 ] && sampling=", every ${SAMPLE}th request only"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ), $CONCURRENCY connections at a time$sampling"

ftw_requests() { # output file, test files...
  local out=$1
  shift
  "$RULEC_BIN" ftw-requests "$@" >"$out" 2>"$work/ftw.err" ||
    { cat "$work/ftw.err" >&2; fail "rulec ftw-requests failed"; }
  # A CRS test file that does not parse is skipped by rulec and named here.
  sed 's/^/rulec: /' "$work/ftw.err" | grep '^rulec: skipped' | cut -c1-160 || true
}

if [ "$REQUEST_TESTS" != 0 ]; then
  ftw_requests "$work/ftw.jsonl" "$CRS_DIR"/tests/REQUEST-9*
  python3 benches/crs_compare.py --ftw "$work/ftw.jsonl" --csic ${csic_files[@]+"${csic_files[@]}"} --benign benches/benign/*.txt \
    benches/benign/github-api/*.txt --benign-whole benches/benign/multipart-edge-cases/http/*/*.http \
    --waf "127.0.0.1:$WAF_PORT" --modsec "127.0.0.1:$MODSEC_PORT" --waf-log "$work/waf.log" \
    --modsec-audit "$work/modsec-audit.log" --label "$RULE_DIRS" --concurrency "$CONCURRENCY" --timeout "$TIMEOUT" \
    --sample "$SAMPLE" ${DETAILS:+--details "$DETAILS"}
fi

if [ "$RESPONSE_TESTS" != 0 ]; then
  python3 benches/reflect_upstream.py "$REFLECT_PORT" &
  pids+=($!)
  # The same ModSecurity settings, detection-only at paranoia level 4; its rule lines go to nginx's error log at
  # level info (the audit log leaves out 980170, which is `noauditlog`).
  sed -e 's/^SecRuleEngine On$/SecRuleEngine DetectionOnly/' -e 's/blocking_paranoia_level=1/blocking_paranoia_level=4/' \
    -e "s|^SecAuditLog .*|SecAuditLog $work/modsec-responses-audit.log|" "$work/modsecurity.conf" \
    >"$work/modsecurity-responses.conf"
  grep -q '^SecRuleEngine DetectionOnly$' "$work/modsecurity-responses.conf" &&
    grep -q 'blocking_paranoia_level=4' "$work/modsecurity-responses.conf" || fail "the response run's ModSecurity settings"
  start_nginx modsec-responses 1 "server { listen 127.0.0.1:$MODSEC_RESPONSES_PORT; client_max_body_size 13m;
      error_log $work/modsec-responses.log info;
      modsecurity on; modsecurity_rules_file $work/modsecurity-responses.conf;
      location / { proxy_pass http://127.0.0.1:$REFLECT_PORT; proxy_set_header Host \$http_host; } }" \
    "load_module $MODSEC_MODULE;"
  RESPONSES=true waf_variant_config enforce "$WAF_RESPONSES_PORT" "$REFLECT_PORT" "$work/waf-responses.yml"
  sed -i -e 's/^  mode: enforce$/  mode: observe/' -e 's/paranoia_level: 1,/paranoia_level: 4,/' \
    "$work/waf-responses.yml"
  grep -q 'paranoia_level: 4, responses: true' "$work/waf-responses.yml" || fail "the response run's waf settings"
  "$WAF_BIN" --config "$work/waf-responses.yml" >"$work/waf-responses.log" 2>&1 &
  pids+=($!)
  wait_ready "$REFLECT_PORT" "the reflecting upstream"
  wait_ready "$MODSEC_RESPONSES_PORT" "nginx + ModSecurity (response tests)"
  wait_ready "$WAF_RESPONSES_PORT" "waf (response tests)"
  ftw_requests "$work/ftw-responses.jsonl" "$CRS_DIR"/tests/RESPONSE-9*
  python3 benches/crs_compare_responses.py --ftw "$work/ftw-responses.jsonl" --waf "127.0.0.1:$WAF_RESPONSES_PORT" \
    --modsec "127.0.0.1:$MODSEC_RESPONSES_PORT" --waf-log "$work/waf-responses.log" \
    --modsec-log "$work/modsec-responses.log" --concurrency "$CONCURRENCY" --timeout "$TIMEOUT" \
    ${RESPONSE_DETAILS:+--details "$RESPONSE_DETAILS"}
fi

[ "$LOAD_SECONDS" -gt 0 ] || exit 0
command -v wrk >/dev/null || fail "wrk not found for the throughput part (apt-get install -y wrk; or LOAD_SECONDS=0)"
# The detection run above used one nginx worker (one audit log); for throughput nginx gets a worker per core.
start_nginx modsec-load auto "server { listen 127.0.0.1:$MODSEC_LOAD_PORT; client_max_body_size 13m;
    modsecurity on; modsecurity_rules_file $work/modsecurity.conf;
    location / { proxy_pass http://127.0.0.1:$UPSTREAM_PORT; proxy_set_header Host \$http_host;
      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for; } }" "load_module $MODSEC_MODULE;"
wait_ready "$MODSEC_LOAD_PORT" "nginx + ModSecurity (throughput)"
load_rate() { # port: requests/s on the benign mix, and the non-2xx answers
  local out
  out="$(wrk -t2 -c64 -d"${LOAD_SECONDS}s" -s benches/load-mix.lua "http://127.0.0.1:$1/")"
  echo "$(awk '/Requests\/sec/ {print $2}' <<<"$out") $(awk '/Non-2xx/ {print $5}' <<<"$out")"
}
echo
echo "throughput on the benign mix of benches/load.sh (wrk -t2 -c64, ${LOAD_SECONDS} s each):"
modsec_rates=() waf_rates=()
for round in 1 2; do
  read -r rate non2xx < <(load_rate "$MODSEC_LOAD_PORT")
  modsec_rates+=("$rate"); echo "  round $round: nginx + ModSecurity $rate req/s (non-2xx: ${non2xx:-0})"
  read -r rate non2xx < <(load_rate "$WAF_PORT")
  waf_rates+=("$rate"); echo "  round $round: waf $rate req/s (non-2xx: ${non2xx:-0})"
done
awk -v m="${modsec_rates[*]}" -v w="${waf_rates[*]}" 'BEGIN {
  split(m, a, " "); split(w, b, " "); ma = (a[1] + a[2]) / 2; wa = (b[1] + b[2]) / 2
  printf "  mean of the rounds: nginx + ModSecurity %.0f req/s, waf %.0f req/s: waf = %.1fx\n", ma, wa, wa / ma }'

