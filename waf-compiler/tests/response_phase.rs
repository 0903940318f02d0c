//! The response phase end to end: rules of each phase see only their message, the outbound anomaly score is
//! settled apart from the inbound one, the logging phase reports a transaction that scored, and the converted
//! CRS response rules block the leaks of their regression tests' kind (and not a page that talks about them).

use std::path::Path;
use waf_compiler::{
    CompileOptions, CompiledRuleSet, DEFAULT_ANOMALY_THRESHOLD, DEFAULT_OUTBOUND_ANOMALY_THRESHOLD,
    HttpRequest, HttpResponse, SourceFile, Verdict,
};

fn from_yaml(yaml: &str) -> CompiledRuleSet {
    let sources = [SourceFile {
        path: "test.yaml".into(),
        relative: "test.yaml".into(),
        text: Ok(yaml.to_owned()),
    }];
    let outcome = CompiledRuleSet::from_sources(&sources, &CompileOptions::default());
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    outcome.ruleset
}

const RULES: &str = r#"
rules:
  - {id: 1, msg: leak in request, severity: HIGH, operator: contains, pattern: 'ORA-', variables: [ARGS_GET], action: block}
  - {id: 2, msg: leak, severity: HIGH, phase: response, operator: contains, pattern: 'ORA-', variables: [RESPONSE_BODY], action: block}
  - {id: 3, msg: 5xx, severity: MEDIUM, phase: response, operator: regex, pattern: '^5\d\d$', variables: [RESPONSE_STATUS], action: block}
  - {id: 4, msg: 'server header', phase: response, operator: contains, pattern: 'PHP/5', variables: [{type: RESPONSE_HEADERS, names: [X-Powered-By]}], action: log}
  - {id: 5, msg: 'Outbound (Total Score: %{tx.blocking_outbound_anomaly_score})', phase: response, operator: anomaly_threshold, variables: [], action: deny}
  - {id: 6, msg: 'Scores: in=%{tx.blocking_inbound_anomaly_score} out=%{tx.blocking_outbound_anomaly_score}', phase: logging, operator: anomaly_report, variables: [], action: log}
"#;

fn ids(verdict: &Verdict) -> Vec<u32> {
    verdict.matches.iter().map(|m| m.rule_id).collect()
}

fn get(uri: &str) -> HttpRequest<'_> {
    HttpRequest {
        method: "GET",
        uri,
        version: "HTTP/1.1",
        headers: &[],
        body: b"",
    }
}

fn answer<'a>(
    status: u16,
    headers: &'a [(&'a str, &'a [u8])],
    body: Option<&'a [u8]>,
) -> HttpResponse<'a> {
    HttpResponse {
        status,
        version: "HTTP/1.1",
        headers,
        body,
    }
}

#[test]
fn each_phase_sees_its_own_message_and_scores_apart() {
    let rules = from_yaml(RULES);
    assert!(rules.has_response_rules());
    let request = get("/?q=ORA-00933");
    let mut inbound = rules.evaluate(&request);
    inbound.settle(DEFAULT_ANOMALY_THRESHOLD);
    assert_eq!(
        ids(&inbound),
        [1],
        "response rules do not run on the request"
    );

    let headers: &[(&str, &[u8])] = &[("X-Powered-By", b"PHP/5.6")];
    let body = b"<p>ORA-00933: SQL command not properly ended</p>";
    let mut outbound = rules.evaluate_response(&request, &answer(500, headers, Some(body)));
    outbound.settle(DEFAULT_OUTBOUND_ANOMALY_THRESHOLD);
    assert_eq!(
        ids(&outbound),
        [2, 3, 4, 5],
        "request rules do not run again"
    );
    assert_eq!(outbound.anomaly_score(), 4 + 3);
    let evaluation = outbound.matches.iter().find(|m| m.rule_id == 5).unwrap();
    assert_eq!(evaluation.msg, "Outbound (Total Score: 7)");
    assert_eq!(outbound.blocking().map(|m| m.rule_id), Some(5));

    let logged = rules.correlate(&inbound, Some(&outbound));
    assert_eq!(logged.len(), 1);
    assert_eq!(logged[0].msg, "Scores: in=4 out=7");
}

#[test]
fn an_uninspected_body_and_a_clean_transaction() {
    let rules = from_yaml(RULES);
    let request = get("/");
    // Headers only (a stream): the body rule has no value to read.
    let outbound = rules.evaluate_response(&request, &answer(200, &[], None));
    assert!(outbound.matches.is_empty());
    let inbound = rules.evaluate(&request);
    assert!(rules.correlate(&inbound, Some(&outbound)).is_empty());
    assert!(rules.correlate(&inbound, None).is_empty());
}

#[test]
fn every_response_variable() {
    let rules = from_yaml(
        r#"
rules:
  - {id: 11, msg: m, phase: response, operator: equals, pattern: 'HTTP/1.0', variables: [RESPONSE_PROTOCOL], action: log}
  - {id: 12, msg: m, phase: response, operator: equals, pattern: 'x-debug', variables: [RESPONSE_HEADERS_NAMES], transforms: [lowercase], action: log}
  - {id: 13, msg: m, phase: response, operator: starts_with, pattern: 'text/html', variables: [RESPONSE_CONTENT_TYPE], action: log}
  - {id: 14, msg: m, phase: response, operator: gt, pattern: '100', variables: [RESPONSE_CONTENT_LENGTH], action: log}
  - {id: 15, msg: m, phase: response, operator: contains, pattern: 'trace', variables: [RESPONSE_HEADERS], action: log}
"#,
    );
    let headers: &[(&str, &[u8])] = &[
        ("Content-Type", b"text/html; charset=utf-8"),
        ("Content-Length", b"512"),
        ("X-Debug", b"trace=on"),
    ];
    let mut response = answer(200, headers, Some(b"<p>hi</p>"));
    response.version = "HTTP/1.0";
    let verdict = rules.evaluate_response(&get("/"), &response);
    assert_eq!(ids(&verdict), [11, 12, 13, 14, 15]);
    // None of them has a value in the request's phase, nor without the headers.
    assert!(rules.evaluate(&get("/")).matches.is_empty());
    let bare = rules.evaluate_response(&get("/"), &answer(200, &[], None));
    assert!(bare.matches.is_empty());
}

#[test]
fn a_rule_reading_the_other_phase_is_a_load_error() {
    let sources = [SourceFile {
        path: "bad.yaml".into(),
        relative: "bad.yaml".into(),
        text: Ok(
            "{id: 9, msg: m, operator: contains, pattern: x, variables: [RESPONSE_BODY], action: block}"
                .to_owned(),
        ),
    }];
    let outcome = CompiledRuleSet::from_sources(&sources, &CompileOptions::default());
    let error = outcome.errors[0].to_string();
    assert!(
        error.contains("variables[0]") && error.contains("RESPONSE_BODY"),
        "{error}"
    );
}

#[test]
fn the_converted_crs_response_rules() {
    let crs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crs");
    let outcome = CompiledRuleSet::load_dirs(&[crs], &CompileOptions::default());
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    let rules = outcome.ruleset;
    let request = get("/report");
    let check = |body: &str| {
        let mut verdict =
            rules.evaluate_response(&request, &answer(200, &[], Some(body.as_bytes())));
        verdict.settle(DEFAULT_OUTBOUND_ANOMALY_THRESHOLD);
        verdict.blocking().map(|m| m.rule_id)
    };
    let java = "java.lang.NullPointerException\n\tat com.shop.Cart.total(Cart.java:42)\n\tat java.base/java.lang.Thread.run(Thread.java:833)";
    assert_eq!(check(java), Some(959100));
    let mysql = "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version";
    assert_eq!(check(mysql), Some(959100));
    let php = "<b>Warning</b>:  include(config.php): failed to open stream: No such file or directory in <b>/var/www/index.php</b> on line <b>3</b>";
    assert_eq!(check(php), Some(959100));
    assert_eq!(
        check("<html><body><h1>Welcome</h1><p>Fresh bread daily.</p></body></html>"),
        None
    );
}
