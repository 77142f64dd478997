//! `gatecheck schemas`.

/// Subcommands of `gatecheck schemas`.
#[derive(Debug, clap::Subcommand)]
pub enum SchemasCommand {
    /// Placeholder.
    List,
}

/// Runs the subcommand and returns the exit code.
pub fn run(_command: SchemasCommand) -> u8 {
    eprintln!("gatecheck schemas: not implemented yet");
    2
}
