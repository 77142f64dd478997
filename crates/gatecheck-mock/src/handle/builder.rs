//! [`MockServerBuilder`]: the options of a [`MockServer`], and how it starts (state file,
//! listener, replay front, the server and callback tasks).

use crate::app::App;
use crate::config::{MockConfig, RateLimit};
use crate::fixtures::Fixtures;
use crate::handle::MockServer;
use crate::harness::clock::ClockMode;
use crate::harness::faults::Fault;
use crate::state::StateSnapshot;
use gatecheck_schemas::{Era, NamedProfile, Profile};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// Configures and starts a [`MockServer`].
///
/// ```no_run
/// use gatecheck_mock::{ClockMode, MockServer};
/// use gatecheck_schemas::{Era, NamedProfile, Profile};
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
    replay: Option<crate::server::replay::ReplayOptions>,
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

    /// The era of new-api's task layer the `new-api` profile plays (default: the task
    /// plugins; [`Era::Adaptors`] is the Go-adaptor era, frozen). The `documented` profile
    /// plays the spec's letter in either.
    ///
    /// ```no_run
    /// use gatecheck_schemas::{Era, Profile};
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .profile(Profile::NewApi)
    ///     .era(Era::Adaptors)
    ///     .start()
    ///     .await;
    /// assert_eq!(server.named_profile().to_string(), "new-api-adaptors");
    /// # }
    /// ```
    pub fn era(mut self, era: Era) -> Self {
        self.config.era = Some(era);
        self
    }

    /// A named profile: its profile and its era (`documented`, `new-api`,
    /// `new-api-adaptors`).
    ///
    /// ```no_run
    /// use gatecheck_schemas::NamedProfile;
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .named_profile(NamedProfile::NEW_API_ADAPTORS)
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn named_profile(mut self, named: NamedProfile) -> Self {
        self.config.profile = named.profile;
        self.config.era = Some(named.era);
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
    /// sent when [`crate::Clock::advance`] reaches its time.
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

    /// On a virtual clock, lets polls move it ([`MockConfig::poll_advance`](crate::MockConfig::poll_advance)):
    /// a client that sleeps for `openai-poll-after-ms` between polls sees its video task end.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// use gatecheck_mock::{ClockMode, MockServer};
    /// let server = MockServer::builder()
    ///     .clock(ClockMode::virtual_default())
    ///     .poll_advance(true)
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn poll_advance(mut self, on: bool) -> Self {
        self.config.poll_advance = on;
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
        self.replay_options(crate::server::replay::ReplayOptions::new(dir))
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
    pub fn replay_options(mut self, options: crate::server::replay::ReplayOptions) -> Self {
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

    /// Lets the control API (`/__mock/*`) answer requests whose `Host` is `name` (besides
    /// loopback names and the bound address), as `gatecheck serve --allowed-host` does: a mock
    /// behind a container or CI service name. A leading `.` allows every name under it.
    ///
    /// ```no_run
    /// # async fn demo() {
    /// let server = gatecheck_mock::MockServer::builder()
    ///     .allowed_host("mock")
    ///     .start()
    ///     .await;
    /// # let _ = server;
    /// # }
    /// ```
    pub fn allowed_host(mut self, name: impl Into<String>) -> Self {
        self.config.allowed_hosts.push(name.into());
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
            Some(path) => crate::state::persist::load(path)?,
            None => None,
        };
        let listener = match &self.listener {
            Some(listener) => {
                // A socket handed in by the caller may still be blocking (`listen`'s is not).
                let listener = listener.try_clone()?;
                listener.set_nonblocking(true)?;
                listener
            }
            None => crate::server::listen::listen(self.bind)?,
        };
        let mut listener = TcpListener::from_std(listener)?;
        let addr = listener.local_addr()?;
        let mut replay = None;
        if let Some(options) = self.replay.take() {
            let recording =
                crate::server::replay::format::Recording::load(&options.dir).map_err(|e| {
                    // Flattened: the message names the file and the cause once.
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("cannot replay {}: {e}", options.dir.display()),
                    )
                })?;
            // The mock goes behind the front, on a loopback port of its own.
            let front_listener = std::mem::replace(
                &mut listener,
                TcpListener::from_std(crate::server::listen::listen(SocketAddr::from((
                    Ipv4Addr::LOCALHOST,
                    0,
                )))?)?,
            );
            replay = Some((options, recording, front_listener));
        }
        let inner_addr = listener.local_addr()?;
        let (tx, rx) = watch::channel(false);
        let app = Arc::new_cyclic(|weak| {
            let mut app = App::new(self.config, rx.clone());
            app.bound = Some(addr.ip());
            app.persist = app.config.state_file.clone().map(|path| {
                let weak: Weak<App> = weak.clone();
                crate::state::persist::Persist::start(path, move || {
                    weak.upgrade().map(|a| a.snapshot())
                })
            });
            app
        });
        if let Some(state) = stored.or(self.state) {
            app.restore(state);
        }
        app.tasks.callbacks.set_base(format!("http://{addr}"));
        tokio::spawn(crate::server::delivery::pump(
            Arc::downgrade(&app),
            rx.clone(),
        ));
        let task = tokio::spawn(crate::server::serve(listener, app.clone(), rx.clone()));
        let front = replay.map(|(options, recording, front_listener)| {
            let front = Arc::new(crate::server::replay::Front::new(
                app.clone(),
                recording,
                &options,
                addr,
                inner_addr,
            ));
            let task = tokio::spawn(crate::server::replay::front::serve(
                front_listener,
                front.clone(),
                rx,
            ));
            (front, task)
        });
        tracing::debug!(%addr, "gatecheck-mock listening");
        Ok(MockServer::assemble(addr, app, tx, task, front))
    }
}

/// The ways in: [`MockServer::start`] with the defaults, [`MockServer::builder`] for options.
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
}
