//! `gatecheck`: a contract-test runner and stateful mock for new-api model-access gateways.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod cmd;

/// Contract tests and a stateful mock server for new-api model-access gateways.
#[derive(Debug, Parser)]
#[command(name = "gatecheck", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the stateful mock server.
    Serve(cmd::serve::ServeArgs),
    /// Check a deployment (or the embedded mock) against the contract.
    Check(cmd::check::CheckArgs),
    /// Run one generated request sequence against two targets and diff the responses.
    Diff(cmd::diff::DiffArgs),
    /// Record or verify contract snapshots.
    #[command(subcommand)]
    Snapshot(cmd::snapshot::SnapshotCommand),
    /// List, show and apply the contract's JSON Schemas.
    #[command(subcommand)]
    Schemas(cmd::schemas::SchemasCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Serve(args) => cmd::serve::run(args),
        Command::Check(args) => cmd::check::run(args),
        Command::Diff(args) => cmd::diff::run(args),
        Command::Snapshot(command) => cmd::snapshot::run(command),
        Command::Schemas(command) => cmd::schemas::run(command),
    };
    ExitCode::from(code)
}
