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

/// How far a request's Unix time may be from the recorded one and still be the same request,
/// in seconds. A client of a replay draws its times from the recorded time it is handed
/// (`x-gatecheck-replay-time`) where the recorded run read its clock: the two readings of
/// the same instant differ by the seconds between an answer and the draw, never by the
/// hours and days between two different times a client sends (an hour ago, in ten days).
pub const TIME_SLACK_SECS: i64 = 60;

/// Whether a request's Unix times (`client`) are the recorded request's (`recorded`): as many,
/// each within [`TIME_SLACK_SECS`]. A request whose `expired_time` differs is another request:
/// its answer was not recorded. A recording made before `request.times` was kept has none:
/// its requests match on their placeholders alone, as they did.
///
/// ```
/// use gatecheck_recording::times_fit;
/// assert!(times_fit(&[1_795_860_091], &[1_795_860_092]));
/// assert!(!times_fit(&[1_814_887_286], &[1_795_860_091]));
/// assert!(!times_fit(&[1_795_860_091], &[]) && times_fit(&[], &[]));
/// ```
pub fn times_fit(recorded: &[i64], client: &[i64]) -> bool {
    recorded.is_empty()
        || recorded.len() == client.len()
            && recorded
                .iter()
                .zip(client)
                .all(|(r, c)| (r - c).abs() <= TIME_SLACK_SECS)
}

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
/// use gatecheck_recording::{Matcher, Recording};
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
    /// # let recording: gatecheck_recording::Recording = todo!();
    /// let m = gatecheck_recording::Matcher::new(recording, &[("API_KEY".into(), "sk-x1234567".into())], "http://127.0.0.1:8080");
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
    /// # let m: gatecheck_recording::Matcher = todo!();
    /// println!("{}", m.recording().manifest.target.name);
    /// ```
    pub fn recording(&self) -> &Recording {
        &self.recording
    }

    /// A request normalized as the recorder normalized it.
    ///
    /// ```no_run
    /// # let m: gatecheck_recording::Matcher = todo!();
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
    /// recorded answers in order, the last repeating. Only a recorded request with the same
    /// Unix times ([`times_fit`]) answers: a request whose times differ from every recorded
    /// one has no answer (`None`), never another time's. With a `gate`, a later answer waits
    /// until the clock has advanced as far as it had when it was recorded (an earlier one
    /// repeats meanwhile).
    ///
    /// ```no_run
    /// # let m: gatecheck_recording::Matcher = todo!();
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
        let fits = |i: usize| {
            let recorded = &self.recording.exchanges[list[i]].request.times;
            times_fit(recorded, &request.times)
        };
        let index = {
            let mut cursors = self.cursors.lock();
            if cursors.len() >= MAX_CURSORS {
                // The stories' cursors go first (each remapped id has its own): memory stays
                // bounded, and an old story polled again starts over.
                cursors.retain(|k, _| k.starts_with('\n'));
            }
            let cursor = cursors.entry(format!("{thread}\n{key}")).or_insert(0);
            let floor = cursor.saturating_sub(1);
            // The next recorded answer of these times, else the last one already given.
            let start = (*cursor).min(list.len());
            let mut i = (start..list.len())
                .find(|&i| fits(i))
                .or_else(|| (0..start).rev().find(|&i| fits(i)))?;
            if let Some(g) = gate {
                while let Some(back) = (floor..i).rev().find(|&j| fits(j))
                    && !self.reached(list[i], g)
                {
                    i = back;
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
    /// # let m: gatecheck_recording::Matcher = todo!();
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
    /// # let m: gatecheck_recording::Matcher = todo!();
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
    gatecheck_schemas::routes::find_route(method, path)
        .map_or_else(|| path.to_owned(), |r| r.path.to_owned())
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
            + u8::from(times_fit(&r.times, &request.times))
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
    } else if !times_fit(&r.times, &request.times) {
        differs.push(format!(
            "times {:?} (recorded {:?}, {TIME_SLACK_SECS} s apart at most)",
            request.times, r.times
        ));
    }
    Some((best, differs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A recording of three key updates that differ only in `expired_time`, each answered
    /// with the time it stored.
    fn recording(times: &[i64]) -> Recording {
        let exchanges = times
            .iter()
            .enumerate()
            .map(|(i, t)| {
                serde_json::from_value(json!({
                    "seq": i + 1,
                    "request": {"method": "PUT", "path": "/api/token/", "headers": {},
                        "body": {"kind": "json", "json": {"id": 9, "expired_time": "{{UNIX_TIME}}"}},
                        "times": [t]},
                    "response": {"status": 200, "headers": [],
                        "body": {"kind": "json", "json": {"success": true, "data": {"expired_time": t}}}},
                    "elapsed_ms": 1
                }))
                .expect("exchange")
            })
            .collect();
        Recording {
            manifest: serde_json::from_value(json!({
                "format_version": 2, "target": {"kind": "t", "name": "t"},
                "recorded_at": "2026-11-28T11:00:00Z", "gatecheck_version": "0", "mode": "drive",
                "secrets": [], "exchanges": times.len()
            }))
            .expect("manifest"),
            exchanges,
        }
    }

    fn put(m: &Matcher, t: i64) -> Option<i64> {
        let body = json!({"id": 9, "expired_time": t}).to_string();
        let mut headers = http::HeaderMap::new();
        headers.insert(
            "content-type",
            http::HeaderValue::from_static("application/json"),
        );
        let req = m.normalize("PUT", "/api/token/", &headers, body.as_bytes());
        let ex = m.take(&req, "", None)?;
        let crate::RecordedBody::Json { json } = &ex.response.body else {
            return None;
        };
        json["data"]["expired_time"].as_i64()
    }

    #[test]
    fn a_request_gets_only_the_answer_recorded_for_its_times() {
        // `expired_time 1795860091 was stored as 1814887286`: the strict replay took
        // a request of another time for the same exchange and answered the recorded value.
        let (a, b, c) = (1_795_860_091, 1_814_887_286, 1_827_365_705);
        let m = Matcher::new(recording(&[a, b, c]), &[], "http://127.0.0.1:1");
        // Out of order, and a second late: each gets its own recorded answer.
        assert_eq!(put(&m, b + 1), Some(b));
        assert_eq!(put(&m, a), Some(a));
        assert_eq!(put(&m, c - 1), Some(c));
        // Sent again: the last answer of that time repeats.
        assert_eq!(put(&m, b), Some(b));
        // A time the recording never saw has no answer, and the miss says why.
        assert_eq!(put(&m, a + 86_400), None);
        let body = json!({"id": 9, "expired_time": a + 86_400}).to_string();
        let mut headers = http::HeaderMap::new();
        headers.insert(
            "content-type",
            http::HeaderValue::from_static("application/json"),
        );
        let miss = m.miss(&m.normalize("PUT", "/api/token/", &headers, body.as_bytes()));
        assert!(miss.route_recorded);
        assert!(
            miss.differs.iter().any(|d| d.starts_with("times")),
            "{miss}"
        );
    }

    #[test]
    fn identical_requests_still_walk_the_recorded_answers_in_order() {
        let m = Matcher::new(recording(&[5_000_000_000, 5_000_000_000]), &[], "http://x");
        let put_seq = |m: &Matcher| {
            let body = json!({"id": 9, "expired_time": 5_000_000_000_i64}).to_string();
            let req = m.normalize(
                "PUT",
                "/api/token/",
                &http::HeaderMap::new(),
                body.as_bytes(),
            );
            m.take(&req, "", None).map(|e| e.seq)
        };
        assert_eq!(put_seq(&m), Some(1));
        assert_eq!(put_seq(&m), Some(2));
        assert_eq!(put_seq(&m), Some(2));
    }
}
