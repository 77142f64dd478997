//! `gatecheck snapshot`.

/// Subcommands of `gatecheck snapshot`.
#[derive(Debug, clap::Subcommand)]
pub enum SnapshotCommand {
    /// Placeholder.
    List,
}

/// Runs the subcommand and returns the exit code.
pub fn run(_command: SnapshotCommand) -> u8 {
    eprintln!("gatecheck snapshot: not implemented yet");
    2
}
