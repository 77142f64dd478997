//! The runner's configuration, with a builder.

use crate::http::target::Target;
use crate::vocab::discovery::ModelKind;
use crate::vocab::shard::Shard;
use crate::vocab::skip::SkipCause;
use gatecheck_schemas::types::ModelCapabilities;
use gatecheck_schemas::{Era, Profile};
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::Duration;
use url::Url;

/// What the runner may assume about its target (`gatecheck check --target`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TargetMode {
    /// The mock's control API is used only when `GET /__mock/health` answers the mock's
    /// signature ([`gatecheck_schemas::rules::health`]); anything else is a deployment.
    #[default]
    Auto,
    /// The user says the target is a gatecheck mock: its control API is used.
    Mock,
    /// A real deployment: nothing is ever sent to `/__mock/*`, video checks poll in real time.
    Deployment,
}

/// Which era of new-api's task layer the runner judges by (`gatecheck check --era`).
///
/// ```
/// use gatecheck_conformance::EraChoice;
/// use gatecheck_schemas::Era;
/// assert_eq!("auto".parse::<EraChoice>().unwrap(), EraChoice::Auto);
/// assert_eq!("plugins".parse::<EraChoice>().unwrap(), EraChoice::Fixed(Era::Plugins));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum EraChoice {
    /// Told from what the target shows (the mock's signature, `GET /api/status` `version`,
    /// the routes only the plugin era serves); the Go adaptors' when nothing tells.
    #[default]
    Auto,
    /// This era, whatever the target shows.
    Fixed(Era),
}

impl std::str::FromStr for EraChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(Self::Auto),
            other => other
                .parse::<Era>()
                .map(Self::Fixed)
                .map_err(|_| format!("unknown era `{other}`: expected auto, plugins or adaptors")),
        }
    }
}

impl std::str::FromStr for TargetMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(Self::Auto),
            "mock" => Ok(Self::Mock),
            "deployment" => Ok(Self::Deployment),
            other => Err(format!(
                "unknown target {other:?}: expected auto, mock or deployment"
            )),
        }
    }
}

/// Everything a run needs, grouped by concern: the [`Target`] and what is known of it
/// ([`TargetFacts`]), what to run ([`Scope`]), how far it may go ([`Limits`]) and how answers
/// are judged ([`Judging`]). Start from [`RunnerConfig::new`] (the defaults for a base URL) and
/// set what differs on its parts, by field or with struct-update syntax; there are no setters.
///
/// ```
/// use gatecheck_conformance::{RunnerConfig, Scope};
/// use std::time::Duration;
/// let mut config = RunnerConfig::new("http://127.0.0.1:8080".parse().unwrap());
/// config.scope = Scope {
///     cases: 8,
///     seed: Some(42),
///     only: vec!["auth.*".into()],
///     ..Scope::default()
/// };
/// config.limits.stream_deadline = Some(Duration::from_secs(5));
/// config.target.api_key = Some("sk-test".into());
/// assert_eq!(config.scope.cases, 8);
/// ```
#[derive(Debug, Clone)]
pub struct RunnerConfig {
    /// The target and its credentials.
    pub target: Target,
    /// What is known of the target, and how to reach it.
    pub known: TargetFacts,
    /// What to run.
    pub scope: Scope,
    /// How far the run may go: budgets, concurrency, rate, deadlines and timeouts.
    pub limits: Limits,
    /// How answers are judged.
    pub judging: Judging,
    /// Show a progress bar (on a terminal).
    pub progress: bool,
}

/// What is known of the target (or told by the user), and how to reach it.
#[derive(Debug, Clone, Default)]
pub struct TargetFacts {
    /// Use the mock's control API when the target has one (`false` acts as
    /// [`TargetMode::Deployment`]).
    pub use_mock_control: bool,
    /// What the runner may assume about the target.
    pub target_mode: TargetMode,
    /// The client IP as the target sees it, when known (used by allowlist checks).
    pub client_ip: Option<IpAddr>,
    /// What each model accepts (sizes, voices, durations); `None`: the fixtures' capabilities.
    /// A deployment with other models passes its own (the `fixtures/capabilities.json` format).
    pub capabilities: Option<BTreeMap<String, ModelCapabilities>>,
    /// Models named by the user (`--model KIND=ID`), used when the target's catalog and model
    /// list do not name one of that kind.
    pub models: Vec<(ModelKind, String)>,
    /// A proxy for every request; `None`: `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY`.
    pub proxy: Option<String>,
}

/// What to run: which checks, how many generated cases, from which seed, and whether the run
/// may send at all or make a scratch key.
#[derive(Debug, Clone)]
pub struct Scope {
    /// Run only checks whose id matches one of these globs (all when empty).
    pub only: Vec<String>,
    /// Skip checks whose id matches one of these globs.
    pub skip: Vec<String>,
    /// Run only this shard of the selected checks.
    pub shard: Option<Shard>,
    /// Generated cases per property (at least 1: 0 runs as 1).
    pub cases: u32,
    /// The seed of every generator; `None`: chosen at random and printed.
    pub seed: Option<u64>,
    /// List the planned requests instead of sending them.
    pub dry_run: bool,
    /// Make a scratch key with `POST /api/token/` (deleted at the end).
    pub allow_create_keys: bool,
}

/// How far the run may go.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Cap on requests sent.
    pub budget_requests: Option<u64>,
    /// Cap on quota units the run may consume (estimated from catalog prices).
    pub budget_quota: Option<i64>,
    /// Cap on the bytes of answers the whole run reads (`--budget-bytes`, 1 GiB by default;
    /// `None`: unbounded): each body is capped too, this bounds the run.
    pub budget_bytes: Option<u64>,
    /// Requests in flight at once (at least 1: 0 runs as 1).
    pub concurrency: usize,
    /// Requests per second.
    pub rate: Option<f64>,
    /// The whole run ends by then.
    pub deadline: Duration,
    /// Per-request timeout.
    pub request_timeout: Duration,
    /// How long a video task may take to reach a terminal state (virtual time on the mock).
    pub video_deadline: Duration,
    /// Poll interval on real targets; `None`: `openai-poll-after-ms`, or 10 s.
    pub poll_interval: Option<Duration>,
    /// How long a streamed answer may take, from its request to its last event; `None`: the
    /// per-request timeout. A stream still open then is a finding of its check.
    pub stream_deadline: Option<Duration>,
    /// Most retries in the whole run (after 429, 500, 503); past it an answer is judged as is.
    pub retry_budget: u64,
    /// Most shrink steps per failing property.
    pub max_shrink: u32,
    /// Most shrink steps in the whole run, all failing properties together.
    pub shrink_budget: u32,
}

/// How answers are judged.
#[derive(Debug, Clone, Default)]
pub struct Judging {
    /// Deviations fail the run too.
    pub strict: bool,
    /// Whose behaviour is expected where the spec says "not shown": the documented decisions,
    /// or new-api's. A target that matches the other profile is a deviation citing the
    /// decision's id.
    pub expect: Profile,
    /// The era of new-api's task layer answers are judged by (`--era`): told from the target
    /// by default ([`EraChoice::Auto`]).
    pub era: EraChoice,
    /// Skip causes accepted in a complete run (`--allow-skip`): a skip whose cause
    /// [`SkipCause::incomplete_by_default`] and is not listed here ends the run with
    /// [`crate::exit::INCOMPLETE`].
    pub allowed_skips: Vec<SkipCause>,
    /// The ratio the working key's group is charged at (`--group-ratio`), when the target
    /// does not publish it on `GET /api/pricing` (DECISIONS D-STREAM-7). `None`: learnt from
    /// `GET /api/pricing`, else inferred from the run's own charges.
    pub group_ratio: Option<f64>,
}

impl Default for Scope {
    /// All checks, 16 cases, a random seed.
    fn default() -> Self {
        Self {
            only: Vec::new(),
            skip: Vec::new(),
            shard: None,
            cases: 16,
            seed: None,
            dry_run: false,
            allow_create_keys: false,
        }
    }
}

impl Default for Limits {
    /// 10 minutes, 4 in flight, 30 s per request, 15 minutes per video task.
    fn default() -> Self {
        Self {
            budget_requests: None,
            budget_quota: None,
            budget_bytes: Some(crate::http::memory::DEFAULT_RUN_BYTES),
            concurrency: 4,
            rate: None,
            deadline: Duration::from_secs(600),
            request_timeout: Duration::from_secs(30),
            video_deadline: Duration::from_secs(900),
            poll_interval: None,
            stream_deadline: None,
            retry_budget: 64,
            max_shrink: 200,
            shrink_budget: 400,
        }
    }
}

impl RunnerConfig {
    /// Defaults for a target at `base_url`, without credentials: every part's default, and
    /// the mock's control API used when the target proves to be the mock.
    pub fn new(base_url: Url) -> Self {
        Self {
            target: Target::new(base_url),
            known: TargetFacts {
                use_mock_control: true,
                ..TargetFacts::default()
            },
            scope: Scope::default(),
            limits: Limits::default(),
            judging: Judging::default(),
            progress: false,
        }
    }

    /// Whether the mock's control API may be used at all.
    pub fn mock_control_allowed(&self) -> bool {
        self.known.use_mock_control && self.known.target_mode != TargetMode::Deployment
    }
}
