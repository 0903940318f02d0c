//! Evaluation end to end: the shipped rules against real attack and benign requests, chains, paranoia levels,
//! key filters, and the sharing of transformed values.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use waf_compiler::CompileOptions;
use waf_compiler::CompiledRule;
use waf_compiler::SourceFile;
use waf_compiler::{Action, CompiledRuleSet, HttpRequest};
use waf_compiler::{Observer, Scratch, Silent};
use waf_compiler::{OperatorKind, Transform, Variable};

fn shipped_rules_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules")
}

fn shipped(paranoia_level: u8) -> CompiledRuleSet {
    let outcome = CompiledRuleSet::load_dirs(
        &[shipped_rules_dir()],
        &CompileOptions {
            paranoia_level,
            ..Default::default()
        },
    );
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    outcome.ruleset
}

fn from_yaml(yaml: &str, paranoia_level: u8) -> CompiledRuleSet {
    let sources = [SourceFile {
        path: "test.yaml".into(),
        relative: "test.yaml".into(),
        text: Ok(yaml.to_owned()),
    }];
    let outcome = CompiledRuleSet::from_sources(
        &sources,
        &CompileOptions {
            paranoia_level,
            ..Default::default()
        },
    );
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    outcome.ruleset
}

/// An HTTP/1.1 request.
fn request<'a>(
    method: &'a str,
    uri: &'a str,
    headers: Headers<'a>,
    body: &'a [u8],
) -> HttpRequest<'a> {
    HttpRequest {
        method,
        uri,
        version: "HTTP/1.1",
        headers,
        body,
    }
}

/// Ids of the rules that match the request.
fn ids(
    rules: &CompiledRuleSet,
    method: &str,
    uri: &str,
    headers: Headers,
    body: &[u8],
) -> Vec<u32> {
    let verdict = rules.evaluate(&request(method, uri, headers, body));
    verdict.matches.iter().map(|m| m.rule_id).collect()
}

/// Header list of a test request.
type Headers<'a> = &'a [(&'a str, &'a [u8])];

const FORM: (&str, &[u8]) = ("Content-Type", b"application/x-www-form-urlencoded");

#[test]
fn shipped_rules_catch_their_attacks() {
    let rules = shipped(2);
    let xml = ("Content-Type", &b"application/xml"[..]);
    let cases: &[(&str, &str, Headers, &[u8], u32)] = &[
        ("GET", "/?q=1'%20or%20'x'%3D'x", &[], b"", 100101),
        (
            "GET",
            "/?id=1%20UNION/**/SELECT%20password%20FROM%20users",
            &[],
            b"",
            100102,
        ),
        (
            "POST",
            "/",
            &[("Content-Type", b"text/plain")],
            b"x UNION\n\t ALL select 1",
            100102,
        ),
        ("GET", "/?x;/**/DROP%20table=1", &[], b"", 100103),
        ("GET", "/", &[("Cookie", b"x%3Bdrop=1")], b"", 100103),
        (
            "GET",
            "/?q=%3Cscript%3Ealert(1)%3C/script%3E",
            &[],
            b"",
            100201,
        ),
        (
            "GET",
            "/",
            &[("Cookie", b"c=<SCRIPT src=//x>")],
            b"",
            100201,
        ),
        ("POST", "/", &[xml], b"<a>&lt;script&gt;</a>", 100201),
        (
            "POST",
            "/",
            &[xml],
            b"<a b=\"&#60;script src=x&#62;\"/>",
            100201,
        ),
        ("POST", "/", &[FORM], b"q=%26lt%3Bscript%26gt%3B", 100201),
        ("GET", "/static/..%2f..%2fetc/passwd", &[], b"", 100400),
        ("GET", "/?f=..%2500/etc/passwd", &[], b"", 100400),
        ("POST", "/", &[FORM], b"file=..%u002f..%u002fetc", 100400),
        ("GET", "/app/.env", &[], b"", 100401),
        ("GET", "/dump/DB.SQL", &[], b"", 100401),
        ("GET", "/.git/config", &[], b"", 100402),
        ("TRACE", "/", &[], b"", 100300),
        ("GET", "/?a=%00", &[], b"", 100302),
        ("GET", "/a%00b", &[], b"", 100302),
        ("POST", "/", &[("Content-Length", b"12x")], b"", 100304),
        (
            "GET",
            "/",
            &[("User-Agent", b" () { :; }; /bin/cat /etc/passwd")],
            b"",
            100305,
        ),
    ];
    for (method, uri, headers, body, want) in cases {
        let got = ids(&rules, method, uri, headers, body);
        assert!(
            got.contains(want),
            "{method} {uri}: want {want}, got {got:?}"
        );
    }
}

#[test]
fn benign_traffic_matches_nothing() {
    let rules = shipped(2);
    let browser: &[(&str, &[u8])] = &[
        ("Host", b"shop.example"),
        (
            "User-Agent",
            b"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
        ),
        (
            "Accept",
            b"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
        ),
        ("Accept-Language", b"en-US,en;q=0.5"),
        ("Cookie", b"session=3f2a9c; theme=dark; consent=yes"),
        ("Referer", b"https://shop.example/search?q=shoes"),
        ("X-Forwarded-For", b"() { not a function"),
    ];
    let cases: &[(&str, &str, Headers, &[u8])] = &[
        (
            "GET",
            "/products/shoes.html?color=red&size=42&sort=price-asc",
            browser,
            b"",
        ),
        (
            "POST",
            "/login",
            &[FORM],
            b"user=alice&password=s3cr%21t&remember=on",
        ),
        (
            "POST",
            "/api/orders",
            &[("Content-Type", b"application/json")],
            br#"{"items":[{"id":12,"qty":2}],"note":"leave at the door"}"#,
        ),
        ("GET", "/search?q=select+a+union+leader&id=5", &[], b""),
        ("GET", "/docs/v1.2/index.html", &[], b""),
    ];
    for (method, uri, headers, body) in cases {
        assert_eq!(
            ids(&rules, method, uri, headers, body),
            Vec::<u32>::new(),
            "{method} {uri}"
        );
    }
}

#[test]
fn log_rules_report_without_blocking() {
    let rules = shipped(1);
    let req = HttpRequest {
        version: "http/1.1",
        ..request("GET", "/", &[("Bad Header", b"x")], b"")
    };
    let verdict = rules.evaluate(&req);
    let got: Vec<u32> = verdict.matches.iter().map(|m| m.rule_id).collect();
    assert_eq!(got, [100301, 100303]);
    assert!(verdict.matches.iter().all(|m| m.action == Action::Log));
    assert!(!verdict.is_blocked());
}

#[test]
fn shipped_rules_exercise_every_operator_variable_and_transform() {
    let rules = shipped(4);
    let mut operators = BTreeSet::new();
    let mut variables = BTreeSet::new();
    let mut transforms = BTreeSet::new();
    let mut chained = false;
    for r in rules.rules() {
        operators.insert(format!("{:?}", r.rule.operator));
        variables.extend(r.rule.variables.iter().map(|v| v.variable));
        transforms.extend(r.rule.transforms.iter().copied());
        chained |= !r.rule.chain.is_empty();
    }
    let all_ops = [
        OperatorKind::Regex,
        OperatorKind::Contains,
        OperatorKind::StartsWith,
        OperatorKind::DetectorSqli,
        OperatorKind::DetectorXss,
    ];
    assert_eq!(
        operators,
        all_ops.iter().map(|o| format!("{o:?}")).collect()
    );
    assert!(chained);
    // Some ModSecurity-style variables (FILES, REQUEST_BODY) and transforms (cmdLine, base64Decode...) only the
    // CRS conversions beside the rules use.
    let crs = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let outcome = CompiledRuleSet::load_dirs(
        &[shipped_rules_dir(), crs.join("crs-942"), crs.join("crs")],
        &CompileOptions {
            paranoia_level: 4,
            ..CompileOptions::default()
        },
    );
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    for r in outcome.ruleset.rules() {
        variables.extend(r.rule.variables.iter().map(|v| v.variable));
        transforms.extend(r.rule.transforms.iter().copied());
    }
    // The response variables CRS's response files do not read (theirs are RESPONSE_BODY and RESPONSE_STATUS) are
    // exercised by `response_phase.rs`.
    variables.extend([
        Variable::ResponseProtocol,
        Variable::ResponseHeaders,
        Variable::ResponseHeadersNames,
        Variable::ResponseContentType,
        Variable::ResponseContentLength,
    ]);
    assert_eq!(variables, Variable::ALL.into_iter().collect());
    // hexEncode: of the request files, only 901's initialization (not converted) uses it.
    transforms.insert(Transform::HexEncode);
    assert_eq!(transforms, Transform::ALL.into_iter().collect());
}

#[test]
fn paranoia_level_decides_which_rules_run() {
    let yaml = "rules:\n\
        - {id: 1, msg: pl1, pattern: a, variables: [ARGS_GET], action: deny}\n\
        - {id: 2, msg: pl2, pattern: a, variables: [ARGS_GET], action: deny, paranoia_level: 2}\n\
        - {id: 3, msg: pl4, pattern: a, variables: [ARGS_GET], action: deny, paranoia_level: 4}\n";
    for (pl, want, count) in [
        (1, vec![1], 1),
        (2, vec![1, 2], 2),
        (3, vec![1, 2], 2),
        (4, vec![1, 2, 3], 3),
    ] {
        let rules = from_yaml(yaml, pl);
        assert_eq!(ids(&rules, "GET", "/?x=a", &[], b""), want, "PL{pl}");
        assert_eq!(rules.rule_count(), count);
    }
    // A single deny match blocks; the match reports the rule's paranoia level.
    let rules = from_yaml(yaml, 4);
    let req = request("GET", "/?x=a", &[], b"");
    let verdict = rules.evaluate(&req);
    assert_eq!(
        verdict.blocking().map(|m| (m.rule_id, m.paranoia_level)),
        Some((1, 1))
    );
    assert_eq!(verdict.matches[2].paranoia_level, 4);
}

/// A rule scoped to `hosts` runs only for requests whose Host names one of them (any case, any port); the
/// other rules run for every host.
#[test]
fn hosts_scope_a_rule_to_its_domains() {
    let yaml = "rules:\n\
        - {id: 1, msg: everywhere, pattern: a, variables: [ARGS_GET], action: deny}\n\
        - {id: 2, msg: shop only, pattern: a, variables: [ARGS_GET], action: deny, hosts: [shop.example]}\n\
        - {id: 3, msg: two hosts, pattern: a, variables: [ARGS_GET], action: deny, hosts: [a.test, '[::1]']}\n";
    let rules = from_yaml(yaml, 1);
    for (host, want) in [
        (Some("shop.example"), vec![1, 2]),
        (Some("SHOP.Example:8080"), vec![1, 2]),
        (Some("shop.example."), vec![1, 2]),
        (Some("a.test"), vec![1, 3]),
        (Some("[::1]:443"), vec![1, 3]),
        (Some("other.example"), vec![1]),
        (Some("shop.example.evil"), vec![1]),
        (Some(""), vec![1]),
        (None, vec![1]),
    ] {
        let headers: Vec<(&str, &[u8])> =
            host.map(|h| ("Host", h.as_bytes())).into_iter().collect();
        assert_eq!(
            ids(&rules, "GET", "/?x=a", &headers, b""),
            want,
            "Host {host:?}"
        );
    }
}

/// A `hosts` entry that no Host header could carry is a load error naming the entry.
#[test]
fn hosts_must_be_host_names() {
    for bad in ["''", "shop.example:80", "'*.example'", "'a b'", "a..b"] {
        let sources = [SourceFile {
            path: "t.yaml".into(),
            relative: "t.yaml".into(),
            text: Ok(format!(
                "{{id: 1, msg: m, pattern: a, variables: [ARGS], action: deny, hosts: [ok.example, {bad}]}}"
            )),
        }];
        let outcome = CompiledRuleSet::from_sources(&sources, &CompileOptions::default());
        let errors: Vec<String> = outcome.errors.iter().map(|e| e.to_string()).collect();
        assert!(
            errors.len() == 1
                && errors[0].contains("hosts[1]")
                && errors[0].contains("not a host name"),
            "{bad}: {errors:?}"
        );
    }
}

/// The five chained CRS 942 rules, in the shapes `docs/rule-format.md` gives for them.
#[test]
fn chains_express_the_crs_942_chained_rules() {
    let yaml = r#"
rules:
  - id: 942130
    msg: tautology, equal operands
    pattern: '(?i)[\s\x0b"''-\)`]*?\b([0-9A-Z_a-z]+)\b[\s\x0b"''-\)`]*?(?:=|<=>|(?:sounds[\s\x0b]+)?like|glob|r(?:like|egexp))[\s\x0b"''-\)`]*?\b([0-9A-Z_a-z]+)\b'
    transforms: [none, url_decode_uni, replace_comments]
    variables: [ARGS_GET]
    chain: [{target: "capture:1", operator: equals, pattern: "${capture:2}"}]
    action: deny
  - id: 942131
    msg: tautology, different operands
    pattern: '(?i)[\s\x0b"''-\)`]*?\b([0-9A-Z_a-z]+)\b[\s\x0b"''-\)`]*?(?:!=|<=|>=|<>|<|>|\^|is[\s\x0b]+not|not[\s\x0b]+like|not[\s\x0b]+regexp)[\s\x0b"''-\)`]*?\b([0-9A-Z_a-z]+)\b'
    transforms: [url_decode_uni, replace_comments]
    variables: [ARGS_GET]
    chain: [{target: "capture:1", operator: equals, pattern: "${capture:2}", negate: true}]
    action: deny
  - id: 942200
    msg: comment obfuscation, not a plain token
    pattern: ',.*?[)\da-f"''`]["''`](?:["''`].*?["''`]|(?:\r?\n)?\z|[^"''`]+)|(?i:\wselect.+\w*?from)|(?i:select.*?\w*?from)'
    transforms: [url_decode_uni]
    variables: [ARGS_GET]
    chain: [{target: matched_value, operator: regex, pattern: '^[,\-0-9=A-Z_a-z]+$', negate: true}]
    action: deny
  - id: 942521
    msg: captured boolean operator
    pattern: '(?i)^(?:[^''"`]*?["''`])?[\s\x0b]*(and|or)\b'
    transforms: [url_decode_uni]
    variables: [ARGS_GET]
    chain: [{target: "capture:1", operator: regex, pattern: '(?i)^(?:and|or)$'}]
    action: deny
"#;
    let rules = from_yaml(yaml, 1);
    let hit = |uri: &str| ids(&rules, "GET", uri, &[], b"");
    assert!(hit("/?a=1%27%20or%20%27x%27%3D%27x").contains(&942130));
    assert_eq!(
        hit("/?a=x%3Dy"),
        Vec::<u32>::new(),
        "different operands are not an equal tautology"
    );
    assert_eq!(hit("/?a=1%20or%202%3C3"), [942131]);
    assert_eq!(
        hit("/?a=3%3C3"),
        Vec::<u32>::new(),
        "equal operands are not a 942131 match"
    );
    assert_eq!(hit("/?a=a,b%27%22"), [942200]);
    assert_eq!(
        hit("/?a=select-from"),
        Vec::<u32>::new(),
        "a plain token is excluded by the negated chain"
    );
    assert_eq!(hit("/?a=admin%27%20or%201"), [942521]);
    assert_eq!(hit("/?a=android"), Vec::<u32>::new());
}

#[test]
fn key_filters_names_exclude_and_regex() {
    let yaml = r#"
rules:
  - id: 1
    msg: only the id argument
    pattern: x
    variables: [{type: ARGS_GET, names: [id]}]
    action: deny
  - id: 2
    msg: all arguments but those starting with safe_
    pattern: x
    variables: [{type: ARGS_GET, exclude: ['/^safe_/']}]
    action: deny
  - id: 3
    msg: headers by name, case-insensitive
    pattern: x
    variables: [{type: REQUEST_HEADERS, names: [user-agent], exclude: ['/^X-SKIP/']}]
    action: deny
"#;
    let rules = from_yaml(yaml, 1);
    assert_eq!(ids(&rules, "GET", "/?id=x", &[], b""), [1, 2]);
    assert_eq!(
        ids(&rules, "GET", "/?ID=x", &[], b""),
        [2],
        "argument names are exact"
    );
    assert_eq!(
        ids(&rules, "GET", "/?safe_q=x", &[], b""),
        Vec::<u32>::new()
    );
    assert_eq!(ids(&rules, "GET", "/", &[("User-Agent", b"x")], b""), [3]);
    assert_eq!(
        ids(
            &rules,
            "GET",
            "/",
            &[("x-skip-me", b"x"), ("Accept", b"x")],
            b""
        ),
        Vec::<u32>::new()
    );
}

#[test]
fn match_reports_variable_and_excerpt() {
    let rules = shipped(1);
    let req = request("GET", "/?name=ok&q=%3Cscript%3E%0d%0a", &[], b"");
    let verdict = rules.evaluate(&req);
    let m = verdict
        .matches
        .iter()
        .find(|m| m.rule_id == 100201)
        .unwrap();
    assert_eq!(
        (m.rule_id, m.variable.as_str(), m.value_excerpt.as_str()),
        (100201, "ARGS:q", "<script>")
    );
    assert_eq!(m.tags, ["attack-xss"]);
    assert_eq!(m.severity, Some(waf_compiler::Severity::Critical));
}

#[test]
fn each_transform_chain_is_computed_once_per_value() {
    let yaml = "rules:\n\
        - {id: 1, msg: a, pattern: zzz1, variables: [ARGS_GET], transforms: [url_decode_uni, lowercase], action: deny}\n\
        - {id: 2, msg: b, pattern: zzz2, variables: [ARGS_GET], transforms: [lowercase, none, url_decode_uni, lowercase], action: deny}\n\
        - {id: 3, msg: c, pattern: zzz3, variables: [ARGS_GET], transforms: [url_decode_uni], action: deny}\n\
        - {id: 4, msg: d, pattern: zzz4, variables: [ARGS_GET], action: deny}\n";
    let mut rules = from_yaml(yaml, 1);
    // Rules 1 and 2 have the same effective chain; 4 has none (no copy at all).
    assert_eq!(rules.chains().len(), 3);
    // With the prefilter, no rule would run on these values (none holds a literal) and nothing be computed.
    rules.set_prefilter(None).unwrap();
    let req = request("GET", "/?a=1&b=2&c=3", &[], b"");
    let mut cache = Scratch::default();
    let verdict = rules.evaluate_with(&req, &mut cache, &mut Silent);
    assert!(verdict.matches.is_empty());
    // 3 values x 2 distinct non-empty chains, though 3 rules transform them.
    assert_eq!(cache.len(), 6);
}

/// Two rules with the same pattern on header `X-T`, transforms `[lowercase, replace_comments]`: 1 has
/// `multi_match`, 2 does not.
fn multi_match_pair(pattern: &str) -> CompiledRuleSet {
    let rule = |id: u32, multi: bool| {
        format!(
            "- {{id: {id}, msg: m, pattern: '{pattern}', variables: [{{type: REQUEST_HEADERS, names: [X-T]}}], \
             transforms: [lowercase, replace_comments], multi_match: {multi}, action: deny}}\n"
        )
    };
    from_yaml(&format!("rules:\n{}{}", rule(1, true), rule(2, false)), 1)
}

fn header_ids(rules: &CompiledRuleSet, value: &[u8]) -> Vec<u32> {
    ids(rules, "GET", "/", &[("X-T", value)], b"")
}

#[test]
fn multi_match_runs_the_operator_on_the_raw_value() {
    // Only the untransformed value has upper case and the comment.
    let rules = multi_match_pair(r"A/\*\*/B");
    assert_eq!(header_ids(&rules, b"A/**/B"), [1]);
    assert_eq!(header_ids(&rules, b"a/**/b"), Vec::<u32>::new());
}

#[test]
fn multi_match_runs_the_operator_on_intermediate_values() {
    // Only the value after `lowercase` and before `replace_comments` matches.
    let rules = multi_match_pair(r"a/\*\*/b");
    assert_eq!(header_ids(&rules, b"A/**/B"), [1]);
    // The final value still counts for both.
    let rules = multi_match_pair("a b");
    assert_eq!(header_ids(&rules, b"A/**/B"), [1, 2]);
}

/// Counts the values a rule's operator ran on.
struct Runs(Vec<(u32, Vec<u8>)>);

impl Observer for Runs {
    fn inspected(
        &mut self,
        rule: &CompiledRule,
        _variable: Variable,
        _key: &[u8],
        value: &[u8],
        _matched: bool,
    ) {
        self.0.push((rule.rule.id, value.to_vec()));
    }
}

#[test]
fn multi_match_skips_unchanged_steps_and_shares_every_step() {
    let mut rules = multi_match_pair("zzz");
    // Without the prefilter (which would skip both rules: no `zzz` in the value), to see every operator run.
    rules.set_prefilter(None).unwrap();
    let req = request("GET", "/", &[("X-T", b"a/**/b")], b"");
    let mut cache = Scratch::default();
    let mut runs = Runs(Vec::new());
    let verdict = rules.evaluate_with(&req, &mut cache, &mut runs);
    assert!(verdict.matches.is_empty());
    // `lowercase` changed nothing, so rule 1 runs on the raw and the final value only; rule 2 on the final.
    let expected: [(u32, &[u8]); 3] = [(1, b"a/**/b"), (1, b"a b"), (2, b"a b")];
    let expected: Vec<(u32, Vec<u8>)> = expected.iter().map(|(id, v)| (*id, v.to_vec())).collect();
    assert_eq!(runs.0, expected);
    // One value, two steps of one chain, computed once for both rules.
    assert_eq!(cache.len(), 2);
}

#[test]
fn detector_sqli_operator_flags_injections_in_every_variable() {
    let rules = shipped(1);
    let json = ("Content-Type", &b"application/json"[..]);
    let cases: &[(&str, &str, Headers, &[u8])] = &[
        ("GET", "/?id=1%27%20or%20%271%27%3D%271", &[], b""),
        ("POST", "/", &[FORM], b"user=admin%27--&pw=x"),
        (
            "POST",
            "/",
            &[json],
            br#"{"q":"1 union select password from users"}"#,
        ),
        ("GET", "/", &[("Cookie", b"id=1' or 1=1-- ")], b""),
        (
            "POST",
            "/",
            &[("Content-Type", b"text/xml")],
            b"<q>1' or '1'='1</q>",
        ),
    ];
    for (method, uri, headers, body) in cases {
        let got = ids(&rules, method, uri, headers, body);
        assert!(
            got.contains(&100100),
            "{method} {uri} {:?}: got {got:?}",
            String::from_utf8_lossy(body)
        );
    }
    assert!(!ids(&rules, "GET", "/?q=hello%20world&page=2", &[], b"").contains(&100100));
}

#[test]
fn detector_xss_operator_flags_scripts() {
    let rules = shipped(1);
    let got = ids(
        &rules,
        "GET",
        "/?q=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E",
        &[],
        b"",
    );
    assert!(got.contains(&100200), "got {got:?}");
    let got = ids(
        &rules,
        "GET",
        "/",
        &[("Referer", b"\"><svg onload=alert(1)>")],
        b"",
    );
    assert!(got.contains(&100200), "got {got:?}");
}

#[test]
fn a_rule_set_can_be_shared_across_threads() {
    fn shareable<T: Send + Sync + 'static>(_: &T) {}
    let rules = std::sync::Arc::new(shipped(1));
    shareable(&rules);
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let rules = std::sync::Arc::clone(&rules);
            std::thread::spawn(move || ids(&rules, "GET", "/.env", &[], b""))
        })
        .collect();
    for worker in workers {
        assert_eq!(worker.join().unwrap(), [100401]);
    }
}

/// A chain condition on another request variable holds when one of its values satisfies it; its regex captures
/// are what later conditions read. The verdict depends on the other variable even when the matched value was
/// seen before (the value memo must not remember a non-match of such a rule).
#[test]
fn chain_conditions_read_other_variables_and_their_captures() {
    let yaml = r#"
rules:
  - id: 1
    msg: session id with an off-site referer
    pattern: '^sessionid$'
    variables: [ARGS_GET_NAMES]
    action: deny
    chain:
      - {target: 'REQUEST_HEADERS:Referer', operator: regex, pattern: '^https?://(.*?)/'}
      - {target: 'capture:1', operator: ends_with, pattern: '${request_headers:host}', negate: true}
  - id: 2
    msg: a method the rule names
    pattern: 'x'
    variables: [ARGS_GET]
    action: deny
    chain:
      - {target: 'REQUEST_METHOD', operator: within, pattern: 'PUT DELETE'}
  - id: 4
    msg: a POST without a Content-Length
    pattern: '^POST$'
    variables: [REQUEST_METHOD]
    action: deny
    chain:
      - {target: '&REQUEST_HEADERS:Content-Length', operator: equals, pattern: '0'}
"#;
    let rules = from_yaml(yaml, 1);
    let uri = "/?sessionid=1&a=x";
    let host = ("Host", &b"shop.example"[..]);
    let off_site = [host, ("referer", &b"https://evil.example/x"[..])];
    let same_site = [host, ("Referer", &b"https://www.shop.example/x"[..])];
    for _ in 0..2 {
        assert_eq!(ids(&rules, "GET", uri, &same_site, b""), Vec::<u32>::new());
        assert_eq!(ids(&rules, "GET", uri, &[host], b""), Vec::<u32>::new());
        assert_eq!(ids(&rules, "GET", uri, &off_site, b""), [1]);
        assert_eq!(ids(&rules, "DELETE", uri, &same_site, b""), [2]);
        assert_eq!(ids(&rules, "POST", "/", &[host], b""), [4]);
        let length = ("content-length", &b"0"[..]);
        assert_eq!(
            ids(&rules, "POST", "/", &[host, length], b""),
            Vec::<u32>::new()
        );
    }
    let unknown = [SourceFile {
        path: "bad.yaml".into(),
        relative: "bad.yaml".into(),
        text: Ok(
            "rules: [{id: 3, msg: m, pattern: a, variables: [ARGS], action: deny, \
                  chain: [{target: 'NO_SUCH_VARIABLE', operator: regex, pattern: a}]}]"
                .to_owned(),
        ),
    }];
    let outcome = CompiledRuleSet::from_sources(
        &unknown,
        &CompileOptions {
            paranoia_level: 1,
            ..CompileOptions::default()
        },
    );
    let errors = format!("{:?}", outcome.errors);
    assert!(errors.contains("NO_SUCH_VARIABLE"), "{errors}");
}

#[test]
fn an_excluded_target_is_not_inspected_by_its_rule_and_the_others_still_are() {
    use waf_compiler::{Exclusions, TargetExclusion};
    let rules = shipped(1);
    let excluded = [TargetExclusion::parse(100201, "ARGS:q").unwrap()];
    let ids_excluding = |uri: &str| -> Vec<u32> {
        let verdict =
            rules.evaluate_excluding(&request("GET", uri, &[], b""), Exclusions::new(&excluded));
        verdict.matches.iter().map(|m| m.rule_id).collect()
    };
    assert!(ids(&rules, "GET", "/?q=%3Cscript%3E", &[], b"").contains(&100201));
    assert!(!ids_excluding("/?q=%3Cscript%3E").contains(&100201));
    // The same rule still inspects every other parameter of the request, including after the excluded one.
    let other = ids_excluding("/?q=%3Cscript%3E&name=%3Cscript%3E");
    assert!(other.contains(&100201), "{other:?}");
    let m = rules
        .evaluate_excluding(
            &request("GET", "/?q=%3Cscript%3E&name=%3Cscript%3E", &[], b""),
            Exclusions::new(&excluded),
        )
        .matches
        .into_iter()
        .find(|m| m.rule_id == 100201)
        .unwrap();
    assert_eq!(m.variable, "ARGS:name");
}
