//! The mock's configuration (what `gatecheck serve`'s flags and [`MockServerBuilder`] set).
//!
//! [`MockServerBuilder`]: crate::MockServerBuilder

use crate::fixtures::Fixtures;
use crate::harness::clock::ClockMode;
use crate::harness::faults::Fault;
use gatecheck_schemas::{Era, NamedProfile, Profile};
use std::path::PathBuf;
use std::time::Duration;

/// The default upload limit: 25 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = gatecheck_schemas::rules::media::MAX_UPLOAD_BYTES;
/// The default size of the request journal.
pub const DEFAULT_JOURNAL_CAPACITY: usize = 1000;
/// The default limit of open connections; beyond it new ones wait in the accept queue.
pub const DEFAULT_MAX_CONNECTIONS: usize = 4096;
/// The default time allowed to receive a whole request body.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// The default wait between two events of a streamed answer.
pub const DEFAULT_STREAM_EVENT_GAP: Duration = Duration::from_millis(5);

/// What the waits of a streamed answer (the gap between events, a script's waits) are
/// measured on.
///
/// ```
/// use gatecheck_mock::{MockConfig, StreamPacing};
/// assert_eq!(MockConfig::default().stream_pacing, StreamPacing::Wall);
/// assert_eq!(StreamPacing::parse("clock"), Some(StreamPacing::Clock));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StreamPacing {
    /// Wall time: each event is sent its wait after the one before.
    #[default]
    Wall,
    /// The mock's clock: each event is scheduled at a clock time (the stream's start plus
    /// the waits before it) and is sent when the clock gets there. On a virtual clock that is
    /// when [`Clock::advance`](crate::Clock::advance) (or `POST /__mock/clock/advance`)
    /// reaches it, so a test releases the events one by one.
    Clock,
}

impl StreamPacing {
    /// Parses `wall` or `clock`.
    ///
    /// ```
    /// use gatecheck_mock::StreamPacing;
    /// assert_eq!(StreamPacing::parse("wall"), Some(StreamPacing::Wall));
    /// assert_eq!(StreamPacing::parse("sundial"), None);
    /// ```
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "wall" => Some(Self::Wall),
            "clock" => Some(Self::Clock),
            _ => None,
        }
    }
}

/// A per-key rate limit: at most `requests` per `window`.
///
/// ```
/// let limit = gatecheck_mock::RateLimit { requests: 10, window: std::time::Duration::from_secs(60) };
/// let config = gatecheck_mock::MockConfig { rate_limit: Some(limit), ..Default::default() };
/// # let _ = config;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests allowed per window.
    pub requests: u32,
    /// The window.
    pub window: Duration,
}

/// Everything the server needs to start.
///
/// ```
/// use gatecheck_mock::{ClockMode, MockConfig};
/// let config = MockConfig { clock: ClockMode::virtual_default(), seed: 1, ..MockConfig::default() };
/// assert_eq!(config.max_body_bytes, gatecheck_mock::internals::DEFAULT_MAX_BODY_BYTES);
/// ```
#[derive(Debug, Clone)]
pub struct MockConfig {
    /// Behaviour profile.
    pub profile: Profile,
    /// The era of new-api's task layer the `new-api` profile plays; `None`: the profile's
    /// default ([`Era::default_for`]: the task plugins). The `documented` profile plays the
    /// spec's letter in any era ([`MockConfig::named_profile`]).
    pub era: Option<Era>,
    /// Real or virtual clock.
    pub clock: ClockMode,
    /// Fixture data.
    pub fixtures: Fixtures,
    /// Seed of ids (request ids, task ids, key secrets) and of fault probabilities.
    pub seed: u64,
    /// Upload limit; bigger bodies get 413.
    pub max_body_bytes: usize,
    /// Whether `/__mock/*` is served.
    pub control_enabled: bool,
    /// Token that lets non-loopback peers use the control API.
    pub control_token: Option<String>,
    /// Entries kept by the request journal.
    pub journal_capacity: usize,
    /// Per-key rate limit (off when `None`).
    pub rate_limit: Option<RateLimit>,
    /// Take the client IP from `X-Forwarded-For` instead of the TCP peer.
    pub trust_forwarded_for: bool,
    /// Time allowed to send request headers.
    pub header_timeout: Duration,
    /// An idle keep-alive connection is closed after this long.
    pub idle_timeout: Duration,
    /// Faults installed at start (and again by a reset).
    pub faults: Vec<Fault>,
    /// Time allowed to receive a whole request body (a stalled or trickling body gets 408
    /// and the connection is closed).
    pub body_timeout: Duration,
    /// Open connections served at once; further connections wait in the kernel's accept
    /// queue until one closes.
    pub max_connections: usize,
    /// Where the state is kept durably: loaded at start (a corrupt file is an error), written
    /// through before every answer to a state-changing request, and written once more after
    /// shutdown has drained the open connections (group commit; see RELIABILITY.md).
    pub state_file: Option<PathBuf>,
    /// The wait between two events of a streamed answer (speech, transcription and image
    /// generation with streaming on), so that a client sees them arrive one by one.
    pub stream_event_gap: Duration,
    /// Whether stream waits are wall time or the mock's clock ([`StreamPacing`]).
    pub stream_pacing: StreamPacing,
    /// On a virtual clock: a poll of a pending video task (`GET /v1/videos/{id}`) at the same
    /// clock reading as that task's last poll moves the clock by the video fixture's
    /// `poll_after_ms` first, and task answers ask for 50 ms between polls, so that a client
    /// honouring `openai-poll-after-ms` (the OpenAI SDKs' `create_and_poll`) finishes without
    /// a test touching the clock (docs/mock.md, "Polls that move the clock"). Off by default.
    pub poll_advance: bool,
    /// Where Kling callbacks may go besides loopback: CIDRs, addresses or host names
    /// (`gatecheck serve --allow-callbacks-to`; DECISIONS D-TASK-9).
    pub callback_allow: Vec<String>,
    /// Host names besides loopback whose requests the control API answers
    /// (`gatecheck serve --allowed-host`; a leading `.` allows the names under it too).
    pub allowed_hosts: Vec<String>,
}

impl MockConfig {
    /// The named profile played: the profile, in the era it plays.
    ///
    /// ```
    /// use gatecheck_mock::MockConfig;
    /// use gatecheck_schemas::{Era, NamedProfile, Profile};
    /// let config = MockConfig { profile: Profile::NewApi, ..MockConfig::default() };
    /// assert_eq!(config.named_profile(), NamedProfile::NEW_API);
    /// let frozen = MockConfig { era: Some(Era::Adaptors), ..config };
    /// assert_eq!(frozen.named_profile(), NamedProfile::NEW_API_ADAPTORS);
    /// ```
    pub fn named_profile(&self) -> NamedProfile {
        let era = self.era.unwrap_or(Era::default_for(self.profile));
        let named = NamedProfile::new(self.profile, era);
        NamedProfile::new(self.profile, named.effective_era())
    }
}

impl Default for MockConfig {
    fn default() -> Self {
        Self {
            profile: Profile::Documented,
            era: None,
            clock: ClockMode::Real,
            fixtures: Fixtures::embedded(),
            seed: 0x6761_7465_6368_6563,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            control_enabled: true,
            control_token: None,
            journal_capacity: DEFAULT_JOURNAL_CAPACITY,
            rate_limit: None,
            trust_forwarded_for: false,
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            faults: Vec::new(),
            body_timeout: DEFAULT_BODY_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            state_file: None,
            stream_event_gap: DEFAULT_STREAM_EVENT_GAP,
            stream_pacing: StreamPacing::Wall,
            poll_advance: false,
            callback_allow: Vec::new(),
            allowed_hosts: Vec::new(),
        }
    }
}
