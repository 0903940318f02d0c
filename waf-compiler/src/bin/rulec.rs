//! `rulec`: check rule directories, run go-ftw regression tests against them, and explain a request.

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use waf_compiler::{CompileOptions, CompiledRuleSet, OwnedRequest, explain, ftw};

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
    /// Run go-ftw YAML regression tests in process against the rules.
    ///
    /// `--rules` takes several directories, so end them with `--` before the tests:
    /// `rulec test --rules rules crs-942 -- tests/`.
    Test {
        /// Rule directories.
        #[arg(long = "rules", required = true, num_args = 1..)]
        rules: Vec<PathBuf>,
        /// Paranoia level; defaults to 4, as the CRS runs its own tests.
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=4))]
        paranoia: u8,
        /// Exit 0 when at least this percentage of tests pass (default: every test must pass).
        #[arg(long, value_parser = parse_rate)]
        min_pass_rate: Option<f64>,
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
        /// File holding the raw request (request line, headers, blank line, body).
        #[arg(long)]
        request: PathBuf,
    },
}

fn parse_rate(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(r) if (0.0..=100.0).contains(&r) => Ok(r),
        _ => Err("a percentage from 0 to 100".into()),
    }
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Check { dirs } => check(&dirs),
        Command::Test {
            rules,
            paranoia,
            min_pass_rate,
            tests,
        } => test(&rules, paranoia, min_pass_rate, &tests),
        Command::Explain {
            rules,
            paranoia,
            request,
        } => explain_request(&rules, paranoia, &request),
    }
}

/// Loads rules, printing each error to stderr; the flag is false when any error occurred.
fn load(dirs: &[PathBuf], paranoia_level: u8) -> (CompiledRuleSet, bool) {
    let outcome = CompiledRuleSet::load_dirs(dirs, &CompileOptions { paranoia_level });
    for error in &outcome.errors {
        eprintln!("error: {error}");
    }
    (outcome.ruleset, outcome.errors.is_empty())
}

fn check(dirs: &[PathBuf]) -> ExitCode {
    let (rules, ok) = load(dirs, 4);
    println!(
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

fn test_files(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let (mut found, errors) = waf_compiler::load::scan_dir(path);
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

fn test(
    rule_dirs: &[PathBuf],
    paranoia: u8,
    min_pass_rate: Option<f64>,
    tests: &[PathBuf],
) -> ExitCode {
    let (rules, rules_ok) = load(rule_dirs, paranoia);
    let (mut passed, mut failed) = (0usize, 0usize);
    for path in test_files(tests) {
        let file = match ftw::read_file(&path) {
            Ok(file) => file,
            Err(e) => {
                println!("FAIL {e}");
                failed += 1;
                continue;
            }
        };
        let label = path
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        for outcome in ftw::run_file(&rules, &label, &file) {
            match outcome.failure {
                None => passed += 1,
                Some(why) => {
                    println!("FAIL {}: {why}", outcome.name);
                    failed += 1;
                }
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    let total = passed + failed;
    let rate = if total == 0 {
        0.0
    } else {
        100.0 * passed as f64 / total as f64
    };
    let good = match min_pass_rate {
        Some(min) => total > 0 && rate >= min,
        None => total > 0 && failed == 0,
    };
    if good && rules_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn explain_request(rule_dirs: &[PathBuf], paranoia: u8, path: &PathBuf) -> ExitCode {
    let raw = match std::fs::read(path) {
        Ok(raw) => raw,
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    };
    let request = match OwnedRequest::parse(&raw) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    };
    let (rules, ok) = load(rule_dirs, paranoia);
    let headers = request.headers();
    print!(
        "{}",
        explain::explain(&rules, &request.as_request(&headers))
    );
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
