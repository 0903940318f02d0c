use clap::Parser;

/// The WAF reverse proxy.
#[derive(Parser)]
#[command(version)]
struct Cli {}

fn main() {
    Cli::parse();
}
