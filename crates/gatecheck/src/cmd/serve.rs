//! `gatecheck serve`.

/// Arguments of `gatecheck serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {}

/// Runs the subcommand and returns the exit code.
pub fn run(_args: ServeArgs) -> u8 {
    eprintln!("gatecheck serve: not implemented yet");
    2
}
