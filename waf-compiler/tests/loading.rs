//! Loading rule directories from disk: file shapes, recursion, and errors that name file, rule and field,
//! with a broken file skipped while the rest loads.

use std::fs;
use std::path::Path;
use waf_compiler::{CompileOptions, CompiledRuleSet, LoadOutcome};

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn load(dir: &Path) -> LoadOutcome {
    CompiledRuleSet::load_dirs(&[dir], &CompileOptions::default())
}

fn rule(id: u32) -> String {
    format!("id: {id}\nmsg: m\npattern: x\nvariables: [ARGS_GET]\naction: deny\n")
}

fn ids(outcome: &LoadOutcome) -> Vec<u32> {
    outcome.ruleset.rules().map(|r| r.rule.id).collect()
}

#[test]
fn recursive_scan_of_yaml_and_yml_in_several_dirs() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    write(a.path(), "one.yaml", &rule(1));
    write(
        a.path(),
        "sub/deeper/two.yml",
        &format!("{}---\n{}", rule(2), rule(3)),
    );
    write(a.path(), "notes.txt", "not: a rule");
    write(
        b.path(),
        "list.yaml",
        "rules:\n  - {id: 4, msg: m, pattern: x, variables: [BODY], action: log}\n",
    );
    let outcome = CompiledRuleSet::load_dirs(&[a.path(), b.path()], &CompileOptions::default());
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    assert_eq!(ids(&outcome), [1, 2, 3, 4]);
}

#[test]
fn a_broken_file_is_skipped_and_the_rest_loads() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "good.yaml", &rule(1));
    // One bad rule makes the whole file skipped, including its valid rule 3.
    write(
        dir.path(),
        "bad.yaml",
        &format!(
            "{}---\nid: 2\nmsg: m\npattern: '(?<=a)b'\nvariables: [ARGS]\naction: deny\n",
            rule(3)
        ),
    );
    write(dir.path(), "garbage.yaml", "id: [\n");
    let outcome = load(dir.path());
    assert_eq!(ids(&outcome), [1]);
    let errors: Vec<String> = outcome.errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    let bad = dir.path().join("bad.yaml").display().to_string();
    assert!(
        errors[0].starts_with(&format!(
            "{bad}: rule 2: field `pattern`: regex does not compile: look-around"
        )),
        "{errors:?}"
    );
    assert!(
        errors[1].contains("garbage.yaml: invalid YAML"),
        "{errors:?}"
    );
}

#[test]
fn duplicate_ids_name_both_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.yaml", &rule(7));
    write(
        dir.path(),
        "b.yaml",
        &format!("{}---\n{}", rule(8), rule(7)),
    );
    write(
        dir.path(),
        "c.yaml",
        &format!("{}---\n{}", rule(9), rule(9)),
    );
    let outcome = load(dir.path());
    assert_eq!(ids(&outcome), [7]);
    let a = dir.path().join("a.yaml").display().to_string();
    let b = dir.path().join("b.yaml").display().to_string();
    let c = dir.path().join("c.yaml").display().to_string();
    let errors: Vec<String> = outcome.errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        errors,
        [
            format!("{b}: rule 7: field `id`: duplicate id: already defined in {a}"),
            format!("{c}: rule 9: field `id`: duplicate id: defined twice in {c}"),
        ]
    );
}

#[test]
fn every_kind_of_rule_error_names_file_rule_and_field() {
    let cases: &[(&str, &str)] = &[
        (
            "id: 1\nmsg: m\noperator: rx\npattern: x\nvariables: [ARGS]\naction: deny\n",
            "rule 1: field `operator`: unknown variant `rx`",
        ),
        (
            "id: 1\nmsg: m\npattern: x\nvariables: [ARGS, QUERY]\naction: deny\n",
            "rule 1: field `variables[1]`: unknown variable `QUERY`",
        ),
        (
            "id: 1\nmsg: m\npattern: x\nvariables: [{type: NOPE}]\naction: deny\n",
            "rule 1: field `variables[0]`: unknown variable `NOPE`",
        ),
        (
            "id: 1\nmsg: m\npattern: x\ntransforms: [base64]\nvariables: [ARGS]\naction: deny\n",
            "rule 1: field `transforms[0]`: unknown variant `base64`",
        ),
        (
            "id: 1\nmsg: m\npattern: '(a'\nvariables: [ARGS]\naction: deny\n",
            "rule 1: field `pattern`: regex does not compile",
        ),
        (
            "id: 1\nmsg: m\npattern: '(a)\\1'\nvariables: [ARGS]\naction: deny\n",
            "rule 1: field `pattern`: regex does not compile",
        ),
        (
            "id: 1\nmsg: m\nvariables: [ARGS]\naction: deny\n",
            "rule 1: field `pattern`: operator `regex` needs a pattern",
        ),
        (
            "id: 1\nmsg: m\noperator: detector_sqli\npattern: x\nvariables: [ARGS]\naction: deny\n",
            "rule 1: field `pattern`: operator `detector_sqli` takes no pattern",
        ),
        (
            "id: 1\nmsg: m\npattern: x\nvariables: [ARGS]\n",
            "rule 1: field `action`: missing required field",
        ),
        (
            "msg: m\npattern: x\nvariables: [ARGS]\naction: deny\n",
            "field `id`: missing required field",
        ),
        (
            "id: 1\nmsg: m\npattern: x\nvariables: []\naction: deny\n",
            "rule 1: field `variables`: must list at least one variable",
        ),
        (
            "id: 1\nmsg: m\npattern: x\nvariables: [ARGS]\naction: deny\nparanoia_level: 5\n",
            "rule 1: field `paranoia_level`: must be 1 to 4",
        ),
        (
            "id: 1\nmsg: m\npattern: x\nvariables: [ARGS]\naction: deny\nseverity: URGENT\n",
            "rule 1: field `severity`: unknown variant `URGENT`",
        ),
        (
            "id: 1\nmsg: m\npattern: x\nvariables: [{type: ARGS, names: ['/(?=a)/']}]\naction: deny\n",
            "rule 1: field `variables[0]`: regex does not compile",
        ),
        (
            "id: 1\nmsg: m\npattern: '(a)'\nvariables: [ARGS]\naction: deny\nchain: [{target: 'capture:2', operator: equals, pattern: x}]\n",
            "rule 1: field `chain[0].target`: capture group 2 does not exist",
        ),
        (
            "id: 1\nmsg: m\npattern: x\nvariables: [ARGS]\naction: deny\nchain: [{target: value, operator: equals, pattern: x}]\n",
            "rule 1: field `chain[0].target`: unknown chain target `value`",
        ),
    ];
    for (text, want) in cases {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "r.yaml", text);
        let outcome = load(dir.path());
        let file = dir.path().join("r.yaml").display().to_string();
        let got: Vec<String> = outcome.errors.iter().map(ToString::to_string).collect();
        assert!(
            got.iter()
                .any(|e| e.starts_with(&format!("{file}: {want}"))),
            "want `{want}`, got {got:?}"
        );
        assert_eq!(outcome.ruleset.rules().count(), 0);
    }
}

#[test]
fn missing_directory_and_unreadable_files_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "latin1.yaml", "");
    fs::write(dir.path().join("latin1.yaml"), b"msg: \xe9\n").unwrap();
    let outcome = CompiledRuleSet::load_dirs(
        &[dir.path(), &dir.path().join("nope")],
        &CompileOptions::default(),
    );
    let errors: Vec<String> = outcome.errors.iter().map(ToString::to_string).collect();
    assert!(
        errors.iter().any(|e| e.ends_with("nope: not a directory")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.ends_with("latin1.yaml: file is not UTF-8")),
        "{errors:?}"
    );
}

#[test]
fn source_hash_covers_rules_and_paranoia_level() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.yaml", &rule(1));
    let pl = |level| {
        CompiledRuleSet::load_dirs(
            &[dir.path()],
            &CompileOptions {
                paranoia_level: level,
                ..Default::default()
            },
        )
        .ruleset
        .source_hash()
        .to_owned()
    };
    let first = pl(1);
    assert_eq!(first.len(), 64);
    assert_eq!(first, pl(1));
    assert_ne!(first, pl(2));
    write(dir.path(), "a.yaml", &rule(2));
    assert_ne!(first, pl(1));
}

#[test]
fn disabled_rules_leave_the_set_and_the_rest_still_runs() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a.yaml",
        &format!(
            "{}---\n{}",
            rule(1),
            rule(2).replace("pattern: x", "pattern: z")
        ),
    );
    let outcome = load(dir.path());
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    let mut set = outcome.ruleset;
    let before = set.source_hash().to_owned();
    let raw = b"GET /?a=x&b=z HTTP/1.1\r\nHost: h\r\n\r\n";
    let owned = waf_compiler::OwnedRequest::parse(raw).unwrap();
    let headers = owned.headers();
    let matched = |set: &CompiledRuleSet| -> Vec<u32> {
        set.evaluate(&owned.as_request(&headers))
            .matches
            .iter()
            .map(|m| m.rule_id)
            .collect()
    };
    assert_eq!(matched(&set), [1, 2]);
    // An id no rule has is returned (a typo), never silently ignored.
    assert_eq!(set.disable_rules(&[1, 99]), [99]);
    assert_eq!(set.rules().map(|r| r.rule.id).collect::<Vec<_>>(), [2]);
    assert_eq!(set.rule_count(), 1);
    assert_eq!(matched(&set), [2]);
    assert_ne!(set.source_hash(), before);
    assert!(set.disable_rules(&[]).is_empty());
}

#[test]
fn settings_replace_the_patterns_of_the_rules_that_name_them() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "methods.yaml",
        "id: 1\nmsg: m\noperator: within\npattern: GET POST\nsetting: allowed_methods\nnegate: true\n\
         variables: [REQUEST_METHOD]\naction: deny\n",
    );
    let raw = b"PUT /x HTTP/1.1\r\nHost: h\r\n\r\n";
    let owned = waf_compiler::OwnedRequest::parse(raw).unwrap();
    let headers = owned.headers();
    let load_with = |settings: &[(&str, &str)]| {
        CompiledRuleSet::load_dirs(
            &[dir.path()],
            &CompileOptions {
                settings: settings
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                ..Default::default()
            },
        )
    };
    // The default pattern refuses PUT; the setting allows it, and changes the source hash.
    let default = load_with(&[]);
    assert!(default.errors.is_empty(), "{:?}", default.errors);
    assert!(
        default
            .ruleset
            .evaluate(&owned.as_request(&headers))
            .is_blocked()
    );
    let tuned = load_with(&[("allowed_methods", "GET POST PUT")]);
    assert!(tuned.errors.is_empty(), "{:?}", tuned.errors);
    assert!(
        !tuned
            .ruleset
            .evaluate(&owned.as_request(&headers))
            .is_blocked()
    );
    assert_ne!(default.ruleset.source_hash(), tuned.ruleset.source_hash());
    // A setting no rule reads is a typo: reported, the rules still load.
    let typo = load_with(&[("allowed_method", "GET")]);
    let errors: Vec<String> = typo.errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        errors,
        ["settings: setting `allowed_method` is read by no loaded rule"]
    );
    assert_eq!(typo.ruleset.rule_count(), 1);
}
