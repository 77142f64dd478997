//! The runner: discovers the target, runs the selected checks, cleans up, and reports.

use crate::checks::{Check, CheckCtx, Env, Halt, Kind, Outcome, Phase};
use crate::http::client::{Client, ClientConfig};
use crate::http::key_api::{put_record_traced, WorkKey};
use crate::http::mock_control::wall_now;
use crate::http::transport::{Transport, TransportConfig};
use crate::redact::Redactor;
use crate::registry::registry;
use crate::report::{CheckResult, Report, SetupFailure, Status, Summary, TargetKind};
use crate::run::setup::{cleanup, discover, offline_env, placeholder_key, KeyCleanup};
use crate::vocab::config::RunnerConfig;
use crate::vocab::discovery::{unmet, DiscoveryReport};
use crate::vocab::setup_error::SetupError;
use crate::vocab::skip::SkipCause;
use futures_util::stream::{self, StreamExt};
use gatecheck_schemas::rules::media::fnv1a;
use globset::{Glob, GlobSet, GlobSetBuilder};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Bad configuration (exit code 2).
    #[error("configuration error: {0}")]
    Config(String),
    /// The target could not be reached (exit code 3).
    #[error("target unreachable: {0}")]
    Unreachable(String),
}

impl RunError {
    /// The documented exit code of this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            RunError::Config(_) => crate::exit::USAGE,
            RunError::Unreachable(_) => crate::exit::UNREACHABLE,
        }
    }
}

impl From<SetupError> for RunError {
    fn from(e: SetupError) -> Self {
        match e {
            SetupError::Unreachable(m) => RunError::Unreachable(m),
            SetupError::Config(m) | SetupError::Stopped(m) | SetupError::Misbehaved(m) => {
                RunError::Config(m)
            }
        }
    }
}

pub use crate::report::ProgressFn;

/// Runs the selected checks against a target.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use gatecheck_conformance::{Runner, RunnerConfig};
/// let mut config = RunnerConfig::new("http://127.0.0.1:8080".parse()?);
/// config.scope.cases = 8;
/// let report = Runner::new(config).run().await?;
/// println!("{} failed", report.summary.failed);
/// # Ok(()) }
/// ```
pub struct Runner {
    config: RunnerConfig,
    progress: Option<ProgressFn>,
    redactor: Redactor,
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("target", &self.config.target.base_url.as_str())
            .finish()
    }
}

/// The checks a configuration selects (by `--only`, `--skip` and `--shard`), sorted by id.
pub fn select_checks(config: &RunnerConfig) -> Result<Vec<&'static str>, RunError> {
    let only = globs(&config.scope.only)?;
    let skip = globs(&config.scope.skip)?;
    let chosen: Vec<&'static str> = registry()
        .iter()
        .map(|d| d.id)
        .filter(|id| config.scope.only.is_empty() || only.is_match(id))
        .filter(|id| !skip.is_match(id))
        .collect();
    if chosen.is_empty() {
        return Err(RunError::Config(
            "no check matches --only/--skip (see `gatecheck check --list`)".into(),
        ));
    }
    Ok(chosen
        .into_iter()
        .filter(|id| config.scope.shard.is_none_or(|s| s.contains(id)))
        .collect())
}

fn globs(patterns: &[String]) -> Result<GlobSet, RunError> {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        for part in p.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            b.add(
                Glob::new(part).map_err(|e| RunError::Config(format!("bad glob {part:?}: {e}")))?,
            );
        }
    }
    b.build().map_err(|e| RunError::Config(e.to_string()))
}

impl Runner {
    /// A runner for this configuration.
    pub fn new(mut config: RunnerConfig) -> Self {
        config.scope.cases = config.scope.cases.max(1);
        config.limits.concurrency = config.limits.concurrency.max(1);
        Self {
            config,
            progress: None,
            redactor: Redactor::new(),
        }
    }

    /// Calls `f` after each check.
    pub fn on_progress(mut self, f: ProgressFn) -> Self {
        self.progress = Some(f);
        self
    }

    /// The redactor of the run (it learns every secret the run uses).
    pub fn redactor(&self) -> Redactor {
        self.redactor.clone()
    }

    /// Runs the selected checks and returns the report. The deadline bounds the whole run,
    /// the working key's restore included: the checks stop a reserve before it (an eighth of
    /// it, at least 0.5 s, at most 10 s), and what the restore could not do by then is
    /// reported, not waited for.
    pub async fn run(self) -> Result<Report, RunError> {
        let started = Instant::now();
        let started_at = wall_now();
        let mut cfg = self.config.clone();
        let seed = cfg.scope.seed.unwrap_or_else(rand::random::<u64>);
        cfg.scope.seed = Some(seed);
        let selected = select_checks(&cfg)?;
        let redactor = self.redactor.clone();
        for s in [&cfg.target.api_key, &cfg.target.access_token]
            .into_iter()
            .flatten()
            .chain(cfg.target.headers.iter().map(|(_, v)| v))
        {
            redactor.add_secret(s);
        }
        let clock = RunClock::new(started, started_at, cfg.limits.deadline);
        let tconf = transport_config(&cfg, seed, clock.checks_until);
        let probe_t = Transport::new(client_for(&cfg, &cfg.target)?, tconf(false));

        // Discovery: a failure here is a finding, written to the report like any other.
        let mut env = match discover(&cfg, &probe_t, &redactor).await {
            Ok(env) => env,
            Err((_, SetupError::Unreachable(_))) if cfg.scope.dry_run => offline_env(&cfg),
            Err((stage, e)) => {
                let failure = SetupFailure {
                    stage: stage.to_owned(),
                    kind: e.kind(),
                    message: redactor.text(e.detail()),
                };
                return Ok(setup_failed_report(
                    &cfg, seed, &clock, failure, &selected, &probe_t,
                ));
            }
        };
        let client = client_for(&cfg, &env.target)?;
        let t = Transport::new(client.clone(), tconf(cfg.scope.dry_run));
        if cfg.scope.dry_run && env.key.is_none() {
            env.key = Some(placeholder_key(&env.target));
            env.has_access_token = true;
        }
        let env = Arc::new(env);
        let cfg = Arc::new(cfg);

        // The checks.
        let defs: Vec<Check> = registry()
            .iter()
            .filter(|d| selected.contains(&d.id))
            .copied()
            .collect();
        let (done, interrupted) = self
            .run_until_stopped(&defs, &t, &env, &cfg, &redactor, &clock)
            .await;
        let deadline_reached = tokio::time::Instant::now() >= clock.checks_until;

        let key_cleanup = if cfg.scope.dry_run {
            None
        } else {
            clean_up_key(client, tconf(false), &env, clock.deadline).await
        };
        let key_not_restored = key_cleanup.as_ref().is_some_and(|k| !k.put_back);

        let specs = t.planned();
        let planned = specs
            .iter()
            .map(|s| s.to_curl(t.client().target(), &redactor))
            .collect();
        let planned_uploads = specs.iter().flat_map(|s| s.uploads()).collect();
        let mut report = Report {
            mock_profile: env.mock.as_ref().and_then(|m| m.profile.clone()),
            era: Some(env.era.describe()),
            target_kind: if env.mock.is_some() {
                TargetKind::Mock
            } else {
                TargetKind::Deployment
            },
            notes: env.notes.clone(),
            discovery: (!env.routes.is_empty())
                .then(|| DiscoveryReport::new(&env.routes, env.models_source, env.models.len())),
            requests_sent: probe_t.sent() + t.sent() + env.setup_requests,
            retries: probe_t.retries() + t.retries(),
            retry_budget: cfg.limits.retry_budget,
            shrink_steps: env.shrink_spent.load(std::sync::atomic::Ordering::SeqCst),
            shrink_budget: cfg.limits.shrink_budget,
            quota_spent: t.quota_spent(),
            interrupted,
            deadline_reached,
            key_cleanup: key_cleanup.map(|k| k.message),
            key_not_restored,
            checks: in_order(&defs, &done, interrupted),
            planned,
            planned_uploads,
            artifacts: crate::checks::artifacts(&env),
            ..report_head(&cfg, seed, clock.started_at, clock.started)
        };
        report.recount();
        let headers: Vec<String> = cfg.target.headers.iter().map(|(k, _)| k.clone()).collect();
        report.explain_repro_variables(env.key.as_ref().map(work_key_source), &headers);
        Ok(report)
    }

    /// Runs `defs` until they end, the user interrupts (Ctrl-C), or half the restore reserve
    /// past the checks' deadline (a check that ignores it); returns the results by check id,
    /// and whether the run was interrupted.
    async fn run_until_stopped(
        &self,
        defs: &[Check],
        t: &Transport,
        env: &Arc<Env>,
        cfg: &Arc<RunnerConfig>,
        redactor: &Redactor,
        clock: &RunClock,
    ) -> (BTreeMap<&'static str, CheckResult>, bool) {
        let results: Arc<Mutex<BTreeMap<&'static str, CheckResult>>> =
            Arc::new(Mutex::new(BTreeMap::new()));
        let total = defs.len();
        let work = run_checks(
            defs,
            t,
            env,
            cfg,
            redactor,
            &results,
            self.progress.clone(),
            total,
        );
        let mut interrupted = false;
        let grace = clock.checks_until + (clock.deadline - clock.checks_until) / 2;
        tokio::select! {
            _ = work => {}
            _ = tokio::signal::ctrl_c() => { interrupted = true; }
            _ = tokio::time::sleep_until(grace) => {}
        }
        let done = results.lock().clone();
        (done, interrupted)
    }
}

/// Cleans up the working key, with no budget, by the run's `deadline` (at most 30 s).
async fn clean_up_key(
    client: Client,
    base: TransportConfig,
    env: &Env,
    deadline: tokio::time::Instant,
) -> Option<KeyCleanup> {
    let cleanup_t = Transport::new(
        client,
        TransportConfig {
            max_requests: None,
            max_quota: None,
            deadline: deadline.min(tokio::time::Instant::now() + Duration::from_secs(30)),
            dry_run: false,
            bytes: crate::http::memory::ByteBudget::unlimited(),
            ..base
        },
    );
    cleanup(&cleanup_t, env.key.as_ref()).await
}

/// When the run started (monotonic and wall clock), when its checks must end, and when the
/// run must (the working key restored).
struct RunClock {
    started: Instant,
    started_at: i64,
    /// The deadline of discovery and the checks: `deadline` less [`restore_reserve`].
    checks_until: tokio::time::Instant,
    /// `--deadline` from the start: nothing is sent after it, the restore included.
    deadline: tokio::time::Instant,
}

impl RunClock {
    fn new(started: Instant, started_at: i64, total: Duration) -> Self {
        let deadline = tokio::time::Instant::now() + total;
        Self {
            started,
            started_at,
            checks_until: deadline - restore_reserve(total),
            deadline,
        }
    }
}

/// The time a run of `total` keeps, at the end, for putting its working key back: an eighth,
/// at least half a second (or half the run) and at most 10 s.
pub(crate) fn restore_reserve(total: Duration) -> Duration {
    (total / 8)
        .max(Duration::from_millis(500).min(total / 2))
        .min(Duration::from_secs(10))
}

/// The transport settings of the run's transports, with or without dry run.
fn transport_config(
    cfg: &RunnerConfig,
    seed: u64,
    deadline: tokio::time::Instant,
) -> impl Fn(bool) -> TransportConfig + use<> {
    let (max_requests, max_quota, rate, concurrency, retry_budget) = (
        cfg.limits.budget_requests,
        cfg.limits.budget_quota,
        cfg.limits.rate,
        cfg.limits.concurrency,
        cfg.limits.retry_budget,
    );
    // One byte budget for every transport of the run.
    let bytes = crate::http::memory::ByteBudget::new(cfg.limits.budget_bytes);
    move |dry_run: bool| TransportConfig {
        max_requests,
        max_quota,
        rate,
        concurrency,
        backoff: crate::http::backoff::Backoff::default(),
        deadline,
        dry_run,
        seed,
        retry_budget: Some(retry_budget),
        bytes: bytes.clone(),
    }
}

/// The run's HTTP client for `target` (the user's, or as discovery completed it).
fn client_for(
    cfg: &RunnerConfig,
    target: &crate::http::target::Target,
) -> Result<Client, RunError> {
    Client::new(ClientConfig {
        timeout: cfg.limits.request_timeout,
        proxy: cfg.known.proxy.clone(),
        ..ClientConfig::new(target.clone())
    })
    .map_err(|e| RunError::Config(e.to_string()))
}

/// The report of a run whose target failed during discovery: every selected check is
/// skipped, naming the stage.
fn setup_failed_report(
    cfg: &RunnerConfig,
    seed: u64,
    clock: &RunClock,
    failure: SetupFailure,
    selected: &[&'static str],
    probe_t: &Transport,
) -> Report {
    let checks = selected
        .iter()
        .filter_map(|id| registry().iter().find(|d| d.id == *id))
        .map(|d| {
            not_run(
                d,
                SkipCause::SetupFailed,
                format!("not run: the target failed during {}", failure.stage),
            )
        })
        .collect();
    let mut report = Report {
        target_kind: TargetKind::Unknown,
        setup_failure: Some(failure),
        requests_sent: probe_t.sent(),
        retries: probe_t.retries(),
        quota_spent: 0,
        interrupted: false,
        deadline_reached: tokio::time::Instant::now() >= clock.checks_until,
        checks,
        ..report_head(cfg, seed, clock.started_at, clock.started)
    };
    report.recount();
    report
}

/// The results in the order of `defs`; a check that did not end is skipped as interrupted
/// or past the deadline.
fn in_order(
    defs: &[Check],
    done: &BTreeMap<&'static str, CheckResult>,
    interrupted: bool,
) -> Vec<CheckResult> {
    defs.iter()
        .map(|d| {
            done.get(d.id).cloned().unwrap_or_else(|| {
                if interrupted {
                    not_run(d, SkipCause::Interrupted, "interrupted".into())
                } else {
                    not_run(d, SkipCause::Deadline, "the run's deadline passed".into())
                }
            })
        })
        .collect()
}

/// The fields every report of a run has, whether setup failed or the checks ran: the run's
/// configuration, seed and timing. The rest start empty (no profile, notes, failure, cleanup,
/// checks or plan; zero counts) and each report sets its own.
fn report_head(cfg: &RunnerConfig, seed: u64, started_at: i64, started: Instant) -> Report {
    Report {
        gatecheck_version: env!("CARGO_PKG_VERSION").to_owned(),
        target: cfg.target.base_url.to_string(),
        mock_profile: None,
        target_kind: TargetKind::Unknown,
        expect: cfg.judging.expect.as_str().to_owned(),
        era: None,
        notes: Vec::new(),
        discovery: None,
        setup_failure: None,
        seed,
        cases: cfg.scope.cases,
        strict: cfg.judging.strict,
        allowed_skips: cfg.judging.allowed_skips.clone(),
        shard: cfg.scope.shard.map(|s| s.to_string()),
        started_at,
        duration_ms: started.elapsed().as_millis() as u64,
        requests_sent: 0,
        retries: 0,
        retry_budget: cfg.limits.retry_budget,
        shrink_steps: 0,
        shrink_budget: cfg.limits.shrink_budget,
        quota_spent: 0,
        interrupted: false,
        deadline_reached: false,
        dry_run: cfg.scope.dry_run,
        key_cleanup: None,
        key_not_restored: false,
        summary: Summary::default(),
        checks: Vec::new(),
        planned: Vec::new(),
        repro_variables: Vec::new(),
        planned_uploads: Vec::new(),
        artifacts: Default::default(),
    }
}

fn work_key_source(k: &crate::http::key_api::WorkKey) -> crate::report::WorkKeySource {
    use crate::http::key_api::KeyOrigin;
    use crate::report::WorkKeySource;
    match k.origin {
        KeyOrigin::Mock => WorkKeySource::Mock(k.id),
        KeyOrigin::Created => WorkKeySource::Created(k.id),
        KeyOrigin::Snapshot(_) => WorkKeySource::Named(k.id),
    }
}

/// The result of a check that did not run.
fn not_run(d: &Check, cause: SkipCause, why: String) -> CheckResult {
    CheckResult {
        id: d.id.to_owned(),
        title: d.title.to_owned(),
        spec: d.spec.to_owned(),
        kind: d.kind,
        status: Status::Skipped,
        cases: 0,
        duration_ms: 0,
        message: Some(why),
        skip_cause: Some(cause),
        evidence: None,
    }
}

#[allow(clippy::too_many_arguments)]
async fn run_checks(
    defs: &[Check],
    t: &Transport,
    env: &Arc<Env>,
    cfg: &Arc<RunnerConfig>,
    redactor: &Redactor,
    results: &Arc<Mutex<BTreeMap<&'static str, CheckResult>>>,
    progress: Option<ProgressFn>,
    total: usize,
) {
    let ctx_for = |d: &Check| CheckCtx {
        check: d.id,
        t: t.clone(),
        env: env.clone(),
        cfg: cfg.clone(),
        redactor: redactor.clone(),
        seed: cfg.scope.seed.unwrap_or(0) ^ fnv1a(d.id.as_bytes()),
    };
    let record = |r: CheckResult| {
        let n = {
            let mut map = results.lock();
            map.insert(leak_id(defs, &r.id), r.clone());
            map.len()
        };
        if let Some(p) = &progress {
            p(&r, n, total);
        }
    };
    let mut runnable = Vec::new();
    for d in defs {
        match unmet(&d.needs, &env.routes) {
            Some(why) => record(not_run(d, SkipCause::RouteNotServed, why)),
            None => runnable.push(d),
        }
    }
    let shared: Vec<&Check> = runnable
        .iter()
        .copied()
        .filter(|d| d.phase == Phase::Shared)
        .collect();
    let exclusive: Vec<&Check> = runnable
        .iter()
        .copied()
        .filter(|d| d.phase == Phase::Exclusive)
        .collect();
    // Owned futures (no borrowing closure in the stream), so the run future stays `Send`.
    let futures: Vec<futures_util::future::BoxFuture<'static, CheckResult>> = shared
        .into_iter()
        .map(|d| {
            let d = *d;
            let ctx = ctx_for(&d);
            let fut: futures_util::future::BoxFuture<'static, CheckResult> =
                Box::pin(async move { run_one(&d, &ctx).await });
            fut
        })
        .collect();
    let mut s = stream::iter(futures).buffer_unordered(cfg.limits.concurrency.max(1));
    while let Some(r) = s.next().await {
        record(r);
    }
    for d in exclusive {
        let ctx = ctx_for(d);
        if let Some(k) = &env.key
            && !cfg.scope.dry_run
            && let Err(halt) = put_back(t, k).await
        {
            record(result_of(d, &ctx, Err(halt), Instant::now()));
            continue;
        }
        record(run_one(d, &ctx).await);
    }
}

/// Puts the working key back to its first state before an exclusive check. A write-back the
/// run's limits cut (the deadline, a budget) stops the check for that cause; one that failed
/// on the way (a timeout, a reset) or that the target did not acknowledge errors it: a check
/// never runs, and never passes, on a key in an unknown state.
async fn put_back(t: &Transport, k: &WorkKey) -> Result<(), Halt> {
    let why = match put_record_traced(t, &k.baseline).await {
        Ok(trace) if trace.acknowledged => return Ok(()),
        Ok(trace) => match trace.exchanges.last() {
            Some((_, ex)) => format!("PUT /api/token/ answered {}", ex.status.as_u16()),
            None => "PUT /api/token/ was not acknowledged".to_owned(),
        },
        Err(e) if e.is_stop() => return Err(Halt::from(e)),
        Err(e) => e.to_string(),
    };
    Err(Halt::Error(format!(
        "not run: the working key {} could not be put back to its first state before the \
         check ({why}), and a check on a key in an unknown state proves nothing",
        k.id
    )))
}

fn leak_id(defs: &[Check], id: &str) -> &'static str {
    defs.iter()
        .find(|d| d.id == id)
        .map(|d| d.id)
        .unwrap_or("unknown")
}

async fn run_one(d: &Check, ctx: &CheckCtx) -> CheckResult {
    let start = Instant::now();
    let outcome = match d.mock_only {
        Some(m) if ctx.env.mock.is_none() => Err(Halt::Skip(m.cause, m.why.to_owned())),
        _ => (d.run)(ctx).await,
    };
    result_of(d, ctx, outcome, start)
}

/// The result of a check that ended with `outcome`, started at `start`.
fn result_of(d: &Check, ctx: &CheckCtx, outcome: Outcome, start: Instant) -> CheckResult {
    let mut r = CheckResult {
        id: d.id.to_owned(),
        title: d.title.to_owned(),
        spec: d.spec.to_owned(),
        kind: d.kind,
        status: Status::Passed,
        cases: 0,
        duration_ms: 0,
        message: None,
        skip_cause: None,
        evidence: None,
    };
    match outcome {
        Ok(p) if p.cases == 0 => {
            r.status = Status::Skipped;
            r.skip_cause = Some(SkipCause::NoCase);
            r.message = Some(match p.note {
                Some(n) => format!("no case ran: {n}"),
                None => "no case ran".into(),
            });
        }
        Ok(p) => {
            r.cases = p.cases;
            r.message = p.note;
        }
        Err(Halt::Finding(mut ev)) => {
            r.cases = ev.cases_run.max(1);
            r.status = match d.kind {
                Kind::Failure => Status::Failed,
                Kind::Deviation => {
                    ev.decision = d.decision.map(|i| i.as_str().to_owned());
                    Status::Deviation
                }
            };
            r.evidence = Some(*ev);
        }
        Err(Halt::OffDecision(mut ev, decision)) => {
            r.cases = ev.cases_run.max(1);
            // The verdict is a deviation, whatever the check's kind: every report says so.
            r.kind = Kind::Deviation;
            r.status = Status::Deviation;
            ev.decision = Some(decision.as_str().to_owned());
            r.evidence = Some(*ev);
        }
        Err(Halt::SkipSeen(cause, mut ev)) => {
            r.status = Status::Skipped;
            r.skip_cause = Some(cause);
            r.message = Some(ev.message.clone());
            ev.cases_run = 0;
            r.evidence = Some(*ev);
        }
        Err(Halt::Skip(cause, m)) | Err(Halt::Stop(cause, m)) => {
            r.status = Status::Skipped;
            r.skip_cause = Some(cause);
            // Without any model, every such skip has one cause: discovery's, said the same way.
            let m = match (&ctx.env.no_models, cause) {
                (Some(why), SkipCause::NoModel) => {
                    format!("discovery found no model ({why}): give --model KIND=ID")
                }
                _ => m,
            };
            r.message = Some(ctx.redactor.text(&m));
        }
        Err(Halt::Error(m)) => {
            r.status = Status::Error;
            r.message = Some(ctx.redactor.text(&m));
        }
    }
    r.duration_ms = start.elapsed().as_millis() as u64;
    r
}
