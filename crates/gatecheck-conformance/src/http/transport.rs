//! The client with the run's safety rules around it: budgets, pacing, concurrency, retries with
//! backoff, a global deadline, a request count, and dry runs.

use crate::http::backoff::{is_retryable, parse_retry_after, Backoff};
use crate::http::budget::{Budget, BudgetExhausted, Pacer};
use crate::http::client::{Client, Exchange, RequestSpec, StreamExchange};
use crate::http::client_error::ClientError;
use crate::http::memory::ByteBudget;
use crate::http::sse::SseLimits;
use gatecheck_codecs::draw::Draw;
use gatecheck_schemas::rules::health::{
    REPLAY_HEADER, REPLAY_MATCHED, REPLAY_TIME_HEADER, REPLAY_UNMATCHED,
};
use gatecheck_schemas::rules::Rejection;
use gatecheck_schemas::Profile;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::sync::Semaphore;
use tokio::time::Instant;

/// Why a request was not answered.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// The client failed (connection, timeout, refused host...).
    #[error(transparent)]
    Client(#[from] ClientError),
    /// A budget cap was reached; the request was not sent.
    #[error(transparent)]
    Budget(#[from] BudgetExhausted),
    /// The run's deadline passed; the request was not sent.
    #[error("the run's deadline passed")]
    Deadline,
    /// Dry run: the request was recorded, not sent.
    #[error("dry run: request not sent")]
    DryRun,
    /// The target is a strict replay whose recording holds no answer to the request (its
    /// answer carries `x-gatecheck-replay: unmatched`).
    #[error("not in the recording: {0}")]
    NotInRecording(String),
}

impl TransportError {
    /// Whether the target could not be reached at all ([`ClientError::is_unreachable`]).
    pub fn is_unreachable(&self) -> bool {
        matches!(self, TransportError::Client(c) if c.is_unreachable())
    }

    /// Whether the run must stop rather than the one check (budget, deadline, dry run).
    pub fn is_stop(&self) -> bool {
        !matches!(
            self,
            TransportError::Client(_) | TransportError::NotInRecording(_)
        )
    }
}

/// Settings of a [`Transport`].
#[derive(Debug, Clone)]
pub struct TransportConfig {
    /// `--budget-requests`.
    pub max_requests: Option<u64>,
    /// `--budget-quota`.
    pub max_quota: Option<i64>,
    /// `--rate` (requests per second).
    pub rate: Option<f64>,
    /// `--concurrency` (requests in flight).
    pub concurrency: usize,
    /// Retry policy.
    pub backoff: Backoff,
    /// When the run must end.
    pub deadline: Instant,
    /// Record requests instead of sending them.
    pub dry_run: bool,
    /// Seed of the jitter.
    pub seed: u64,
    /// Most retries over the transport's life; `None`: only each request's own limit.
    pub retry_budget: Option<u64>,
    /// The run's byte budget (`--budget-bytes`), shared by its transports: each answer's
    /// bytes are charged, and no request is sent once it is spent.
    pub bytes: ByteBudget,
}

/// The client plus the run's safety rules. Cheap to clone (shared).
#[derive(Debug, Clone)]
pub struct Transport {
    client: Client,
    inner: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    budget: Budget,
    bytes: ByteBudget,
    pacer: Pacer,
    permits: Semaphore,
    backoff: Backoff,
    deadline: Instant,
    dry_run: bool,
    rng: Mutex<Draw>,
    sent: AtomicU64,
    retries: AtomicU64,
    retry_budget: Option<u64>,
    /// Route and status pairs that outlasted every retry ([`route_key`]).
    persistent: Mutex<std::collections::HashSet<String>>,
    planned: Mutex<Vec<RequestSpec>>,
    /// An answer came from a recording (`x-gatecheck-replay: matched`): the target replays.
    replayed: std::sync::atomic::AtomicBool,
    /// The recorded time of the last answer from a recording (`x-gatecheck-replay-time`),
    /// and when it came.
    replay_time: Mutex<Option<(i64, Instant)>>,
    /// A direct transport ([`Transport::direct`]): a replay's `unmatched` answer is returned.
    direct: bool,
}

/// A request's route and an answer's status, as the key of a persistent answer: the method
/// and the first two path segments (`GET /v1/videos`), so generated ids share one key.
fn route_key(spec: &RequestSpec, status: u16) -> String {
    let path = spec.path.split('?').next().unwrap_or("");
    let head: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).take(2).collect();
    format!("{} /{} {status}", spec.method, head.join("/"))
}

impl Transport {
    /// Wraps a client.
    pub fn new(client: Client, config: TransportConfig) -> Self {
        Self::with_mode(client, config, false)
    }

    /// Wraps a client for requests sent one by one, as they are, outside a check run (the
    /// request sequence of `gatecheck diff` and snapshots, `gatecheck fixtures pull`): each
    /// request is sent once (no retry, so no jitter drawn), with no budget, pacing or
    /// concurrency limit, and no deadline but the client's per-request timeout; an answer a
    /// replay marks `unmatched` is returned as the answer it is.
    pub fn direct(client: Client) -> Self {
        /// Far enough to never cut a request, near enough for tokio's timer (2.2 years).
        const NO_DEADLINE: std::time::Duration = std::time::Duration::from_secs(365 * 24 * 3600);
        let config = TransportConfig {
            max_requests: None,
            max_quota: None,
            rate: None,
            concurrency: Semaphore::MAX_PERMITS,
            backoff: Backoff::none(),
            deadline: Instant::now() + NO_DEADLINE,
            dry_run: false,
            seed: 0,
            retry_budget: Some(0),
            bytes: ByteBudget::unlimited(),
        };
        Self::with_mode(client, config, true)
    }

    fn with_mode(client: Client, config: TransportConfig, direct: bool) -> Self {
        Self {
            client,
            inner: Arc::new(Shared {
                budget: Budget::new(config.max_requests, config.max_quota),
                bytes: config.bytes,
                pacer: Pacer::new(config.rate),
                permits: Semaphore::new(config.concurrency.max(1)),
                backoff: config.backoff,
                deadline: config.deadline,
                dry_run: config.dry_run,
                rng: Mutex::new(Draw::seeded(config.seed)),
                sent: AtomicU64::new(0),
                retries: AtomicU64::new(0),
                retry_budget: config.retry_budget,
                persistent: Mutex::new(Default::default()),
                planned: Mutex::new(Vec::new()),
                replayed: std::sync::atomic::AtomicBool::new(false),
                replay_time: Mutex::new(None),
                direct,
            }),
        }
    }

    /// The underlying client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The run's deadline.
    pub fn deadline(&self) -> Instant {
        self.inner.deadline
    }

    /// Whether the deadline has passed.
    pub fn past_deadline(&self) -> bool {
        Instant::now() >= self.inner.deadline
    }

    /// Whether waiting `wait` from now would reach the deadline (a retry or a sleep that
    /// would is not started).
    pub fn wait_reaches_deadline(&self, wait: std::time::Duration) -> bool {
        Instant::now() + wait >= self.inner.deadline
    }

    /// Whether the target answered from a recording (`x-gatecheck-replay: matched`): its
    /// task states were recorded, one per poll, so polls need no real wait between them.
    pub fn answers_from_recording(&self) -> bool {
        self.inner.replayed.load(Ordering::Relaxed)
    }

    /// "Now" on a target that answers from a recording: the recorded time of its last answer
    /// (`x-gatecheck-replay-time`) plus the time since it came. `None` on any other target.
    /// The run then draws its times, and decides on them, as the recorded run did, however
    /// long after the recording it is judged.
    pub fn recorded_now(&self) -> Option<i64> {
        let (t, at) = (*self.inner.replay_time.lock())?;
        let since = i64::try_from(at.elapsed().as_secs()).unwrap_or(0);
        Some(t.saturating_add(since))
    }

    /// Requests actually sent (retries included).
    pub fn sent(&self) -> u64 {
        self.inner.sent.load(Ordering::SeqCst)
    }

    /// Retries made.
    pub fn retries(&self) -> u64 {
        self.inner.retries.load(Ordering::SeqCst)
    }

    /// Quota spent, as estimated by the callers.
    pub fn quota_spent(&self) -> i64 {
        self.inner.budget.quota()
    }

    /// Whether `status` outlasted every retry on `spec`'s route before.
    fn is_persistent(&self, spec: &RequestSpec, status: u16) -> bool {
        status != 429
            && self
                .inner
                .persistent
                .lock()
                .contains(&route_key(spec, status))
    }

    /// Notes that `status` outlasted every retry on `spec`'s route.
    fn mark_persistent(&self, spec: &RequestSpec, status: u16) {
        if status != 429 {
            self.inner.persistent.lock().insert(route_key(spec, status));
        }
    }

    /// Counts one retry against the budget; `false` when the budget is spent.
    fn take_retry(&self) -> bool {
        let shared = &self.inner;
        let budget = shared.retry_budget.unwrap_or(u64::MAX);
        shared
            .retries
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < budget).then_some(n + 1)
            })
            .is_ok()
    }

    /// Whether the run's retry budget is spent.
    pub fn retry_budget_spent(&self) -> bool {
        self.inner.retry_budget.is_some_and(|b| self.retries() >= b)
    }

    /// The requests recorded by a dry run.
    pub fn planned(&self) -> Vec<RequestSpec> {
        self.inner.planned.lock().clone()
    }

    /// Sends `spec`, which may consume up to `quota` units, retrying transient answers.
    pub async fn send(&self, spec: &RequestSpec, quota: i64) -> Result<Exchange, TransportError> {
        self.send_with(spec, quota, true).await
    }

    /// Sends `spec`, retrying only 429 (rate limits): for probes, where a 5xx is an answer.
    pub async fn send_probe(&self, spec: &RequestSpec) -> Result<Exchange, TransportError> {
        self.send_with(spec, 0, false).await
    }

    /// Sends a request by other means than the client (a raw-socket probe), under the same
    /// rules as [`Transport::send`] except retries: refused once the deadline has passed or a
    /// budget is spent, paced, within the concurrency limit, counted as sent, and cut off at
    /// the deadline. `request` is the whole exchange; its output is returned as is.
    ///
    /// ```
    /// use gatecheck_conformance::internals::{Backoff, Transport, TransportConfig, TransportError};
    /// use gatecheck_conformance::{Client, ClientConfig, Target};
    /// use std::time::Duration;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let target = Target::new("http://127.0.0.1:9".parse().unwrap());
    /// let client = Client::new(ClientConfig::new(target)).unwrap();
    /// let t = Transport::new(client, TransportConfig {
    ///     max_requests: Some(1),
    ///     max_quota: None,
    ///     rate: None,
    ///     concurrency: 1,
    ///     backoff: Backoff::default(),
    ///     deadline: tokio::time::Instant::now() + Duration::from_secs(60),
    ///     dry_run: false,
    ///     seed: 0,
    ///     retry_budget: None,
    ///     bytes: Default::default(),
    /// });
    /// // The probe runs and is counted; the budget of one request is then spent.
    /// assert_eq!(t.send_raw(0, async { 413u16 }).await.unwrap(), 413);
    /// assert_eq!(t.sent(), 1);
    /// let refused = t.send_raw(0, async { 413u16 }).await;
    /// assert!(matches!(refused, Err(TransportError::Budget(_))));
    /// # }
    /// ```
    pub async fn send_raw<T>(
        &self,
        quota: i64,
        request: impl std::future::Future<Output = T>,
    ) -> Result<T, TransportError> {
        if self.inner.dry_run {
            return Err(TransportError::DryRun);
        }
        if self.past_deadline() {
            return Err(TransportError::Deadline);
        }
        self.under_rules(quota, request).await
    }

    /// Sends `spec`, whose answer may be an event stream, reading it under `limits`
    /// ([`Client::send_stream`]), under the same rules as [`Transport::send`]: recorded by a
    /// dry run, refused once the deadline has passed or a budget is spent, paced, within the
    /// concurrency limit (the permit is held until the stream is read), counted as sent and
    /// cut off at the run's deadline. Only 429 is retried (a stream is charged when it starts).
    ///
    /// ```
    /// use gatecheck_conformance::internals::{Backoff, SseLimits, Transport, TransportConfig};
    /// use gatecheck_conformance::internals::TransportError;
    /// use gatecheck_conformance::{Client, ClientConfig, RequestSpec, Target};
    /// use std::time::Duration;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let target = Target::new("http://127.0.0.1:9".parse().unwrap());
    /// let client = Client::new(ClientConfig::new(target)).unwrap();
    /// let t = Transport::new(client, TransportConfig {
    ///     max_requests: Some(0),
    ///     max_quota: None,
    ///     rate: None,
    ///     concurrency: 1,
    ///     backoff: Backoff::default(),
    ///     deadline: tokio::time::Instant::now() + Duration::from_secs(60),
    ///     dry_run: false,
    ///     seed: 0,
    ///     retry_budget: None,
    ///     bytes: Default::default(),
    /// });
    /// let spec = RequestSpec::post("/v1/audio/speech");
    /// let refused = t.send_stream(&spec, 0, SseLimits::default()).await;
    /// assert!(matches!(refused, Err(TransportError::Budget(_))));
    /// # }
    /// ```
    pub async fn send_stream(
        &self,
        spec: &RequestSpec,
        quota: i64,
        limits: SseLimits,
    ) -> Result<StreamExchange, TransportError> {
        let judge = |result: &Result<StreamExchange, ClientError>| match result {
            Ok(r) if r.exchange.status.as_u16() == 429 => Ok(Next::Retry(retry_after(&r.exchange))),
            _ => Ok(Next::Answer),
        };
        self.retrying(
            spec,
            quota,
            || self.client.send_stream(spec, limits),
            judge,
            |_| {},
        )
        .await
    }

    /// A dry run records `spec` and refuses to send it; otherwise passes.
    fn plan_or_pass(&self, spec: &RequestSpec) -> Result<(), TransportError> {
        if self.inner.dry_run {
            self.inner.planned.lock().push(spec.clone());
            return Err(TransportError::DryRun);
        }
        Ok(())
    }

    /// Waits out the backoff before retry `attempt` (`Retry-After` honoured) and counts the
    /// retry; `false`, without waiting, when the wait would reach the deadline or the run's
    /// retry budget is spent.
    async fn wait_to_retry(&self, attempt: u32, retry_after: Option<std::time::Duration>) -> bool {
        let shared = &self.inner;
        let delay = {
            let mut rng = shared.rng.lock();
            shared.backoff.delay(attempt, retry_after, &mut rng)
        };
        if self.wait_reaches_deadline(delay) || !self.take_retry() {
            return false;
        }
        tokio::time::sleep(delay).await;
        true
    }

    /// One exchange under the budget, the pacer, the concurrency permits and the deadline.
    async fn under_rules<T>(
        &self,
        quota: i64,
        request: impl std::future::Future<Output = T>,
    ) -> Result<T, TransportError> {
        let shared = &self.inner;
        shared.bytes.check()?;
        shared.budget.acquire(quota)?;
        shared.pacer.wait().await;
        let _permit = shared
            .permits
            .acquire()
            .await
            .map_err(|_| TransportError::Deadline)?;
        shared.sent.fetch_add(1, Ordering::SeqCst);
        let remaining = shared.deadline.saturating_duration_since(Instant::now());
        tokio::time::timeout(remaining, request)
            .await
            .map_err(|_| TransportError::Deadline)
    }

    async fn send_with(
        &self,
        spec: &RequestSpec,
        quota: i64,
        retry_5xx: bool,
    ) -> Result<Exchange, TransportError> {
        let judge = |result: &Result<Exchange, ClientError>| {
            if let Ok(ex) = result {
                self.note_replay(spec, ex)?;
            }
            // A status that outlasted every retry on a route is not transient there: later
            // answers with it are judged as they are, not retried again.
            Ok(match result {
                Ok(ex) if self.is_persistent(spec, ex.status.as_u16()) => Next::Answer,
                Ok(ex)
                    if is_retryable(ex.status)
                        && !is_deterministic_error(ex)
                        && (retry_5xx || ex.status.as_u16() == 429) =>
                {
                    Next::Retry(retry_after(ex))
                }
                Err(ClientError::Connect(_) | ClientError::Malformed(_))
                    if spec.method == http::Method::GET =>
                {
                    Next::Retry(None)
                }
                _ => Next::Answer,
            })
        };
        let exhausted = |result: &Result<Exchange, ClientError>| {
            if let Ok(ex) = result {
                self.mark_persistent(spec, ex.status.as_u16());
            }
        };
        self.retrying(spec, quota, || self.client.send(spec), judge, exhausted)
            .await
    }

    /// Notes an answer from a recording (`x-gatecheck-replay: matched`, and its recorded
    /// time); refuses one the recording does not hold (`unmatched`), unless the transport is
    /// direct ([`Transport::direct`]), which returns it as the answer it is.
    fn note_replay(&self, spec: &RequestSpec, ex: &Exchange) -> Result<(), TransportError> {
        let shared = &self.inner;
        if ex.header(REPLAY_HEADER) == Some(REPLAY_MATCHED) {
            shared.replayed.store(true, Ordering::Relaxed);
            if let Some(t) = ex
                .header(REPLAY_TIME_HEADER)
                .and_then(|v| v.trim().parse::<i64>().ok())
            {
                *shared.replay_time.lock() = Some((t, Instant::now()));
            }
        }
        if !shared.direct && ex.header(REPLAY_HEADER) == Some(REPLAY_UNMATCHED) {
            return Err(TransportError::NotInRecording(format!(
                "{} {}",
                spec.method, spec.path
            )));
        }
        Ok(())
    }

    /// The one retry loop: sends `spec` with `send` (recorded instead by a dry run), each
    /// attempt under the run's rules ([`Transport::under_rules`]; only the first is charged
    /// `quota`), until `judge` takes an attempt's result as the answer, the retries are spent
    /// (`exhausted` sees the last result), or a retry's wait would reach the deadline or the
    /// retry budget is spent. `judge` may refuse a result with an error.
    async fn retrying<R, Fut>(
        &self,
        spec: &RequestSpec,
        quota: i64,
        send: impl Fn() -> Fut,
        judge: impl Fn(&Result<R, ClientError>) -> Result<Next, TransportError>,
        exhausted: impl Fn(&Result<R, ClientError>),
    ) -> Result<R, TransportError>
    where
        Fut: std::future::Future<Output = Result<R, ClientError>>,
        R: ResponseBytes,
    {
        self.plan_or_pass(spec)?;
        let mut attempt = 0u32;
        loop {
            if self.past_deadline() {
                return Err(TransportError::Deadline);
            }
            let quota = if attempt == 0 { quota } else { 0 };
            let result = self.under_rules(quota, send()).await?;
            if let Ok(r) = &result {
                self.inner.bytes.charge(r.response_bytes());
            }
            let retry_after = match judge(&result)? {
                Next::Answer => return result.map_err(Into::into),
                Next::Retry(retry_after) => retry_after,
            };
            if attempt >= self.inner.backoff.max_retries {
                exhausted(&result);
                return result.map_err(Into::into);
            }
            if !self.wait_to_retry(attempt, retry_after).await {
                return result.map_err(Into::into);
            }
            attempt += 1;
        }
    }
}

/// The bytes of an answer, as the run's [`ByteBudget`] is charged them.
trait ResponseBytes {
    fn response_bytes(&self) -> u64;
}

impl ResponseBytes for Exchange {
    fn response_bytes(&self) -> u64 {
        self.body.len() as u64
    }
}

impl ResponseBytes for StreamExchange {
    fn response_bytes(&self) -> u64 {
        match &self.events {
            Some(read) => read.bytes as u64,
            None => self.exchange.body.len() as u64,
        }
    }
}

/// The wait an answer asks for before a retry (`Retry-After`).
fn retry_after(ex: &Exchange) -> Option<std::time::Duration> {
    parse_retry_after(ex.header(http::header::RETRY_AFTER.as_str()))
}

/// What the retry loop does with one attempt's result.
enum Next {
    /// Return it.
    Answer,
    /// Retry it, waiting at least this long (`Retry-After`).
    Retry(Option<std::time::Duration>),
}

/// A 500 that carries a request-validation code is an answer, not a transient fault: retrying
/// it would give the same.
/// new-api's 503 `model_not_found` for a model no channel serves is one too (DECISIONS NA5): a
/// typo in the model name does not heal, so the runner never retries it, although the spec
/// tells clients to retry 503.
fn is_deterministic_error(ex: &Exchange) -> bool {
    if is_new_api_unknown_model(ex) {
        return true;
    }
    if ex.status.as_u16() != 500 {
        return false;
    }
    ex.error_code()
        .is_some_and(|c| c == "invalid_request" || c.starts_with("invalid"))
}

/// Whether `ex` is new-api's answer to a model no channel serves: 503 with code
/// `model_not_found` (DECISIONS NA5, [`Rejection::UnknownModel`]).
pub(crate) fn is_new_api_unknown_model(ex: &Exchange) -> bool {
    let code = ex.error_code();
    Rejection::UnknownModel.answered_in(Profile::NewApi, ex.status.as_u16(), code.as_deref())
}
