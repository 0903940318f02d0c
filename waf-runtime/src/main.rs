//! The `waf` command: parse arguments, load the configuration, then run the proxy or just print what it would run.
use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;
use waf_runtime::config;

/// The WAF reverse proxy: inspects every request with compiled rules, then blocks, logs or forwards it.
#[derive(Parser)]
#[command(version)]
struct Cli {
    /// Configuration file [default: config/waf.yml when it exists, else environment and defaults only]
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Validate the configuration and the rules, print the effective configuration, and exit
    #[arg(long)]
    check_config: bool,
}

/// mimalloc instead of the system allocator: each proxied request allocates and frees a few hundred small
/// buffers (hyper's heads and bodies, the rule engine's parsed values), and with glibc's malloc that was a tenth
/// of the proxy's instructions per request. Measured with benches/instructions.sh and benches/load.sh (README,
/// "Load test"): 102k -> 95k instructions per request in enforce mode, about 5 % more requests per second.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let (config, path) = match config::load(cli.config.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("waf: configuration error: {e}");
            return ExitCode::from(2);
        }
    };
    if cli.check_config {
        return check(&config, path);
    }
    // Dropped last, when `main` returns: every queued log line is written before the process exits.
    let log_writers = match waf_runtime::init_logging(&config.logging) {
        Ok(writers) => writers,
        Err(e) => {
            eprintln!("waf: {e}");
            return ExitCode::FAILURE;
        }
    };
    match waf_runtime::run(config, path, log_writers.access.clone()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e:#}");
            eprintln!("waf: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `--check-config`: the effective configuration on stdout, problems on stderr, non-zero when anything is wrong
/// (a rule file that would be skipped included: a check is for finding those).
fn check(config: &config::Config, path: Option<PathBuf>) -> ExitCode {
    match &path {
        Some(p) => println!(
            "# effective configuration (file {}, then environment, then defaults)",
            p.display()
        ),
        None => println!("# effective configuration (no config file: environment, then defaults)"),
    }
    // Printed under `waf:` in the file's own key order, so the output is itself a valid config file.
    #[derive(serde::Serialize)]
    struct File<'a> {
        waf: &'a config::Config,
    }
    match serde_saphyr::to_string(&File { waf: config }) {
        Ok(text) => print!("{text}"),
        Err(e) => {
            eprintln!("waf: cannot print the configuration: {e}");
            return ExitCode::FAILURE;
        }
    }
    // The list files and the GeoIP database are read as the proxy would read them: a bad line is found here.
    let traffic = waf_runtime::Metrics::install()
        .map_err(|e| e.to_string())
        .and_then(|metrics| {
            waf_runtime::Traffic::build(config, None, metrics).map_err(|e| e.to_string())
        });
    if let Err(e) = traffic {
        eprintln!("waf: traffic controls: {e}");
        return ExitCode::from(2);
    }
    match waf_runtime::load_rules(config) {
        Err(e) => {
            eprintln!("waf: rules: {e}");
            ExitCode::from(2)
        }
        Ok(rules) if !rules.errors.is_empty() => {
            for error in &rules.errors {
                eprintln!("waf: rule file error: {error}");
            }
            ExitCode::from(2)
        }
        Ok(rules) => {
            println!(
                "# {} rules loaded from {}, hash {}",
                rules.count(),
                rules.source,
                rules.hash()
            );
            ExitCode::SUCCESS
        }
    }
}
