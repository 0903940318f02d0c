#!/usr/bin/env python3
"""The sending and counting half of benches/crs-compare.sh (which starts the proxies and calls this); standard
library only.

Sends every request of the corpora to both proxies, raw over a socket (malformed requests reach them as written),
one connection per request, and classifies each answer:

  forwarded   the upstream answered (its marker header is in the response), whatever the status;
  blocked     403 from the proxy itself;
  rejected    any other answer of the proxy itself (400, 413, 414, 431, 5xx, ...), a connection closed or reset
              without an answer, or no answer within the timeout.

Blocked and rejected requests both never reached the application: on the attack corpus they count as detected,
on a benign corpus as false positives. Both are reported apart.

Each request goes out from its own loopback source address (127.10.x.y and up), the same for both proxies, so the
rule ids of each request can be read back from the logs without touching the request: waf's `rule match` lines
name the client, ModSecurity's JSON audit log (relevant only: 4xx/5xx answers) names the client address.
"""
import argparse
import base64
import collections
import concurrent.futures
import json
import re
import socket
import sys
import time
from pathlib import Path

UPSTREAM_MARKER = b"x-compare-upstream"
ATTACK, BENIGN = "attack", "benign"


class Case:
    """One request (or several, for a multi-stage CRS test) of a corpus."""

    __slots__ = ("index", "corpus", "group", "name", "desc", "stages", "expect_ids", "kind", "rewrite_host")

    def __init__(self, corpus, group, name, stages, *, kind, desc="", expect_ids=(), rewrite_host=False):
        self.index = 0
        self.corpus, self.group, self.name, self.desc = corpus, group, name, desc
        self.stages, self.expect_ids, self.kind, self.rewrite_host = stages, list(expect_ids), kind, rewrite_host

    def source_ip(self):
        # 250 hosts per /24, 250 /24s per /16: no .0 or .255 anywhere, far from 127.0.0.1.
        host, rest = self.index % 250 + 1, self.index // 250
        return f"127.{10 + rest // 250}.{rest % 250 + 1}.{host}"


# --- corpora -----------------------------------------------------------------------------------------------------

def split_requests(raw):
    """The requests of a file of raw requests (CSIC 2010 format): as waf_compiler::request::split_requests, each
    ends after its headers' blank line plus Content-Length bytes; blank lines between requests are skipped."""
    out, pos, n = [], 0, len(raw)
    while True:
        while raw.startswith(b"\r\n", pos) or raw.startswith(b"\n", pos):
            pos += 2 if raw.startswith(b"\r\n", pos) else 1
        if pos >= n:
            return out
        at, length, body_start = pos, 0, n
        while True:
            lf = raw.find(b"\n", at)
            if lf < 0:
                break
            line = raw[at:lf].rstrip(b"\r")
            at = lf + 1
            if not line:
                body_start = at
                break
            name, sep, value = line.partition(b":")
            if sep and name.strip().lower() == b"content-length":
                try:
                    length = int(value.strip())
                except ValueError:
                    length = 0
        end = min(body_start + length, n)
        out.append(raw[pos:end])
        pos = end


def ftw_cases(path):
    """The CRS tests from `rulec ftw-requests` output. Attack: some stage expects a rule to fire (expect_ids, or
    a match_regex on the log). Benign: no stage expects one, and some stage expects named rules not to fire
    (no_expect_ids, or no_match_regex). Tests with neither (status-only tests) and tests whose request cannot be
    built are left out and counted."""
    cases, skipped = [], collections.Counter()
    for line in Path(path).read_text().splitlines():
        test = json.loads(line)
        stages = test["stages"]
        if any("error" in s for s in stages):
            skipped["request cannot be built"] += 1
            continue
        expect = sorted({i for s in stages for i in s["expect_ids"]})
        if expect or any(s["match_regex"] for s in stages):
            kind = ATTACK
        elif any(s["no_expect_ids"] or s["no_match_regex"] for s in stages):
            kind = BENIGN
        else:
            skipped["expects only a status"] += 1
            continue
        corpus = "CRS attack tests" if kind == ATTACK else "CRS benign tests"
        cases.append(Case(corpus, test["file"], test["test"], [base64.b64decode(s["request"]) for s in stages],
                          kind=kind, desc=test["desc"], expect_ids=expect))
    return cases, skipped


def file_cases(corpus, paths, *, group_by_file, rewrite_host=False, whole=False, group=None):
    """The requests of each file; whole: each file is one request, sent byte-exact (not split by Content-Length);
    group: the group of every request (default: the file's name with group_by_file, else the corpus)."""
    cases = []
    for path in paths:
        data = Path(path).read_bytes()
        name = group or (Path(path).stem if group_by_file else corpus)
        for i, raw in enumerate([data] if whole else split_requests(data)):
            cases.append(Case(corpus, name, f"{Path(path).name}#{i + 1}", [raw], kind=BENIGN,
                              rewrite_host=rewrite_host))
    return cases


ABSOLUTE = re.compile(rb"^([A-Za-z]+) https?://[^/ ]*(/[^ ]*)? ")


def to_origin_form(raw, host):
    """CSIC 2010 requests are written in absolute form for localhost:8080: origin form and the proxy's Host."""
    head, sep, body = raw.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    m = ABSOLUTE.match(lines[0])
    if m:
        lines[0] = m.group(1) + b" " + (m.group(2) or b"/") + b" " + lines[0][m.end():]
    lines = [b"Host: " + host.encode() if ln.lower().startswith(b"host:") else ln for ln in lines]
    return b"\r\n".join(lines) + sep + body


# --- sending -----------------------------------------------------------------------------------------------------

def send(raw, src, dst, timeout):
    """(outcome, detail): outcome forwarded / blocked / rejected; detail the status, or for rejected the reason
    (`status NNN`, `closed`, `timeout`). Only the head of the answer is read: the rule ids come from the logs."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.bind((src, 0))
        sock.connect(dst)
        try:
            sock.sendall(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the proxy may have answered and closed before reading all of it: read what it said
        buf = b""
        while True:
            head_end = buf.find(b"\r\n\r\n")
            if head_end >= 0:
                status_line, _, headers = buf[:head_end].partition(b"\r\n")
                parts = status_line.split(b" ", 2)
                status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
                if 100 <= status < 200 and status != 101:  # an interim answer (100 Continue): the real one follows
                    buf = buf[head_end + 4:]
                    continue
                break
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                return ("rejected", "closed" if not buf else "bad answer")
            buf += chunk
        names = {line.partition(b":")[0].strip().lower() for line in headers.split(b"\r\n")}
        if UPSTREAM_MARKER in names:
            return ("forwarded", status)
        return ("blocked", status) if status == 403 else ("rejected", f"status {status}")
    except socket.timeout:
        return ("rejected", "timeout")
    except ConnectionRefusedError:
        raise SystemExit(f"crs_compare.py: nothing listens on {dst[0]}:{dst[1]} any more (proxy died?)")
    except OSError as e:
        return ("rejected", f"error {e.errno}")
    finally:
        sock.close()


def run_case(case, proxies, timeout):
    """The combined outcome of a case at each proxy: the first stage not forwarded decides."""
    result = {}
    for name, (host, port) in proxies.items():
        outcome = ("forwarded", 200)
        for raw in case.stages:
            if case.rewrite_host:
                raw = to_origin_form(raw, f"localhost:{port}")
            answer = send(raw, case.source_ip(), (host, port), timeout)
            if answer[0] != "forwarded":
                outcome = answer
                break
        result[name] = outcome
    return result


# --- logs --------------------------------------------------------------------------------------------------------

WAF_MATCH = re.compile(r'rule match \[id "(\d+)"\].*?\[client "([^"]+)"\]')


def waf_rule_ids(path):
    """client address -> rule ids matched, from waf's log (one `rule match` line per matching rule)."""
    ids = collections.defaultdict(set)
    for line in Path(path).read_text(errors="replace").splitlines():
        m = WAF_MATCH.search(line)
        if m:
            ids[m.group(2)].add(int(m.group(1)))
    return ids


# ModSecurity's own evaluation rules name no attack: left out of the rule lists.
MODSEC_BOOKKEEPING = {949110, 959100, 980170, 980099}


def modsec_rule_ids(path):
    """client address -> rule ids matched, from ModSecurity's JSON audit log (one transaction per line)."""
    ids = collections.defaultdict(set)
    p = Path(path)
    if not p.exists():
        return ids
    for line in p.read_text(errors="replace").splitlines():
        try:
            tx = json.loads(line)["transaction"]
        except (ValueError, KeyError):
            continue
        for message in tx.get("messages", []):
            rule = message.get("details", {}).get("ruleId", "")
            if rule.isdigit() and int(rule) not in MODSEC_BOOKKEEPING:
                ids[tx.get("client_ip", "")].add(int(rule))
    return ids


# --- report ------------------------------------------------------------------------------------------------------

def pct(n, d):
    return f"{100.0 * n / d:.1f}%" if d else "-"


def ratio(a, b):
    if b == 0:
        return "-" if a == 0 else "inf"
    return f"{a / b:.3f}"


def stopped(outcomes):
    return sum(1 for o in outcomes if o[0] != "forwarded")


def table(rows, header):
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    fmt = lambda r: "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)  # noqa: E731
                              for i, (c, w) in enumerate(zip(r, widths)))
    print(fmt(header))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(fmt(r))


def row(label, cases, results):
    w = [results[c.index]["waf"] for c in cases]
    m = [results[c.index]["modsec"] for c in cases]
    wb, mb = sum(o[0] == "blocked" for o in w), sum(o[0] == "blocked" for o in m)
    ws, ms = stopped(w), stopped(m)
    return [label, len(cases), wb, ws - wb, ws, pct(ws, len(cases)), mb, ms - mb, ms, pct(ms, len(cases)),
            ratio(ws, ms)]


HEADER = ["corpus", "requests", "waf 403", "waf other", "waf stopped", "waf %", "modsec 403", "modsec other",
          "modsec stopped", "modsec %", "waf/modsec"]


def report(cases, results, skipped, args, waf_ids, modsec_ids):
    corpora = collections.OrderedDict()
    for c in cases:
        corpora.setdefault(c.corpus, []).append(c)
    attacks = [c for c in cases if c.kind == ATTACK]
    benign = [c for c in cases if c.kind == BENIGN]

    print(f"\n== waf ({args.label}) vs nginx + ModSecurity v3 + CRS, paranoia 1, anomaly threshold 5 ==")
    print("stopped = never reached the upstream: 403 (blocked) + other (another status of the proxy itself, connection "
          "closed,\ntimeout). On the attack corpus stopped counts as detected, on the benign corpora as a false "
          "positive.\nwaf/modsec: ratio of the stopped counts (detection: at least 1.00 wanted; false positives: at "
          "most 0.33).\n")
    rows = [row(name, cs, results) for name, cs in corpora.items()]
    rows.append(row("all benign", benign, results))
    table(rows, HEADER)
    if skipped:
        print("CRS tests left out: " + ", ".join(f"{n} ({why})" for why, n in sorted(skipped.items())))

    det_w = stopped(results[c.index]["waf"] for c in attacks)
    det_m = stopped(results[c.index]["modsec"] for c in attacks)
    fp_w = stopped(results[c.index]["waf"] for c in benign)
    fp_m = stopped(results[c.index]["modsec"] for c in benign)
    meets = det_w >= det_m and 3 * fp_w <= fp_m
    print(f"\nverdict: waf detects {det_w} of {len(attacks)} attack tests, ModSecurity {det_m} "
          f"(waf/modsec {ratio(det_w, det_m)}); false positives {fp_w} vs {fp_m} of {len(benign)} benign requests "
          f"(waf/modsec {ratio(fp_w, fp_m)}): "
          + ("MEETS the target (detection >= ModSecurity, false positives <= 1/3 of ModSecurity's)" if meets
             else "does NOT meet the target (detection >= ModSecurity, false positives <= 1/3 of ModSecurity's)"))
    per_corpus = [(name, stopped(results[c.index]["waf"] for c in cs), stopped(results[c.index]["modsec"] for c in cs))
                  for name, cs in corpora.items() if cs[0].kind == BENIGN]
    print("false positives waf/modsec per benign corpus: "
          + ", ".join(f"{name} {ratio(w, m)}{'' if 3 * w <= m else ' (over 1/3)'}" for name, w, m in per_corpus))

    for name, cs in corpora.items():
        groups = collections.OrderedDict()
        for c in cs:
            groups.setdefault(c.group, []).append(c)
        if len(groups) > 1:
            unit = "CRS rule file" if name.startswith("CRS") else "file"
            print(f"\n-- {name}, per {unit} --")
            table([row(g, gc, results) for g, gc in sorted(groups.items())], [unit] + HEADER[1:])

    print("\n-- answers other than 403 and forwarded, per proxy (counted as stopped) --")
    any_other = False
    for name, cs in corpora.items():
        for proxy in ("waf", "modsec"):
            other = collections.Counter(str(results[c.index][proxy][1]) for c in cs
                                        if results[c.index][proxy][0] == "rejected")
            if other:
                any_other = True
                print(f"{name}, {proxy}: " + ", ".join(f"{k}: {v}" for k, v in other.most_common()))
    if not any_other:
        print("none")

    top = args.top
    for name, cs in corpora.items():
        if cs[0].kind != BENIGN:
            continue
        print(f"\n-- {name}: rules in the false positives (top {top}; a request counts once per rule) --")
        for proxy, ids in (("waf", waf_ids), ("modsec", modsec_ids)):
            count = collections.Counter()
            for c in cs:
                if results[c.index][proxy][0] != "forwarded":
                    for rule in ids.get(c.source_ip(), ()):
                        count[rule] += 1
            print(f"{proxy}: " + (", ".join(f"{r} ({n})" for r, n in count.most_common(top)) or "none"))

    missed = [c for c in attacks if results[c.index]["modsec"][0] != "forwarded"
              and results[c.index]["waf"][0] == "forwarded"]
    extra = [c for c in attacks if results[c.index]["waf"][0] != "forwarded"
             and results[c.index]["modsec"][0] == "forwarded"]
    print(f"\n-- attack tests: ModSecurity stops and waf forwards: {len(missed)}; waf stops and ModSecurity "
          f"forwards: {len(extra)} --")
    by_file = collections.Counter(c.group for c in missed)
    if by_file:
        print("missed by waf, per CRS file: " + ", ".join(f"{g} {n}" for g, n in by_file.most_common()))
    by_rule = collections.Counter(r for c in missed for r in modsec_ids.get(c.source_ip(), ()))
    if by_rule:
        print("ModSecurity rules in the tests waf misses: "
              + ", ".join(f"{r} ({n})" for r, n in by_rule.most_common(top)))
    for c in missed[: args.list]:
        rules = sorted(modsec_ids.get(c.source_ip(), ()))
        waf_seen = sorted(waf_ids.get(c.source_ip(), ()))
        print(f"  {c.name} (expects {c.expect_ids}): ModSecurity {results[c.index]['modsec'][1]} with rules {rules}; "
              f"waf matched {waf_seen or 'nothing'}: {c.desc.splitlines()[0][:100] if c.desc else ''}")
    if len(missed) > args.list:
        print(f"  ... and {len(missed) - args.list} more (DETAILS= writes them all)")
    return meets


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ftw", required=True, help="`rulec ftw-requests` output (JSON lines)")
    ap.add_argument("--csic", nargs="*", default=[], help="CSIC 2010 files of normal requests")
    ap.add_argument("--benign", nargs="*", default=[], help="files of raw benign requests (benches/benign/*.txt)")
    ap.add_argument("--benign-whole", nargs="*", default=[],
                    help="files of one raw benign request each, sent byte-exact (benches/benign/multipart-edge-cases)")
    ap.add_argument("--waf", required=True, help="host:port of waf")
    ap.add_argument("--modsec", required=True, help="host:port of nginx + ModSecurity")
    ap.add_argument("--waf-log", required=True)
    ap.add_argument("--modsec-audit", required=True)
    ap.add_argument("--label", default="", help="the waf rule directories, for the report")
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--sample", type=int, default=0, help="every Nth request only (quick runs); 0: all")
    ap.add_argument("--top", type=int, default=15, help="rule ids listed per corpus")
    ap.add_argument("--list", type=int, default=40, help="missed attack tests listed")
    ap.add_argument("--details", help="write every request's outcome at both proxies here (JSON lines)")
    args = ap.parse_args()

    cases, skipped = ftw_cases(args.ftw)
    cases.sort(key=lambda c: c.kind != ATTACK)  # attack tests first, then the CRS benign tests
    cases += file_cases("CSIC 2010 normal", args.csic, group_by_file=False, rewrite_host=True)
    cases += file_cases("benches/benign", args.benign, group_by_file=True)
    cases += file_cases("benches/benign", args.benign_whole, group_by_file=False, whole=True,
                        group="multipart-edge-cases")
    if args.sample > 1:
        cases = cases[:: args.sample]
    for i, c in enumerate(cases):
        c.index = i
    proxies = {}
    for name, addr in (("waf", args.waf), ("modsec", args.modsec)):
        host, _, port = addr.rpartition(":")
        proxies[name] = (host, int(port))

    results = [None] * len(cases)
    started, done = time.monotonic(), 0
    with concurrent.futures.ThreadPoolExecutor(args.concurrency) as pool:
        futures = {pool.submit(run_case, c, proxies, args.timeout): c for c in cases}
        for future in concurrent.futures.as_completed(futures):
            results[futures[future].index] = future.result()
            done += 1
            if done % 2000 == 0 or done == len(cases):
                rate = done / max(time.monotonic() - started, 1e-9)
                print(f"crs_compare.py: {done}/{len(cases)} requests sent to both ({rate:.0f}/s)", file=sys.stderr)
    print(f"{len(cases)} requests sent to each proxy in {time.monotonic() - started:.0f} s")

    time.sleep(1)  # the proxies write their logs after answering
    waf_ids, modsec_ids = waf_rule_ids(args.waf_log), modsec_rule_ids(args.modsec_audit)
    if args.details:
        with open(args.details, "w") as out:
            for c in cases:
                r = results[c.index]
                out.write(json.dumps({
                    "corpus": c.corpus, "group": c.group, "name": c.name, "expect_ids": c.expect_ids,
                    "waf": [r["waf"][0], str(r["waf"][1]), sorted(waf_ids.get(c.source_ip(), ()))],
                    "modsec": [r["modsec"][0], str(r["modsec"][1]), sorted(modsec_ids.get(c.source_ip(), ()))],
                }) + "\n")
    report(cases, results, skipped, args, waf_ids, modsec_ids)


if __name__ == "__main__":
    main()
