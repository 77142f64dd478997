//! The replay server: answers each request from a [`Recording`].
//!
//! A request is normalized as the recorder normalized it (with the replay's own secrets
//! becoming the same placeholders) and matched on method, path and query, `Authorization` and
//! body ([`match_key`]). Identical requests get the recorded answers in order, the last one
//! repeating. A request that matches nothing gets [`UNMATCHED_STATUS`] with a JSON error that
//! names the closest recorded request and what differs; it is counted ([`ReplayServer::unmatched`]).

use super::format::{
    match_key, normalize_request, RecordedExchange, RecordedRequest, Recording, RecordingError,
    Substitutions, BASE_URL_PLACEHOLDER, DEFAULT_BODY_LIMIT,
};
use bytes::Bytes;
use http::{HeaderName, HeaderValue, Request, Response, StatusCode};
use http_body_util::{BodyExt as _, Full, Limited};
use hyper::body::Incoming;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::sync::watch;

/// The status of an answer to a request the recording does not hold.
pub const UNMATCHED_STATUS: u16 = 599;

/// A request the recording did not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmatched {
    /// `METHOD path`.
    pub request: String,
    /// The closest recorded request, `#seq METHOD path`, if any.
    pub closest: Option<String>,
    /// What differs from the closest (`path`, `authorization`, `body: ...`).
    pub differs: Vec<String>,
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

struct State {
    recording: Recording,
    by_key: HashMap<String, Vec<usize>>,
    cursors: Mutex<HashMap<String, usize>>,
    unmatched: Mutex<Vec<Unmatched>>,
    answered: Mutex<u64>,
    subs: Substitutions,
    base_url: String,
}

/// A running replay server.
pub struct ReplayServer {
    addr: SocketAddr,
    state: Arc<State>,
    stop: watch::Sender<bool>,
}

impl std::fmt::Debug for ReplayServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplayServer")
            .field("addr", &self.addr)
            .finish()
    }
}

impl ReplayServer {
    /// Serves `recording` on `listen`. `secrets` are the replay's own values of the recorded
    /// placeholders (`("API_KEY", "sk-replay-...")`): a request that carries them matches the
    /// recorded one that carried the originals.
    pub async fn start(
        recording: Recording,
        listen: SocketAddr,
        secrets: &[(String, String)],
    ) -> Result<Self, RecordingError> {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| RecordingError::Start(format!("cannot listen on {listen}: {e}")))?;
        let addr = listener
            .local_addr()
            .map_err(|e| RecordingError::Start(e.to_string()))?;
        let base_url = format!("http://{addr}");
        let mut subs = Substitutions::default();
        for (name, value) in secrets {
            subs.add_secret(name, value);
        }
        subs.add_literal(&base_url, BASE_URL_PLACEHOLDER);
        let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, ex) in recording.exchanges.iter().enumerate() {
            by_key.entry(match_key(&ex.request)).or_default().push(i);
        }
        let state = Arc::new(State {
            recording,
            by_key,
            cursors: Mutex::new(HashMap::new()),
            unmatched: Mutex::new(Vec::new()),
            answered: Mutex::new(0),
            subs,
            base_url,
        });
        let (stop, stopped) = watch::channel(false);
        tokio::spawn(super::serve::accept_loop(
            listener,
            state.clone(),
            stopped,
            |s, req| async move { answer(&s, req).await },
        ));
        Ok(Self { addr, state, stop })
    }

    /// `http://<addr>`.
    pub fn base_url(&self) -> String {
        self.state.base_url.clone()
    }

    /// The requests that matched nothing, in order.
    pub fn unmatched(&self) -> Vec<Unmatched> {
        self.state.unmatched.lock().clone()
    }

    /// Requests answered from the recording.
    pub fn answered(&self) -> u64 {
        *self.state.answered.lock()
    }

    /// Recorded exchanges that no request used.
    pub fn unused(&self) -> Vec<u64> {
        let cursors = self.state.cursors.lock();
        let mut out: Vec<u64> = self
            .state
            .by_key
            .iter()
            .flat_map(|(key, list)| {
                let used = cursors.get(key).copied().unwrap_or(0);
                list.iter().skip(used).copied()
            })
            .map(|i| self.state.recording.exchanges[i].seq)
            .collect();
        out.sort_unstable();
        out
    }

    /// Stops accepting connections.
    pub fn stop(&self) {
        let _ = self.stop.send(true);
    }
}

impl Drop for ReplayServer {
    fn drop(&mut self) {
        self.stop();
    }
}

async fn answer(state: &State, req: Request<Incoming>) -> Response<Full<Bytes>> {
    let (parts, body) = req.into_parts();
    let body = Limited::new(body, 64 << 20)
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let path = parts
        .uri
        .path_and_query()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "/".into());
    let request = normalize_request(
        parts.method.as_str(),
        &path,
        &parts.headers,
        &body,
        &state.subs,
        DEFAULT_BODY_LIMIT,
    );
    let key = match_key(&request);
    let Some(list) = state.by_key.get(&key) else {
        return unmatched(state, &request);
    };
    let index = {
        let mut cursors = state.cursors.lock();
        let cursor = cursors.entry(key).or_insert(0);
        let i = list[(*cursor).min(list.len() - 1)];
        *cursor += 1;
        i
    };
    *state.answered.lock() += 1;
    respond(state, &state.recording.exchanges[index])
}

fn respond(state: &State, ex: &RecordedExchange) -> Response<Full<Bytes>> {
    let fill = |bytes: &[u8]| {
        super::format::replace(
            bytes,
            BASE_URL_PLACEHOLDER.as_bytes(),
            state.base_url.as_bytes(),
        )
    };
    let body = ex.response.body.to_bytes().unwrap_or_default();
    let mut res = Response::new(Full::new(Bytes::from(fill(&body))));
    *res.status_mut() = StatusCode::from_u16(ex.response.status).unwrap_or(StatusCode::BAD_GATEWAY);
    for (name, value) in &ex.response.headers {
        let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_bytes(&fill(value.as_bytes())),
        ) else {
            continue;
        };
        res.headers_mut().append(n, v);
    }
    res
}

fn unmatched(state: &State, request: &RecordedRequest) -> Response<Full<Bytes>> {
    let closest = closest(&state.recording.exchanges, request);
    let entry = Unmatched {
        request: format!("{} {}", request.method, request.path),
        closest: closest
            .as_ref()
            .map(|(ex, _)| format!("#{} {} {}", ex.seq, ex.request.method, ex.request.path)),
        differs: closest.map(|(_, d)| d).unwrap_or_default(),
    };
    let message = format!("gatecheck replay: no recorded exchange matches {entry}");
    state.unmatched.lock().push(entry);
    let body = serde_json::json!({
        "error": {"message": message, "type": "replay_unmatched", "code": "replay_unmatched"}
    });
    let mut res = Response::new(Full::new(Bytes::from(body.to_string())));
    *res.status_mut() = StatusCode::from_u16(UNMATCHED_STATUS).unwrap_or(StatusCode::NOT_FOUND);
    res.headers_mut().insert(
        http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    res
}

/// The recorded exchange most like `request`, and what differs.
fn closest<'a>(
    exchanges: &'a [RecordedExchange],
    request: &RecordedRequest,
) -> Option<(&'a RecordedExchange, Vec<String>)> {
    let route = |p: &str| p.split('?').next().unwrap_or_default().to_owned();
    let score = |r: &RecordedRequest| {
        u8::from(r.method == request.method) * 4
            + u8::from(route(&r.path) == route(&request.path)) * 8
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
