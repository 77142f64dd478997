//! `gatecheck`: a contract-test runner and stateful mock for new-api model-access gateways.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod cmd;

/// jemalloc, configured at build time (`.cargo/config.toml`) to purge freed pages from a
/// background thread: the RSS goes back down after a connection burst. A build with
/// `--cfg gatecheck_system_allocator` in `RUSTFLAGS` (`.ci/run`'s) keeps the system allocator.
/// Not documented: rustdoc does not see `RUSTFLAGS`, and without the dependency it would fail.
#[cfg(all(
    unix,
    not(target_env = "musl"),
    not(gatecheck_system_allocator),
    not(doc)
))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Contract tests and a stateful mock server for new-api model-access gateways.
#[derive(Debug, Parser)]
#[command(name = "gatecheck", version, about, long_about = None)]
#[command(
    after_help = "Exit codes (gatecheck_conformance::exit): 0 passed, equal or valid; \
1 contract failures, differences, drift or an invalid instance; 2 usage or other error; \
3 target unreachable (check); 130 interrupted (check)."
)]
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
    /// Measure the mock against bare hyper: throughput ratios, memory, start-up.
    Bench(cmd::bench::BenchArgs),
    /// List the behaviour profiles and the decisions where they differ (docs/DECISIONS.md).
    Profiles(cmd::profiles::ProfilesArgs),
    /// Pull a deployment's catalog, capabilities and key fields into a fixtures directory.
    #[command(subcommand)]
    Fixtures(cmd::fixtures::FixturesCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Serve(args) => cmd::serve::run(args),
        Command::Check(args) => cmd::check::run(args),
        Command::Diff(args) => cmd::diff::run(args),
        Command::Snapshot(command) => cmd::snapshot::run(command),
        Command::Schemas(command) => cmd::schemas::run(command),
        Command::Bench(args) => cmd::bench::run(args),
        Command::Profiles(args) => cmd::profiles::run(args),
        Command::Fixtures(command) => cmd::fixtures::run(command),
    };
    ExitCode::from(code)
}
