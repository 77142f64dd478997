//! The replay front: a listener in front of the mock that answers from a recording. A matched
//! request gets the recorded answer (its base URL, task ids and request id made the
//! replay's); `/__mock/*` and, unless strict, unmatched requests go to the mock behind it
//! over loopback. Every request is journaled in the mock's journal, marked `matched` or
//! `unmatched`.

use super::format::{RecordedExchange, Recording, BASE_URL_PLACEHOLDER};
use super::stories::{Found, Stories};
use super::ReplayOptions;
use super::{Gate, Matcher, Unmatched};
use crate::app::App;
use crate::harness::journal::{Record, Tag};
use crate::response::headers::REQUEST_ID_HEADER;
use crate::shutdown::wait_down;
use bytes::Bytes;
use gatecheck_schemas::rules::forwarding::is_passed_on;
use gatecheck_schemas::rules::health::{
    REPLAY_HEADER, REPLAY_MATCHED, REPLAY_TIME_HEADER, REPLAY_UNMATCHED,
};
use http::{HeaderValue, Request, Response, StatusCode};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt as _, Full, Limited};
use hyper::body::Incoming;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::sync::watch;

type FrontBody = UnsyncBoxBody<Bytes, hyper::Error>;

/// How long the mock behind may take to answer a request that fell through.
const INNER_TIMEOUT: Duration = Duration::from_secs(600);

/// The most recorded times remembered with the client's in their place.
const MAX_ECHOED: usize = 10_000;

/// A replaying front and the mock behind it.
#[derive(Debug)]
pub(crate) struct Front {
    app: Arc<App>,
    matcher: Matcher,
    stories: Stories,
    /// Recorded request times and the client's in their place (`expired_time` sent as now
    /// minus a day): answers that echo a recorded time echo the client's.
    echoed: parking_lot::Mutex<HashMap<i64, i64>>,
    /// When the recording began (its manifest's `recorded_at`), Unix seconds.
    recorded_at: Option<i64>,
    strict: bool,
    inner: String,
    addr: SocketAddr,
    client: Client<HttpConnector, Full<Bytes>>,
}

impl Front {
    /// A front on `addr` answering from `recording`, falling through to the mock at `inner`.
    pub(crate) fn new(
        app: Arc<App>,
        recording: Recording,
        options: &ReplayOptions,
        addr: SocketAddr,
        inner: SocketAddr,
    ) -> Self {
        let recorded_at =
            gatecheck_schemas::rules::time::parse_utc(&recording.manifest.recorded_at);
        Self {
            app,
            recorded_at,
            matcher: Matcher::new(recording, &options.secrets, &format!("http://{addr}")),
            stories: Stories::default(),
            echoed: parking_lot::Mutex::new(HashMap::new()),
            strict: options.strict,
            inner: format!("http://{inner}"),
            addr,
            client: Client::builder(TokioExecutor::new()).build_http(),
        }
    }

    /// Notes the client's times in place of the recorded ones; every pair noted so far.
    fn times(&self, recorded: &[i64], client: &[i64]) -> Vec<(i64, i64)> {
        let mut echoed = self.echoed.lock();
        if echoed.len() > MAX_ECHOED {
            echoed.clear();
        }
        for (r, c) in recorded.iter().zip(client) {
            echoed.insert(*r, *c);
        }
        echoed.iter().map(|(r, c)| (*r, *c)).collect()
    }

    /// The matcher (for what was used).
    pub(crate) fn matcher(&self) -> &Matcher {
        &self.matcher
    }
}

/// Accepts connections until `shutdown` flips.
pub(crate) async fn serve(
    listener: TcpListener,
    front: Arc<Front>,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    // The mock's own bound on what one connection buffers each way.
    builder
        .http1()
        .max_buf_size(crate::server::CONNECTION_BUFFER);
    let builder = Arc::new(builder);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, peer)) = accepted else {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                };
                let peer = SocketAddr::new(peer.ip().to_canonical(), peer.port());
                let front = front.clone();
                let svc = hyper::service::service_fn(move |req| {
                    let front = front.clone();
                    async move { Ok::<_, std::convert::Infallible>(answer(&front, peer, req).await) }
                });
                let conn = builder.serve_connection(TokioIo::new(stream), svc).into_owned();
                let conn = graceful.watch(conn);
                tokio::spawn(async move {
                    let _ = conn.await;
                });
            }
            _ = wait_down(&mut shutdown) => break,
        }
    }
    drop(listener);
    let _ = tokio::time::timeout(Duration::from_secs(5), graceful.shutdown()).await;
}

fn full(bytes: impl Into<Bytes>) -> FrontBody {
    Full::new(bytes.into())
        .map_err(|never| match never {})
        .boxed_unsync()
}

fn json_response(status: u16, value: &serde_json::Value) -> Response<FrontBody> {
    let mut res = Response::new(full(value.to_string()));
    *res.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::NOT_FOUND);
    res.headers_mut().insert(
        http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    res
}

async fn answer(front: &Front, peer: SocketAddr, req: Request<Incoming>) -> Response<FrontBody> {
    let started = Instant::now();
    let (parts, body) = req.into_parts();
    let limit = front.app.config.max_body_bytes.saturating_add(1 << 20);
    let body = match Limited::new(body, limit).collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => {
            let message = format!("gatecheck replay: cannot read the request body: {e}");
            return json_response(413, &serde_json::json!({"error": {"message": message}}));
        }
    };
    let path_q = parts
        .uri
        .path_and_query()
        .map_or_else(|| "/".to_owned(), |p| p.as_str().to_owned());
    let path = parts.uri.path();
    if path == "/__mock" || path.starts_with("/__mock/") {
        // The mock behind sees the front as its (loopback) peer: the client's peer, Host and
        // token are judged here first.
        if let Err((status, why)) =
            crate::routes::control_access::gate(&front.app, peer, &parts.headers, &parts.uri)
        {
            return json_response(
                status,
                &serde_json::json!({"success": false, "message": why}),
            );
        }
        return forward(front, &parts, &path_q, body).await.0;
    }
    let at_ms = front.app.clock.now_ms();
    let generation = front.app.journal.generation();
    let (mapped, mut found) = front.stories.inbound(&path_q);
    let mapped_body = front.stories.inbound_body(&body).map(|(b, more)| {
        found.extend(more);
        Bytes::from(b)
    });
    let request = front.matcher.normalize(
        parts.method.as_str(),
        &mapped,
        &parts.headers,
        mapped_body.as_ref().unwrap_or(&body),
    );
    let thread: Vec<&str> = found.iter().map(|(new, _)| new.as_str()).collect();
    let gate = found
        .first()
        .filter(|_| front.app.clock.is_virtual())
        .and_then(|(_, s)| {
            Some(Gate {
                recorded_origin_ms: s.recorded_ms?,
                elapsed_ms: at_ms - s.created_ms,
            })
        });
    let record = |status: u16, request_id| Record {
        generation,
        at_ms,
        request_id,
        method: parts.method.clone(),
        path,
        query: parts.uri.query(),
        client_ip: peer.ip(),
        key_id: None,
        status,
        duration_us: u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
        fault: None,
        body_len: (!body.is_empty()).then_some(body.len()),
        body: (!body.is_empty()).then(|| body.slice(..body.len().min(2048))),
        headers: front.app.journal.header_lines(&parts.headers),
        form: None,
    };
    if let Some(ex) = front.matcher.take(&request, &thread.join(","), gate) {
        let request_id = front.app.ids.request_id(at_ms);
        let times = front.times(&ex.request.times, &request.times);
        let res = replayed(
            front,
            ex,
            &found,
            &times,
            &parts,
            at_ms,
            request_id.as_str(),
        );
        let entry = record(res.status().as_u16(), request_id);
        front.app.journal.push_tagged(entry, Tag::Matched);
        return res;
    }
    let miss = front.matcher.miss(&request);
    if front.strict {
        let request_id = front.app.ids.request_id(at_ms);
        let res = near_miss(&miss, request_id.as_str());
        let entry = record(res.status().as_u16(), request_id);
        front.app.journal.push_tagged(entry, Tag::Unmatched);
        return res;
    }
    tracing::debug!(%miss, "replay: unmatched, answered by the mock");
    let (res, request_id) = forward(front, &parts, &path_q, body.clone()).await;
    if let Some(id) = request_id {
        front.app.journal.tag(&id, Tag::Unmatched);
    }
    res
}

/// The recorded answer, with the replay's base URL, the client's task ids and a fresh
/// request id.
fn replayed(
    front: &Front,
    ex: &RecordedExchange,
    found: &Found,
    times: &[(i64, i64)],
    parts: &http::request::Parts,
    at_ms: i64,
    request_id: &str,
) -> Response<FrontBody> {
    let host = parts
        .headers
        .get(http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .map_or_else(|| front.addr.to_string(), str::to_owned);
    let mut pairs: Vec<(String, String)> = found
        .iter()
        .map(|(new, story)| (story.recorded.clone(), new.clone()))
        .collect();
    let base = format!("http://{host}");
    let mut body = ex.response.body.to_bytes().unwrap_or_default();
    match (times.is_empty(), &ex.response.body) {
        (false, super::format::RecordedBody::Json { json }) => {
            let mut json = json.clone();
            if super::format::echo_times(&mut json, times) {
                body = serde_json::to_vec(&json).unwrap_or(body);
            }
        }
        // JSON a proxy wrote in another form is kept as text: its times are echoed too.
        (false, super::format::RecordedBody::Text { text }) => {
            if let Some(echoed) = super::format::echo_times_text(text, times) {
                body = echoed.into_bytes();
            }
        }
        _ => {}
    }
    let created = parts.method == http::Method::POST
        && (200..300).contains(&ex.response.status)
        && found.is_empty();
    if created && let Ok(json) = serde_json::from_slice::<serde_json::Value>(&body) {
        pairs.extend(front.stories.create(&json, &front.app.ids, at_ms, ex.at_ms));
    }
    let fill = |bytes: &[u8]| {
        let mut out =
            super::format::replace(bytes, BASE_URL_PLACEHOLDER.as_bytes(), base.as_bytes());
        for (recorded, new) in &pairs {
            out = super::format::replace(&out, recorded.as_bytes(), new.as_bytes());
        }
        out
    };
    let mut res = Response::new(full(fill(&body)));
    *res.status_mut() = StatusCode::from_u16(ex.response.status).unwrap_or(StatusCode::BAD_GATEWAY);
    for (name, value) in &ex.response.headers {
        if name.eq_ignore_ascii_case(REQUEST_ID_HEADER) {
            continue;
        }
        if let (Ok(n), Ok(v)) = (
            http::HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_bytes(&fill(value.as_bytes())),
        ) {
            res.headers_mut().append(n, v);
        }
    }
    if let Ok(v) = HeaderValue::from_str(request_id) {
        res.headers_mut().insert(REQUEST_ID_HEADER, v);
    }
    res.headers_mut()
        .insert(REPLAY_HEADER, HeaderValue::from_static(REPLAY_MATCHED));
    if let (Some(origin), Some(at_ms)) = (front.recorded_at, ex.at_ms) {
        let recorded = origin.saturating_add(i64::try_from(at_ms / 1000).unwrap_or(0));
        res.headers_mut()
            .insert(REPLAY_TIME_HEADER, HeaderValue::from(recorded));
    }
    res
}

/// The strict answer to an unmatched request: 404 when the recording has no request of its
/// method and path template, 501 when it has (the request differs), naming the closest.
fn near_miss(miss: &Unmatched, request_id: &str) -> Response<FrontBody> {
    let status = if miss.route_recorded { 501 } else { 404 };
    let message = format!("gatecheck replay: no recorded exchange matches {miss}");
    let mut res = json_response(
        status,
        &serde_json::json!({"error": {
            "message": message,
            "type": "replay_unmatched",
            "code": "replay_unmatched",
            "request": miss.request,
            "closest": miss.closest,
            "differs": miss.differs,
        }}),
    );
    if let Ok(v) = HeaderValue::from_str(request_id) {
        res.headers_mut().insert(REQUEST_ID_HEADER, v);
    }
    res.headers_mut()
        .insert(REPLAY_HEADER, HeaderValue::from_static(REPLAY_UNMATCHED));
    res
}

/// Relays a request to the mock behind; the answer and its request id.
async fn forward(
    front: &Front,
    parts: &http::request::Parts,
    path_q: &str,
    body: Bytes,
) -> (Response<FrontBody>, Option<String>) {
    let fail = |e: String| {
        let message = format!("gatecheck replay: the mock behind failed: {e}");
        (
            json_response(502, &serde_json::json!({"error": {"message": message}})),
            None,
        )
    };
    let uri: http::Uri = match format!("{}{path_q}", front.inner).parse() {
        Ok(u) => u,
        Err(e) => return fail(e.to_string()),
    };
    let mut builder = Request::builder().method(parts.method.clone()).uri(uri);
    for (name, value) in &parts.headers {
        // The client's `Host` goes on: the mock behind judges it (the control API's guard).
        if is_passed_on(name.as_str()) {
            builder = builder.header(name, value);
        }
    }
    let request = match builder.body(Full::new(body)) {
        Ok(r) => r,
        Err(e) => return fail(e.to_string()),
    };
    match tokio::time::timeout(INNER_TIMEOUT, front.client.request(request)).await {
        Ok(Ok(res)) => {
            let id = res
                .headers()
                .get(REQUEST_ID_HEADER)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            (res.map(http_body_util::BodyExt::boxed_unsync), id)
        }
        Ok(Err(e)) => fail(e.to_string()),
        Err(_) => fail(format!("no answer in {INNER_TIMEOUT:?}")),
    }
}
