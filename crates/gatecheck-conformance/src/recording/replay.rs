//! The replay server: answers each request from a [`Recording`].
//!
//! A request is normalized as the recorder normalized it (with the replay's own secrets
//! becoming the same placeholders) and matched on method, path and query, `Authorization` and
//! body (the format's `Matcher`, which the mock's replay uses too). Identical requests get the recorded answers in order, the last one
//! repeating. A request that matches nothing gets [`UNMATCHED_STATUS`] with a JSON error that
//! names the closest recorded request and what differs; it is counted ([`ReplayServer::unmatched`]).

use super::format::{RecordedExchange, Recording, RecordingError, BASE_URL_PLACEHOLDER};
use bytes::Bytes;
use gatecheck_recording::{Matcher, Unmatched};
use http::{HeaderName, HeaderValue, Request, Response, StatusCode};
use http_body_util::{BodyExt as _, Full, Limited};
use hyper::body::Incoming;
use parking_lot::Mutex;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::sync::watch;

/// The status of an answer to a request the recording does not hold.
pub const UNMATCHED_STATUS: u16 = 599;

struct State {
    matcher: Matcher,
    unmatched: Mutex<Vec<Unmatched>>,
    answered: Mutex<u64>,
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
        let state = Arc::new(State {
            matcher: Matcher::new(recording, secrets, &base_url),
            unmatched: Mutex::new(Vec::new()),
            answered: Mutex::new(0),
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
        self.state.matcher.unused()
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
    let request = state
        .matcher
        .normalize(parts.method.as_str(), &path, &parts.headers, &body);
    let Some(ex) = state.matcher.take(&request, "", None) else {
        return unmatched(state, state.matcher.miss(&request));
    };
    *state.answered.lock() += 1;
    respond(state, ex)
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

fn unmatched(state: &State, entry: Unmatched) -> Response<Full<Bytes>> {
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
