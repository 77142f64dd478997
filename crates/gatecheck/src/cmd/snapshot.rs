//! `gatecheck snapshot record|verify`: contract snapshots of a target's normalized responses,
//! in insta's `.snap` format (`cargo insta review` works on them).

use super::diff::{normalizer, poll_settings};
use super::runtime;
use super::target_args::TargetCredentials;
use anyhow::Context as _;
use gatecheck_conformance::diff::Style;
use gatecheck_conformance::sequence::{OpenSide, Sequence, SequenceOptions, SideSpec};
use gatecheck_conformance::snapshot::{self, UpdateMode};
use gatecheck_conformance::{exit, Redactor};
use gatecheck_schemas::NamedProfile;
use std::io::IsTerminal as _;
use std::path::PathBuf;

/// The seed `record` uses without `--seed`.
pub const DEFAULT_SNAPSHOT_SEED: u64 = 1;

/// Subcommands of `gatecheck snapshot`.
#[derive(Debug, clap::Subcommand)]
pub enum SnapshotCommand {
    /// Run the fixed, seeded sequence and store each step's normalized response.
    Record(SnapshotArgs),
    /// Run the sequence again and fail, with a diff naming the step and JSON path, on drift.
    Verify(VerifyArgs),
}

/// The target and where the snapshots live.
#[derive(Debug, clap::Args)]
pub struct SnapshotArgs {
    /// Base URL of the target (the embedded mock when absent).
    #[arg(long, value_name = "URL", value_parser = super::target_args::parse_base_url)]
    pub base_url: Option<String>,
    /// Profile of the embedded mock (without --base-url).
    #[arg(long, value_name = "P", default_value = "documented")]
    pub profile: NamedProfile,
    /// Snapshot directory (one `.snap` file per step, and a manifest).
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// Seed of the sequence (record: 1 by default; verify: the one recorded).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Credentials: `--api-key`, `--access-token`, `--user-id`, `--key-id`.
    #[command(flatten)]
    pub credentials: TargetCredentials,
    /// Skip the key-management steps.
    #[arg(long)]
    pub no_key_steps: bool,
    /// Include the streamed answers (SSE speech, transcription, image generation), compared
    /// event by event (verify: also when the manifest lists them).
    #[arg(long)]
    pub streams: bool,
    /// Extra normalization rules (JSON), applied before the built-in ones.
    #[arg(long, value_name = "FILE")]
    pub rules: Option<PathBuf>,
    /// How long to wait between polls on a target without the mock's control API (e.g.
    /// `10`, `250ms`, `1m`).
    #[arg(long, default_value = "10s", value_name = "DURATION", value_parser = super::duration_arg::parse)]
    pub poll_interval: std::time::Duration,
    /// Per-request timeout (e.g. `30`, `30s`, `2m`).
    #[arg(long, default_value = "30s", value_name = "DURATION", value_parser = super::duration_arg::parse)]
    pub timeout: std::time::Duration,
    /// What the target is: `auto` (the mock only when `/__mock/health` answers the mock's
    /// signature), `mock` (use its control API), `deployment` (never send `/__mock/*`).
    #[arg(long, value_name = "KIND", default_value = "auto")]
    pub target: gatecheck_conformance::TargetMode,
    /// A header sent with every request, `'Name: value'`; repeatable (as `check --header`).
    /// The value is redacted from every output.
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE", value_parser = super::target_args::parse_header)]
    pub headers: Vec<(String, String)>,
}

/// Arguments of `verify`.
#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// Target and directory.
    #[command(flatten)]
    pub target: SnapshotArgs,
    /// On a mismatch: `new` writes `<id>.snap.new` (for `cargo insta review`), `always`
    /// overwrites the snapshot, `no` writes nothing. Default: from INSTA_UPDATE and CI.
    #[arg(long, value_parser = ["new", "always", "no"])]
    pub update: Option<String>,
    /// Colors: auto (on a terminal), always, never.
    #[arg(long, default_value = "auto", value_parser = ["auto", "always", "never"])]
    pub color: String,
    /// Write the result as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the result as JUnit XML (one test case per step).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

/// Runs the subcommand and returns the exit code: [`exit::PASSED`] recorded or unchanged,
/// [`exit::DIFFERENCES`] drift, [`exit::ERROR`] error.
pub fn run(command: SnapshotCommand) -> u8 {
    runtime::block_on("snapshot", async {
        runtime::exit_code("snapshot", run_async(command).await)
    })
}

async fn run_async(command: SnapshotCommand) -> anyhow::Result<u8> {
    match command {
        SnapshotCommand::Record(args) => {
            super::output_path::check_dir("--dir", &args.dir)?;
            let seed = args.seed.unwrap_or(DEFAULT_SNAPSHOT_SEED);
            let (recorded, _) = run_sequence(&args, seed, args.streams).await?;
            let written = snapshot::record(&args.dir, seed, &recorded)?;
            println!(
                "recorded {} steps (seed {seed}) in {}",
                recorded.len(),
                args.dir.display()
            );
            let _ = written;
            Ok(exit::PASSED)
        }
        SnapshotCommand::Verify(args) => {
            let dir = &args.target.dir;
            let manifest = snapshot::read_manifest(dir)?;
            let seed = match (args.target.seed, &manifest) {
                (Some(s), _) => s,
                (None, Some(m)) => m.seed,
                (None, None) => anyhow::bail!(
                    "{} has no {} (record first, or give --seed)",
                    dir.display(),
                    snapshot::MANIFEST
                ),
            };
            // A directory recorded with the streamed steps is verified with them.
            let streams = args.target.streams
                || manifest
                    .as_ref()
                    .is_some_and(|m| m.steps.iter().any(|s| s.starts_with("stream.")));
            for (flag, p) in [("--json", &args.json), ("--junit", &args.junit)] {
                if let Some(p) = p {
                    super::output_path::check_file(flag, p)?;
                }
            }
            let (recorded, redactor) = run_sequence(&args.target, seed, streams).await?;
            let mode = match args.update.as_deref() {
                Some("always") => UpdateMode::Always,
                Some("no") => UpdateMode::No,
                Some(_) => UpdateMode::New,
                None => UpdateMode::from_env(),
            };
            let report = snapshot::verify(dir, &recorded, mode)?;
            let color = match args.color.as_str() {
                "always" => true,
                "never" => false,
                _ => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
            };
            // The steps are redacted already; each output passes the redactor once more whole.
            let style = Style {
                color,
                verbose: false,
            };
            print!("{}", redactor.text(&report.render(style)));
            if let Some(path) = &args.json {
                std::fs::write(path, redactor.text(&report.to_json()) + "\n")
                    .with_context(|| format!("writing {}", path.display()))?;
            }
            if let Some(path) = &args.junit {
                std::fs::write(path, redactor.xml(&report.to_junit()))
                    .with_context(|| format!("writing {}", path.display()))?;
            }
            Ok(if report.passed() {
                exit::PASSED
            } else {
                exit::DIFFERENCES
            })
        }
    }
}

/// Runs the sequence; returns its redacted steps and the redactor that knows the run's secrets.
async fn run_sequence(
    args: &SnapshotArgs,
    seed: u64,
    streams: bool,
) -> anyhow::Result<(Vec<snapshot::Recorded>, Redactor)> {
    let spec = SideSpec {
        url: args.base_url.clone(),
        mock: args.base_url.is_none().then_some(args.profile),
        mock_seed: 1,
        mock_epoch: None,
        api_key: args.credentials.api_key.clone(),
        access_token: args.credentials.access_token.clone(),
        user_id: args.credentials.user_id,
        key_id: args.credentials.key_id,
        target: args.target,
        headers: args.headers.clone(),
    };
    let redactor = Redactor::new();
    let timeout = args.timeout.max(std::time::Duration::from_millis(1));
    let mut side = OpenSide::open(&spec, &redactor, poll_settings(args.poll_interval), timeout)
        .await
        .map_err(anyhow::Error::msg)
        .context("target")?;
    let normalizer = normalizer(args.rules.as_deref())?;
    let options = SequenceOptions {
        key_steps: !args.no_key_steps,
        streams,
        ..SequenceOptions::default()
    };
    let sequence = Sequence::standard(seed, &options);
    eprintln!(
        "gatecheck snapshot: {} against {}, seed {seed}, {} steps",
        args.dir.display(),
        side.label,
        sequence.steps.len()
    );
    let mut recorded = snapshot::run_sequence(&sequence, &mut side.runner, &normalizer).await;
    // No secret of the run reaches a snapshot, a diff or a report, in any form.
    for step in &mut recorded {
        step.redact(&redactor);
    }
    side.shutdown().await;
    let failed: Vec<String> = recorded
        .iter()
        .filter_map(|r| {
            r.error
                .as_ref()
                .map(|e| format!("  step {} {}: {e}", r.index, r.step))
        })
        .collect();
    if !failed.is_empty() {
        anyhow::bail!(
            "{} requests failed on the way (nothing compared or written):\n{}",
            failed.len(),
            failed.join("\n")
        );
    }
    Ok((recorded, redactor))
}
