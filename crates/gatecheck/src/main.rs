//! `gatecheck`: a contract-test runner and stateful mock for new-api model-access gateways.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod alloc;
mod bench;
mod cmd;

/// The top-level help's one-line description (from the package).
const ABOUT: &str = env!("CARGO_PKG_DESCRIPTION");
/// The exit codes, at the end of the top-level help.
const EXIT_CODES: &str = "Exit codes (gatecheck_conformance::exit): 0 passed, equal or valid; \
1 contract failures, differences, drift or an invalid instance; 2 usage or other error; \
3 target unreachable (check); 4 incomplete: checks skipped for want of credentials or cut by \
the deadline, see --allow-skip (check); 130 interrupted (check).";
/// The description of `gatecheck serve`.
const SERVE_ABOUT: &str = "Run the stateful mock server";

/// Contract tests and a stateful mock server for new-api model-access gateways.
#[derive(Debug, Parser)]
#[command(name = "gatecheck", version, about = ABOUT, long_about = None)]
#[command(after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    #[command(about = SERVE_ABOUT)]
    Serve(cmd::serve::ServeArgs),
    /// Check a deployment (or the embedded mock) against the contract.
    #[command(after_help = cmd::check::exit_codes_help())]
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
    /// Record a target's answers, driving it or as a proxy (docs/recording.md).
    Record(cmd::record::RecordArgs),
}

fn main() -> ExitCode {
    // `gatecheck serve` starts on the critical path of every test suite that spawns the mock,
    // so its parser holds the `serve` command alone: clap builds every argument of every
    // command up front, and the whole tree is a quarter of the start's page faults. The
    // tests check that both parsers give the same help, errors and arguments.
    if std::env::args_os().nth(1).is_some_and(|a| a == "serve") {
        return ExitCode::from(cmd::serve::run(parse_serve(std::env::args_os())));
    }
    ExitCode::from(other_command())
}

/// Every command but a `gatecheck serve` (parsed with the whole tree): no start-up to keep
/// short. Not inlined, and neither is serve's path: inlined in `main`, the commands' futures
/// gave it a 72 KiB stack frame, whose pages the stack probe touched one by one on serve's
/// way to its first answer too (18 page faults, BENCHMARKS.md, "Eleventh session").
#[inline(never)]
fn other_command() -> u8 {
    alloc::start_background_purge();
    match Cli::parse().command {
        Command::Serve(args) => cmd::serve::run(args),
        Command::Check(args) => cmd::check::run(args),
        Command::Diff(args) => cmd::diff::run(args),
        Command::Snapshot(command) => cmd::snapshot::run(command),
        Command::Schemas(command) => cmd::schemas::run(command),
        Command::Bench(args) => cmd::bench::run(args),
        Command::Profiles(args) => cmd::profiles::run(args),
        Command::Fixtures(command) => cmd::fixtures::run(command),
        Command::Record(args) => cmd::record::run(args),
    }
}

/// The command tree of `gatecheck serve` alone: the top level as [`Cli`] has it, and the one
/// subcommand.
fn serve_only() -> clap::Command {
    use clap::Args as _;
    clap::Command::new("gatecheck")
        .version(env!("CARGO_PKG_VERSION"))
        .about(ABOUT)
        .after_help(EXIT_CODES)
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(
            // After the arguments: `augment_args` sets the struct's own description.
            cmd::serve::ServeArgs::augment_args(clap::Command::new("serve"))
                .about(SERVE_ABOUT)
                .long_about(None),
        )
}

/// Parses `gatecheck serve ...` with [`serve_only`]; exits as clap does on help, version and
/// errors.
fn parse_serve(
    args: impl IntoIterator<Item = impl Into<std::ffi::OsString> + Clone>,
) -> cmd::serve::ServeArgs {
    try_parse_serve(args).unwrap_or_else(|e| e.exit())
}

fn try_parse_serve(
    args: impl IntoIterator<Item = impl Into<std::ffi::OsString> + Clone>,
) -> Result<cmd::serve::ServeArgs, clap::Error> {
    use clap::FromArgMatches as _;
    let mut command = serve_only();
    let matches = command.try_get_matches_from_mut(args)?;
    match matches.subcommand() {
        Some(("serve", sub)) => {
            cmd::serve::ServeArgs::from_arg_matches(sub).map_err(|e| e.format(&mut command))
        }
        _ => Err(command.error(
            clap::error::ErrorKind::MissingSubcommand,
            "expected the serve command",
        )),
    }
}

#[cfg(test)]
mod serve_parser_tests {
    use super::*;
    use clap::CommandFactory as _;

    fn full_serve() -> clap::Command {
        let mut cli = Cli::command();
        cli.build();
        cli.find_subcommand("serve")
            .cloned()
            .unwrap_or_else(|| panic!("no serve command"))
    }

    #[test]
    fn the_serve_help_is_the_full_trees() {
        let mut fast = serve_only();
        fast.build();
        let mut fast_serve = fast
            .find_subcommand("serve")
            .cloned()
            .unwrap_or_else(|| panic!("no serve"));
        let mut full = full_serve();
        assert_eq!(
            fast_serve.render_long_help().to_string(),
            full.render_long_help().to_string()
        );
        assert_eq!(
            fast_serve.render_usage().to_string(),
            full.render_usage().to_string()
        );
        assert_eq!(fast.get_about(), Cli::command().get_about());
        assert_eq!(fast.get_version(), Cli::command().get_version());
    }

    #[test]
    fn both_parsers_agree_on_arguments_and_errors() {
        let cases: &[&[&str]] = &[
            &["gatecheck", "serve"],
            &["gatecheck", "serve", "--port", "0", "--profile", "new-api"],
            &["gatecheck", "serve", "--port", "70000"],
            &["gatecheck", "serve", "--host", "not-an-ip"],
            &["gatecheck", "serve", "--profile", "other"],
            &["gatecheck", "serve", "--nope"],
            &["gatecheck", "serve", "extra"],
            &[
                "gatecheck",
                "serve",
                "--clock",
                "virtual",
                "--no-control",
                "--seed",
                "7",
            ],
            &["gatecheck", "serve", "--fault", "{}", "--fault", "x"],
            &["gatecheck", "serve", "--help"],
            &["gatecheck", "serve", "-h"],
        ];
        for args in cases {
            let full = Cli::try_parse_from(*args).map(|cli| match cli.command {
                Command::Serve(a) => format!("{a:?}"),
                other => panic!("not serve: {other:?}"),
            });
            let fast = try_parse_serve(*args).map(|a| format!("{a:?}"));
            match (full, fast) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{args:?}"),
                (Err(a), Err(b)) => {
                    assert_eq!(a.kind(), b.kind(), "{args:?}");
                    assert_eq!(a.to_string(), b.to_string(), "{args:?}");
                }
                (a, b) => panic!("{args:?}: full {a:?}, serve-only {b:?}"),
            }
        }
    }
}
