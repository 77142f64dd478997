//! Finding the recorded answer of a request: an index by match key (method, path and query,
//! normalized `Authorization`, normalized body), cursors that hand identical requests the
//! recorded answers in order (the last repeating), and the near-miss report of a request the
//! recording does not hold.

use super::{
    match_key, normalize_request, RecordedExchange, RecordedRequest, Recording, Substitutions,
    BASE_URL_PLACEHOLDER, DEFAULT_BODY_LIMIT,
};
use parking_lot::Mutex;
use std::collections::{HashMap, HashSet};

/// The most cursors kept (one per story and recorded request); past it the stories' go.
const MAX_CURSORS: usize = 200_000;

/// A request the recording did not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmatched {
    /// `METHOD path`.
    pub request: String,
    /// The closest recorded request, `#seq METHOD path`, if any.
    pub closest: Option<String>,
    /// What differs from the closest (`path`, `authorization`, `body: ...`).
    pub differs: Vec<String>,
    /// Whether some recorded request has the same method and path template (the route was
    /// recorded, this request differs).
    pub route_recorded: bool,
}

impl std::fmt::Display for Unmatched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.request)?;
        if let Some(c) = &self.closest {
            write!(f, " (closest: {c}; differs in {})", self.differs.join("; "))?;
        }
        Ok(())
    }
}

/// Holds a later recorded state back until the clock has advanced as far as it had when that
/// state was recorded.
#[derive(Debug, Clone, Copy)]
pub struct Gate {
    /// When the story began in the recording (ms after the recording started).
    pub recorded_origin_ms: u64,
    /// How long ago it began on the replay's clock, ms.
    pub elapsed_ms: i64,
}

/// The recorded answers of a recording, found by normalized request.
///
/// ```no_run
/// use gatecheck_schemas::recording::{Matcher, Recording};
/// let recording = Recording::load("fixtures/foreign/litellm".as_ref()).unwrap();
/// let matcher = Matcher::new(recording, &[], "http://127.0.0.1:1");
/// assert!(matcher.unused().len() > 0);
/// ```
#[derive(Debug)]
pub struct Matcher {
    recording: Recording,
    by_key: HashMap<String, Vec<usize>>,
    /// Next recorded answer per (thread, key).
    cursors: Mutex<HashMap<String, usize>>,
    used: Mutex<HashSet<usize>>,
    subs: Substitutions,
}

impl Matcher {
    /// Indexes `recording`. `secrets`: the replay's values of the recorded placeholders (a
    /// placeholder without one stands for itself: its encodings match the recorded ones);
    /// `base_url`: the replay's own base URL (it becomes `{{BASE_URL}}` in requests).
    ///
    /// ```no_run
    /// # let recording: gatecheck_schemas::recording::Recording = todo!();
    /// let m = gatecheck_schemas::recording::Matcher::new(recording, &[("API_KEY".into(), "sk-x1234567".into())], "http://127.0.0.1:8080");
    /// # let _ = m;
    /// ```
    pub fn new(recording: Recording, secrets: &[(String, String)], base_url: &str) -> Self {
        let mut subs = Substitutions::default();
        for (name, value) in secrets {
            subs.add_secret(name, value);
        }
        // A recorded secret the replay was given no value for reaches the client as its
        // placeholder (a key the target handed out); the client's encodings of the
        // placeholder are the recorded encodings of the secret.
        for name in &recording.manifest.secrets {
            if !secrets.iter().any(|(n, _)| n == name) {
                subs.add_secret(name, &format!("{{{{{name}}}}}"));
            }
        }
        subs.add_literal(base_url, BASE_URL_PLACEHOLDER);
        let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, ex) in recording.exchanges.iter().enumerate() {
            by_key.entry(match_key(&ex.request)).or_default().push(i);
        }
        Self {
            recording,
            by_key,
            cursors: Mutex::new(HashMap::new()),
            used: Mutex::new(HashSet::new()),
            subs,
        }
    }

    /// The recording.
    ///
    /// ```no_run
    /// # let m: gatecheck_schemas::recording::Matcher = todo!();
    /// println!("{}", m.recording().manifest.target.name);
    /// ```
    pub fn recording(&self) -> &Recording {
        &self.recording
    }

    /// A request normalized as the recorder normalized it.
    ///
    /// ```no_run
    /// # let m: gatecheck_schemas::recording::Matcher = todo!();
    /// let req = m.normalize("GET", "/v1/models", &http::HeaderMap::new(), b"");
    /// assert_eq!(req.method, "GET");
    /// ```
    pub fn normalize(
        &self,
        method: &str,
        path: &str,
        headers: &http::HeaderMap,
        body: &[u8],
    ) -> RecordedRequest {
        normalize_request(method, path, headers, body, &self.subs, DEFAULT_BODY_LIMIT)
    }

    /// The recorded exchange answering `request`: identical requests of one `thread` get the
    /// recorded answers in order, the last repeating. With a `gate`, a later answer waits
    /// until the clock has advanced as far as it had when it was recorded (an earlier one
    /// repeats meanwhile).
    ///
    /// ```no_run
    /// # let m: gatecheck_schemas::recording::Matcher = todo!();
    /// let req = m.normalize("GET", "/v1/models", &http::HeaderMap::new(), b"");
    /// if let Some(ex) = m.take(&req, "", None) {
    ///     println!("{}", ex.response.status);
    /// }
    /// ```
    pub fn take(
        &self,
        request: &RecordedRequest,
        thread: &str,
        gate: Option<Gate>,
    ) -> Option<&RecordedExchange> {
        let key = match_key(request);
        let list = self.by_key.get(&key)?;
        let index = {
            let mut cursors = self.cursors.lock();
            if cursors.len() >= MAX_CURSORS {
                // The stories' cursors go first (each remapped id has its own): memory stays
                // bounded, and an old story polled again starts over.
                cursors.retain(|k, _| k.starts_with('\n'));
            }
            let cursor = cursors.entry(format!("{thread}\n{key}")).or_insert(0);
            let floor = cursor.saturating_sub(1);
            let mut i = (*cursor).min(list.len() - 1);
            if let Some(g) = gate {
                while i > floor && !self.reached(list[i], g) {
                    i -= 1;
                }
            }
            *cursor = i + 1;
            list[i]
        };
        self.used.lock().insert(index);
        Some(&self.recording.exchanges[index])
    }

    fn reached(&self, index: usize, gate: Gate) -> bool {
        match self.recording.exchanges[index].at_ms {
            Some(at) => at.saturating_sub(gate.recorded_origin_ms) as i64 <= gate.elapsed_ms,
            None => true,
        }
    }

    /// Recorded exchanges that no request used, by `seq`.
    ///
    /// ```no_run
    /// # let m: gatecheck_schemas::recording::Matcher = todo!();
    /// println!("{:?}", m.unused());
    /// ```
    pub fn unused(&self) -> Vec<u64> {
        let used = self.used.lock();
        (0..self.recording.exchanges.len())
            .filter(|i| !used.contains(i))
            .map(|i| self.recording.exchanges[i].seq)
            .collect()
    }

    /// The near-miss report of a request that matched nothing.
    ///
    /// ```no_run
    /// # let m: gatecheck_schemas::recording::Matcher = todo!();
    /// let req = m.normalize("GET", "/v1/nothing", &http::HeaderMap::new(), b"");
    /// println!("{}", m.miss(&req));
    /// ```
    pub fn miss(&self, request: &RecordedRequest) -> Unmatched {
        let closest = closest(&self.recording.exchanges, request);
        let template = route_of(&request.method, &request.path);
        Unmatched {
            request: format!("{} {}", request.method, request.path),
            closest: closest
                .as_ref()
                .map(|(ex, _)| format!("#{} {} {}", ex.seq, ex.request.method, ex.request.path)),
            differs: closest.map(|(_, d)| d).unwrap_or_default(),
            route_recorded: self.recording.exchanges.iter().any(|e| {
                e.request.method == request.method
                    && route_of(&e.request.method, &e.request.path) == template
            }),
        }
    }
}

/// The path template of a request (`/v1/videos/{task_id}`), or its path without the query.
fn route_of(method: &str, path: &str) -> String {
    let path = path.split('?').next().unwrap_or_default();
    crate::routes::find_route(method, path).map_or_else(|| path.to_owned(), |r| r.path.to_owned())
}

/// The recorded exchange most like `request`, and what differs.
fn closest<'a>(
    exchanges: &'a [RecordedExchange],
    request: &RecordedRequest,
) -> Option<(&'a RecordedExchange, Vec<String>)> {
    let template = route_of(&request.method, &request.path);
    let score = |r: &RecordedRequest| {
        u8::from(r.method == request.method) * 4
            + u8::from(route_of(&r.method, &r.path) == template) * 8
            + u8::from(r.path == request.path)
            + u8::from(r.headers.get("authorization") == request.headers.get("authorization")) * 2
            + u8::from(r.body == request.body) * 2
    };
    let best = exchanges
        .iter()
        .max_by_key(|e| (score(&e.request), std::cmp::Reverse(e.seq)))?;
    let r = &best.request;
    let mut differs = Vec::new();
    if r.method != request.method {
        differs.push(format!("method {} (recorded {})", request.method, r.method));
    }
    if r.path != request.path {
        differs.push(format!("path {} (recorded {})", request.path, r.path));
    }
    if r.headers.get("authorization") != request.headers.get("authorization") {
        let shown = |r: &RecordedRequest| {
            r.headers
                .get("authorization")
                .map_or_else(|| "absent".to_owned(), |a| format!("`{a}`"))
        };
        differs.push(format!(
            "authorization {} (recorded {})",
            shown(request),
            shown(r)
        ));
    }
    if r.body != request.body {
        differs.push(format!(
            "body {} (recorded {})",
            request.body.summary(300),
            r.body.summary(300)
        ));
    }
    Some((best, differs))
}
