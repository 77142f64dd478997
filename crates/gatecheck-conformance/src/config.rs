//! The runner's configuration, with a builder.

use crate::discovery::ModelKind;
use crate::redact::Secret;
use crate::shard::Shard;
use crate::skip::SkipCause;
use crate::target::Target;
use gatecheck_schemas::types::ModelCapabilities;
use gatecheck_schemas::Profile;
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

/// Everything a run needs. Build it with [`RunnerConfig::new`] and the `with_*` methods.
///
/// ```
/// use gatecheck_conformance::RunnerConfig;
/// let config = RunnerConfig::new("http://127.0.0.1:8080".parse().unwrap())
///     .with_cases(8)
///     .with_seed(42)
///     .with_only(["auth.*"]);
/// assert_eq!(config.cases, 8);
/// ```
#[derive(Debug, Clone)]
pub struct RunnerConfig {
    /// The target and its credentials.
    pub target: Target,
    /// Run only checks whose id matches one of these globs (all when empty).
    pub only: Vec<String>,
    /// Skip checks whose id matches one of these globs.
    pub skip: Vec<String>,
    /// Generated cases per property.
    pub cases: u32,
    /// The seed of every generator; `None`: chosen at random and printed.
    pub seed: Option<u64>,
    /// Deviations fail the run too.
    pub strict: bool,
    /// Run only this shard of the selected checks.
    pub shard: Option<Shard>,
    /// Cap on requests sent.
    pub budget_requests: Option<u64>,
    /// Cap on quota units the run may consume (estimated from catalog prices).
    pub budget_quota: Option<i64>,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Requests per second.
    pub rate: Option<f64>,
    /// The whole run ends by then.
    pub deadline: Duration,
    /// List the planned requests instead of sending them.
    pub dry_run: bool,
    /// Make a scratch key with `POST /api/token/` (deleted at the end).
    pub allow_create_keys: bool,
    /// Per-request timeout.
    pub request_timeout: Duration,
    /// How long a video task may take to reach a terminal state (virtual time on the mock).
    pub video_deadline: Duration,
    /// Poll interval on real targets; `None`: `openai-poll-after-ms`, or 10 s.
    pub poll_interval: Option<Duration>,
    /// Most shrink steps per failing property.
    pub max_shrink: u32,
    /// Use the mock's control API when the target has one (`false` acts as
    /// [`TargetMode::Deployment`]).
    pub use_mock_control: bool,
    /// What the runner may assume about the target.
    pub target_mode: TargetMode,
    /// Whose behaviour is expected where the spec says "not shown": the documented decisions,
    /// or new-api's. A target that matches the other profile is a deviation citing the
    /// decision's id.
    pub expect: Profile,
    /// The client IP as the target sees it, when known (used by allowlist checks).
    pub client_ip: Option<IpAddr>,
    /// Show a progress bar (on a terminal).
    pub progress: bool,
    /// What each model accepts (sizes, voices, durations); `None`: the fixtures' capabilities.
    /// A deployment with other models passes its own (the `fixtures/capabilities.json` format).
    pub capabilities: Option<BTreeMap<String, ModelCapabilities>>,
    /// A proxy for every request; `None`: `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY`.
    pub proxy: Option<String>,
    /// Models named by the user (`--model KIND=ID`), used when the target's catalog and model
    /// list do not name one of that kind.
    pub models: Vec<(ModelKind, String)>,
    /// Most retries in the whole run (after 429, 500, 503); past it an answer is judged as is.
    pub retry_budget: u64,
    /// Most shrink steps in the whole run, all failing properties together.
    pub shrink_budget: u32,
    /// How long a streamed answer may take, from its request to its last event; `None`: the
    /// per-request timeout.
    pub stream_deadline: Option<Duration>,
    /// Skip causes accepted in a complete run (`--allow-skip`): a skip whose cause
    /// [`SkipCause::incomplete_by_default`] and is not listed here ends the run with
    /// [`crate::exit::INCOMPLETE`].
    pub allowed_skips: Vec<SkipCause>,
}

impl RunnerConfig {
    /// Defaults for a target at `base_url`: 16 cases, 10 minutes, 4 in flight.
    pub fn new(base_url: Url) -> Self {
        Self {
            target: Target::new(base_url),
            only: Vec::new(),
            skip: Vec::new(),
            cases: 16,
            seed: None,
            strict: false,
            shard: None,
            budget_requests: None,
            budget_quota: None,
            concurrency: 4,
            rate: None,
            deadline: Duration::from_secs(600),
            dry_run: false,
            allow_create_keys: false,
            request_timeout: Duration::from_secs(30),
            video_deadline: Duration::from_secs(900),
            poll_interval: None,
            max_shrink: 200,
            use_mock_control: true,
            target_mode: TargetMode::Auto,
            expect: Profile::Documented,
            client_ip: None,
            progress: false,
            capabilities: None,
            proxy: None,
            models: Vec::new(),
            retry_budget: 64,
            shrink_budget: 400,
            stream_deadline: None,
            allowed_skips: Vec::new(),
        }
    }

    /// Sets the API key.
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.target.api_key = Some(Secret::new(key));
        self
    }

    /// Sets the access token.
    pub fn with_access_token(mut self, token: impl Into<String>) -> Self {
        self.target.access_token = Some(Secret::new(token));
        self
    }

    /// Sets the user id (`New-Api-User`).
    pub fn with_user_id(mut self, user_id: i64) -> Self {
        self.target.user_id = Some(user_id);
        self
    }

    /// Sets the id of the key to snapshot, use and restore.
    pub fn with_key_id(mut self, key_id: i64) -> Self {
        self.target.key_id = Some(key_id);
        self
    }

    /// Sets the cases per property.
    pub fn with_cases(mut self, cases: u32) -> Self {
        self.cases = cases.max(1);
        self
    }

    /// Sets the seed.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Runs only the checks matching these globs.
    pub fn with_only<I, S>(mut self, globs: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.only = globs.into_iter().map(Into::into).collect();
        self
    }

    /// Skips the checks matching these globs.
    pub fn with_skip<I, S>(mut self, globs: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.skip = globs.into_iter().map(Into::into).collect();
        self
    }

    /// Makes deviations fail the run.
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Runs one shard.
    pub fn with_shard(mut self, shard: Shard) -> Self {
        self.shard = Some(shard);
        self
    }

    /// Sets the global deadline.
    pub fn with_deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }

    /// Sets the video deadline.
    pub fn with_video_deadline(mut self, deadline: Duration) -> Self {
        self.video_deadline = deadline;
        self
    }

    /// Sets the budgets.
    pub fn with_budget(mut self, requests: Option<u64>, quota: Option<i64>) -> Self {
        self.budget_requests = requests;
        self.budget_quota = quota;
        self
    }

    /// Allows creating a scratch key.
    pub fn with_allow_create_keys(mut self, allow: bool) -> Self {
        self.allow_create_keys = allow;
        self
    }

    /// Sets dry-run mode.
    pub fn with_dry_run(mut self, dry_run: bool) -> Self {
        self.dry_run = dry_run;
        self
    }

    /// Sets the requests in flight.
    pub fn with_concurrency(mut self, concurrency: usize) -> Self {
        self.concurrency = concurrency.max(1);
        self
    }

    /// Sets what the runner may assume about the target.
    pub fn with_target_mode(mut self, mode: TargetMode) -> Self {
        self.target_mode = mode;
        self
    }

    /// Sets whose behaviour is expected where the spec is silent.
    pub fn with_expect(mut self, expect: Profile) -> Self {
        self.expect = expect;
        self
    }

    /// Whether the mock's control API may be used at all.
    pub fn mock_control_allowed(&self) -> bool {
        self.use_mock_control && self.target_mode != TargetMode::Deployment
    }

    /// Sets how long a streamed answer may take (from its request to its last event): a
    /// stream still open then is a finding of its check.
    ///
    /// ```
    /// use gatecheck_conformance::RunnerConfig;
    /// use std::time::Duration;
    /// let cfg = RunnerConfig::new("http://127.0.0.1:3000".parse().unwrap())
    ///     .with_stream_deadline(Duration::from_secs(5));
    /// assert_eq!(cfg.stream_deadline, Some(Duration::from_secs(5)));
    /// ```
    pub fn with_stream_deadline(mut self, deadline: Duration) -> Self {
        self.stream_deadline = Some(deadline);
        self
    }

    /// Sets the per-request timeout.
    pub fn with_request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }
}
