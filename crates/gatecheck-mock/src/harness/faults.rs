//! Fault injection: answer a matching request with an error status, a delay, a connection
//! reset or a hang. Faults come only from the control API or the library API, and a seed makes
//! their probabilities deterministic.

use gatecheck_codecs::draw::Draw;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// What a fault does.
///
/// ```
/// let kind: gatecheck_mock::FaultKind =
///     serde_json::from_str(r#"{"kind":"status","status":503}"#).unwrap();
/// assert_eq!(kind, gatecheck_mock::FaultKind::Status { status: 503, retry_after: None });
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FaultKind {
    /// Answer this status (429, 500, 503, ...) with an error body; 429 and 503 carry
    /// `Retry-After`.
    Status {
        /// The HTTP status.
        status: u16,
        /// `Retry-After` seconds (default 1 for 429 and 503).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_after: Option<u64>,
    },
    /// Wait, then serve the request normally.
    Delay {
        /// Milliseconds to wait (at most 10 minutes, as a hang).
        ms: u64,
    },
    /// Close the connection without an answer.
    Reset,
    /// Never answer (until the client gives up or the mock shuts down).
    Hang,
    /// On a streamed answer only: send half of event `event` (0-based), then close the
    /// connection.
    StreamCut {
        /// The event cut (default 1: after one whole event).
        #[serde(default = "one")]
        event: u32,
    },
    /// On a streamed answer only: wait before event `event` (0-based).
    StreamStall {
        /// The event waited for (default 1).
        #[serde(default = "one")]
        event: u32,
        /// Milliseconds of the stall (at most 10 minutes); absent: until the client gives up
        /// (at most 10 minutes).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ms: Option<u64>,
    },
    /// On a streamed answer only: event `event` (0-based) is sent with its JSON cut in half.
    StreamMalformed {
        /// The malformed event (default 1).
        #[serde(default = "one")]
        event: u32,
    },
    /// On a video platform's submit only (`POST /v1/video/generations` of a model a
    /// platform's channel serves; DECISIONS D-PLAT-11): the upstream answers new-api's submit
    /// with `status` and `body`, and the route answers as new-api relays that (after
    /// validation and the charge, which is given back).
    Upstream {
        /// The upstream's HTTP status.
        status: u16,
        /// The upstream's body: a JSON string is sent as its text, anything else as JSON.
        #[serde(default)]
        body: serde_json::Value,
    },
}

impl FaultKind {
    /// Whether the fault acts on streamed answers (and is ignored by the others).
    ///
    /// ```
    /// use gatecheck_mock::FaultKind;
    /// assert!(FaultKind::StreamCut { event: 2 }.is_stream());
    /// assert!(!FaultKind::Reset.is_stream());
    /// ```
    pub fn is_stream(&self) -> bool {
        matches!(
            self,
            Self::StreamCut { .. } | Self::StreamStall { .. } | Self::StreamMalformed { .. }
        )
    }

    /// An upstream answer ([`FaultKind::Upstream`]): its status and body text.
    ///
    /// ```
    /// let kind: gatecheck_mock::FaultKind =
    ///     serde_json::from_str(r#"{"kind":"upstream","status":400,"body":{"code":"X"}}"#).unwrap();
    /// assert_eq!(kind.upstream(), Some((400, r#"{"code":"X"}"#.to_owned())));
    /// ```
    pub fn upstream(&self) -> Option<(u16, String)> {
        match self {
            Self::Upstream { status, body } => Some((
                *status,
                match body {
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Null => String::new(),
                    v => v.to_string(),
                },
            )),
            _ => None,
        }
    }
}

fn one() -> u32 {
    1
}

fn default_route() -> String {
    "*".to_owned()
}
fn default_probability() -> f64 {
    1.0
}

/// A fault rule.
///
/// `route` is a pattern over the path, with `*` matching any run of characters, optionally
/// preceded by a method: `*`, `/v1/videos*`, `POST /v1/images/generations`. Control routes
/// (`/__mock/*`) are never faulted.
///
/// ```
/// use gatecheck_mock::Fault;
/// use std::time::Duration;
/// let f = Fault::status(503).on("POST /v1/videos").times(2);
/// let d = Fault::delay(Duration::from_millis(200)).probability(0.5);
/// assert_eq!(f.times, Some(2));
/// assert_eq!(d.route, "*");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fault {
    /// Route pattern (see above).
    #[serde(default = "default_route")]
    pub route: String,
    /// What happens.
    #[serde(flatten)]
    pub kind: FaultKind,
    /// How many times it fires (forever when `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u32>,
    /// Probability of firing on a matching request, 0 to 1.
    #[serde(default = "default_probability")]
    pub probability: f64,
}

impl Fault {
    fn of(kind: FaultKind) -> Self {
        Self {
            route: default_route(),
            kind,
            times: None,
            probability: 1.0,
        }
    }

    /// Answer with `status`.
    ///
    /// ```
    /// let f = gatecheck_mock::Fault::status(429);
    /// assert!(f.matches("GET", "/anything"));
    /// ```
    pub fn status(status: u16) -> Self {
        Self::of(FaultKind::Status {
            status,
            retry_after: None,
        })
    }

    /// Delay the answer by `by`.
    ///
    /// ```
    /// use gatecheck_mock::{Fault, FaultKind};
    /// let f = Fault::delay(std::time::Duration::from_millis(250));
    /// assert_eq!(f.kind, FaultKind::Delay { ms: 250 });
    /// ```
    pub fn delay(by: Duration) -> Self {
        Self::of(FaultKind::Delay {
            ms: u64::try_from(by.as_millis()).unwrap_or(u64::MAX),
        })
    }

    /// Reset the connection.
    ///
    /// ```
    /// let f = gatecheck_mock::Fault::reset().on("/v1/videos*");
    /// assert!(f.matches("POST", "/v1/videos"));
    /// ```
    pub fn reset() -> Self {
        Self::of(FaultKind::Reset)
    }

    /// Never answer.
    ///
    /// ```
    /// let f = gatecheck_mock::Fault::hang().times(1);
    /// assert_eq!(f.times, Some(1));
    /// ```
    pub fn hang() -> Self {
        Self::of(FaultKind::Hang)
    }

    /// Cut a streamed answer in the middle of event `event` (0-based): half of it is sent,
    /// then the connection is closed. Answers that do not stream are not affected.
    ///
    /// ```
    /// use gatecheck_mock::{Fault, FaultKind};
    /// let f = Fault::stream_cut(2).on("POST /v1/audio/speech");
    /// assert_eq!(f.kind, FaultKind::StreamCut { event: 2 });
    /// ```
    pub fn stream_cut(event: u32) -> Self {
        Self::of(FaultKind::StreamCut { event })
    }

    /// Stall a streamed answer for `by` before event `event` (0-based).
    ///
    /// ```
    /// use gatecheck_mock::{Fault, FaultKind};
    /// let f = Fault::stream_stall(1, std::time::Duration::from_secs(2));
    /// assert_eq!(f.kind, FaultKind::StreamStall { event: 1, ms: Some(2000) });
    /// ```
    pub fn stream_stall(event: u32, by: Duration) -> Self {
        Self::of(FaultKind::StreamStall {
            event,
            ms: Some(u64::try_from(by.as_millis()).unwrap_or(u64::MAX)),
        })
    }

    /// Send event `event` (0-based) of a streamed answer with its JSON cut in half.
    ///
    /// ```
    /// use gatecheck_mock::{Fault, FaultKind};
    /// let f = Fault::stream_malformed(0);
    /// assert_eq!(f.kind, FaultKind::StreamMalformed { event: 0 });
    /// ```
    pub fn stream_malformed(event: u32) -> Self {
        Self::of(FaultKind::StreamMalformed { event })
    }

    /// Only on requests matching `route`.
    ///
    /// ```
    /// let f = gatecheck_mock::Fault::status(500).on("POST /v1/images/*");
    /// assert!(f.matches("POST", "/v1/images/generations"));
    /// assert!(!f.matches("GET", "/v1/images/generations"));
    /// ```
    pub fn on(mut self, route: impl Into<String>) -> Self {
        self.route = route.into();
        self
    }

    /// Fire at most `n` times.
    ///
    /// ```
    /// assert_eq!(gatecheck_mock::Fault::reset().times(3).times, Some(3));
    /// ```
    pub fn times(mut self, n: u32) -> Self {
        self.times = Some(n);
        self
    }

    /// Fire with probability `p` (clamped to 0..=1).
    ///
    /// ```
    /// assert_eq!(gatecheck_mock::Fault::hang().probability(2.0).probability, 1.0);
    /// ```
    pub fn probability(mut self, p: f64) -> Self {
        self.probability = if p.is_nan() { 0.0 } else { p.clamp(0.0, 1.0) };
        self
    }

    /// Whether the rule's route pattern matches this request.
    ///
    /// ```
    /// let f = gatecheck_mock::Fault::status(503).on("/api/*");
    /// assert!(f.matches("GET", "/api/models"));
    /// assert!(!f.matches("GET", "/v1/models"));
    /// ```
    pub fn matches(&self, method: &str, path: &str) -> bool {
        route_matches(&self.route, method, path)
    }
}

/// Whether the route pattern `route` (`*`, `/v1/videos*`, `POST /v1/images/generations`)
/// matches this request: faults and stream scripts match requests this way.
pub(crate) fn route_matches(route: &str, method: &str, path: &str) -> bool {
    let pattern = route.trim();
    match pattern.split_once(' ') {
        Some((m, p)) => m.eq_ignore_ascii_case(method) && glob(p.trim(), path),
        None => glob(pattern, path),
    }
}

/// An installed fault, as listed by `GET /__mock/faults`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActiveFault {
    /// Rule id.
    pub id: u64,
    /// The rule.
    #[serde(flatten)]
    pub fault: Fault,
    /// Times it has fired.
    pub fired: u32,
}

/// The installed faults and their seeded RNG.
#[derive(Debug)]
pub struct FaultSet {
    inner: Mutex<FaultInner>,
    /// Whether any rule is installed (lets `pick` skip the lock on the common path).
    armed: AtomicBool,
}

#[derive(Debug)]
struct FaultInner {
    rules: Vec<ActiveFault>,
    rng: Draw,
    next_id: u64,
}

impl FaultSet {
    /// An empty set whose probabilities draw from `seed`.
    pub fn new(seed: u64) -> Self {
        Self {
            inner: Mutex::new(FaultInner {
                rules: Vec::new(),
                rng: Draw::seeded(seed ^ 0x00fa_0175),
                next_id: 1,
            }),
            armed: AtomicBool::new(false),
        }
    }

    /// Installs a rule and returns its id.
    pub fn add(&self, fault: Fault) -> u64 {
        let p = fault.probability;
        let fault = fault.probability(p);
        let mut inner = self.inner.lock();
        let id = inner.next_id;
        inner.next_id += 1;
        inner.rules.push(ActiveFault {
            id,
            fault,
            fired: 0,
        });
        self.armed.store(true, Ordering::Release);
        id
    }

    /// Reseeds the probability RNG.
    pub fn reseed(&self, seed: u64) {
        self.inner.lock().rng = Draw::seeded(seed);
    }

    /// Removes every rule.
    pub fn clear(&self) {
        let mut inner = self.inner.lock();
        inner.rules.clear();
        self.armed.store(false, Ordering::Release);
    }

    /// Removes one rule; false when unknown.
    pub fn remove(&self, id: u64) -> bool {
        let mut inner = self.inner.lock();
        let before = inner.rules.len();
        inner.rules.retain(|r| r.id != id);
        self.armed.store(!inner.rules.is_empty(), Ordering::Release);
        inner.rules.len() != before
    }

    /// The installed rules.
    pub fn list(&self) -> Vec<ActiveFault> {
        self.inner.lock().rules.clone()
    }

    /// The fault that fires for this request, if any (the first matching rule that still has
    /// firings left and wins its probability draw). Stream faults are left to
    /// [`FaultSet::pick_stream`].
    pub fn pick(&self, method: &str, path: &str) -> Option<FaultKind> {
        self.pick_where(method, path, |k| {
            !k.is_stream() && !matches!(k, FaultKind::Upstream { .. })
        })
    }

    /// The upstream fault ([`FaultKind::Upstream`]) that fires for a platform's submit, among
    /// those `relayable` accepts (as [`FaultKind::upstream`] gives them): the others are left
    /// unfired.
    pub fn pick_upstream(
        &self,
        method: &str,
        path: &str,
        relayable: impl Fn(u16, &str) -> bool,
    ) -> Option<FaultKind> {
        self.pick_where(method, path, |k| {
            k.upstream().is_some_and(|(s, b)| relayable(s, &b))
        })
    }

    /// The stream fault that fires for this streamed answer, if any (as [`FaultSet::pick`],
    /// among the stream faults only).
    pub fn pick_stream(&self, method: &str, path: &str) -> Option<FaultKind> {
        self.pick_where(method, path, FaultKind::is_stream)
    }

    fn pick_where(
        &self,
        method: &str,
        path: &str,
        kind: impl Fn(&FaultKind) -> bool,
    ) -> Option<FaultKind> {
        if !self.armed.load(Ordering::Acquire) {
            return None;
        }
        let mut inner = self.inner.lock();
        if inner.rules.is_empty() {
            return None;
        }
        let FaultInner { rules, rng, .. } = &mut *inner;
        for rule in rules.iter_mut() {
            if !kind(&rule.fault.kind) || rule.fault.times.is_some_and(|t| rule.fired >= t) {
                continue;
            }
            if !rule.fault.matches(method, path) {
                continue;
            }
            let p = rule.fault.probability;
            if p < 1.0 && rng.unit() >= p {
                continue;
            }
            rule.fired += 1;
            return Some(rule.fault.kind.clone());
        }
        None
    }
}

/// Glob match with `*` as "any run of characters".
fn glob(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_matches() {
        assert!(glob("*", "/v1/videos"));
        assert!(glob("/v1/*", "/v1/videos/x"));
        assert!(glob("/v1/videos*", "/v1/videos"));
        assert!(!glob("/v1/videos", "/v1/videos/x"));
        assert!(glob("/v1/*/x", "/v1/videos/x"));
    }
}
