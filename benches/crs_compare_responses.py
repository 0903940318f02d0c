#!/usr/bin/env python3
"""The response half of benches/crs-compare.sh: the CRS response tests (RESPONSE-9*, from `rulec ftw-requests`)
sent to waf and to nginx + ModSecurity, both in front of benches/reflect_upstream.py (go-ftw's albedo: each test
asks it for a status, headers and body), and each test judged as go-ftw judges it, from each proxy's log: every
stage's `expect_ids` among the rules the proxy logged for the test's requests, none of its `no_expect_ids`, its
`match_regex` found in those log lines and its `no_match_regex` not. Standard library only.

Both proxies run detection-only (waf `mode: observe`, ModSecurity `SecRuleEngine DetectionOnly`) at paranoia
level 4, as CRS's own test setup runs these tests (`rulec test --paranoia 4`) and as go-ftw's verdicts are read
from the log: with blocking on, a request rule that fires on a test's JSON (`<?php`, SQL error text) would stop
the request before any answer exists to inspect, at both proxies alike. Each test's requests
leave from their own loopback address (benches/crs_compare.py), how the log lines are told apart.
"""
import argparse
import base64
import collections
import concurrent.futures
import json
import re
import sys
import time
from pathlib import Path

from crs_compare import Case, send, table

# waf's lines: each rule that matched (`rule match`, prefixed OBSERVE MODE in observe mode) and the transaction's
# correlation (`correlation`, CRS 980170), each naming the client.
WAF_LINE = re.compile(r'(?:rule match|correlation) \[id "(\d+)"\].*?\[client "([^"]+)"\]')


def log_rules(path, pattern):
    """client address -> (rule ids, log lines), from the lines of the log at `path` that `pattern` (rule id,
    client) matches; empty when there is no log."""
    seen = collections.defaultdict(lambda: (set(), []))
    p = Path(path)
    if not p.exists():
        return seen
    for line in p.read_text(errors="replace").splitlines():
        m = pattern.search(line)
        if m:
            ids, lines = seen[m.group(2)]
            ids.add(int(m.group(1)))
            lines.append(line)
    return seen


# ModSecurity's lines in nginx's error log (at level info): one per rule that logs, 980170 included (which the
# audit log leaves out: `noauditlog`), each naming the client as nginx does.
MODSEC_LINE = re.compile(r'ModSecurity: .*?\[id "(\d+)"\].*, client: ([0-9a-fA-F.:]+),')


def cases(path):
    """The tests as cases of crs_compare.py, each with its stages' expectations."""
    out = []
    for line in Path(path).read_text().splitlines():
        test = json.loads(line)
        stages = test["stages"]
        if any(isinstance(s.get(k), bool) for s in stages for k in ("match_regex", "no_match_regex")):
            raise SystemExit("crs_compare_responses.py: this rulec gives no log regexes: rebuild it")
        if any("error" in s for s in stages):
            print(f"{test['test']}: request cannot be built, left out", file=sys.stderr)
            continue
        case = Case("CRS response tests", test["file"], test["test"], [base64.b64decode(s["request"]) for s in stages],
                    kind="response", desc=test["desc"])
        case.index = len(out)
        out.append((case, stages))
    return out


def failure(stages, seen):
    """Why a test fails given what a proxy logged for its client (rule ids, lines), or None when it passes."""
    ids, lines = seen
    text = "\n".join(lines)
    why = []
    for n, s in enumerate(stages):
        missing = [i for i in s["expect_ids"] if i not in ids]
        unwanted = [i for i in s["no_expect_ids"] if i in ids]
        if missing:
            why.append(f"stage {n}: expected {missing} not logged")
        if unwanted:
            why.append(f"stage {n}: {unwanted} logged")
        if s.get("match_regex") and not re.search(s["match_regex"], text):
            why.append(f"stage {n}: log does not match {s['match_regex']!r}")
        if s.get("no_match_regex") and re.search(s["no_match_regex"], text):
            why.append(f"stage {n}: log matches {s['no_match_regex']!r}")
    return "; ".join(why) or None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ftw", required=True, help="`rulec ftw-requests` output of the RESPONSE-9* tests")
    ap.add_argument("--waf", required=True, help="host:port of waf")
    ap.add_argument("--modsec", required=True, help="host:port of nginx + ModSecurity")
    ap.add_argument("--waf-log", required=True)
    ap.add_argument("--modsec-log", required=True, help="nginx's error log, at level info")
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--details", help="write every test's outcome at both proxies here (JSON lines)")
    args = ap.parse_args()

    tests = cases(args.ftw)
    proxies = {}
    for name, addr in (("waf", args.waf), ("modsec", args.modsec)):
        host, _, port = addr.rpartition(":")
        proxies[name] = (host, int(port))

    def run(test):
        case = test[0]
        return {name: [send(raw, case.source_ip(), dst, args.timeout) for raw in case.stages]
                for name, dst in proxies.items()}

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.concurrency) as pool:
        answers = list(pool.map(run, tests))
    print(f"\n== CRS response tests: {len(tests)} sent to each proxy in {time.monotonic() - started:.0f} s, "
          f"through a reflecting upstream (benches/reflect_upstream.py), both detection-only ==")
    time.sleep(1)  # the proxies write their logs after answering
    logs = {"waf": log_rules(args.waf_log, WAF_LINE), "modsec": log_rules(args.modsec_log, MODSEC_LINE)}
    empty = (set(), [])
    results = []
    for case, stages in tests:
        results.append({name: failure(stages, logs[name].get(case.source_ip(), empty)) for name in proxies})

    groups = collections.OrderedDict()
    for (case, _), result in zip(tests, results):
        groups.setdefault(case.group, []).append(result)
    rows = [[g, len(rs), sum(r["waf"] is None for r in rs), sum(r["modsec"] is None for r in rs)]
            for g, rs in sorted(groups.items())]
    rows.append(["all", len(results), sum(r["waf"] is None for r in results),
                 sum(r["modsec"] is None for r in results)])
    table(rows, ["CRS file", "tests", "waf passed", "modsec passed"])
    total = len(results)
    waf_ok = sum(r["waf"] is None for r in results)
    modsec_ok = sum(r["modsec"] is None for r in results)
    print(f"\nresponse tests passed: waf {waf_ok}/{total} ({100.0 * waf_ok / max(total, 1):.1f}%), "
          f"nginx + ModSecurity {modsec_ok}/{total} ({100.0 * modsec_ok / max(total, 1):.1f}%)")
    statuses = {name: collections.Counter(str(a[0][1]) if a[0][0] == "forwarded" else f"own {a[0][1]}"
                                          for a in (ans[name] for ans in answers)) for name in proxies}
    print("answer statuses: " + "; ".join(f"{name}: " + ", ".join(f"{k} x{v}" for k, v in sorted(c.items()))
                                          for name, c in statuses.items()))
    for name in proxies:
        failed = [(c, r[name]) for (c, _), r in zip(tests, results) if r[name] is not None]
        print(f"\n-- failed at {name}: {len(failed)} --")
        for case, why in failed:
            got = sorted(logs[name].get(case.source_ip(), empty)[0])
            print(f"  {case.name}: {why}; logged {got or 'nothing'}")
    if args.details:
        with open(args.details, "w") as out:
            for (case, _), result in zip(tests, results):
                out.write(json.dumps({
                    "test": case.name, "file": case.group,
                    **{name: {"failure": result[name],
                              "ids": sorted(logs[name].get(case.source_ip(), empty)[0])} for name in proxies},
                }) + "\n")


if __name__ == "__main__":
    main()
