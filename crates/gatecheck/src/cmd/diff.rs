//! `gatecheck diff`.

/// Arguments of `gatecheck diff`.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {}

/// Runs the subcommand and returns the exit code.
pub fn run(_args: DiffArgs) -> u8 {
    eprintln!("gatecheck diff: not implemented yet");
    2
}
