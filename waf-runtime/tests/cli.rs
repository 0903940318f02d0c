//! The `waf` command line: `--version`, `--check-config`, and how configuration errors are reported.
use std::process::{Command, Output};

fn waf(dir: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_waf"));
    cmd.args(args).current_dir(dir);
    for var in [
        "UPSTREAM",
        "RULE_DIR",
        "OBSERVE",
        "HTTP_PORT",
        "BODY_LIMIT_BYTES",
        "HTTPS_ENABLED",
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

#[test]
fn version_prints_and_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    let out = waf(dir.path(), &["--version"], &[]);
    assert!(out.status.success());
    assert!(text(&out.stdout).contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn check_config_prints_the_effective_config_with_env_fallbacks() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("rules")).unwrap();
    // No config/waf.yml here: environment and defaults apply.
    let out = waf(
        dir.path(),
        &["--check-config"],
        &[("UPSTREAM", "http://10.1.2.3:9000"), ("OBSERVE", "true")],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("http://10.1.2.3:9000"), "{stdout}");
    assert!(stdout.contains("mode: observe"), "{stdout}");
    assert!(stdout.contains("0 rules loaded"), "{stdout}");

    // The printed configuration is itself a valid config file that means the same.
    std::fs::write(dir.path().join("printed.yml"), &stdout).unwrap();
    let again = waf(
        dir.path(),
        &["--check-config", "--config", "printed.yml"],
        &[],
    );
    let body = |s: &str| s.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert_eq!(body(&text(&again.stdout)), body(&stdout));

    // The file wins over the environment.
    std::fs::create_dir(dir.path().join("config")).unwrap();
    std::fs::write(dir.path().join("config/waf.yml"), "waf:\n  mode: enforce\n").unwrap();
    let out = waf(dir.path(), &["--check-config"], &[("OBSERVE", "true")]);
    assert!(text(&out.stdout).contains("mode: enforce"));
}

#[test]
fn check_config_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("rules")).unwrap();
    let path = dir.path().join("waf.yml");
    let cases: [(&str, &str); 4] = [
        ("waf:\n  server:\n    htp_port: 80\n", "waf.server.htp_port"),
        ("waf:\n  mode: block\n", "waf.mode: unknown variant `block`"),
        ("waf: [unclosed\n", "invalid YAML"),
        (
            "waf:\n  rules: {directories: [missing]}\n",
            "missing does not exist",
        ),
    ];
    for (config, expected) in cases {
        std::fs::write(&path, config).unwrap();
        let out = waf(dir.path(), &["--check-config", "--config", "waf.yml"], &[]);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{config} accepted");
        assert!(stderr.contains(expected), "{config}: {stderr}");
    }
    std::fs::write(dir.path().join("rules/bad.yaml"), "id: 1\nmsg: [x\n").unwrap();
    std::fs::write(&path, "waf: {}\n").unwrap();
    let out = waf(dir.path(), &["--check-config", "--config", "waf.yml"], &[]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("bad.yaml"),
        "{}",
        text(&out.stderr)
    );

    let out = waf(dir.path(), &["--config", "nope.yml"], &[]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("nope.yml"));
}
