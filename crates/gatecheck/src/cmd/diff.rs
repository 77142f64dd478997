//! `gatecheck diff`: one seeded request sequence against two targets in lockstep; the
//! normalized responses are diffed per step.

use super::diff_side::{LeftSide, RightSide};
use super::report_arg::{ReportFormat, ReportOut};
use super::runtime;
use anyhow::Context as _;
use gatecheck_conformance::diff::{render_text, to_junit, DiffReport, DiffRun, Style};
use gatecheck_conformance::exit;
use gatecheck_conformance::normalize::{Normalizer, RuleSet};
use gatecheck_conformance::report::diff_to_html;
use gatecheck_conformance::sequence::{OpenSide, PollSettings, Sequence, SequenceOptions};
use gatecheck_conformance::{Redactor, TargetMode};
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};

/// Arguments of `gatecheck diff`.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// Seed of the request sequence (random when absent; printed for reproduction).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Run only these steps (indices, comma-separated), as printed by a repro line.
    #[arg(long, value_delimiter = ',', value_name = "I,J")]
    pub only: Vec<usize>,
    /// Skip the key-management steps (they edit the target's key, then restore it).
    #[arg(long)]
    pub no_key_steps: bool,
    /// Include the streamed answers (SSE speech, transcription, image generation), compared
    /// event by event.
    #[arg(long)]
    pub streams: bool,
    /// Confirm each difference's reproduction: reset both targets through the mock control API
    /// (their state is lost) and replay the difference's minimal steps alone. Both sides must
    /// be the mock (embedded, signed, or `--target mock`); otherwise diff refuses.
    #[arg(long)]
    pub confirm: bool,
    /// What a URL side is: `auto` (the mock only when `/__mock/health` answers the mock's
    /// signature), `mock` (use its control API), `deployment` (never send `/__mock/*`, not
    /// even the probe). Embedded mocks are the mock. `--left-target`/`--right-target` override
    /// it for one side.
    #[arg(long, value_name = "KIND", default_value = "auto")]
    pub target: TargetMode,
    /// Extra normalization rules (JSON), applied before the built-in ones.
    #[arg(long, value_name = "FILE")]
    pub rules: Option<PathBuf>,
    /// Write the report as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the report as JUnit XML.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write a report: `html=FILE` (one self-contained page, the answers side by side),
    /// `json=FILE` or `junit=FILE` (repeatable).
    #[arg(long, value_name = "FORMAT=FILE", value_parser = super::report_arg::parse)]
    pub report: Vec<ReportOut>,
    /// Colors: auto (on a terminal), always, never.
    #[arg(long, default_value = "auto", value_parser = ["auto", "always", "never"])]
    pub color: String,
    /// Show equal steps too.
    #[arg(long, short)]
    pub verbose: bool,
    /// How long to wait between polls on a target without the mock's control API (e.g.
    /// `10`, `250ms`, `1m`).
    #[arg(long, default_value = "10s", value_name = "DURATION", value_parser = super::duration_arg::parse)]
    pub poll_interval: std::time::Duration,
    /// Per-request timeout (e.g. `30`, `30s`, `2m`).
    #[arg(long, default_value = "30s", value_name = "DURATION", value_parser = super::duration_arg::parse)]
    pub timeout: std::time::Duration,
    /// A header sent with every request to a URL side, `'Name: value'`; repeatable. For
    /// gateways that route or authenticate by header; redacted from every output.
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE", value_parser = super::target_args::parse_header)]
    pub headers: Vec<(String, String)>,
    /// `--left`, `--left-mock` and the left target's profile, seed, epoch and credentials.
    #[command(flatten)]
    pub left: LeftSide,
    /// The same for the right target (`--right-*`).
    #[command(flatten)]
    pub right: RightSide,
}

/// Runs the subcommand and returns the exit code: [`exit::PASSED`] equal,
/// [`exit::DIFFERENCES`] differences, [`exit::ERROR`] error (including a request that failed on
/// the way: the comparison is then incomplete).
pub fn run(args: DiffArgs) -> u8 {
    runtime::block_on("diff", async {
        runtime::exit_code("diff", run_async(args).await)
    })
}

async fn run_async(args: DiffArgs) -> anyhow::Result<u8> {
    for (flag, p) in [("--json", &args.json), ("--junit", &args.junit)] {
        if let Some(p) = p {
            super::output_path::check_file(flag, p)?;
        }
    }
    for out in &args.report {
        super::output_path::check_file("--report", &out.path)?;
    }
    let mut left_args = args.left.spec(args.target);
    let mut right_args = args.right.spec(args.target);
    left_args.headers = args.headers.clone();
    right_args.headers = args.headers.clone();
    let redactor = Redactor::new();
    let poll = poll_settings(args.poll_interval);
    let timeout = args.timeout.max(std::time::Duration::from_millis(1));
    let mut left = OpenSide::open(&left_args, &redactor, poll, timeout)
        .await
        .map_err(anyhow::Error::msg)
        .context("left target")?;
    let mut right = OpenSide::open(&right_args, &redactor, poll, timeout)
        .await
        .map_err(anyhow::Error::msg)
        .context("right target")?;
    let notes = vec![
        format!("left is {}", left.kind.describe()),
        format!("right is {}", right.kind.describe()),
    ];
    for note in &notes {
        eprintln!("gatecheck diff: {note}");
    }
    if args.confirm {
        both_are_mocks(&left, &right)?;
    }
    let normalizer = normalizer(args.rules.as_deref())?;
    let seed = args.seed.unwrap_or_else(random_seed);
    let sequence = sequence_of(&args, seed)?;
    eprintln!(
        "gatecheck diff: seed {seed}, {} steps (reproduce with --seed {seed})",
        sequence.steps.len()
    );
    let run = DiffRun {
        sequence: &sequence,
        left_label: left.label.clone(),
        right_label: right.label.clone(),
        normalizer: &normalizer,
        redactor: &redactor,
    };
    let mut report = run.run(&mut left.runner, &mut right.runner).await;
    report.notes = notes;
    report.targets = target_flags(&args);
    if args.confirm
        && let Err(why) = run
            .confirm(&mut report, &mut left.runner, &mut right.runner)
            .await
    {
        eprintln!("gatecheck diff: {}", redactor.text(&why));
    }
    if !args.only.is_empty() {
        full_sequence_indices(&mut report, &args.only);
    }
    write_outputs(&args, &report, &redactor)?;
    left.shutdown().await;
    right.shutdown().await;
    Ok(if report.has_errors() {
        eprintln!("gatecheck diff: some requests failed on the way; the comparison is incomplete");
        exit::ERROR
    } else if report.is_empty() {
        exit::PASSED
    } else {
        exit::DIFFERENCES
    })
}

/// The flags that name both targets again (for the repro lines), secrets as the variables
/// their flags read; headers as `$GATECHECK_HEADER_<n>`.
fn target_flags(args: &DiffArgs) -> String {
    let mut flags = vec![args.left.flags(), args.right.flags()];
    if args.target != gatecheck_conformance::TargetMode::Auto {
        flags.push(format!(
            "--target {}",
            super::diff_side::mode_name(args.target)
        ));
    }
    for (i, (name, _)) in args.headers.iter().enumerate() {
        flags.push(format!("-H \"{name}: $GATECHECK_HEADER_{}\"", i + 1));
    }
    flags.retain(|f| !f.is_empty());
    flags.join(" ")
}

/// Refuses `--confirm` (which resets both targets) unless both are proven gatecheck mocks.
fn both_are_mocks(left: &OpenSide, right: &OpenSide) -> anyhow::Result<()> {
    if let Some((side, open)) = [("left", left), ("right", right)]
        .into_iter()
        .find(|(_, s)| !s.kind.is_mock())
    {
        anyhow::bail!(
            "--confirm resets both targets through the mock control API (POST /__mock/reset), \
             and the {side} target {} is not proven a gatecheck mock ({}); \
             nothing was sent. Run without --confirm, or pass --target mock (or \
             --{side}-target mock) if it is one",
            open.label,
            open.kind.describe()
        );
    }
    Ok(())
}

/// The standard sequence of `seed` with the arguments' options, cut to `--only` if given.
fn sequence_of(args: &DiffArgs, seed: u64) -> anyhow::Result<Sequence> {
    let options = SequenceOptions {
        key_steps: !args.no_key_steps,
        streams: args.streams,
        ..SequenceOptions::default()
    };
    let mut sequence = Sequence::standard(seed, &options);
    if !args.only.is_empty() {
        if let Some(bad) = args.only.iter().find(|i| **i >= sequence.steps.len()) {
            anyhow::bail!(
                "--only {bad}: the sequence has {} steps",
                sequence.steps.len()
            );
        }
        sequence.retain_indices(&args.only);
    }
    Ok(sequence)
}

/// Renumbers a `--only` run's steps as in the full sequence, so that repro lines stay valid.
fn full_sequence_indices(report: &mut DiffReport, only: &[usize]) {
    for step in &mut report.steps {
        step.index = only.get(step.index).copied().unwrap_or(step.index);
        for i in &mut step.minimal_steps {
            *i = only.get(*i).copied().unwrap_or(*i);
        }
    }
}

/// Prints the report and writes every report file the arguments ask for.
fn write_outputs(args: &DiffArgs, report: &DiffReport, redactor: &Redactor) -> anyhow::Result<()> {
    let color = match args.color.as_str() {
        "always" => true,
        "never" => false,
        _ => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    let style = Style {
        color,
        verbose: args.verbose,
    };
    // Every output goes through the run's redactor: the normalizer hides the secrets it
    // recognizes, the redactor the ones this run holds, in whatever form they appear.
    print!("{}", redactor.text(&render_text(report, style)));
    let json = args.json.iter().map(|p| (ReportFormat::Json, p));
    let junit = args.junit.iter().map(|p| (ReportFormat::Junit, p));
    let outs = args.report.iter().map(|o| (o.format, &o.path));
    for (format, path) in json.chain(junit).chain(outs) {
        let text = match format {
            ReportFormat::Json => report.to_json_redacted(redactor) + "\n",
            ReportFormat::Junit => redactor.xml(&to_junit(report)),
            ReportFormat::Html => diff_to_html(report, redactor),
            ReportFormat::Markdown => {
                anyhow::bail!(
                    "--report markdown= is a report of `check`; diff writes json, junit or html"
                )
            }
        };
        super::report_arg::write_report("diff", format, path, &text)?;
    }
    Ok(())
}

/// Poll settings: the mock's clock moves 15 s per poll; a real target is polled every
/// `interval` (at least 1 ms) for up to ten minutes.
pub(crate) fn poll_settings(interval: std::time::Duration) -> PollSettings {
    let interval = interval.max(std::time::Duration::from_millis(1));
    PollSettings {
        advance_seconds: 15,
        interval,
        max_polls: (600_000 / interval.as_millis().max(1)).clamp(10, 600) as u32,
    }
}

/// The built-in normalization rules, extended by `--rules FILE`.
pub(crate) fn normalizer(rules: Option<&Path>) -> anyhow::Result<Normalizer> {
    let set = match rules {
        Some(path) => RuleSet::builtin_extended_from(path)?,
        None => RuleSet::builtin(),
    };
    Ok(Normalizer::new(&set)?)
}

/// A seed from the clock, for runs without `--seed`.
pub(crate) fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    (nanos as u64) % 1_000_000
}
