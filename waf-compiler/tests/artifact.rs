//! The compiled artifact: a round trip through bytes gives the same verdicts as compiling the YAML in memory, on
//! every test request we have (the CRS 942 suite, the default rules' suites and the benign corpus); damaged,
//! foreign and other-version files are refused with the right error and never make the loader panic; the
//! `rulec compile` / `rulec inspect` commands.

mod corpus_support;
mod detect_support;

use corpus_support::repo;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use waf_compiler::{
    ArtifactError, CompileOptions, CompiledRuleSet, EnginePlan, OwnedRequest, RuleMatch, artifact,
};
use waf_compiler::{DEFAULT_DFA_SIZE_LIMIT, EngineKind};

fn compile(dirs: &[&str], paranoia_level: u8, plan: EnginePlan) -> CompiledRuleSet {
    let paths: Vec<PathBuf> = dirs.iter().map(|d| repo(d)).collect();
    let outcome = CompiledRuleSet::load_dirs_with(
        &paths,
        &CompileOptions {
            paranoia_level,
            ..Default::default()
        },
        plan,
    );
    assert!(outcome.errors.is_empty(), "{:#?}", outcome.errors);
    outcome.ruleset
}

const DENSE: EnginePlan = EnginePlan::Dense {
    size_limit: DEFAULT_DFA_SIZE_LIMIT,
};

/// Every test request we have that parses (a few CRS tests send requests the parser refuses on purpose).
fn all_requests() -> Vec<(String, OwnedRequest)> {
    corpus_support::corpus()
        .into_iter()
        .filter_map(|(name, raw)| Some((name, OwnedRequest::parse(&raw).ok()?)))
        .collect()
}

fn verdict(rules: &CompiledRuleSet, request: &OwnedRequest) -> Vec<RuleMatch> {
    let headers = request.headers();
    rules.evaluate(&request.as_request(&headers)).matches
}

/// Asserts identical matches (ids, variables, excerpts) on every request; returns how many matched anything.
fn assert_same_verdicts(
    expected: &CompiledRuleSet,
    actual: &CompiledRuleSet,
    requests: &[(String, OwnedRequest)],
) -> usize {
    let mut matched = 0;
    for (name, request) in requests {
        let want = verdict(expected, request);
        assert_eq!(want, verdict(actual, request), "{name}");
        matched += usize::from(!want.is_empty());
    }
    matched
}

#[test]
fn dense_artifact_round_trip_gives_the_in_memory_verdicts_at_paranoia_4() {
    let requests = all_requests();
    let reference = compile(&["rules", "crs-942"], 4, EnginePlan::Lazy);
    let dense = compile(&["rules", "crs-942"], 4, DENSE);
    let kinds: Vec<EngineKind> = dense
        .rules()
        .flat_map(|r| r.regexes())
        .map(|re| re.kind())
        .collect();
    let dense_count = kinds.iter().filter(|k| **k == EngineKind::Dense).count();
    assert!(
        dense_count * 10 >= kinds.len() * 8,
        "most regexes fit the default budget: {dense_count} of {}",
        kinds.len()
    );
    let bytes = dense.to_artifact().unwrap();
    let loaded = CompiledRuleSet::from_artifact(&bytes).unwrap();
    assert_eq!(loaded.source_hash(), reference.source_hash());
    assert_eq!(loaded.rule_count(), reference.rule_count());
    let loaded_kinds: Vec<EngineKind> = loaded
        .rules()
        .flat_map(|r| r.regexes())
        .map(|re| re.kind())
        .collect();
    assert_eq!(kinds, loaded_kinds, "each regex keeps its engine");
    assert_eq!(loaded.chains(), dense.chains(), "chain ids are kept");
    assert_eq!(
        loaded.prefilter().map(|p| p.data()),
        dense.prefilter().map(|p| p.data()),
        "the prefilter is stored"
    );
    let matched = assert_same_verdicts(&reference, &loaded, &requests);
    assert!(
        matched * 2 > requests.len(),
        "{matched} of {}",
        requests.len()
    );
    assert_same_verdicts(&reference, &dense, &requests);
}

#[test]
fn lazy_artifact_round_trip_gives_the_in_memory_verdicts() {
    let requests = all_requests();
    let reference = compile(&["rules", "crs-942"], 1, EnginePlan::Lazy);
    let loaded = CompiledRuleSet::from_artifact(&reference.to_artifact().unwrap()).unwrap();
    assert!(
        loaded
            .rules()
            .flat_map(|r| r.regexes())
            .all(|re| re.kind() == EngineKind::Lazy)
    );
    assert_eq!(loaded.engine_plan(), EnginePlan::Lazy);
    assert!(loaded.prefilter().is_some());
    assert!(assert_same_verdicts(&reference, &loaded, &requests) > 0);
    // Each rule keeps the file it came from (relative to its directory), for listings.
    let files =
        |set: &CompiledRuleSet| -> Vec<String> { set.rules().map(|r| r.file.clone()).collect() };
    assert_eq!(files(&loaded), files(&reference));
    assert!(files(&loaded).contains(&"REQUEST-942-APPLICATION-ATTACK-SQLI.yaml".to_owned()));
}

/// A small artifact (the shipped rules at paranoia 1, with DFAs) for the refusal tests.
fn small_artifact() -> Vec<u8> {
    compile(&["rules"], 1, DENSE).to_artifact().unwrap()
}

const PREAMBLE: usize = artifact::PREAMBLE_LEN;

#[test]
fn damaged_foreign_and_other_version_files_are_refused_with_the_right_error() {
    let good = small_artifact();
    assert!(CompiledRuleSet::from_artifact(&good).is_ok());
    let refuse = |bytes: &[u8]| CompiledRuleSet::from_artifact(bytes).unwrap_err();

    for cut in [
        0,
        3,
        8,
        11,
        30,
        PREAMBLE,
        PREAMBLE + 10,
        good.len() / 2,
        good.len() - 1,
    ] {
        let err = refuse(&good[..cut]);
        assert!(
            matches!(err, ArtifactError::Truncated(_)),
            "cut at {cut}: {err}"
        );
    }
    let mut longer = good.clone();
    longer.push(0);
    assert!(matches!(refuse(&longer), ArtifactError::Corrupt(_)));

    assert!(matches!(
        refuse(b"id: 1\nmsg: yaml\n"),
        ArtifactError::Foreign
    ));
    assert!(matches!(refuse(b"WAFX"), ArtifactError::Foreign));
    assert!(matches!(refuse(b""), ArtifactError::Truncated(_)));

    let version = |v: u32| {
        let mut bytes = good.clone();
        bytes[8..12].copy_from_slice(&v.to_le_bytes());
        bytes
    };
    assert!(matches!(
        refuse(&version(artifact::FORMAT_VERSION + 1)),
        ArtifactError::NewerFormat { .. }
    ));
    assert!(matches!(
        refuse(&version(artifact::FORMAT_VERSION - 1)),
        ArtifactError::OlderFormat { .. }
    ));
    let err = refuse(&version(artifact::FORMAT_VERSION + 1)).to_string();
    assert!(err.contains("rulec compile"), "{err}");

    // Every flipped bit the checksum covers is caught, in the preamble's checksum and length too.
    for at in [
        20,
        40,
        PREAMBLE,
        PREAMBLE + 7,
        good.len() / 3,
        good.len() - 1,
    ] {
        let mut flipped = good.clone();
        flipped[at] ^= 0x10;
        let err = refuse(&flipped);
        assert!(
            matches!(err, ArtifactError::Corrupt(_) | ArtifactError::Truncated(_)),
            "flip at {at}: {err}"
        );
    }

    // The compiler version is the payload's first field: a length byte and the text.
    let payload = &good[PREAMBLE..];
    let version_text = artifact::COMPILER_VERSION.as_bytes();
    assert_eq!(&payload[1..1 + version_text.len()], version_text);
    let mut other = payload.to_vec();
    other[1] = b'9';
    let err = refuse(&artifact::seal(&other));
    assert!(matches!(err, ArtifactError::OtherCompiler { .. }), "{err}");
    assert!(err.to_string().contains("recompile"), "{err}");
}

#[test]
fn crafted_payloads_with_valid_checksums_never_panic() {
    let good = small_artifact();
    let payload = &good[PREAMBLE..];
    // xorshift: a fixed sequence, so a failure reproduces.
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move |bound: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % bound as u64) as usize
    };
    let (mut refused, mut loaded) = (0, 0);
    for round in 0..120 {
        let mut mutated = payload.to_vec();
        match round % 4 {
            0 => {
                for _ in 0..1 + next(8) {
                    let at = next(mutated.len());
                    mutated[at] = next(256) as u8;
                }
            }
            1 => mutated.truncate(next(mutated.len())),
            2 => {
                let at = next(mutated.len());
                let len = next(64).min(mutated.len() - at);
                mutated.drain(at..at + len);
            }
            _ => {
                // Inside the DFA tables, where the decoder sees well-formed lengths and only from_bytes checks.
                let at = mutated.len() / 2 + next(mutated.len() / 2);
                mutated[at] ^= 1 << next(8);
            }
        }
        match CompiledRuleSet::from_artifact(&artifact::seal(&mutated)) {
            Ok(rules) => {
                // Whatever loaded must still evaluate without panicking.
                let request = OwnedRequest::parse(
                    b"GET /?q=1%27%20or%201=1&x=%3Cscript%3E HTTP/1.1\r\nHost: a\r\n\r\n",
                )
                .unwrap();
                verdict(&rules, &request);
                loaded += 1;
            }
            Err(ArtifactError::Corrupt(_) | ArtifactError::OtherCompiler { .. }) => refused += 1,
            Err(other) => panic!("round {round}: unexpected error kind: {other}"),
        }
    }
    assert!(refused > 60, "{refused} refused, {loaded} loaded");
}

#[test]
fn one_loaded_set_serves_four_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<CompiledRuleSet>();
    let rules = Arc::new(CompiledRuleSet::from_artifact(&small_artifact()).unwrap());
    let attack = OwnedRequest::parse(
        b"GET /?file=../../etc/passwd&x=%3Cscript%3Ealert(1)%3C/script%3E HTTP/1.1\r\nHost: a\r\n\r\n",
    )
    .unwrap();
    let expected = verdict(&rules, &attack);
    assert!(!expected.is_empty());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..50 {
                    assert_eq!(verdict(&rules, &attack), expected);
                }
            });
        }
    });
}

#[test]
fn the_artifact_records_the_unicode_map_and_its_rules_evaluate_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rules.wafc");
    let rules = repo("rules");
    let request =
        OwnedRequest::parse(b"GET /?user=admin%u2019-- HTTP/1.1\r\nHost: a\r\n\r\n").unwrap();
    for (flag, code_page, blocked) in [("none", None, false), ("28591", Some(28591), true)] {
        let compiled = rulec(&[
            "compile",
            rules.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--unicode-code-page",
            flag,
        ]);
        assert!(
            compiled.status.success(),
            "{}",
            String::from_utf8_lossy(&compiled.stderr)
        );
        let header = artifact::read_file(&out).unwrap().header;
        assert_eq!(header.unicode_code_page, code_page);
        let loaded = CompiledRuleSet::from_artifact_file(&out).unwrap();
        assert_eq!(loaded.chains().unicode_map().code_page(), code_page);
        assert_eq!(!verdict(&loaded, &request).is_empty(), blocked, "{flag}");
        let inspected = rulec(&["inspect", out.to_str().unwrap()]);
        let text = String::from_utf8_lossy(&inspected.stdout);
        assert!(
            text.contains(&format!("Unicode map       {flag}")),
            "{text}"
        );
    }
    let refused = rulec(&[
        "compile",
        rules.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--unicode-code-page",
        "65001",
    ]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("unknown Unicode code page 65001"));
}

fn rulec(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rulec"))
        .args(args)
        .output()
        .expect("run rulec")
}

#[test]
fn rulec_compile_writes_what_inspect_reads_and_inspect_refuses_a_bad_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rules.wafc");
    let rules = repo("rules");
    let compiled = rulec(&[
        "compile",
        rules.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--verbose",
    ]);
    let stdout = String::from_utf8_lossy(&compiled.stdout);
    assert!(
        compiled.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    assert!(stdout.contains("regexes dense"), "{stdout}");
    assert!(
        stdout.contains("rule 100102 (paranoia 1): dense"),
        "{stdout}"
    );
    let loaded = CompiledRuleSet::from_artifact_file(&out).unwrap();
    assert_eq!(loaded.paranoia_level(), 1);
    assert_eq!(
        loaded.source_hash(),
        compile(&["rules"], 1, DENSE).source_hash()
    );

    let inspected = rulec(&["inspect", out.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&inspected.stdout);
    assert!(inspected.status.success());
    for line in [
        "compiler version",
        "source hash",
        "paranoia level    1",
        "rule 100102",
    ] {
        assert!(text.contains(line), "{line}: {text}");
    }

    // The regression tests run against the artifact as they do against the directories.
    let tests = repo("waf-compiler/tests/default-rules");
    let tested = rulec(&[
        "test",
        "--artifact",
        out.to_str().unwrap(),
        "--",
        tests.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&tested.stdout);
    assert!(tested.status.success(), "{text}");
    assert!(text.contains(" passed, 0 failed"), "{text}");

    let bad = dir.path().join("bad.wafc");
    std::fs::write(&bad, b"not an artifact").unwrap();
    let refused = rulec(&["inspect", bad.to_str().unwrap()]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("not a rule artifact"));

    let lazy = dir.path().join("lazy.wafc");
    let all_lazy = rulec(&[
        "compile",
        rules.to_str().unwrap(),
        "-o",
        lazy.to_str().unwrap(),
        "--dfa-size-limit",
        "0",
    ]);
    assert!(String::from_utf8_lossy(&all_lazy.stdout).contains(" 0 regexes dense"));

    // Gzip-compressed: smaller, and read by everything that reads artifacts.
    let packed = dir.path().join("lazy.wafc.gz");
    let compressed = rulec(&[
        "compile",
        rules.to_str().unwrap(),
        "-o",
        packed.to_str().unwrap(),
        "--dfa-size-limit",
        "0",
        "--compress",
    ]);
    assert!(String::from_utf8_lossy(&compressed.stdout).contains("bytes, gzip)"));
    let (plain, gz) = (
        std::fs::metadata(&lazy).unwrap().len(),
        std::fs::metadata(&packed).unwrap().len(),
    );
    assert!(gz * 2 < plain, "gzip {gz} bytes, plain {plain}");
    let from_gz = CompiledRuleSet::from_artifact_file(&packed).unwrap();
    assert_eq!(
        from_gz.source_hash(),
        CompiledRuleSet::from_artifact_file(&lazy)
            .unwrap()
            .source_hash()
    );
    assert!(
        rulec(&["inspect", packed.to_str().unwrap()])
            .status
            .success()
    );
}

#[test]
fn compressed_artifacts_inflate_or_are_refused() {
    let good = small_artifact();
    let packed = artifact::compress(&good);
    assert_eq!(
        artifact::read(&packed).unwrap().header,
        artifact::read(&good).unwrap().header
    );
    // A damaged stream and a stream of something else: refused with the reason, never a panic.
    let mut damaged = packed.clone();
    let middle = damaged.len() / 2;
    damaged.truncate(middle);
    assert!(matches!(
        artifact::read(&damaged),
        Err(ArtifactError::Corrupt(artifact::Corruption::Inflate(_)))
    ));
    assert!(matches!(
        artifact::read(&artifact::compress(b"not an artifact")),
        Err(ArtifactError::Foreign)
    ));
}

#[test]
fn rulec_ends_quietly_when_its_reader_stops_reading() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rules.wafc");
    let rules = repo("rules");
    assert!(
        rulec(&[
            "compile",
            rules.to_str().unwrap(),
            "-o",
            out.to_str().unwrap()
        ])
        .status
        .success()
    );
    // `rulec inspect rules.wafc | head -n 1`, with the reader gone before the first line: every write meets a
    // closed pipe.
    let mut child = Command::new(env!("CARGO_BIN_EXE_rulec"))
        .args(["inspect", out.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run rulec");
    drop(child.stdout.take());
    let done = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
