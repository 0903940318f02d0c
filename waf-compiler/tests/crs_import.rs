//! The committed `crs-942/` must be exactly what `rulec import-crs` makes of the CRS file, so that a
//! new CRS release converts with one command and nobody edits the converted rules by hand.

mod detect_support;

use std::path::{Path, PathBuf};
use std::process::Command;

const CRS_FILE: &str = "rules/REQUEST-942-APPLICATION-ATTACK-SQLI.conf";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The CRS checkout, or `None` after a loud skip (a failure under REQUIRE_EXTERNAL_TESTS=1).
fn crs_dir() -> Option<PathBuf> {
    let dir = detect_support::third_party_dir().join("crs");
    if dir.join(CRS_FILE).is_file() {
        return Some(dir);
    }
    detect_support::skip(&format!(
        "no CRS checkout at {} (set WAF_THIRD_PARTY_DIR)",
        dir.display()
    ));
    None
}

#[test]
fn committed_crs_942_is_the_converters_output() {
    let Some(crs) = crs_dir() else { return };
    let out = tempfile::tempdir().unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_rulec"))
        .arg("import-crs")
        .arg(crs.join(CRS_FILE))
        .arg("-o")
        .arg(out.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "rulec import-crs failed:\n{stderr}");
    assert!(stderr.contains("converted 60 rules"), "{stderr}");
    let name = "REQUEST-942-APPLICATION-ATTACK-SQLI.yaml";
    let fresh = std::fs::read_to_string(out.path().join(name)).unwrap();
    let committed = std::fs::read_to_string(repo_root().join("crs-942").join(name)).unwrap();
    assert!(
        fresh == committed,
        "crs-942/{name} is out of date: run `rulec import-crs {} -o crs-942`",
        CRS_FILE
    );
}

#[test]
fn the_942_file_converts_without_warnings() {
    let Some(crs) = crs_dir() else { return };
    let text = std::fs::read_to_string(crs.join(CRS_FILE)).unwrap();
    let import = waf_compiler::import::import(&text, "942.conf").unwrap();
    assert_eq!(import.rule_count, 60);
    assert!(import.warnings.is_empty(), "{:#?}", import.warnings);
    // multiMatch, the last construct the format lacked, is now the `multi_match` field of these three rules.
    let rules = waf_compiler::parse_rules(Path::new("942.yaml"), &import.yaml).unwrap();
    let multi: Vec<u32> = rules
        .iter()
        .filter(|r| r.multi_match)
        .map(|r| r.id)
        .collect();
    assert_eq!(multi, [942100, 942500, 942131]); // file order
}

#[test]
fn import_reports_unreadable_and_invalid_input() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.conf");
    std::fs::write(&bad, "SecRule ARGS \"@rx a\" \"id:1,msg:'x',chain\"\n").unwrap();
    for (input, expected) in [
        (
            bad,
            "bad.conf: line 1: the last rule of the file ends in `chain`",
        ),
        (dir.path().join("missing.conf"), "cannot read"),
    ] {
        let run = Command::new(env!("CARGO_BIN_EXE_rulec"))
            .arg("import-crs")
            .arg(&input)
            .arg("-o")
            .arg(dir.path().join("out"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success());
        assert!(stderr.contains(expected), "{stderr}");
    }
}

#[test]
fn the_yaml_reads_back_as_exactly_the_converted_rules() {
    let Some(crs) = crs_dir() else { return };
    let text = std::fs::read_to_string(crs.join(CRS_FILE)).unwrap();
    let converted = waf_compiler::import::convert::convert(
        &waf_compiler::import::secrule::parse(&text).unwrap(),
    );
    let import = waf_compiler::import::import(&text, "942.conf").unwrap();
    let loaded = waf_compiler::parse_rules(Path::new("942.yaml"), &import.yaml).unwrap();
    let expected: Vec<_> = converted.rules.into_iter().map(|c| c.rule).collect();
    assert_eq!(loaded, expected);
}

/// The rule files of the CRS that `crs/` holds: every `REQUEST-9xx` file but 942, which `crs-942/` holds, and
/// every `RESPONSE-9xx` file.
fn crs_files(crs: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(crs.join("rules"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            (name.starts_with("REQUEST-9") || name.starts_with("RESPONSE-9"))
                && name.ends_with(".conf")
                && !name.starts_with("REQUEST-942-")
        })
        .collect();
    files.sort();
    files
}

#[test]
fn committed_crs_is_the_converters_output() {
    let Some(crs) = crs_dir() else { return };
    let files = crs_files(&crs);
    assert!(files.len() >= 25, "{files:?}");
    let out = tempfile::tempdir().unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_rulec"))
        .arg("import-crs")
        .args(&files)
        .arg("-o")
        .arg(out.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "rulec import-crs failed:\n{stderr}");
    let committed_dir = repo_root().join("crs");
    let mut committed: Vec<String> = std::fs::read_dir(&committed_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yaml"))
        .collect();
    committed.sort();
    let mut fresh: Vec<String> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    fresh.sort();
    assert_eq!(
        committed, fresh,
        "crs/ holds one YAML file per CRS rule file but 942"
    );
    for name in &fresh {
        let new = std::fs::read_to_string(out.path().join(name)).unwrap();
        let old = std::fs::read_to_string(committed_dir.join(name)).unwrap();
        assert!(
            new == old,
            "crs/{name} is out of date: run `rulec import-crs third_party/crs/rules/RE*-9*.conf -o crs` (without 942)"
        );
    }
}

#[test]
fn strict_import_fails_on_what_cannot_be_expressed_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("REQUEST-1-X.conf");
    std::fs::write(
        &conf,
        concat!(
            "SecRule ARGS \"@rx a\" \"id:1,msg:'x',block\"\n",
            "SecRule ARGS \"@pmFromFile missing.data\" \"id:2,msg:'x',block\"\n",
        ),
    )
    .unwrap();
    let run = |strict: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_rulec"));
        command
            .arg("import-crs")
            .arg(&conf)
            .arg("-o")
            .arg(dir.path().join("out"));
        if strict {
            command.arg("--strict");
        }
        command.output().unwrap()
    };
    let lenient = run(false);
    let stderr = String::from_utf8_lossy(&lenient.stderr);
    assert!(lenient.status.success(), "{stderr}");
    assert!(
        stderr.contains("REQUEST-1-X.conf:2: rule 2: data file `missing.data`"),
        "{stderr}"
    );
    assert!(stderr.contains("converted 1 rules"), "{stderr}");
    let strict = run(true);
    assert!(!strict.status.success());
    assert!(String::from_utf8_lossy(&strict.stderr).contains("--strict"));
}
