//! `gatecheck check`.

/// Arguments of `gatecheck check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {}

/// Runs the subcommand and returns the exit code.
pub fn run(_args: CheckArgs) -> u8 {
    eprintln!("gatecheck check: not implemented yet");
    2
}
