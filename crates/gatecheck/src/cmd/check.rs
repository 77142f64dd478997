//! `gatecheck check`: run the conformance checks against a deployment, or the embedded mock.

use super::report_arg::{ReportFormat, ReportOut};
use super::target_args::TargetCredentials;
use anyhow::{bail, Context as _};
use gatecheck_conformance::discovery::ModelKind;
use gatecheck_conformance::report::{progress_bar, summary_table, to_html, to_junit, to_markdown};
use gatecheck_conformance::terminal::escape_lines;
use gatecheck_conformance::{
    exit, Judging, Limits, Report, Runner, RunnerConfig, Scope, Secret, Shard, Target, TargetFacts,
    TargetMode,
};
use gatecheck_mock::{ClockMode, MockServer};
use gatecheck_schemas::{NamedProfile, Profile};
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `gatecheck check`.
///
/// Exit codes ([`gatecheck_conformance::exit`]): 0 passed, 1 contract failures (or deviations
/// with `--strict`, a working key the run could not put back, or a target that misbehaved
/// during discovery), 2 the user's configuration error, 3 target unreachable, 4 incomplete
/// (checks skipped for want of credentials or cut by the deadline, not accepted by
/// `--allow-skip`), 130 interrupted. `--report` and `--junit` are written whenever
/// the run started.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Base URL of the deployment. Without it, the embedded mock is started and checked.
    #[arg(long, value_name = "URL", env = "GATECHECK_BASE_URL", value_parser = super::target_args::parse_base_url)]
    pub base_url: Option<String>,
    /// Credentials: `--api-key`, `--access-token`, `--user-id`, `--key-id`.
    #[command(flatten)]
    pub credentials: TargetCredentials,
    /// Make a scratch key with `POST /api/token/` (deleted at the end).
    #[arg(long)]
    pub allow_create_keys: bool,
    /// Run only checks whose id matches (glob; repeatable or comma-separated).
    #[arg(long, value_name = "GLOB")]
    pub only: Vec<String>,
    /// Skip checks whose id matches (glob; repeatable or comma-separated).
    #[arg(long, value_name = "GLOB")]
    pub skip: Vec<String>,
    /// Generated cases per property.
    #[arg(long, value_name = "N", default_value_t = 16)]
    pub cases: u32,
    /// Seed of every generator (printed; pass it again to replay a run).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Deviations from DECISIONS.md fail the run too.
    #[arg(long)]
    pub strict: bool,
    /// Skip causes that still make a complete run (comma-separated or repeatable, e.g.
    /// `no-credentials`, `deadline`). Without it, a check skipped for want of credentials, or
    /// cut by the run's deadline, makes the run incomplete: exit 4, never 0.
    #[arg(long, value_name = "CAUSE", value_delimiter = ',', value_parser = parse_skip_cause)]
    pub allow_skip: Vec<gatecheck_conformance::SkipCause>,
    /// The ratio the working key's group is charged at (new-api's price x model ratio x group
    /// ratio), for a target that does not publish `group_ratio` on `GET /api/pricing`.
    /// Without either, the checks that judge charges infer one ratio from the run's charges.
    #[arg(long, value_name = "RATIO", value_parser = parse_group_ratio)]
    pub group_ratio: Option<f64>,
    /// Write a report: `json=FILE`, `html=FILE` (one self-contained page), `junit=FILE` or
    /// `markdown=FILE` (a CI job summary, e.g. `$GITHUB_STEP_SUMMARY`) (repeatable).
    #[arg(long, value_name = "FORMAT=FILE", value_parser = super::report_arg::parse)]
    pub report: Vec<ReportOut>,
    /// Write a JUnit XML report.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Run shard k of n (a deterministic split of the checks).
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Stop sending after this many requests.
    #[arg(long, value_name = "N")]
    pub budget_requests: Option<u64>,
    /// Stop spending after this many quota units (estimated from catalog prices).
    #[arg(long, value_name = "UNITS")]
    pub budget_quota: Option<i64>,
    /// Stop sending once the run has read this many bytes of answers (each body is capped at
    /// 64 MiB too; this bounds the run).
    #[arg(long, value_name = "BYTES", default_value_t = gatecheck_conformance::internals::DEFAULT_RUN_BYTES)]
    pub budget_bytes: u64,
    /// Requests in flight at once.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub concurrency: usize,
    /// Requests per second at most.
    #[arg(long, value_name = "R")]
    pub rate: Option<f64>,
    /// The whole run ends by then (e.g. `600`, `90s`, `10m`).
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = super::duration_arg::parse)]
    pub deadline: Duration,
    /// How long a video task may take to end (virtual time on the mock).
    #[arg(long, value_name = "DURATION", default_value = "15m", value_parser = super::duration_arg::parse)]
    pub video_deadline: Duration,
    /// Poll interval on real deployments (default: `openai-poll-after-ms`, or 10 s).
    #[arg(long, value_name = "DURATION", value_parser = super::duration_arg::parse)]
    pub poll_interval: Option<Duration>,
    /// Per-request timeout.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = super::duration_arg::parse)]
    pub timeout: Duration,
    /// The client IP as the target sees it (for allowlist checks).
    #[arg(long, value_name = "IP")]
    pub client_ip: Option<IpAddr>,
    /// List the planned requests instead of sending them.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the check list and exit.
    #[arg(long)]
    pub list: bool,
    /// Format of `--list`: `text`, `markdown` or `json`.
    #[arg(long, value_name = "FORMAT", default_value = "text")]
    pub format: String,
    /// Profile of the embedded mock (without `--base-url`): `documented`, `new-api` (the task
    /// plugins) or `new-api-adaptors` (the Go task adaptors, before 2026-08-29).
    #[arg(long, default_value = "documented")]
    pub profile: NamedProfile,
    /// What the deployment's models accept (sizes, voices, durations), in the format of
    /// `fixtures/capabilities.json`; by default the fixtures' models.
    #[arg(long, value_name = "FILE")]
    pub capabilities: Option<PathBuf>,
    /// A model for a kind of route, `KIND=ID` (kinds: video, image, speech, transcription);
    /// repeatable. Used when the target's catalog and model list name none of that kind.
    #[arg(long = "model", value_name = "KIND=ID", value_parser = parse_model)]
    pub models: Vec<(ModelKind, String)>,
    /// Most retries in the whole run (after 429, 500, 503; a status that repeats is judged
    /// as it is, without more retries).
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub retry_budget: u64,
    /// Most shrink steps in the whole run, all failing properties together.
    #[arg(long, value_name = "N", default_value_t = 400)]
    pub shrink_budget: u32,
    /// A header sent with every request, `'Name: value'`; repeatable. For gateways that
    /// route or authenticate by header. The value is redacted from every output, and curl
    /// repros read it from `$GATECHECK_HEADER_<n>` (n counts the `--header` flags from 1).
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE", value_parser = super::target_args::parse_header)]
    pub headers: Vec<(String, String)>,
    /// Send every request through this proxy (default: `HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`).
    #[arg(long, value_name = "URL")]
    pub proxy: Option<String>,
    /// Don't use the mock control API even when the target has one (as `--target deployment`).
    #[arg(long)]
    pub no_mock_control: bool,
    /// What the target is: `auto` (the mock only when `/__mock/health` answers the mock's
    /// signature), `mock` (use its control API), `deployment` (never send `/__mock/*`).
    #[arg(long, value_name = "KIND", default_value = "auto")]
    pub target: TargetMode,
    /// Whose behaviour to expect where the spec says "not shown": `documented` or `new-api`
    /// (default: the embedded mock's `--profile`, else `documented`).
    #[arg(long, value_name = "PROFILE")]
    pub expect: Option<Profile>,
    /// The era of new-api's task layer to judge by: `auto` (told from the target: the mock's
    /// signature, `GET /api/status` `version`, the routes only the plugins serve), `plugins`
    /// or `adaptors`.
    #[arg(long, value_name = "ERA", default_value = "auto")]
    pub era: gatecheck_conformance::EraChoice,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// The exit codes, at the end of `check --help` (from [`exit::CHECK_CODES`]).
pub fn exit_codes_help() -> String {
    let codes: Vec<String> = exit::CHECK_CODES
        .iter()
        .map(|(code, _, meaning)| format!("{code} {meaning}"))
        .collect();
    format!(
        "Exit codes (gatecheck_conformance::exit): {}.",
        codes.join("; ")
    )
}

/// `check`'s arguments parsed from `argv` (its first item is the command name), for
/// `gatecheck record`, which runs `check` through its recorder.
pub(crate) fn parse_args<I, T>(argv: I) -> Result<CheckArgs, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    #[derive(clap::Parser)]
    struct Only {
        #[command(flatten)]
        args: CheckArgs,
    }
    <Only as clap::Parser>::try_parse_from(argv).map(|o| o.args)
}

/// Runs the subcommand and returns the exit code.
pub fn run(args: CheckArgs) -> u8 {
    if args.list {
        return match list(&args.format) {
            Ok(text) => {
                print!("{text}");
                exit::PASSED
            }
            Err(e) => {
                eprintln!("gatecheck check: {e:#}");
                exit::USAGE
            }
        };
    }
    super::runtime::block_on("check", run_async(args))
}

fn list(format: &str) -> anyhow::Result<String> {
    Ok(match format {
        "text" => gatecheck_conformance::internals::text_list(),
        "markdown" | "md" => gatecheck_conformance::internals::markdown_table(),
        "json" => serde_json::to_string_pretty(&gatecheck_conformance::all_checks())? + "\n",
        other => bail!("unknown --format {other:?}: expected text, markdown or json"),
    })
}

fn config(args: &CheckArgs, base_url: &str) -> anyhow::Result<RunnerConfig> {
    let url = super::target_args::base_url(base_url)
        .map_err(|e| anyhow::anyhow!("invalid --base-url {base_url:?}: {e}"))?;
    let shard = match &args.shard {
        Some(s) => Some(s.parse::<Shard>()?),
        None => None,
    };
    let defaults = RunnerConfig::new(url);
    let mut c = RunnerConfig {
        target: Target {
            api_key: args.credentials.api_key.clone().map(Secret::new),
            access_token: args.credentials.access_token.clone().map(Secret::new),
            user_id: args.credentials.user_id,
            key_id: args.credentials.key_id,
            headers: args
                .headers
                .iter()
                .map(|(k, v)| (k.clone(), Secret::new(v.clone())))
                .collect(),
            ..defaults.target
        },
        known: TargetFacts {
            use_mock_control: !args.no_mock_control,
            target_mode: args.target,
            client_ip: args.client_ip,
            capabilities: None,
            models: args.models.clone(),
            proxy: args.proxy.clone(),
        },
        scope: Scope {
            only: args.only.clone(),
            skip: args.skip.clone(),
            shard,
            cases: args.cases,
            seed: args.seed,
            dry_run: args.dry_run,
            allow_create_keys: args.allow_create_keys,
        },
        limits: Limits {
            budget_requests: args.budget_requests,
            budget_quota: args.budget_quota,
            budget_bytes: Some(args.budget_bytes),
            concurrency: args.concurrency,
            rate: args.rate,
            deadline: args.deadline,
            request_timeout: args.timeout,
            video_deadline: args.video_deadline,
            poll_interval: args.poll_interval,
            retry_budget: args.retry_budget,
            shrink_budget: args.shrink_budget,
            ..defaults.limits
        },
        judging: Judging {
            strict: args.strict,
            expect: args.expect.unwrap_or(if args.base_url.is_none() {
                args.profile.profile
            } else {
                Profile::Documented
            }),
            era: args.era,
            allowed_skips: args.allow_skip.clone(),
            group_ratio: args.group_ratio,
        },
        progress: !args.quiet,
    };
    if let Some(p) = &args.capabilities {
        let text =
            std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
        c.known.capabilities = Some(
            gatecheck_conformance::internals::parse_capabilities(&text)
                .with_context(|| format!("{}: not a capabilities file", p.display()))?,
        );
    }
    gatecheck_conformance::internals::select_checks(&c)?;
    Ok(c)
}

fn parse_skip_cause(s: &str) -> Result<gatecheck_conformance::SkipCause, String> {
    gatecheck_conformance::SkipCause::parse(s).ok_or_else(|| {
        let known: Vec<&str> = gatecheck_conformance::SkipCause::ALL
            .iter()
            .map(|c| c.as_str())
            .collect();
        format!(
            "unknown skip cause {s:?}: expected one of {}",
            known.join(", ")
        )
    })
}

fn parse_model(s: &str) -> Result<(ModelKind, String), String> {
    gatecheck_conformance::discovery::parse_model_option(s)
}

/// Runs `check` with parsed arguments (also `gatecheck record`'s drive mode) and returns the
/// exit code.
pub(crate) async fn run_async(args: CheckArgs) -> u8 {
    if let Err(e) = preflight(&args) {
        eprintln!("gatecheck check: {e:#}");
        return exit::USAGE;
    }
    let mut mock = None;
    let base_url = match &args.base_url {
        Some(u) => u.clone(),
        None => {
            let server = MockServer::builder()
                .named_profile(args.profile)
                .clock(ClockMode::virtual_default())
                .start()
                .await;
            let uri = server.uri();
            eprintln!(
                "gatecheck check: no --base-url; checking the embedded mock ({}) at {uri}",
                args.profile
            );
            mock = Some(server);
            uri
        }
    };
    let config = match config(&args, &base_url) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("gatecheck check: {e:#}");
            return exit::USAGE;
        }
    };
    let mut config = config;
    let seed = *config.scope.seed.get_or_insert_with(random_seed);
    eprintln!(
        "gatecheck check: {} (seed {seed}; replay with --seed {seed})",
        config.target.base_url
    );
    let total = gatecheck_conformance::internals::select_checks(&config)
        .map(|v| v.len())
        .unwrap_or(0);
    let mut runner = Runner::new(config.clone());
    if config.progress
        && let Some(p) = progress_bar(total)
    {
        runner = runner.on_progress(p);
    }
    let redactor = runner.redactor();
    let result = runner.run().await;
    let embedded = mock.is_some();
    if let Some(server) = mock {
        server.shutdown().await;
    }
    let mut report = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!(
                "gatecheck check: {}",
                escape_lines(&redactor.text(&e.to_string()))
            );
            return e.exit_code();
        }
    };
    let first_report = args.report.first().map(|o| o.path.as_path());
    super::uploads::write("check", &mut report, first_report.or(args.junit.as_deref()));
    let unwritten = write_reports(&report, &args.report, args.junit.as_ref(), &redactor);
    print_human(&report, &redactor, embedded);
    if let Some(note) = report.incomplete_note() {
        print!("{}", escape_lines(&redactor.text(&note)));
    }
    if !unwritten.is_empty() {
        for e in &unwritten {
            eprintln!("gatecheck check: not written: {e:#}");
        }
        return exit::USAGE;
    }
    report.exit_code()
}

/// What must hold before anything starts: every output path can be written, and a run
/// against a deployment has credentials (or `--allow-skip no-credentials` says a run without
/// them is meant).
fn preflight(args: &CheckArgs) -> anyhow::Result<()> {
    for out in &args.report {
        super::output_path::check_file("--report", &out.path)?;
    }
    if let Some(p) = &args.junit {
        super::output_path::check_file("--junit", p)?;
    }
    let given = |v: &Option<String>| v.as_deref().is_some_and(|s| !s.trim().is_empty());
    let deployment = args.target == TargetMode::Deployment || args.no_mock_control;
    if args.base_url.is_some()
        && deployment
        && !args.dry_run
        && !given(&args.credentials.api_key)
        && !given(&args.credentials.access_token)
        && !args
            .allow_skip
            .contains(&gatecheck_conformance::SkipCause::NoCredentials)
    {
        bail!(
            "no credentials for a deployment: most checks need them. Give --api-key KEY \
             (or GATECHECK_API_KEY; unlocks the model routes: audio, images, video, tasks) \
             and --access-token T --user-id N (or GATECHECK_ACCESS_TOKEN, GATECHECK_USER_ID; \
             unlocks /api/token/ and the key-state checks), or check only what needs none, \
             on purpose, with --allow-skip no-credentials"
        );
    }
    Ok(())
}

/// Writes the reports. Each passes through the redactor once more as a whole, whatever the
/// report's parts already redacted: no secret reaches a file in any form.
/// Every report is attempted; the errors of those that could not be written are returned.
fn write_reports(
    report: &Report,
    outs: &[ReportOut],
    junit: Option<&PathBuf>,
    redactor: &gatecheck_conformance::Redactor,
) -> Vec<anyhow::Error> {
    let junit = junit.map(|p| ReportOut {
        format: ReportFormat::Junit,
        path: p.clone(),
    });
    let mut unwritten = Vec::new();
    for out in outs.iter().chain(junit.as_ref()) {
        let text = match out.format {
            ReportFormat::Json => redactor.text(&report.to_json()) + "\n",
            ReportFormat::Junit => redactor.xml(&to_junit(report)),
            ReportFormat::Html => redactor.xml(&to_html(report)),
            // Markdown shows `<redacted>` as an unknown HTML tag (nothing), and `&lt;` verbatim
            // inside its code blocks: a plain marker reads the same in both.
            ReportFormat::Markdown => redactor.text_with(&to_markdown(report), "[redacted]"),
        };
        if let Err(e) = out.write("check", &text) {
            unwritten.push(e);
        }
    }
    unwritten
}

/// The summary on stdout; the working key's fate only when the target outlives the run (the
/// embedded mock goes away with it). Every line with a target's control characters escaped
/// (`summary_table` escapes its own).
fn print_human(report: &Report, redactor: &gatecheck_conformance::Redactor, embedded: bool) {
    if report.dry_run {
        println!(
            "dry run: {} planned requests, the first of each check (nothing sent to model or key routes)",
            report.planned.len()
        );
        for p in &report.planned {
            println!("  {}", escape_lines(&redactor.text(p)));
        }
    }
    print!("{}", redactor.text(&summary_table(report)));
    if let Some(k) = report.key_cleanup.as_ref().filter(|_| !embedded) {
        println!("{}", escape_lines(&redactor.text(k)));
    }
}

/// A seed from the clock and the process id (the run prints it, so it can be replayed).
pub(crate) fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    gatecheck_schemas::rules::media::fnv1a(format!("{nanos}-{}", std::process::id()).as_bytes())
}

/// `--group-ratio`: a finite number, 0 or more.
fn parse_group_ratio(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(r) if r.is_finite() && r >= 0.0 => Ok(r),
        _ => Err(format!("{s:?} is not a ratio (a number, 0 or more)")),
    }
}
