//! Inspection through the real `waf` binary with real rules: blocking, observe and disabled modes, match logs,
//! counters, and rule and config reloads while running.
mod support;

use bytes::Bytes;
use http::Request;
use http_body_util::Full;
use support::*;

fn config(up: &Upstream, mode: &str) -> String {
    format!("  mode: {mode}\n  upstream: {{default: '{}'}}\n", up.url())
}

const LOG_RULE: &str = r#"
id: 100002
msg: "suspicious but harmless marker"
severity: LOW
operator: contains
pattern: "note-me"
variables: [ARGS]
action: log
"#;

#[tokio::test(flavor = "multi_thread")]
async fn enforce_blocks_with_json_and_logs_the_rule_id() {
    let up = Upstream::start().await;
    let waf = Waf::start(
        &config(&up, "enforce"),
        &[("deny.yaml", DENY_RULE), ("log.yml", LOG_RULE)],
    );
    let req = Request::get("/search?q=attack-me")
        .header("host", "app.test")
        .header("x-crs-test", "test-942-1")
        .body(Full::new(Bytes::new()))
        .unwrap();
    let (head, body) = send(waf.addr, req).await;
    assert_eq!(head.status, 403);
    assert_eq!(head.headers["content-type"], "application/json");
    let body = json(&body);
    assert_eq!(body["error"], "forbidden");
    assert_eq!(body["rule_id"], 100001);
    assert_eq!(body["message"], "test attack marker");
    // A `deny` rule blocks alone and adds nothing to the anomaly score.
    assert_eq!(body["rule_ids"], serde_json::json!([100001]));
    assert_eq!(body["anomaly_score"], 0);
    assert!(
        up.seen().is_empty(),
        "a blocked request reached the upstream"
    );
    // The log is read from the child's stderr by another thread: the line may trail the response.
    waf.wait_log("[id \"100001\"]", 2).await;
    let line = waf
        .logs()
        .lines()
        .find(|l| l.contains("[id \"100001\"]"))
        .map(str::to_string)
        .expect("no match line");
    assert!(line.contains("test-942-1"), "X-CRS-Test missing: {line}");
    assert!(!line.contains("OBSERVE MODE"));

    // Body matches block too; a `log` rule alone does not block.
    let (head, _) = post(waf.addr, "/form", "comment=attack-me").await;
    assert_eq!(head.status, 403);
    let (head, _) = get(waf.addr, "/?x=note-me").await;
    assert_eq!(head.status, 200);
    waf.wait_log("[id \"100002\"]", 2).await;

    let (head, _) = get(waf.addr, "/?q=harmless").await;
    assert_eq!(head.status, 200);
    assert_eq!(waf.metric("waf_blocked_total").await, 2.0);
    assert_eq!(
        waf.metric("waf_rule_matches_total{rule_id=\"100001\"}")
            .await,
        2.0
    );
    assert_eq!(
        waf.metric("waf_rule_matches_total{rule_id=\"100002\"}")
            .await,
        1.0
    );
    assert_eq!(waf.metric("waf_rules_loaded").await, 2.0);
    assert_eq!(waf.metric("waf_observed_total").await, 0.0);
}

#[tokio::test(flavor = "multi_thread")]
async fn observe_mode_forwards_and_logs() {
    let up = Upstream::start().await;
    let waf = Waf::start(&config(&up, "observe"), &[("deny.yaml", DENY_RULE)]);
    let (head, echoed) = post(waf.addr, "/form", "comment=attack-me").await;
    assert_eq!(head.status, 200);
    assert_eq!(echoed.as_ref(), b"comment=attack-me");
    assert_eq!(up.last().body.as_ref(), b"comment=attack-me");
    waf.wait_log("OBSERVE MODE", 2).await;
    assert!(
        waf.logs()
            .lines()
            .any(|l| l.contains("OBSERVE MODE") && l.contains("[id \"100001\"]"))
    );
    assert_eq!(waf.metric("waf_observed_total").await, 1.0);
    assert_eq!(waf.metric("waf_blocked_total").await, 0.0);
    let (_, health) = get(waf.addr, "/health").await;
    assert_eq!(json(&health)["observe_mode"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn disabled_mode_forwards_without_inspection() {
    let up = Upstream::start().await;
    let waf = Waf::start(&config(&up, "disabled"), &[("deny.yaml", DENY_RULE)]);
    let (head, _) = get(waf.addr, "/?q=attack-me").await;
    assert_eq!(head.status, 200);
    assert_eq!(up.last().uri, "/?q=attack-me");
    assert!(!waf.logs().contains("[id \"100001\"]"));
    assert_eq!(
        waf.metric("waf_rule_matches_total{rule_id=\"100001\"}")
            .await,
        0.0
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn rule_files_added_changed_and_deleted_take_effect_while_running() {
    let up = Upstream::start().await;
    let waf = Waf::start(&config(&up, "enforce"), &[]);
    let status = |path: &'static str| async move { get(waf.addr, path).await.0.status };
    assert_eq!(status("/?q=attack-me").await, 200);

    std::fs::write(waf.rules_dir().join("new.yaml"), DENY_RULE).unwrap();
    waf.wait_health(5, |h| h["rules_loaded"] == 1).await;
    assert_eq!(status("/?q=attack-me").await, 403);

    let changed = DENY_RULE.replace("attack-me", "other-attack");
    std::fs::write(waf.rules_dir().join("new.yaml"), changed).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while status("/?q=other-attack").await != 403 {
        assert!(
            std::time::Instant::now() < deadline,
            "changed rule not in force"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(status("/?q=attack-me").await, 200);

    std::fs::remove_file(waf.rules_dir().join("new.yaml")).unwrap();
    waf.wait_health(5, |h| h["rules_loaded"] == 0).await;
    assert_eq!(status("/?q=other-attack").await, 200);
    assert!(waf.metric("waf_reloads_total{what=\"rules\"}").await >= 3.0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_broken_rule_file_is_skipped_and_the_rest_stays_in_force() {
    let up = Upstream::start().await;
    let broken = "id: 100009\nmsg: [unclosed\n";
    let bad_regex = "id: 100010\nmsg: bad\noperator: regex\npattern: '(?<=x)a'\nvariables: [ARGS]\naction: deny\n";
    let waf = Waf::start(
        &config(&up, "enforce"),
        &[
            ("deny.yaml", DENY_RULE),
            ("broken.yaml", broken),
            ("regex.yaml", bad_regex),
        ],
    );
    waf.wait_log("rule file skipped", 2).await;
    let (_, health) = get(waf.addr, "/health").await;
    let health = json(&health);
    assert_eq!(health["rules_loaded"], 1);
    assert_eq!(health["rule_file_errors"], 2);
    assert_eq!(get(waf.addr, "/?q=attack-me").await.0.status, 403);

    // Breaking a good file while running keeps every other rule; fixing it brings it back.
    std::fs::write(waf.rules_dir().join("log.yaml"), LOG_RULE).unwrap();
    waf.wait_health(5, |h| h["rules_loaded"] == 2).await;
    std::fs::write(waf.rules_dir().join("log.yaml"), broken).unwrap();
    waf.wait_health(5, |h| h["rules_loaded"] == 1 && h["rule_file_errors"] == 3)
        .await;
    assert_eq!(get(waf.addr, "/?q=attack-me").await.0.status, 403);
}

#[tokio::test(flavor = "multi_thread")]
async fn config_reload_switches_enforcement_without_restart() {
    let up = Upstream::start().await;
    let waf = Waf::start(&config(&up, "enforce"), &[("deny.yaml", DENY_RULE)]);
    assert_eq!(get(waf.addr, "/?q=attack-me").await.0.status, 403);
    Waf::write_config(waf.dir.path(), &config(&up, "observe"));
    waf.wait_health(5, |h| h["observe_mode"] == true).await;
    assert_eq!(get(waf.addr, "/?q=attack-me").await.0.status, 200);
    Waf::write_config(waf.dir.path(), &config(&up, "enforce"));
    waf.wait_health(5, |h| h["mode"] == "enforce").await;
    assert_eq!(get(waf.addr, "/?q=attack-me").await.0.status, 403);
    assert!(waf.metric("waf_reloads_total{what=\"config\"}").await >= 2.0);
}

#[tokio::test(flavor = "multi_thread")]
async fn crs_test_marker_requests_are_logged() {
    let up = Upstream::start().await;
    let waf = Waf::start(&config(&up, "observe"), &[]);
    let req = Request::get("/marker")
        .header("host", "app.test")
        .header("x-crs-test", "3f0b-marker")
        .body(Full::new(Bytes::new()))
        .unwrap();
    send(waf.addr, req).await;
    waf.wait_log("3f0b-marker", 2).await;
}

/// The shipped rule set takes PUT and PROPFIND (the site policy's methods) but not TRACE, and a path ending in a domain name (its
/// restricted extensions lack top-level domains) but not a backup's; with CRS's own `allowed_methods` in
/// `rules.crs_settings` it refuses it as CRS does (911100), and `rules.disabled_rules` takes that rule out
/// without touching the generated rule files (an id no rule has is reported, not ignored).
#[tokio::test(flavor = "multi_thread")]
async fn disabled_rules_and_crs_settings_tune_the_shipped_set() {
    let up = Upstream::start().await;
    let dirs = shipped_rule_dirs();
    let crs_methods = ", crs_settings: {allowed_methods: 'GET HEAD POST OPTIONS'}";
    let config = |disabled: &str| {
        format!(
            "  upstream: {{default: '{}'}}\n  rules: {{directories: [{}]{disabled}}}\n",
            up.url(),
            dirs
        )
    };
    let put = |addr| async move {
        let req = Request::put("/api/items/7")
            .header("host", "app.test")
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from_static(
                br#"{"name":"blue mug","qty":2}"#,
            )))
            .unwrap();
        send(addr, req).await.0.status
    };

    let method = |addr, method: &'static str| async move {
        let req = Request::builder()
            .method(method)
            .uri("/dav/files/ana/")
            .header("host", "app.test")
            .body(Full::new(Bytes::new()))
            .unwrap();
        send(addr, req).await.0.status
    };

    let waf = Waf::start_in(tempfile::tempdir().unwrap(), &config(""));
    assert_eq!(put(waf.addr).await, 200);
    // WebDAV's methods are the site policy's too; cross-site tracing's and made-up ones are not.
    assert_eq!(method(waf.addr, "PROPFIND").await, 200);
    assert_eq!(method(waf.addr, "TRACE").await, 403);
    assert_eq!(method(waf.addr, "FOO").await, 403);
    assert_eq!(get(waf.addr, "/whois/shop.example.com").await.0.status, 200);
    assert_eq!(get(waf.addr, "/backup/shop.sql").await.0.status, 403);
    drop(waf);

    let waf = Waf::start_in(tempfile::tempdir().unwrap(), &config(crs_methods));
    assert_eq!(put(waf.addr).await, 403);
    waf.wait_log("[id \"911100\"]", 10).await;
    drop(waf);

    let waf = Waf::start_in(
        tempfile::tempdir().unwrap(),
        &config(&format!("{crs_methods}, disabled_rules: [911100, 4242424]")),
    );
    assert_eq!(put(waf.addr).await, 200);
    assert_eq!(up.last().method, "PUT");
    waf.wait_log(
        "waf.rules.disabled_rules: no loaded rule has id 4242424",
        10,
    )
    .await;
    drop(waf);
    let waf = Waf::start_in(
        tempfile::tempdir().unwrap(),
        &config(", disabled_rules: [911100, 4242424]"),
    );
    let (_, health) = get(waf.addr, "/health").await;
    assert!(
        json(&health)["rules_source"]
            .as_str()
            .unwrap()
            .ends_with(" without rules 911100, 4242424"),
        "{}",
        String::from_utf8_lossy(&health)
    );
}

/// `block` rules add their severity's score (MEDIUM 3, LOW 2) and block once the sum reaches
/// `rules.anomaly_threshold` (5); the 403 body and every match line name the rules and the score.
#[tokio::test(flavor = "multi_thread")]
async fn block_rules_add_up_to_the_anomaly_threshold() {
    const SCORED: &str = r#"
rules:
  - {id: 300001, msg: "medium marker", severity: MEDIUM, operator: contains, pattern: "m-mark", variables: [ARGS], action: block}
  - {id: 300002, msg: "low marker", severity: LOW, operator: contains, pattern: "l-mark", variables: [ARGS], action: block}
"#;
    let up = Upstream::start().await;
    let waf = Waf::start(&config(&up, "enforce"), &[("scored.yaml", SCORED)]);

    // 3 < 5: logged, forwarded.
    let (head, _) = get(waf.addr, "/?a=m-mark").await;
    assert_eq!(head.status, 200);
    waf.wait_log("[id \"300001\"]", 2).await;
    assert!(
        waf.logs()
            .contains("[score \"3\"] [anomaly_score \"3\"] [action \"logged\"]"),
        "{}",
        waf.logs()
    );

    // 3 + 2 = 5: blocked, by the first block rule, naming both.
    let (head, body) = get(waf.addr, "/?a=m-mark&b=l-mark").await;
    assert_eq!(head.status, 403);
    let body = json(&body);
    assert_eq!(body["rule_id"], 300001);
    assert_eq!(body["rule_ids"], serde_json::json!([300001, 300002]));
    assert_eq!(body["anomaly_score"], 5);
    waf.wait_log(
        "[score \"2\"] [anomaly_score \"5\"] [action \"blocked\"]",
        2,
    )
    .await;
    assert_eq!(
        up.seen().len(),
        1,
        "only the request under the threshold reached the upstream"
    );
}

/// A domain's own anomaly threshold and rule exclusions (`domains.<host>.anomaly_threshold`, `disabled_rules`)
/// apply to its requests only; an excluded rule is neither counted nor named; an unknown id is a load error.
#[tokio::test(flavor = "multi_thread")]
async fn domains_have_their_own_threshold_and_rule_exclusions() {
    const SCORED: &str = r#"
rules:
  - {id: 300011, msg: "critical marker", severity: CRITICAL, operator: contains, pattern: "c-mark", variables: [ARGS], action: block}
  - {id: 300012, msg: "low marker", severity: LOW, operator: contains, pattern: "l-mark", variables: [ARGS], action: block}
"#;
    let up = Upstream::start().await;
    let domains = "  domains:\n    lenient.test: {anomaly_threshold: 10}\n    \
                   excluded.test: {disabled_rules: [300011]}\n";
    let with_domains = format!("{}{domains}", config(&up, "enforce"));
    let waf = Waf::start(&with_domains, &[("scored.yaml", SCORED)]);
    let status = |host: &'static str, query: &'static str| {
        let addr = waf.addr;
        async move {
            let req = Request::get(format!("/?{query}"))
                .header("host", host)
                .body(Full::new(Bytes::new()))
                .unwrap();
            send(addr, req).await
        }
    };
    // Elsewhere the critical marker (5) blocks.
    assert_eq!(status("other.test", "a=c-mark").await.0.status, 403);
    // lenient.test: 5 < 10 forwarded; 5 + 2 still under; the domain's threshold, not the global one.
    assert_eq!(
        status("lenient.test", "a=c-mark&b=l-mark").await.0.status,
        200
    );
    // excluded.test: 300011 does not count, so the low marker alone (2) stays under 5 and is logged alone.
    assert_eq!(status("excluded.test", "a=c-mark").await.0.status, 200);
    let (head, body) = status("Excluded.Test:8080", "a=c-mark&b=l-mark&c=l-mark").await;
    assert_eq!(head.status, 200, "{}", String::from_utf8_lossy(&body));
    assert_eq!(up.seen().len(), 3);

    // A change of the exclusions in the file applies without loading the rules again (they only filter
    // matches); an id no rule has is reported and excludes nothing.
    let rule_loads = waf.metric("waf_reloads_total{what=\"rules\"}").await;
    let config_loads = waf.metric("waf_reloads_total{what=\"config\"}").await;
    let moved = format!(
        "{}  domains:\n    other.test: {{disabled_rules: [300011, 4242]}}\n",
        config(&up, "enforce")
    );
    Waf::write_config(waf.dir.path(), &moved);
    waf.wait_log(
        "rule exclusion ignored: waf.domains.other.test.disabled_rules: no loaded rule has id 4242",
        10,
    )
    .await;
    waf.wait_metric("waf_reloads_total{what=\"config\"}", config_loads + 1.0)
        .await;
    assert_eq!(status("other.test", "a=c-mark").await.0.status, 200);
    assert_eq!(status("excluded.test", "a=c-mark").await.0.status, 403);
    assert_eq!(
        waf.metric("waf_reloads_total{what=\"rules\"}").await,
        rule_loads
    );
    drop(waf);

    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("rules")).unwrap();
    std::fs::write(dir.path().join("rules/scored.yaml"), SCORED).unwrap();
    let bad = format!(
        "{}  domains:\n    excluded.test: {{disabled_rules: [4242]}}\n",
        config(&up, "enforce")
    );
    Waf::write_config(dir.path(), &bad);
    let checked = check_config(dir.path());
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
    assert!(!checked.status.success(), "{text}");
    assert!(
        text.contains("waf.domains.excluded.test.disabled_rules: no loaded rule has id 4242"),
        "{text}"
    );
}

/// `profile: api` (per domain, or `rules.profile` for the rest): a body without a label and a URL in a JSON
/// document are no evidence for an API, while an injection still is; a web domain keeps CRS's policy.
#[tokio::test(flavor = "multi_thread")]
async fn an_api_profile_judges_bodies_by_content_not_label() {
    let up = Upstream::start().await;
    let dirs = shipped_rule_dirs();
    let config = format!(
        "  upstream: {{default: '{}'}}\n  rules: {{directories: [{}]}}\n  domains:\n    \
         api.test: {{profile: api}}\n",
        up.url(),
        dirs
    );
    let waf = Waf::start_in(tempfile::tempdir().unwrap(), &config);
    let send_body = |host: &'static str, content_type: Option<&'static str>, body: &'static str| {
        let addr = waf.addr;
        async move {
            let mut req = Request::post("/repos/octo/hello/hooks").header("host", host);
            if let Some(content_type) = content_type {
                req = req.header("content-type", content_type);
            }
            send(
                addr,
                req.body(Full::new(Bytes::from_static(body.as_bytes())))
                    .unwrap(),
            )
            .await
            .0
            .status
        }
    };
    // An API client that sends JSON without a Content-Type, as older SDKs do: its content is judged on any site.
    let hook = r#"{"name":"web","active":true,"events":["push"]}"#;
    assert_eq!(send_body("app.test", None, hook).await, 200);
    assert_eq!(send_body("api.test", None, hook).await, 200);
    // A vendor media type the site policy does not list (920420): refused for pages, no evidence for an API.
    let vendor = Some("application/vnd.acme.hook-v2");
    assert_eq!(send_body("app.test", vendor, hook).await, 403);
    assert_eq!(send_body("api.test", vendor, hook).await, 200);
    // A webhook's document with a URL ending in `?` (CRS 931120, the include-truncation trick): data in JSON on
    // any site.
    let webhook = r#"{"sender":{"avatar_url":"https://avatars.example.com/u/340?"}}"#;
    assert_eq!(
        send_body("app.test", Some("application/json"), webhook).await,
        200
    );
    // A URL to a numeric address in a JSON document (931100, remote file inclusion): refused for pages, data
    // for an API.
    let callback = r#"{"config":{"url":"http://203.0.113.7/hooks/ci"}}"#;
    assert_eq!(
        send_body("app.test", Some("application/json"), callback).await,
        403
    );
    assert_eq!(
        send_body("api.test", Some("application/json"), callback).await,
        200
    );
    // An injection is one whatever the profile.
    let injected = r#"{"id":"1' UNION SELECT password FROM users--"}"#;
    assert_eq!(
        send_body("api.test", Some("application/json"), injected).await,
        403
    );
    assert_eq!(up.seen().len(), 5);
    drop(waf);

    // A profile the proxy does not know is refused, naming the key.
    let dir = tempfile::tempdir().unwrap();
    Waf::write_config(
        dir.path(),
        &format!(
            "  upstream: {{default: '{}'}}\n  domains:\n    api.test: {{profile: rest}}\n",
            up.url()
        ),
    );
    let checked = check_config(dir.path());
    let text = String::from_utf8_lossy(&checked.stderr);
    assert!(!checked.status.success(), "{text}");
    assert!(
        text.contains("waf.domains.api.test.profile") && text.contains("rest"),
        "{text}"
    );
}

/// Rule messages show their macros expanded, as ModSecurity does, in the 403 body and the log lines: the matched
/// value and variable, a request header, and (CRS 949110's own message) the anomaly score.
#[tokio::test(flavor = "multi_thread")]
async fn rule_messages_show_their_macros_expanded() {
    const RULES: &str = r#"
rules:
  - {id: 300011, msg: "marker %{MATCHED_VAR} in %{MATCHED_VAR_NAME} for %{REQUEST_HEADERS.host}", severity: CRITICAL, operator: contains, pattern: "m-mark", variables: [ARGS_GET], action: block}
  - id: 949110
    msg: 'Inbound Anomaly Score Exceeded (Total Score: %{TX.BLOCKING_INBOUND_ANOMALY_SCORE})'
    operator: anomaly_threshold
    pattern: null
    variables: []
    action: deny
"#;
    let up = Upstream::start().await;
    let waf = Waf::start(&config(&up, "enforce"), &[("macros.yaml", RULES)]);
    let (head, body) = get(waf.addr, "/?a=x-m-mark").await;
    assert_eq!(head.status, 403);
    let body = json(&body);
    assert_eq!(body["rule_ids"], serde_json::json!([300011, 949110]));
    assert_eq!(
        body["message"],
        "marker x-m-mark in ARGS_GET:a for app.test"
    );
    waf.wait_log("Inbound Anomaly Score Exceeded (Total Score: 5)", 5)
        .await;
    waf.wait_log("[msg \"marker x-m-mark in ARGS_GET:a for app.test\"]", 5)
        .await;
    assert!(!waf.logs().contains("%{"), "{}", waf.logs());
}

/// A body in a coding the engine undoes (gzip, deflate, br) is inspected decoded: a compressed report passes
/// (CRS's 920450 refuses any `Content-Encoding`, as ModSecurity cannot read such a body) and a compressed
/// injection is refused by the injection rules; a coding the engine cannot undo still counts as CRS says.
#[tokio::test(flavor = "multi_thread")]
async fn compressed_bodies_are_inspected_decoded() {
    use std::io::Write;
    let up = Upstream::start().await;
    let dirs = shipped_rule_dirs();
    let config = format!(
        "  upstream: {{default: '{}'}}\n  rules: {{directories: [{}]}}\n",
        up.url(),
        dirs
    );
    let waf = Waf::start_in(tempfile::tempdir().unwrap(), &config);
    let send_coded = |coding: &'static str, body: Vec<u8>| {
        let addr = waf.addr;
        async move {
            let req = Request::post("/v1/batch")
                .header("host", "app.test")
                .header("content-type", "application/json")
                .header("content-encoding", coding)
                .body(Full::new(Bytes::from(body)))
                .unwrap();
            send(addr, req).await.0.status
        }
    };
    let gzip = |text: &str| {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(text.as_bytes()).unwrap();
        encoder.finish().unwrap()
    };
    let report = r#"{"batch":[{"event":"Order Completed","properties":{"price":12.5}}]}"#;
    assert_eq!(send_coded("gzip", gzip(report)).await, 200);
    // The upstream gets the body as the client sent it.
    assert_eq!(up.last().body, gzip(report));
    let injected = r#"{"q":"1' UNION SELECT password FROM users--"}"#;
    assert_eq!(send_coded("gzip", gzip(injected)).await, 403);
    waf.wait_log("[id \"942100\"]", 10).await;
    // Prometheus remote write and Loki pushes: raw Snappy blocks.
    let snappy = snap::raw::Encoder::new()
        .compress_vec(report.as_bytes())
        .unwrap();
    assert_eq!(send_coded("snappy", snappy).await, 200);
    // A body named gzip but sent plain is read as sent (applications that ignore the coding read it so).
    let plain = r#"{"q":"1' UNION SELECT secret FROM keys--"}"#;
    assert_eq!(send_coded("gzip", plain.as_bytes().to_vec()).await, 403);
    waf.wait_log("UNION SELECT secret", 10).await;
    // zstd is no coding the engine undoes: 920450 alone refuses the same report.
    assert_eq!(send_coded("zstd", gzip(report)).await, 403);
}

/// The shipped rule directories (`rules`, `crs-942`, `crs` of the repository), as a YAML flow list's items.
fn shipped_rule_dirs() -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    ["rules", "crs-942", "crs"]
        .iter()
        .map(|d| format!("'{}'", root.join(d).display()))
        .collect::<Vec<_>>()
        .join(", ")
}
