//! The proxy on a compiled rule artifact (`rules.artifact`): it blocks with the artifact's rules, swaps in a
//! new artifact (plain or gzip-compressed) while running, keeps the rules in force (and counts a failed reload)
//! when the new file is refused or deleted, and says where its rules come from in `/health` and `--check-config`.
mod support;

use std::path::Path;
use std::process::Command;
use support::*;
use waf_compiler::{CompileOptions, CompiledRuleSet, DEFAULT_DFA_SIZE_LIMIT, EnginePlan, artifact};

/// Compiles one regex rule matching `pattern` in any argument into `out`, with dense DFAs, as `rulec compile`
/// does.
fn compile_artifact(work: &Path, pattern: &str, paranoia_level: u8, out: &Path) {
    let src = work.join("src");
    std::fs::create_dir_all(&src).unwrap();
    let rule = format!(
        "id: 100001\nmsg: test attack marker\nseverity: CRITICAL\npattern: '{pattern}'\nvariables: [ARGS]\naction: deny\n"
    );
    std::fs::write(src.join("rule.yaml"), rule).unwrap();
    let outcome = CompiledRuleSet::load_dirs_with(
        &[&src],
        &CompileOptions {
            paranoia_level,
            ..Default::default()
        },
        EnginePlan::Dense {
            size_limit: DEFAULT_DFA_SIZE_LIMIT,
        },
    );
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    artifact::write_file(out, &outcome.ruleset.to_artifact().unwrap()).unwrap();
}

/// Writes `bytes` over `path` the way a deploy tool would (temporary file, then rename).
fn replace(path: &Path, bytes: &[u8]) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(tmp, path).unwrap();
}

fn config(up: &Upstream) -> String {
    format!(
        "  mode: enforce\n  upstream: {{default: '{}'}}\n  rules: {{artifact: rules.wafc, reload_interval_sec: 1}}\n",
        up.url()
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn the_artifact_is_loaded_swapped_on_change_and_a_refused_one_keeps_the_rules() {
    let up = Upstream::start().await;
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let file = dir.path().join("rules.wafc");
    compile_artifact(work.path(), "attack-[a-z]+-me", 1, &file);
    let waf = Waf::start_in(dir, &config(&up));
    let status = |path: &'static str| async move { get(waf.addr, path).await.0.status };

    assert_eq!(status("/?q=attack-x-me").await, 403);
    assert_eq!(status("/?q=harmless").await, 200);
    let (_, health) = get(waf.addr, "/health").await;
    let health = json(&health);
    assert_eq!(health["rules_source"], "artifact rules.wafc");
    assert_eq!(health["rules_loaded"], 1);
    let first_hash = health["rule_set_hash"].clone();

    // A new artifact takes effect within the interval.
    compile_artifact(work.path(), "other-[a-z]+-go", 1, &file);
    waf.wait_health(5, |h| h["rule_set_hash"] != first_hash)
        .await;
    assert_eq!(status("/?q=other-x-go").await, 403);
    assert_eq!(status("/?q=attack-x-me").await, 200);
    let failures = "waf_reload_failures_total{what=\"rules\"}";
    assert_eq!(waf.metric(failures).await, 0.0);

    // A foreign file, a damaged artifact and one compiled at another paranoia level are each refused: logged,
    // counted, and the rules in force stay.
    replace(&file, b"rules:\n  - id: 1\n");
    waf.wait_log("not a rule artifact", 5).await;
    let good = {
        compile_artifact(
            work.path(),
            "other-[a-z]+-go",
            1,
            &work.path().join("good.wafc"),
        );
        std::fs::read(work.path().join("good.wafc")).unwrap()
    };
    replace(&file, &good[..good.len() - 10]);
    waf.wait_log("truncated artifact", 5).await;
    compile_artifact(
        work.path(),
        "other-[a-z]+-go",
        2,
        &work.path().join("pl2.wafc"),
    );
    replace(&file, &std::fs::read(work.path().join("pl2.wafc")).unwrap());
    waf.wait_log("compiled at paranoia level 2", 5).await;
    std::fs::remove_file(&file).unwrap();
    waf.wait_log("cannot read rules.wafc", 5).await;
    assert!(waf.metric(failures).await >= 4.0);
    assert_eq!(status("/?q=other-x-go").await, 403);
    let (_, health) = get(waf.addr, "/health").await;
    assert_eq!(json(&health)["rules_loaded"], 1);

    // Putting a good one back recovers.
    compile_artifact(work.path(), "third-[a-z]+-one", 1, &file);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while status("/?q=third-x-one").await != 403 {
        assert!(std::time::Instant::now() < deadline, "{}", waf.logs());
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }

    // A gzip-compressed artifact (`rulec compile --compress`, as the Kubernetes ConfigMap carries it) swaps in too.
    let plain = work.path().join("fourth.wafc");
    compile_artifact(work.path(), "fourth-[a-z]+-one", 1, &plain);
    replace(&file, &artifact::compress(&std::fs::read(&plain).unwrap()));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while status("/?q=fourth-x-one").await != 403 {
        assert!(std::time::Instant::now() < deadline, "{}", waf.logs());
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(status("/?q=third-x-one").await, 200);
}

#[test]
fn check_config_names_the_artifact_and_refuses_a_bad_one() {
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    compile_artifact(
        work.path(),
        "attack-[a-z]+-me",
        1,
        &dir.path().join("rules.wafc"),
    );
    std::fs::write(
        dir.path().join("waf.yml"),
        "waf:\n  rules: {artifact: rules.wafc}\n",
    )
    .unwrap();
    let check = || {
        Command::new(env!("CARGO_BIN_EXE_waf"))
            .args(["--config", "waf.yml", "--check-config"])
            .current_dir(dir.path())
            .env_remove("RULE_DIR")
            .output()
            .unwrap()
    };
    let out = check();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("artifact: rules.wafc"), "{stdout}");
    assert!(
        stdout.contains("1 rules loaded from artifact rules.wafc"),
        "{stdout}"
    );

    // Compiled with the default map (20127): refused when the proxy is set to another, with the fix named.
    std::fs::write(
        dir.path().join("waf.yml"),
        "waf:\n  rules: {artifact: rules.wafc, unicode_code_page: none}\n",
    )
    .unwrap();
    let out = check();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "compiled with Unicode map 20127 (US-ASCII), but waf.rules.unicode_code_page is none"
        ) && stderr.contains("rulec compile --unicode-code-page none"),
        "{stderr}"
    );
    std::fs::write(
        dir.path().join("waf.yml"),
        "waf:\n  rules: {artifact: rules.wafc}\n",
    )
    .unwrap();

    std::fs::write(dir.path().join("rules.wafc"), b"WAFRULES").unwrap();
    let out = check();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("truncated artifact"));

    std::fs::remove_file(dir.path().join("rules.wafc")).unwrap();
    let out = check();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read rules.wafc"));
}
