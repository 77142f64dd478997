//! The library API: [`MockServer`] and its [`MockServerBuilder`], in the style of wiremock.

use crate::app::App;
use crate::clock::{Clock, ClockMode};
use crate::config::{MockConfig, RateLimit};
use crate::faults::Fault;
use crate::fixtures::Fixtures;
use crate::journal::JournalEntry;
use crate::script::StreamScript;
use crate::state::{NewKey, StateSnapshot};
use gatecheck_schemas::rules::ip;
use gatecheck_schemas::types::{Account, KeyRecord, KEY_STATUS_ENABLED};
use gatecheck_schemas::Profile;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// A running mock gateway. It shuts down gracefully when dropped.
///
/// ```no_run
/// # async fn demo() {
/// let server = gatecheck_mock::MockServer::start().await;
/// let catalog = format!("{}/api/models", server.uri());
/// let auth = format!("Bearer {}", server.demo_key());
/// # let _ = (catalog, auth);
/// # }
/// ```
#[derive(Debug)]
pub struct MockServer {
    addr: SocketAddr,
    app: Arc<App>,
    shutdown: watch::Sender<bool>,
    task: Option<JoinHandle<()>>,
    /// The replay front (with [`MockServerBuilder::replay`]) and its accept loop.
    front: Option<(Arc<crate::replay::Front>, JoinHandle<()>)>,
}

/// Configures and starts a [`MockServer`].
///
/// ```no_run
/// use gatecheck_mock::{ClockMode, MockServer};
/// use gatecheck_schemas::Profile;
/// # async fn demo() {
/// let server = MockServer::builder()
///     .profile(Profile::NewApi)
///     .clock(ClockMode::virtual_default())
///     .seed(7)
///     .start()
///     .await;
/// # let _ = server;
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct MockServerBuilder {
    config: MockConfig,
    bind: SocketAddr,
    /// A socket already listening, which wins over `bind` (shared by clones of the builder).
    listener: Option<Arc<std::net::TcpListener>>,
    state: Option<StateSnapshot>,
    replay: Option<crate::replay::ReplayOptions>,
}

impl Default for MockServerBuilder {
    fn default() -> Self {
        Self {
            config: MockConfig::default(),
            bind: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            listener: None,
            state: None,
            replay: None,
        }
    }
}

impl MockServerBuilder {
    /// Replaces the whole configuration.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .config(gatecheck_mock::MockConfig::default())
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn config(mut self, config: MockConfig) -> Self {
        self.config = config;
        self
    }

    /// The behaviour profile (default `documented`).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .profile(gatecheck_schemas::Profile::NewApi)
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn profile(mut self, profile: Profile) -> Self {
        self.config.profile = profile;
        self
    }

    /// Real or virtual clock (default real).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .clock(gatecheck_mock::ClockMode::virtual_default())
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn clock(mut self, clock: ClockMode) -> Self {
        self.config.clock = clock;
        self
    }

    /// Fixture data (default: the embedded fixtures).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .fixtures(gatecheck_mock::Fixtures::embedded())
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn fixtures(mut self, fixtures: Fixtures) -> Self {
        self.config.fixtures = fixtures;
        self
    }

    /// Seed of ids and fault probabilities.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .seed(7)
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn seed(mut self, seed: u64) -> Self {
        self.config.seed = seed;
        self
    }

    /// Upload limit in bytes (default 25 MiB).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .max_body_bytes(1024 * 1024)
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.config.max_body_bytes = bytes;
        self
    }

    /// Turns the control API off.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .no_control()
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn no_control(mut self) -> Self {
        self.config.control_enabled = false;
        self
    }

    /// Lets non-loopback peers use the control API with this token.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .control_token("s3cret")
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn control_token(mut self, token: impl Into<String>) -> Self {
        self.config.control_token = Some(token.into());
        self
    }

    /// Journal size (default 1000).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .journal_capacity(100)
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn journal_capacity(mut self, entries: usize) -> Self {
        self.config.journal_capacity = entries;
        self
    }

    /// A per-key rate limit: `requests` per `window`.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .rate_limit(10, std::time::Duration::from_secs(60))
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn rate_limit(mut self, requests: u32, window: Duration) -> Self {
        self.config.rate_limit = Some(RateLimit { requests, window });
        self
    }

    /// Take the client IP from `X-Forwarded-For`.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .trust_forwarded_for(true)
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn trust_forwarded_for(mut self, trust: bool) -> Self {
        self.config.trust_forwarded_for = trust;
        self
    }

    /// Time allowed to send request headers.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .header_timeout(std::time::Duration::from_secs(5))
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn header_timeout(mut self, timeout: Duration) -> Self {
        self.config.header_timeout = timeout;
        self
    }

    /// Idle keep-alive connections are closed after this long.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .idle_timeout(std::time::Duration::from_secs(30))
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.config.idle_timeout = timeout;
        self
    }

    /// A fault installed at start (and again by a reset); may be called more than once.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// use gatecheck_mock::{Fault, MockServer};
    /// let server = MockServer::builder()
    ///     .fault(Fault::status(503).on("/v1/*").probability(0.1))
    ///     .seed(42)
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn fault(mut self, fault: Fault) -> Self {
        self.config.faults.push(fault);
        self
    }

    /// The address to listen on (default `127.0.0.1:0`, a random port).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .bind("127.0.0.1:0".parse().unwrap())
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn bind(mut self, addr: SocketAddr) -> Self {
        self.bind = addr;
        self
    }

    /// Serve on a socket that is already listening, instead of binding [`Self::bind`]'s
    /// address at start. Bind it with [`crate::listen`] to hold the port before the runtime
    /// exists: clients that connect early wait in the accept queue. Clones of this builder
    /// share the socket.
    ///
    /// ```no_run
    /// # async fn demo() -> std::io::Result<()> {
    /// let listener = gatecheck_mock::listen("127.0.0.1:0".parse().unwrap())?;
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .listener(listener)
    ///     .try_start()
    ///     .await?;
    /// # let _ = server;
    /// # Ok(())
    /// # }
    /// ```
    pub fn listener(mut self, listener: std::net::TcpListener) -> Self {
        self.listener = Some(Arc::new(listener));
        self
    }

    /// A state to load at start instead of the fixtures' (e.g. from a state file).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .state(gatecheck_mock::StateSnapshot::default())
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn state(mut self, state: StateSnapshot) -> Self {
        self.state = Some(state);
        self
    }

    /// Starts the server; panics when it cannot listen (see [`Self::try_start`]).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder().start().await;
    /// # let _ = server;
    /// # }
    /// ```
    pub async fn start(self) -> MockServer {
        let bind = self.bind;
        match self.try_start().await {
            Ok(server) => server,
            Err(e) => panic!("gatecheck-mock cannot listen on {bind}: {e}"),
        }
    }

    /// Keeps the state durably in `path` (JSON, the format of `GET /__mock/state`): loaded at
    /// start when the file exists (a corrupt or truncated file makes the start fail and is
    /// left untouched; it wins over [`MockServerBuilder::state`]), written through before
    /// every answer to a state-changing request, and written once more by
    /// [`MockServer::close`].
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder().state_file("state.json").start().await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn state_file(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.config.state_file = Some(path.into());
        self
    }

    /// Open connections served at once (default [`crate::internals::DEFAULT_MAX_CONNECTIONS`]); further
    /// connections wait in the kernel's accept queue until one closes.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder().max_connections(256).start().await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn max_connections(mut self, n: usize) -> Self {
        self.config.max_connections = n.max(1);
        self
    }

    /// Time allowed to receive a whole request body (default
    /// [`crate::internals::DEFAULT_BODY_TIMEOUT`]); a stalled or trickling body gets 408 and the
    /// connection is closed.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .body_timeout(std::time::Duration::from_secs(5))
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn body_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.config.body_timeout = timeout;
        self
    }

    /// The wait between two events of a streamed answer (default
    /// [`crate::internals::DEFAULT_STREAM_EVENT_GAP`]); zero sends them back to back.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .stream_event_gap(std::time::Duration::from_millis(50))
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn stream_event_gap(mut self, gap: std::time::Duration) -> Self {
        self.config.stream_event_gap = gap;
        self
    }

    /// Measures stream waits on wall time (default) or on the mock's clock: with
    /// [`StreamPacing::Clock`](crate::StreamPacing::Clock) and a virtual clock, each event is
    /// sent when [`Clock::advance`] reaches its time.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// use gatecheck_mock::{ClockMode, MockServer, StreamPacing};
    /// let server = MockServer::builder()
    ///     .clock(ClockMode::virtual_default())
    ///     .stream_pacing(StreamPacing::Clock)
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn stream_pacing(mut self, pacing: crate::StreamPacing) -> Self {
        self.config.stream_pacing = pacing;
        self
    }

    /// Answers from the recording in `dir` (docs/recording.md): a request the recording holds
    /// gets the recorded answer (identical requests in recorded order, task ids remapped, task
    /// states played back on the clock); one it does not hold falls through to the mock of
    /// the configured profile, and its journal entry says `replay: "unmatched"`. A recording
    /// that does not load makes [`MockServerBuilder::try_start`] fail.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .replay("fixtures/foreign/litellm")
    ///     .start()
    ///     .await;
    /// // ... run the client under test against server.uri() ...
    /// let missed = server
    ///     .received_requests()
    ///     .into_iter()
    ///     .filter(|r| r.replay.as_deref() == Some("unmatched"))
    ///     .count();
    /// # let _ = missed;
    /// # }
    /// ```
    pub fn replay(self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.replay_options(crate::replay::ReplayOptions::new(dir))
    }

    /// Like [`MockServerBuilder::replay`], with options: strict (unmatched requests get 404 or
    /// 501 naming the closest recorded request) and the replay's values of recorded secrets.
    ///
    /// ```no_run
    /// use gatecheck_mock::replay::ReplayOptions;
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .replay_options(ReplayOptions::new("rec").strict(true).secret("API_KEY", "sk-replay-key-1"))
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn replay_options(mut self, options: crate::replay::ReplayOptions) -> Self {
        self.replay = Some(options);
        self
    }

    /// Lets Kling callbacks go to `entry` too (a CIDR, an address or a host name; loopback is
    /// always allowed), as `gatecheck serve --allow-callbacks-to` does.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .allow_callbacks_to("10.0.0.0/8")
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn allow_callbacks_to(mut self, entry: impl Into<String>) -> Self {
        self.config.callback_allow.push(entry.into());
        self
    }

    /// Starts the server on the current tokio runtime.
    ///
    /// ```no_run
    /// # async fn demo() -> std::io::Result<()> {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .bind("127.0.0.1:3000".parse().unwrap())
    ///     .try_start()
    ///     .await?;
    /// # let _ = server;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn try_start(mut self) -> std::io::Result<MockServer> {
        let stored = match &self.config.state_file {
            Some(path) => crate::persist::load(path)?,
            None => None,
        };
        let listener = match &self.listener {
            Some(listener) => {
                // A socket handed in by the caller may still be blocking (`listen`'s is not).
                let listener = listener.try_clone()?;
                listener.set_nonblocking(true)?;
                listener
            }
            None => crate::listen(self.bind)?,
        };
        let mut listener = TcpListener::from_std(listener)?;
        let addr = listener.local_addr()?;
        let mut replay = None;
        if let Some(options) = self.replay.take() {
            let recording = crate::replay::format::Recording::load(&options.dir).map_err(|e| {
                // Flattened: the message names the file and the cause once.
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("cannot replay {}: {e}", options.dir.display()),
                )
            })?;
            // The mock goes behind the front, on a loopback port of its own.
            let front_listener = std::mem::replace(
                &mut listener,
                TcpListener::from_std(crate::listen(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?)?,
            );
            replay = Some((options, recording, front_listener));
        }
        let inner_addr = listener.local_addr()?;
        let (tx, rx) = watch::channel(false);
        let app = Arc::new_cyclic(|weak| {
            let mut app = App::new(self.config, rx.clone());
            app.persist = app.config.state_file.clone().map(|path| {
                let weak: Weak<App> = weak.clone();
                crate::persist::Persist::start(path, move || weak.upgrade().map(|a| a.snapshot()))
            });
            app
        });
        if let Some(state) = stored.or(self.state) {
            app.restore(state);
        }
        app.callbacks.set_base(format!("http://{addr}"));
        tokio::spawn(crate::callback_delivery::pump(
            Arc::downgrade(&app),
            rx.clone(),
        ));
        let task = tokio::spawn(crate::server::serve(listener, app.clone(), rx.clone()));
        let front = replay.map(|(options, recording, front_listener)| {
            let front = Arc::new(crate::replay::Front::new(
                app.clone(),
                recording,
                &options,
                addr,
                inner_addr,
            ));
            let task = tokio::spawn(crate::replay::front::serve(
                front_listener,
                front.clone(),
                rx,
            ));
            (front, task)
        });
        tracing::debug!(%addr, "gatecheck-mock listening");
        Ok(MockServer {
            addr,
            app,
            shutdown: tx,
            task: Some(task),
            front,
        })
    }
}

impl MockServer {
    /// Starts a mock with the defaults on a random loopback port.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// assert!(server.uri().starts_with("http://127.0.0.1:"));
    /// # }
    /// ```
    pub async fn start() -> Self {
        MockServerBuilder::default().start().await
    }

    /// A builder for a configured mock.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder().journal_capacity(10).start().await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn builder() -> MockServerBuilder {
        MockServerBuilder::default()
    }

    /// `http://<address>`, the base URL to point clients at.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// let models = format!("{}/api/models?page_size=5", server.uri());
    /// # let _ = models;
    /// # }
    /// ```
    pub fn uri(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The listening address.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// assert!(server.address().ip().is_loopback());
    /// # }
    /// ```
    pub fn address(&self) -> SocketAddr {
        self.addr
    }

    /// The behaviour profile.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// assert_eq!(server.profile(), gatecheck_schemas::Profile::Documented);
    /// # }
    /// ```
    pub fn profile(&self) -> Profile {
        self.app.config.profile
    }

    /// The demo account's enabled, unrestricted key, as clients send it (`sk-...`).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// assert!(server.demo_key().starts_with("sk-"));
    /// # }
    /// ```
    pub fn demo_key(&self) -> String {
        demo_key_of(&self.app.config.fixtures)
            .map(|k| format!("sk-{}", k.key))
            .unwrap_or_default()
    }

    /// The demo account (its id and personal access token for `/api/token/`).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// let account = server.demo_account();
    /// let headers = [("Authorization", account.access_token.clone()),
    ///                ("New-Api-User", account.id.to_string())];
    /// # let _ = headers;
    /// # }
    /// ```
    pub fn demo_account(&self) -> Account {
        self.app
            .config
            .fixtures
            .demo_account()
            .cloned()
            .unwrap_or(Account {
                id: 1,
                username: "demo".into(),
                access_token: String::new(),
                groups: vec![],
            })
    }

    /// The mock's clock.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// use gatecheck_mock::{ClockMode, MockServer};
    /// let server = MockServer::builder().clock(ClockMode::virtual_default()).start().await;
    /// let before = server.clock().now();
    /// server.clock().advance(std::time::Duration::from_secs(30));
    /// assert_eq!(server.clock().now(), before + 30);
    /// # }
    /// ```
    pub fn clock(&self) -> &Clock {
        &self.app.clock
    }

    /// Creates a key from a partial record and returns the full record (with its secret,
    /// without `sk-`).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// use gatecheck_mock::{MockServer, NewKey};
    /// let server = MockServer::start().await;
    /// let key = server.add_key(NewKey::new().remain_quota(100).name("tiny"));
    /// let bearer = format!("Bearer sk-{}", key.key);
    /// # let _ = bearer;
    /// # }
    /// ```
    pub fn add_key(&self, new: NewKey) -> KeyRecord {
        self.app
            .state
            .create_key(new, self.app.clock.now(), &self.app.ids)
    }

    /// One key's current record.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// let used = server.key(1).map(|k| k.used_quota);
    /// # let _ = used;
    /// # }
    /// ```
    pub fn key(&self, id: i64) -> Option<KeyRecord> {
        self.app.settle_tasks(self.app.clock.now_ms());
        self.app.state.key(id)
    }

    /// Installs a fault and returns its id.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// use gatecheck_mock::{Fault, MockServer};
    /// let server = MockServer::start().await;
    /// server.inject(Fault::status(503).on("POST /v1/videos").times(1));
    /// # }
    /// ```
    pub fn inject(&self, fault: Fault) -> u64 {
        self.app.faults.add(fault)
    }

    /// Scripts the streamed answers of a route (and optionally a model): their events,
    /// waits and a cut, for the next N of them or until [`MockServer::reset`]. The request is
    /// still admitted as without the script (key, model, validation, charge); only a request
    /// the mock streams plays it. Scripts are tried in the order they were added.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// use gatecheck_mock::{MockServer, StreamScript};
    /// use serde_json::json;
    /// use std::time::Duration;
    /// let server = MockServer::start().await;
    /// server.script_stream(
    ///     StreamScript::new("POST /v1/audio/transcriptions")
    ///         .model("gpt-4o-mini-transcribe")
    ///         .event("transcript.text.delta", &json!({"type": "transcript.text.delta", "delta": "Hel"}))
    ///         .wait(Duration::from_millis(300))
    ///         .event("transcript.text.delta", &json!({"type": "transcript.text.delta", "delta": "lo"}))
    ///         .cut_after(2) // the connection closes before any `transcript.text.done`
    ///         .times(1),
    /// );
    /// // ... a client asking for a streamed transcription now sees two deltas, then a cut ...
    /// # }
    /// ```
    pub fn script_stream(&self, script: StreamScript) {
        self.app.scripts.add(script);
    }

    /// Removes every fault.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// server.clear_faults();
    /// # }
    /// ```
    pub fn clear_faults(&self) {
        self.app.faults.clear();
    }

    /// The journal, oldest first (at most its capacity).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// // ... drive the client under test ...
    /// let calls = server.received_requests();
    /// assert!(calls.iter().all(|r| r.status != 500));
    /// # }
    /// ```
    pub fn received_requests(&self) -> Vec<JournalEntry> {
        self.app.journal.recent(None)
    }

    /// On a replaying mock ([`MockServerBuilder::replay`]): the `seq` of the recorded
    /// exchanges no request used; empty otherwise.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder().replay("rec").start().await;
    /// // ... drive the client under test ...
    /// println!("not replayed: {:?}", server.replay_unused());
    /// # }
    /// ```
    pub fn replay_unused(&self) -> Vec<u64> {
        self.front
            .as_ref()
            .map(|(f, _)| f.matcher().unused())
            .unwrap_or_default()
    }

    /// The Kling callbacks the mock made (at most the last 256), oldest first: the task, the
    /// URL, the JSON sent, the attempts and the result (delivered, failed or refused). Polling
    /// stays the source of truth; this shows what a client's callback endpoint was sent.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// use gatecheck_mock::callbacks::CallbackResult;
    /// let server = gatecheck_mock::MockServer::start().await;
    /// // ... create a Kling task with "callback_url": "http://127.0.0.1:<port>/hook" and
    /// // let it end (on the virtual clock: POST /__mock/clock/advance) ...
    /// for cb in server.callbacks() {
    ///     if let CallbackResult::Delivered { status } = cb.result {
    ///         println!("{} -> {} ({status}): {}", cb.task_id, cb.url, cb.payload["task_status"]);
    ///     }
    /// }
    /// # }
    /// ```
    pub fn callbacks(&self) -> Vec<crate::callbacks::CallbackRecord> {
        self.app.callbacks.records()
    }

    /// Dumps the whole state (accounts, keys, video tasks, clock offset).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// let json = serde_json::to_string(&server.state()).unwrap();
    /// # let _ = json;
    /// # }
    /// ```
    pub fn state(&self) -> StateSnapshot {
        self.app.settle_tasks(self.app.clock.now_ms());
        self.app.snapshot()
    }

    /// Loads a whole state.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// let saved = server.state();
    /// server.load_state(saved);
    /// # }
    /// ```
    pub fn load_state(&self, state: StateSnapshot) {
        self.app.restore(state);
    }

    /// Back to the start: the fixtures' state, an empty journal, only the configured faults, no
    /// rate-limit counts, no stream scripts, no clock offset.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// server.reset();
    /// # }
    /// ```
    pub fn reset(&self) {
        self.app.reset();
    }

    /// Stops accepting, lets open connections finish (at most 5 s), and waits.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::start().await;
    /// server.shutdown().await;
    /// # }
    /// ```
    pub async fn shutdown(self) {
        let _ = self.close().await;
    }

    /// Like [`MockServer::shutdown`], then (with a state file) writes the final state and
    /// says whether that worked: stop accepting, drain the open connections, write.
    ///
    /// ```no_run
    /// # async fn demo() -> std::io::Result<()> {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .state_file("state.json")
    ///     .start()
    ///     .await;
    /// server.close().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn close(mut self) -> std::io::Result<()> {
        let _ = self.shutdown.send(true);
        if let Some((_, task)) = self.front.take() {
            let _ = task.await;
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
        match &self.app.persist {
            Some(persist) => {
                let result = persist.write_final(self.app.snapshot()).await;
                if let Err(e) = &result {
                    tracing::error!(error = %e, "cannot write the final state");
                }
                result
            }
            None => Ok(()),
        }
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        let _ = self.shutdown.send(true);
    }
}

/// The demo key of a fixture set: the demo account's first enabled key without IP or model
/// restrictions and with limited quota.
///
/// ```
/// let fixtures = gatecheck_mock::Fixtures::embedded();
/// assert_eq!(gatecheck_mock::demo_key_of(&fixtures).map(|k| k.id), Some(1));
/// ```
pub fn demo_key_of(fixtures: &Fixtures) -> Option<&KeyRecord> {
    let user = fixtures.demo_account().map(|a| a.id).unwrap_or(1);
    fixtures.keys.iter().find(|k| {
        k.user_id == user
            && k.status == KEY_STATUS_ENABLED
            && !ip::is_restricted(k.allow_ips.as_deref())
            && !k.model_limits_enabled
            && !k.unlimited_quota
            && k.remain_quota > 0
            && k.expired_time == -1
    })
}
