use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// The rule compiler.
#[derive(Parser)]
#[command(version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Convert an OWASP CRS (ModSecurity SecRule) rule file into our YAML rule format.
    ///
    /// Writes one YAML file named after FILE into DIR and prints, on stderr, everything it could
    /// not express (rule id and construct).
    ImportCrs {
        /// The CRS `.conf` file.
        file: PathBuf,
        /// The directory to write the YAML file into.
        #[arg(short, long, value_name = "DIR")]
        out: PathBuf,
    },
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::ImportCrs { file, out } => match waf_compiler::crs::import_file(&file, &out) {
            Ok((import, path)) => {
                for warning in &import.warnings {
                    eprintln!("warning: {warning}");
                }
                eprintln!(
                    "converted {} rules into {} ({} warnings)",
                    import.rule_count,
                    path.display(),
                    import.warnings.len()
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
    }
}
