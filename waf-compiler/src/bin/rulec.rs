//! `rulec`: check rule directories, compile them into an artifact and inspect one, run go-ftw regression tests
//! against them (or print their raw requests), explain a request, and convert OWASP CRS rule files.

use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use waf_compiler::UnicodeMap;
use waf_compiler::{
    CompileOptions, CompiledRuleSet, EnginePlan, OwnedRequest, artifact, explain, ftw,
};
use waf_compiler::{DEFAULT_DFA_SIZE_LIMIT, EngineKind};

/// `println!` for rulec's reports: a reader that stopped reading (`rulec inspect rules.wafc | head`) ends the
/// program quietly, as for other command-line tools, instead of a panic on the closed pipe.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($arg)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
            eprintln!("error: cannot write to stdout: {e}");
            std::process::exit(1);
        }
    }};
}

/// The WAF rule compiler.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Load and compile rule directories; print every error and exit non-zero if there is any.
    Check {
        /// Rule directories (scanned recursively for .yaml/.yml).
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
    },
    /// Compile rule directories into an artifact the proxy loads without compiling a regex.
    ///
    /// Each regex of an active rule becomes a dense DFA when it fits the size budget, else it is compiled at
    /// load (lazy). Always prints a summary; `--verbose` prints each rule's engines and sizes.
    Compile {
        /// Rule directories (scanned recursively for .yaml/.yml).
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// The artifact to write (atomically: a watching proxy never sees half a file).
        #[arg(short, long, value_name = "FILE")]
        out: PathBuf,
        /// Paranoia level, baked into the artifact; rules above it are kept but get no DFA.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=4))]
        paranoia: u8,
        /// Size budget of each dense DFA in bytes (0: no DFAs, every regex compiled at load).
        #[arg(long, default_value_t = DEFAULT_DFA_SIZE_LIMIT, value_name = "BYTES")]
        dfa_size_limit: usize,
        /// Write the artifact gzip-compressed (the proxy and `rulec` read either form): about 4x smaller with
        /// `--dfa-size-limit 0`, e.g. to fit the whole CRS in a Kubernetes ConfigMap.
        #[arg(long)]
        compress: bool,
        /// Baked into the artifact. The code page of ModSecurity's Unicode map that `url_decode_uni` uses (as `SecUnicodeMapFile
        /// unicode.mapping N`), or `none` for ModSecurity's behaviour without a map.
        #[arg(long, default_value = "20127", value_parser = parse_code_page, value_name = "N|none")]
        unicode_code_page: UnicodeMap,
        /// A setting the rules read, NAME=VALUE, repeatable: CRS's 901 defaults such as
        /// `allowed_methods='GET HEAD POST OPTIONS PUT'` (docs/rule-format.md, `setting`).
        #[arg(long = "crs-setting", value_parser = parse_setting, value_name = "NAME=VALUE")]
        crs_setting: Vec<(String, String)>,
        /// Use CRS's own `crs-setup.conf` values for the policy settings instead of the site policy the proxy
        /// uses by default (docs/crs.md, "The site policy").
        #[arg(long)]
        crs_defaults: bool,
        /// Print every rule's engines and sizes.
        #[arg(short, long)]
        verbose: bool,
    },
    /// Print an artifact's header and each rule's engines and sizes; exit non-zero if it is refused.
    Inspect {
        /// The artifact file.
        file: PathBuf,
    },
    /// Run go-ftw YAML regression tests in process against the rules.
    ///
    /// `--rules` takes several directories, so end them with `--` before the tests:
    /// `rulec test --rules rules crs-942 -- tests/`.
    Test {
        /// Rule directories.
        #[arg(long = "rules", required_unless_present = "artifact", num_args = 1..)]
        rules: Vec<PathBuf>,
        /// A compiled artifact instead of rule directories (its paranoia level and code page are baked in).
        #[arg(long, conflicts_with_all = ["rules", "paranoia", "unicode_code_page", "crs_setting"])]
        artifact: Option<PathBuf>,
        /// Paranoia level; defaults to 4, as the CRS runs its own tests.
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=4))]
        paranoia: u8,
        /// The code page of ModSecurity's Unicode map that `url_decode_uni` uses (as `SecUnicodeMapFile
        /// unicode.mapping N`), or `none` for ModSecurity's behaviour without a map.
        #[arg(long, default_value = "20127", value_parser = parse_code_page, value_name = "N|none")]
        unicode_code_page: UnicodeMap,
        /// A setting the rules read, NAME=VALUE, repeatable: CRS's 901 defaults such as
        /// `allowed_methods='GET HEAD POST OPTIONS PUT'` (docs/rule-format.md, `setting`).
        #[arg(long = "crs-setting", value_parser = parse_setting, value_name = "NAME=VALUE")]
        crs_setting: Vec<(String, String)>,
        /// Exit 0 when at least this percentage of tests pass (default: every test must pass).
        #[arg(long, value_parser = parse_rate)]
        min_pass_rate: Option<f64>,
        /// Also require this percentage of each directory's tests (the CRS keeps one directory per rule file);
        /// prints every directory's pass rate.
        #[arg(long, value_parser = parse_rate)]
        min_file_pass_rate: Option<f64>,
        /// Test files or directories of test files.
        #[arg(required = true)]
        tests: Vec<PathBuf>,
    },
    /// Print the raw requests of go-ftw tests, built as `rulec test` builds them, with each stage's expectations:
    /// one JSON object per test and line, for sending the tests to a real server (`benches/crs-compare.sh`).
    ///
    /// Each line: `{"file": DIR, "test": "RULE-TEST", "desc": TEXT, "stages": [{"request": BASE64,
    /// "expect_ids": [..], "no_expect_ids": [..], "match_regex": REGEX|null, "no_match_regex": REGEX|null}]}`
    /// (`DIR` is the test file's directory, one per CRS rule file; the regexes are those the server's log must
    /// and must not match; a stage whose request cannot be built has `"error"` instead of `"request"`). A file
    /// that cannot be read is reported on stderr and skipped.
    FtwRequests {
        /// Test files or directories of test files.
        #[arg(required = true)]
        tests: Vec<PathBuf>,
    },
    /// Show every variable, transformed value and rule decision for a raw HTTP request.
    Explain {
        /// Rule directories.
        #[arg(long = "rules", required = true, num_args = 1..)]
        rules: Vec<PathBuf>,
        /// Paranoia level.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=4))]
        paranoia: u8,
        /// The code page of ModSecurity's Unicode map that `url_decode_uni` uses (as `SecUnicodeMapFile
        /// unicode.mapping N`), or `none` for ModSecurity's behaviour without a map.
        #[arg(long, default_value = "20127", value_parser = parse_code_page, value_name = "N|none")]
        unicode_code_page: UnicodeMap,
        /// A setting the rules read, NAME=VALUE, repeatable: CRS's 901 defaults such as
        /// `allowed_methods='GET HEAD POST OPTIONS PUT'` (docs/rule-format.md, `setting`).
        #[arg(long = "crs-setting", value_parser = parse_setting, value_name = "NAME=VALUE")]
        crs_setting: Vec<(String, String)>,
        /// Use CRS's own `crs-setup.conf` values for the policy settings instead of the site policy the proxy
        /// uses by default (docs/crs.md, "The site policy").
        #[arg(long)]
        crs_defaults: bool,
        /// What the request's site serves, `web` or `api` (`domains.<host>.profile`, docs/crs.md); not with
        /// `--crs-defaults`, whose policy weighs nothing.
        #[arg(long, default_value = "web")]
        profile: waf_compiler::Profile,
        /// File holding the raw request (request line, headers, blank line, body).
        #[arg(long)]
        request: PathBuf,
    },
    /// Evaluate every request of files of raw requests (written one after another, as the CSIC 2010 dataset
    /// stores them) and print how many are blocked and which rules blocked them: a false-positive measurement
    /// on benign traffic, a detection measurement on attacks.
    ///
    /// Absolute-form targets (`GET http://host/path`) are evaluated in origin form (`/path`), as a reverse proxy
    /// receives them.
    Replay {
        /// Rule directories.
        #[arg(long = "rules", required = true, num_args = 1..)]
        rules: Vec<PathBuf>,
        /// Paranoia level.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=4))]
        paranoia: u8,
        /// The code page of ModSecurity's Unicode map that `url_decode_uni` uses (as `SecUnicodeMapFile
        /// unicode.mapping N`), or `none` for ModSecurity's behaviour without a map.
        #[arg(long, default_value = "20127", value_parser = parse_code_page, value_name = "N|none")]
        unicode_code_page: UnicodeMap,
        /// A setting the rules read, NAME=VALUE, repeatable: CRS's 901 defaults such as
        /// `allowed_methods='GET HEAD POST OPTIONS PUT'` (docs/rule-format.md, `setting`).
        #[arg(long = "crs-setting", value_parser = parse_setting, value_name = "NAME=VALUE")]
        crs_setting: Vec<(String, String)>,
        /// Use CRS's own `crs-setup.conf` values for the policy settings instead of the site policy the proxy
        /// uses by default (docs/crs.md, "The site policy").
        #[arg(long)]
        crs_defaults: bool,
        /// Anomaly score at which a request is blocked (`rules.anomaly_threshold`).
        #[arg(long, default_value_t = waf_compiler::DEFAULT_ANOMALY_THRESHOLD)]
        anomaly_threshold: u32,
        /// Score every hit in full, as ModSecurity does: no semantic confirmation of the injection families
        /// (docs/rule-format.md, `confirm`).
        #[arg(long)]
        no_confirm: bool,
        /// What the requests' site serves, `web` or `api` (`domains.<host>.profile`, docs/crs.md).
        #[arg(long, default_value = "web")]
        profile: waf_compiler::Profile,
        /// Fail (exit status 1) when more than this share of the requests, in percent, is blocked: the bar CI
        /// holds a benign corpus to.
        #[arg(long, value_name = "PERCENT")]
        max_blocked_percent: Option<f64>,
        /// Write one line per request to FILE: its number (from 1, across the files), `blocked` or `passed`, the
        /// ids of the rules that added to its score, and those of the unconfirmed hits (`~id`).
        #[arg(long, value_name = "FILE")]
        details: Option<PathBuf>,
        /// Files of raw requests.
        #[arg(required = true, last = true)]
        files: Vec<PathBuf>,
    },
    /// Convert an OWASP CRS (ModSecurity SecRule) rule file into our YAML rule format.
    ///
    /// Writes one YAML file named after FILE into DIR and prints, on stderr, everything it could
    /// not express (rule id and construct).
    ImportCrs {
        /// The CRS `.conf` files (`.data` files and REQUEST-901-INITIALIZATION.conf are read from beside each).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The directory to write the YAML files into.
        #[arg(short, long, value_name = "DIR")]
        out: PathBuf,
        /// Fail (after writing) when any construct could not be expressed.
        #[arg(long)]
        strict: bool,
    },
}

fn parse_rate(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(r) if (0.0..=100.0).contains(&r) => Ok(r),
        _ => Err("a percentage from 0 to 100".into()),
    }
}

/// `--crs-setting NAME=VALUE`.
fn parse_setting(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_owned(), value.to_owned())),
        _ => Err("NAME=VALUE, for example allowed_methods='GET HEAD POST OPTIONS PUT'".into()),
    }
}

/// `--unicode-code-page`: a code page of the map, or `none`.
fn parse_code_page(s: &str) -> Result<UnicodeMap, String> {
    let code_page = match s {
        "none" => None,
        n => Some(
            n.parse::<u32>()
                .map_err(|_| "a code page number or `none`".to_owned())?,
        ),
    };
    UnicodeMap::for_code_page(code_page).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Check { dirs } => check(&dirs),
        Command::Compile {
            dirs,
            out,
            paranoia,
            dfa_size_limit,
            compress,
            unicode_code_page,
            crs_setting,
            crs_defaults,
            verbose,
        } => {
            let opts = options(
                paranoia,
                unicode_code_page,
                crs_setting,
                policy(crs_defaults),
            );
            let output = Output {
                path: &out,
                compress,
            };
            compile(&dirs, output, &opts, dfa_size_limit, verbose)
        }
        Command::Inspect { file } => inspect(&file),
        Command::Test {
            rules,
            artifact,
            paranoia,
            unicode_code_page,
            crs_setting,
            min_pass_rate,
            min_file_pass_rate,
            tests,
        } => {
            let loaded = match artifact {
                Some(path) => match CompiledRuleSet::from_artifact_file(&path) {
                    Ok(rules) => (rules, true),
                    Err(e) => {
                        eprintln!("error: {}: {e}", path.display());
                        return ExitCode::FAILURE;
                    }
                },
                // The regression suites test CRS's own policy.
                None => load(
                    &rules,
                    &options(paranoia, unicode_code_page, crs_setting, Default::default()),
                ),
            };
            test(loaded, (min_pass_rate, min_file_pass_rate), &tests)
        }
        Command::FtwRequests { tests } => ftw_requests(&tests),
        Command::Explain {
            rules,
            paranoia,
            unicode_code_page,
            crs_setting,
            crs_defaults,
            profile,
            request,
        } => explain_request(
            &rules,
            &options(
                paranoia,
                unicode_code_page,
                crs_setting,
                policy(crs_defaults),
            ),
            (!crs_defaults).then_some(profile),
            &request,
        ),
        Command::Replay {
            rules,
            paranoia,
            unicode_code_page,
            crs_setting,
            crs_defaults,
            anomaly_threshold,
            no_confirm,
            profile,
            max_blocked_percent,
            details,
            files,
        } => replay(
            &rules,
            &options(
                paranoia,
                unicode_code_page,
                crs_setting,
                policy(crs_defaults),
            ),
            &ReplayOptions {
                threshold: anomaly_threshold,
                confirm: !no_confirm,
                // CRS's policy weighs nothing: the profiles belong to the site policy.
                profile: (!crs_defaults).then_some(profile),
                max_blocked_percent,
                details,
            },
            &files,
        ),
        Command::ImportCrs { files, out, strict } => import_crs(&files, &out, strict),
    }
}

/// The options the subcommands share: `--paranoia`, `--unicode-code-page`, `--crs-setting`, and the settings'
/// defaults.
fn options(
    paranoia: u8,
    unicode_map: UnicodeMap,
    crs_setting: Vec<(String, String)>,
    default_settings: std::collections::BTreeMap<String, String>,
) -> CompileOptions {
    CompileOptions {
        paranoia_level: paranoia,
        unicode_map,
        settings: crs_setting.into_iter().collect(),
        default_settings,
    }
}

/// The defaults of the policy settings: the site policy the proxy uses, or none (the rules' own, CRS's).
fn policy(crs_defaults: bool) -> std::collections::BTreeMap<String, String> {
    match crs_defaults {
        true => Default::default(),
        false => waf_compiler::site_settings(),
    }
}

fn import_crs(files: &[PathBuf], out: &std::path::Path, strict: bool) -> ExitCode {
    let mut failed = false;
    let mut warned = 0;
    for file in files {
        match waf_compiler::import::import_file(file, out) {
            Ok((import, path)) => {
                for warning in &import.warnings {
                    eprintln!("warning: {warning}");
                }
                warned += import.warnings.len();
                eprintln!(
                    "converted {} rules into {} ({} warnings)",
                    import.rule_count,
                    path.display(),
                    import.warnings.len()
                );
            }
            Err(e) => {
                eprintln!("error: {e}");
                failed = true;
            }
        }
    }
    if strict && warned > 0 {
        eprintln!("error: --strict: {warned} construct(s) could not be expressed");
        failed = true;
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Loads rules, printing each error to stderr; the flag is false when any error occurred.
fn load(dirs: &[PathBuf], opts: &CompileOptions) -> (CompiledRuleSet, bool) {
    let outcome = CompiledRuleSet::load_dirs(dirs, opts);
    for error in &outcome.errors {
        eprintln!("error: {error}");
    }
    (outcome.ruleset, outcome.errors.is_empty())
}

fn check(dirs: &[PathBuf]) -> ExitCode {
    let opts = CompileOptions {
        paranoia_level: 4,
        ..CompileOptions::default()
    };
    let (rules, ok) = load(dirs, &opts);
    out!(
        "{} rules loaded, source hash {}",
        rules.rule_count(),
        rules.source_hash()
    );
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Where `rulec compile` writes, and in which form.
struct Output<'a> {
    path: &'a Path,
    compress: bool,
}

fn compile(
    dirs: &[PathBuf],
    output: Output<'_>,
    opts: &CompileOptions,
    dfa_size_limit: usize,
    verbose: bool,
) -> ExitCode {
    let plan = match dfa_size_limit {
        0 => EnginePlan::Lazy,
        size_limit => EnginePlan::Dense { size_limit },
    };
    eprintln!(
        "compiling {} at paranoia level {}, Unicode map {} ({}) ...",
        dirs.iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(" "),
        opts.paranoia_level,
        opts.unicode_map,
        match plan {
            EnginePlan::Lazy => "no dense DFAs".to_owned(),
            EnginePlan::Dense { size_limit } => format!("dense DFAs up to {size_limit} bytes each"),
        }
    );
    let started = Instant::now();
    let outcome = CompiledRuleSet::load_dirs_with(dirs, opts, plan);
    for error in &outcome.errors {
        eprintln!("error: {error}");
    }
    if !outcome.errors.is_empty() {
        eprintln!("not written: fix the errors above");
        return ExitCode::FAILURE;
    }
    let rules = outcome.ruleset;
    let built = started.elapsed();
    let bytes = match rules.to_artifact() {
        Ok(bytes) if output.compress => artifact::compress(&bytes),
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("error: cannot serialize the rule set: {e}");
            return ExitCode::FAILURE;
        }
    };
    let out = output.path;
    if let Err(e) = artifact::write_file(out, &bytes) {
        eprintln!("error: cannot write {}: {e}", out.display());
        return ExitCode::FAILURE;
    }
    print_engines(&rules, verbose);
    out!(
        "wrote {} ({} bytes{}) in {:.2} s (compile {:.2} s), source hash {}",
        out.display(),
        bytes.len(),
        if output.compress { ", gzip" } else { "" },
        started.elapsed().as_secs_f64(),
        built.as_secs_f64(),
        rules.source_hash()
    );
    ExitCode::SUCCESS
}

/// Per rule (with `verbose`) its regexes' engines and sizes; always the summary line.
fn print_engines(rules: &CompiledRuleSet, verbose: bool) {
    let (mut dense, mut lazy, mut total) = (0usize, 0usize, 0usize);
    for rule in rules.rules() {
        let regexes = rule.regexes();
        let active = rule.rule.paranoia_level <= rules.paranoia_level();
        for re in &regexes {
            match re.kind() {
                EngineKind::Dense => dense += 1,
                EngineKind::Lazy => lazy += 1,
            }
            total += re.dense_size();
        }
        if verbose {
            let engines: Vec<String> = regexes
                .iter()
                .map(|re| match re.kind() {
                    EngineKind::Dense => format!("dense {} bytes", re.dense_size()),
                    EngineKind::Lazy => "lazy".to_owned(),
                })
                .collect();
            out!(
                "rule {} (paranoia {}{}): {}",
                rule.rule.id,
                rule.rule.paranoia_level,
                if active { "" } else { ", inactive" },
                if engines.is_empty() {
                    "no regex".to_owned()
                } else {
                    engines.join(", ")
                }
            );
        }
    }
    out!(
        "{} rules ({} active): {dense} regexes dense, {lazy} lazy; {total} bytes of DFAs",
        rules.rules().count(),
        rules.rule_count()
    );
}

fn inspect(path: &Path) -> ExitCode {
    let started = Instant::now();
    match artifact::read_file(path) {
        Ok(artifact) => {
            let loaded = started.elapsed();
            let h = &artifact.header;
            out!("artifact {}", path.display());
            out!("  compiler version  {}", h.compiler_version);
            out!("  format version    {}", artifact::FORMAT_VERSION);
            out!("  source hash       {}", h.source_hash);
            out!("  paranoia level    {}", h.paranoia_level);
            out!(
                "  Unicode map       {}",
                h.unicode_code_page
                    .map_or_else(|| "none".to_owned(), |n| n.to_string())
            );
            out!(
                "  DFA size limit    {}",
                match h.dfa_size_limit {
                    0 => "none (every regex lazy)".to_owned(),
                    n => format!("{n} bytes"),
                }
            );
            out!("  created at        {} (Unix seconds)", h.created_at);
            out!("  load time         {:.1} ms", loaded.as_secs_f64() * 1e3);
            print_engines(&artifact.ruleset, true);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            ExitCode::FAILURE
        }
    }
}

fn test_files(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let (mut found, errors) = waf_compiler::scan_dir(path);
            for e in errors {
                eprintln!("error: {e}");
            }
            files.append(&mut found);
        } else {
            files.push(path.clone());
        }
    }
    files
}

/// Passed and failed tests.
#[derive(Default, Clone, Copy)]
struct Tally {
    passed: usize,
    failed: usize,
}

impl Tally {
    fn rate(self) -> f64 {
        let total = self.passed + self.failed;
        if total == 0 {
            0.0
        } else {
            100.0 * self.passed as f64 / total as f64
        }
    }

    /// At least `min` percent passed, or (without a minimum) all of them; never an empty run.
    fn meets(self, min: Option<f64>) -> bool {
        let total = self.passed + self.failed;
        match min {
            Some(min) => total > 0 && self.rate() >= min,
            None => total > 0 && self.failed == 0,
        }
    }
}

/// Runs the tests against `rules` (`rules_ok`: whether they loaded without error); `(overall, per directory)`
/// are the pass rates required.
fn test(
    (rules, rules_ok): (CompiledRuleSet, bool),
    (min_pass_rate, min_file_pass_rate): (Option<f64>, Option<f64>),
    tests: &[PathBuf],
) -> ExitCode {
    let mut total = Tally::default();
    let mut by_dir: std::collections::BTreeMap<String, Tally> = Default::default();
    for path in test_files(tests) {
        let dir = path
            .parent()
            .and_then(Path::file_name)
            .map_or_else(String::new, |d| d.to_string_lossy().into_owned());
        let tally = by_dir.entry(dir).or_default();
        let file = match ftw::read_file(&path) {
            Ok(file) => file,
            Err(e) => {
                out!("FAIL {e}");
                total.failed += 1;
                tally.failed += 1;
                continue;
            }
        };
        let label = path
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        for outcome in ftw::run_file(&rules, &label, &file) {
            match outcome.failure {
                None => {
                    total.passed += 1;
                    tally.passed += 1;
                }
                Some(why) => {
                    out!("FAIL {}: {why}", outcome.name);
                    total.failed += 1;
                    tally.failed += 1;
                }
            }
        }
    }
    let mut files_ok = true;
    if by_dir.len() > 1 || min_file_pass_rate.is_some() {
        for (dir, tally) in &by_dir {
            let ok = min_file_pass_rate.is_none() || tally.meets(min_file_pass_rate);
            files_ok &= ok;
            out!(
                "{dir}: {} passed, {} failed ({:.1}%){}",
                tally.passed,
                tally.failed,
                tally.rate(),
                if ok { "" } else { " BELOW THE MINIMUM" }
            );
        }
    }
    out!("{} passed, {} failed", total.passed, total.failed);
    if total.meets(min_pass_rate) && files_ok && rules_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn ftw_requests(tests: &[PathBuf]) -> ExitCode {
    use base64::Engine;
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for path in test_files(tests) {
        let file = match ftw::read_file(&path) {
            Ok(file) => file,
            Err(e) => {
                eprintln!("skipped {e}");
                continue;
            }
        };
        let dir = path
            .parent()
            .and_then(Path::file_name)
            .map_or_else(String::new, |d| d.to_string_lossy().into_owned());
        let label = path
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        for test in &file.tests {
            let stages: Vec<serde_json::Value> = test
                .stages
                .iter()
                .map(|stage| {
                    let log = &stage.output.log;
                    let mut value = serde_json::json!({
                        "expect_ids": log.expect_ids,
                        "no_expect_ids": log.no_expect_ids,
                        "match_regex": log.match_regex,
                        "no_match_regex": log.no_match_regex,
                    });
                    match ftw::raw_request(&stage.input) {
                        Ok(raw) => {
                            value["request"] =
                                base64::engine::general_purpose::STANDARD.encode(raw).into();
                        }
                        Err(e) => value["error"] = e.to_string().into(),
                    }
                    value
                })
                .collect();
            let line = serde_json::json!({
                "file": dir,
                "test": file.test_name(&label, test),
                "desc": test.desc.as_deref().unwrap_or_default().trim(),
                "stages": stages,
            });
            if writeln!(out, "{line}").is_err() {
                return ExitCode::FAILURE;
            }
        }
    }
    if out.flush().is_err() {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn explain_request(
    rule_dirs: &[PathBuf],
    opts: &CompileOptions,
    profile: Option<waf_compiler::Profile>,
    path: &PathBuf,
) -> ExitCode {
    let raw = match std::fs::read(path) {
        Ok(raw) => raw,
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    };
    let mut request = match OwnedRequest::parse(&raw) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    };
    let (rules, ok) = load(rule_dirs, opts);
    let decoded = decode_as_the_proxy(&mut request, profile);
    let headers = request.headers();
    let weigh = profile.map(|profile| (profile, decoded));
    print!(
        "{}",
        explain::explain(&rules, &request.as_request(&headers), weigh)
    );
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// How `rulec replay` judges and reports.
struct ReplayOptions {
    threshold: u32,
    confirm: bool,
    /// The site's profile; none with CRS's policy (`--crs-defaults`).
    profile: Option<waf_compiler::Profile>,
    max_blocked_percent: Option<f64>,
    details: Option<PathBuf>,
}

/// An absolute-form target (`http://host/p`) in origin form (`/p`), as a proxy in front would send it.
fn to_origin_form(uri: &mut String) {
    if let Some(rest) = ["http://", "https://"]
        .iter()
        .find_map(|scheme| uri.strip_prefix(scheme))
    {
        *uri = rest
            .find('/')
            .map_or("/", |slash| &rest[slash..])
            .to_owned();
    }
}

/// One line of `--details`: the request's number, whether it was blocked, and the rules that matched (`~id`: a
/// match of no score that confirmation refuted).
fn details_line(number: usize, blocked: bool, verdict: &waf_compiler::Verdict) -> String {
    let ids: Vec<String> = verdict
        .matches
        .iter()
        .filter_map(|m| match (m.score(), m.is_confirmed()) {
            (0, false) => Some(format!("~{}", m.rule_id)),
            (0, true) => None,
            _ => Some(m.rule_id.to_string()),
        })
        .collect();
    format!(
        "{number}\t{}\t{}\n",
        if blocked { "blocked" } else { "passed" },
        ids.join(" ")
    )
}

/// The rules that contributed to blocks, the most blocks first.
fn print_ranked(by_rule: std::collections::BTreeMap<u32, usize>) {
    let mut ranked: Vec<(u32, usize)> = by_rule.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (id, count) in ranked {
        out!("rule {id}: in {count} blocked requests");
    }
}

/// How many requests of `files` the rules block, and the rules that contributed to the blocks.
fn replay(
    rule_dirs: &[PathBuf],
    opts: &CompileOptions,
    replay: &ReplayOptions,
    files: &[PathBuf],
) -> ExitCode {
    let threshold = replay.threshold;
    let (mut rules, ok) = load(rule_dirs, opts);
    rules.set_confirm(replay.confirm);
    let allowed_methods = rules
        .setting(waf_compiler::ALLOWED_METHODS_SETTING)
        .map(str::to_owned);
    let mut details = match replay.details.as_deref().map(std::fs::File::create) {
        Some(Ok(file)) => Some(std::io::BufWriter::new(file)),
        Some(Err(e)) => {
            eprintln!("error: --details: {e}");
            return ExitCode::FAILURE;
        }
        None => None,
    };
    let (mut total, mut blocked, mut unparsable) = (0usize, 0usize, 0usize);
    let mut by_rule: std::collections::BTreeMap<u32, usize> = Default::default();
    for path in files {
        let raw = match std::fs::read(path) {
            Ok(raw) => raw,
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        };
        for raw in waf_compiler::split_requests(&raw) {
            total += 1;
            let Ok(mut request) = OwnedRequest::parse(raw) else {
                unparsable += 1;
                continue;
            };
            to_origin_form(&mut request.uri);
            let decoded = decode_as_the_proxy(&mut request, replay.profile);
            let headers = request.headers();
            let mut verdict = rules.evaluate(&request.as_request(&headers));
            if let Some(profile) = replay.profile {
                profile.weigh(
                    &mut verdict,
                    &request.as_request(&headers),
                    decoded,
                    allowed_methods.as_deref(),
                );
            }
            let is_blocked = verdict.blocking_at(threshold).is_some();
            if let Some(out) = details.as_mut() {
                let line = details_line(total, is_blocked, &verdict);
                if let Err(e) = std::io::Write::write_all(out, line.as_bytes()) {
                    eprintln!("error: --details: {e}");
                    return ExitCode::FAILURE;
                }
            }
            if is_blocked {
                blocked += 1;
                for (id, _) in verdict.contributions().filter(|(_, score)| *score > 0) {
                    *by_rule.entry(id).or_default() += 1;
                }
            }
        }
    }
    print_ranked(by_rule);
    let percent = if total == 0 {
        0.0
    } else {
        100.0 * blocked as f64 / total as f64
    };
    out!(
        "{total} requests, {blocked} blocked ({percent:.2}%), {unparsable} not parsable as HTTP, \
         paranoia {}, anomaly threshold {threshold}, profile {}{}",
        opts.paranoia_level,
        replay
            .profile
            .map_or("none (CRS's policy)", |profile| profile.name()),
        if replay.confirm {
            ""
        } else {
            ", no confirmation"
        }
    );
    if let Some(out) = details.as_mut()
        && let Err(e) = std::io::Write::flush(out)
    {
        eprintln!("error: --details: {e}");
        return ExitCode::FAILURE;
    }
    if let Some(max) = replay.max_blocked_percent
        && percent > max
    {
        eprintln!(
            "error: {percent:.2}% of the requests blocked, more than --max-blocked-percent {max}"
        );
        return ExitCode::FAILURE;
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Decodes `request`'s compressed body as the proxy does when a site `profile` weighs it; with CRS's policy
/// (no profile) the body stays as it came, as ModSecurity reads it. The coding undone, if any.
fn decode_as_the_proxy(
    request: &mut OwnedRequest,
    profile: Option<waf_compiler::Profile>,
) -> Option<waf_compiler::Coding> {
    profile.and_then(|_| request.decode_body(waf_compiler::DEFAULT_BODY_LIMIT))
}
