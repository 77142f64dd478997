//! Dispatch by method and path, and the handler contract of the model routes.
//!
//! # Request flow
//!
//! Every request goes through [`dispatch`]:
//!
//! 1. A request id is drawn (seeded) and set as `X-Oneapi-Request-Id` on **every** answer,
//!    whatever produced it; handlers do not set it.
//! 2. A CORS preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) is
//!    answered 204; answers to requests with an `Origin` carry new-api's CORS headers.
//! 3. `/__mock/*` goes to the control API ([`crate::control`]); it is never faulted or
//!    journaled.
//! 4. Faults (`/__mock/faults`) are applied: a status, a delay, a reset or a hang.
//! 5. `/v1/*`: the key is authenticated before any handler runs: parse and lookup (401),
//!    status / expiry / quota (401, storing status 3 or 4), the IP allowlist (403
//!    `access_denied`), then the per-key rate limit (429 + `Retry-After`). The handler gets a
//!    [`Ctx`] whose [`Ctx::key`] is set.
//! 6. The answer is recorded in the journal (with the body length and a preview of textual
//!    bodies read through [`Ctx::read_body`]).
//!
//! # Handler contract (audio, images, video: `routes/{audio,images,video}.rs`)
//!
//! Each of those modules exposes
//!
//! ```text
//! pub(crate) async fn handle(cx: &Ctx, req: Request<Incoming>) -> MockResponse
//! ```
//!
//! called for every path under its prefix (`/v1/audio/`, `/v1/images/`, `/v1/videos`), already
//! authenticated. It matches method and rest of the path itself and answers 404
//! ([`Ctx::not_found`]) for what it does not serve. `images.rs` also exposes
//! `pub(crate) async fn public(cx: &Ctx, req: Request<Incoming>) -> MockResponse` for
//! `/media/*` (no auth: result URLs of images), and `video.rs` exposes
//! `pub(crate) async fn control(cx: &Ctx, req: Request<Incoming>) -> MockResponse` for
//! `/__mock/videos/*` (e.g. `POST /__mock/videos/{id}/outcome`), reached after the control
//! API's access check.
//!
//! Inside a model handler, in this order (new-api's):
//!
//! 1. Read the body under the upload limit: [`Ctx::read_body`] (413 before reading it all)
//!    or [`Ctx::read_multipart`] (a [`multer::Multipart`] over the bounded body). Find `model`
//!    (required).
//! 2. Model limits: [`Ctx::check_model`] (403), then the model's capability. Steps 1 and 2
//!    for a JSON body (speech, image generation): [`Ctx::read_json_model`]; for a `model`
//!    found otherwise (multipart): [`Ctx::required_model`]. Video reads JSON, form or
//!    multipart fields and answers [`error::invalid`], so it does these steps itself.
//! 3. Validate. Audio and image routes answer [`error::validation`] (400, or 500
//!    `invalid_request` in the `new-api` profile); video routes answer [`error::invalid`]
//!    (always 400). An unknown task is [`error::task_not_found`] (profile-aware).
//! 4. Price it ([`Ctx::price`], from the catalog pricing and a
//!    [`gatecheck_schemas::rules::quota::Usage`]) and charge it atomically: [`Ctx::charge`]
//!    (403 `pre_consume_token_quota_failed` when the remaining quota is lower). Steps 2 and 4
//!    together: [`Ctx::admit_model_request`]. A failure after charging can
//!    [`Ctx::refund`].
//! 5. Answer: [`error::json`], [`error::bytes_response`], ...
//!
//! Reading the rest of the world: [`Ctx::profile`], [`Ctx::now`] / [`Ctx::now_ms`] (the
//! mock clock; never wall time), [`Ctx::catalog`] (models and
//! [`Catalog::capabilities`](crate::catalog::Catalog::capabilities), from
//! `fixtures/capabilities.json`), [`Ctx::fixtures`] (e.g. `video` = `fixtures/video.json`),
//! [`Ctx::ids`] (seeded task ids), [`Ctx::videos`] (the [`VideoStore`]), [`Ctx::base_url`]
//! (for result URLs), [`Ctx::request_id`].

pub(crate) mod audio;
pub(crate) mod images;
pub(crate) mod video;

use crate::app::App;
use crate::auth;
use crate::catalog::Catalog;
use crate::error::{self, MockResponse};
use crate::faults::FaultKind;
use crate::fixtures::Fixtures;
use crate::ids::Ids;
use crate::journal::JournalEntry;
use crate::state::{AuthedKey, Charge};
use crate::video::VideoStore;
use bytes::Bytes;
use gatecheck_schemas::rules::quota::{price_quota, Usage};
use gatecheck_schemas::rules::Rejection;
use gatecheck_schemas::types::ModelCapabilities;
use gatecheck_schemas::Profile;
use http::{HeaderValue, Method, Request};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Instant;

/// The longest a `hang` fault holds a request (then the connection is dropped).
const MAX_HANG: std::time::Duration = std::time::Duration::from_secs(600);

/// The answer header carrying the request id.
pub const REQUEST_ID_HEADER: &str = "x-oneapi-request-id";

/// What a handler knows about its request and the mock.
#[derive(Debug)]
pub(crate) struct Ctx {
    pub(crate) app: Arc<App>,
    /// The TCP peer.
    pub(crate) peer: SocketAddr,
    /// The client IP used for allowlists.
    pub(crate) client_ip: IpAddr,
    /// This request's id.
    pub(crate) request_id: String,
    /// The authenticated key (set on `/v1/*`).
    pub(crate) key: Option<AuthedKey>,
    /// The `Host` header, if any.
    pub(crate) host: Option<String>,
    /// Length and (for textual bodies) a preview of the body read, for the journal.
    pub(crate) body_seen: parking_lot::Mutex<Option<(usize, Option<String>)>>,
}

impl Ctx {
    /// The behaviour profile.
    pub(crate) fn profile(&self) -> Profile {
        self.app.config.profile
    }

    /// Now on the mock clock, Unix seconds.
    pub(crate) fn now(&self) -> i64 {
        self.app.clock.now()
    }

    /// Now on the mock clock, Unix milliseconds.
    pub(crate) fn now_ms(&self) -> i64 {
        self.app.clock.now_ms()
    }

    /// The model catalog and capabilities.
    pub(crate) fn catalog(&self) -> &Catalog {
        &self.app.catalog
    }

    /// All fixture data.
    pub(crate) fn fixtures(&self) -> &Fixtures {
        &self.app.config.fixtures
    }

    /// The seeded id source.
    pub(crate) fn ids(&self) -> &Ids {
        &self.app.ids
    }

    /// The video task store.
    pub(crate) fn videos(&self) -> &VideoStore {
        &self.app.state.videos
    }

    /// This request's id (also sent as `X-Oneapi-Request-Id`).
    #[allow(dead_code)] // part of the handler contract
    pub(crate) fn request_id(&self) -> &str {
        &self.request_id
    }

    /// The authenticated key; `None` only outside `/v1/*`.
    pub(crate) fn key(&self) -> Option<AuthedKey> {
        self.key
    }

    /// `http://<Host header>` (or the peer-facing address), for result URLs.
    pub(crate) fn base_url(&self) -> String {
        match &self.host {
            Some(h) => format!("http://{h}"),
            None => "http://127.0.0.1".to_owned(),
        }
    }

    /// A `/v1` 404.
    pub(crate) fn not_found(&self, method: &Method, path: &str) -> MockResponse {
        error::v1_error(
            404,
            &format!("Invalid URL ({method} {path})"),
            Some("not_found"),
            None,
        )
    }

    /// Reads the whole body, at most the upload limit: 413 up front when `Content-Length` is
    /// over it, or as soon as the streamed body passes it. After a 413 the rest of the body
    /// is drained in the background (bounded; see [`crate::linger`]) so that the connection
    /// closes without a reset that could destroy the answer; the 413 says `Connection:
    /// close` on HTTP/1.
    pub(crate) async fn read_body(&self, req: Request<Incoming>) -> Result<Bytes, MockResponse> {
        let limit = self.app.config.max_body_bytes;
        let http1 = req.version() < http::Version::HTTP_2;
        let too_large = || {
            let mut resp = error::rejection(
                self.profile(),
                Rejection::BodyTooLarge,
                &format!("request body is larger than the limit of {limit} bytes"),
            );
            if http1 {
                resp.headers_mut()
                    .insert(http::header::CONNECTION, HeaderValue::from_static("close"));
            }
            resp
        };
        let declared = req
            .headers()
            .get(http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        let textual = req
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| {
                ct.starts_with("application/json")
                    || ct.starts_with("application/x-www-form-urlencoded")
                    || ct.starts_with("text/")
            });
        // Drained also when the request says `Expect: 100-continue`: a client may send the
        // body without waiting (a proxy forwarding the header does), and hyper answers
        // `100 Continue` only while no final answer has been written, which clients handle.
        let mut body = req.into_body();
        let linger =
            |body: Incoming| crate::linger::drain_in_background(body, self.app.shutdown.clone());
        if declared.is_some_and(|n| n > limit as u64) {
            linger(body);
            return Err(too_large());
        }
        let mut chunks: Vec<Bytes> = Vec::new();
        let mut len = 0usize;
        while let Some(frame) = body.frame().await {
            let frame = match frame {
                Ok(f) => f,
                Err(e) => return Err(error::invalid(&format!("cannot read the body: {e}"), None)),
            };
            let Ok(data) = frame.into_data() else {
                continue; // trailers
            };
            len = len.saturating_add(data.len());
            if len > limit {
                drop(chunks);
                linger(body);
                return Err(too_large());
            }
            if !data.is_empty() {
                chunks.push(data);
            }
        }
        let body = match chunks.len() {
            0 => Bytes::new(),
            1 => chunks.pop().unwrap_or_default(),
            _ => {
                let mut all = bytes::BytesMut::with_capacity(len);
                for c in &chunks {
                    all.extend_from_slice(c);
                }
                all.freeze()
            }
        };
        let preview = textual.then(|| {
            let end = body.len().min(BODY_PREVIEW_BYTES);
            String::from_utf8_lossy(&body[..end]).into_owned()
        });
        *self.body_seen.lock() = Some((body.len(), preview));
        Ok(body)
    }

    /// Reads a `multipart/form-data` body (bounded as [`Ctx::read_body`]) into a parser.
    /// A missing or wrong content type is a validation error (see [`error::validation`]).
    pub(crate) async fn read_multipart(
        &self,
        req: Request<Incoming>,
    ) -> Result<multer::Multipart<'static>, MockResponse> {
        let boundary = req
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|ct| multer::parse_boundary(ct).ok());
        let Some(boundary) = boundary else {
            return Err(error::validation(
                self.profile(),
                "expected a multipart/form-data body",
                None,
            ));
        };
        let body = self.read_body(req).await?;
        let stream = futures_util::stream::once(async move { Ok::<Bytes, std::io::Error>(body) });
        Ok(multer::Multipart::new(stream, boundary))
    }

    /// Model limits of the key: 403 when the key may not use `model`.
    pub(crate) fn check_model(&self, model: &str) -> Result<(), MockResponse> {
        let Some(key) = self.key else { return Ok(()) };
        if self.app.state.model_allowed(key.id, model) {
            Ok(())
        } else {
            Err(error::rejection(
                self.profile(),
                Rejection::ModelNotAllowed,
                &format!("This token has no access to model {model}"),
            ))
        }
    }

    /// The `model` of a request, trimmed and required (a [`error::validation`] "model is
    /// required" otherwise), then checked against the key's model limits
    /// ([`Ctx::check_model`], 403).
    pub(crate) fn required_model(&self, raw: Option<&str>) -> Result<String, MockResponse> {
        let model = match raw.map(str::trim) {
            Some(m) if !m.is_empty() => m.to_owned(),
            _ => {
                return Err(error::validation(
                    self.profile(),
                    "model is required",
                    Some("model"),
                ))
            }
        };
        self.check_model(&model)?;
        Ok(model)
    }

    /// Steps 1 and 2 of a JSON model route (speech, image generation), in this order: read the
    /// body ([`Ctx::read_body`]), parse it as JSON (a [`error::validation`] "invalid JSON
    /// body" otherwise), take its `model` ([`Ctx::required_model`]: required, then model
    /// limits), then look up the model's capability with `capability`; a model without one is
    /// a [`error::validation`] "model {model} is not {not_a}" on `model`.
    pub(crate) async fn read_json_model<'a, T: 'a>(
        &'a self,
        req: Request<Incoming>,
        capability: impl FnOnce(&'a ModelCapabilities) -> Option<&'a T>,
        not_a: &str,
    ) -> Result<(serde_json::Value, String, &'a T), MockResponse> {
        let body = self.read_body(req).await?;
        let v: serde_json::Value = serde_json::from_slice(&body).map_err(|e| {
            error::validation(self.profile(), &format!("invalid JSON body: {e}"), None)
        })?;
        let model = self.required_model(v.get("model").and_then(|x| x.as_str()))?;
        let Some(cap) = self.catalog().capabilities(&model).and_then(capability) else {
            return Err(error::validation(
                self.profile(),
                &format!("model {model} is not {not_a}"),
                Some("model"),
            ));
        };
        Ok((v, model, cap))
    }

    /// The price of `usage` on `model` in quota units (0 for a model not in the catalog).
    pub(crate) fn price(&self, model: &str, usage: Usage) -> i64 {
        self.catalog()
            .model(model)
            .map(|m| price_quota(&m.pricing, usage))
            .unwrap_or(0)
    }

    /// Charges `price` to the key atomically: 403 `pre_consume_token_quota_failed` when its
    /// remaining quota is lower.
    pub(crate) fn charge(&self, price: i64) -> Result<Charge, MockResponse> {
        let Some(key) = self.key else {
            return Ok(Charge {
                price: 0,
                remain_quota: 0,
                used_quota: 0,
            });
        };
        self.app
            .state
            .charge(key.id, price, self.now())
            .map_err(|r| {
                let msg =
                    match r {
                        Rejection::InsufficientQuota => format!(
                        "token quota is not enough, token remain quota: {}, need quota: {price}",
                        self.app.state.key(key.id).map(|k| k.remain_quota).unwrap_or(0)
                    ),
                        other => other.default_message().to_owned(),
                    };
                error::rejection(self.profile(), r, &msg)
            })
    }

    /// Gives back a charge made by [`Ctx::charge`].
    pub(crate) fn refund(&self, charge: &Charge) {
        if let Some(key) = self.key {
            self.app.state.refund(key.id, charge.price);
        }
    }

    /// [`Ctx::check_model`] then [`Ctx::charge`].
    #[allow(dead_code)] // part of the handler contract
    pub(crate) fn admit_model_request(
        &self,
        model: &str,
        price: i64,
    ) -> Result<Charge, MockResponse> {
        self.check_model(model)?;
        self.charge(price)
    }
}

/// Why the connection is dropped without an answer.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Dropped {
    /// A `reset` fault.
    #[error("connection reset by fault")]
    Reset,
    /// A `hang` fault ended by shutdown or its time limit.
    #[error("hanging request ended")]
    Shutdown,
}

/// Serves one request.
pub(crate) async fn dispatch(
    app: Arc<App>,
    peer: SocketAddr,
    req: Request<Incoming>,
) -> Result<MockResponse, Dropped> {
    let started = Instant::now();
    let at_ms = app.clock.now_ms();
    let request_id = app.ids.request_id(at_ms);
    let path = req.uri().path().to_owned();
    let client_ip = auth::client_ip(&app, req.headers(), peer);
    let host = req
        .headers()
        .get(http::header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let mut cx = Ctx {
        app: app.clone(),
        peer,
        client_ip,
        request_id,
        key: None,
        host,
        body_seen: parking_lot::Mutex::new(None),
    };

    let cors = req.headers().contains_key(http::header::ORIGIN);
    if cors
        && req.method() == Method::OPTIONS
        && req
            .headers()
            .contains_key(http::header::ACCESS_CONTROL_REQUEST_METHOD)
    {
        let mut resp = error::bytes_response(204, "text/plain", Bytes::new());
        resp.headers_mut().remove(http::header::CONTENT_TYPE);
        set_cors(&mut resp, true);
        set_request_id(&mut resp, &cx.request_id);
        return Ok(resp);
    }

    if path == "/__mock" || path.starts_with("/__mock/") {
        let mut resp = crate::control::handle(&cx, req).await;
        set_request_id(&mut resp, &cx.request_id);
        return Ok(resp);
    }

    let method = req.method().clone();
    let query = req.uri().query().map(|q| clip(q).to_owned());
    let mut entry = JournalEntry {
        seq: 0,
        at_ms,
        request_id: cx.request_id.clone(),
        method: method.as_str().to_owned(),
        path: clip(&path).to_owned(),
        query,
        client_ip,
        key_id: None,
        status: 0,
        duration_us: 0,
        fault: None,
        body_len: None,
        body: None,
    };

    let fault = app.faults.pick(method.as_str(), &path);
    let resp = match fault {
        Some(FaultKind::Reset) => {
            entry.fault = Some("reset".into());
            finish(&app, entry, started);
            return Err(Dropped::Reset);
        }
        Some(FaultKind::Hang) => {
            entry.fault = Some("hang".into());
            finish(&app, entry, started);
            // Until shutdown, or at most MAX_HANG, so abandoned hangs cannot pile up forever.
            let mut shutdown = app.shutdown.clone();
            tokio::select! {
                _ = crate::server::wait_down(&mut shutdown) => {}
                _ = tokio::time::sleep(MAX_HANG) => {}
            }
            return Err(Dropped::Shutdown);
        }
        Some(FaultKind::Status {
            status,
            retry_after,
        }) => {
            entry.fault = Some(format!("status {status}"));
            let mut resp = error::v1_error(
                status,
                &format!("injected fault: status {status}"),
                Some("mock_fault"),
                None,
            );
            let retry = retry_after.or(matches!(status, 429 | 503).then_some(1));
            if let Some(secs) = retry {
                if let Ok(v) = HeaderValue::from_str(&secs.to_string()) {
                    resp.headers_mut().insert(http::header::RETRY_AFTER, v);
                }
            }
            resp
        }
        Some(FaultKind::Delay { ms }) => {
            entry.fault = Some(format!("delay {ms}ms"));
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
            route(&mut cx, req, &method, &path).await
        }
        None => route(&mut cx, req, &method, &path).await,
    };
    let mut resp = resp;
    if cors {
        set_cors(&mut resp, false);
    }
    set_request_id(&mut resp, &cx.request_id);
    entry.status = resp.status().as_u16();
    entry.key_id = cx.key.map(|k| k.id);
    if let Some((len, preview)) = cx.body_seen.lock().take() {
        entry.body_len = Some(len);
        entry.body = preview;
    }
    finish(&app, entry, started);
    Ok(resp)
}

/// The most bytes of a textual request body the journal keeps.
const BODY_PREVIEW_BYTES: usize = 2048;

/// The longest path or query the journal keeps (so its memory stays bounded).
const JOURNAL_MAX_TEXT: usize = 1024;

fn clip(s: &str) -> &str {
    if s.len() <= JOURNAL_MAX_TEXT {
        return s;
    }
    let mut end = JOURNAL_MAX_TEXT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

fn finish(app: &App, mut entry: JournalEntry, started: Instant) {
    entry.duration_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
    tracing::debug!(
        method = %entry.method,
        path = %entry.path,
        status = entry.status,
        key = ?entry.key_id,
        us = entry.duration_us,
        "request"
    );
    app.journal.push(entry);
}

/// CORS as new-api sets it (every origin, credentials allowed; preflights answered 204).
fn set_cors(resp: &mut MockResponse, preflight: bool) {
    use http::header::{
        ACCESS_CONTROL_ALLOW_CREDENTIALS, ACCESS_CONTROL_ALLOW_HEADERS,
        ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN, ACCESS_CONTROL_MAX_AGE,
    };
    let h = resp.headers_mut();
    h.insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    h.insert(
        ACCESS_CONTROL_ALLOW_CREDENTIALS,
        HeaderValue::from_static("true"),
    );
    if preflight {
        h.insert(
            ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("GET,POST,PUT,PATCH,DELETE,OPTIONS"),
        );
        h.insert(ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static("*"));
        h.insert(ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("43200"));
    }
}

fn set_request_id(resp: &mut MockResponse, id: &str) {
    if let Ok(v) = HeaderValue::from_str(id) {
        resp.headers_mut().insert(REQUEST_ID_HEADER, v);
    }
}

async fn route(cx: &mut Ctx, req: Request<Incoming>, method: &Method, path: &str) -> MockResponse {
    if let Some(rest) = path.strip_prefix("/v1/") {
        match auth::authenticate_key(&cx.app, req.headers(), cx.client_ip) {
            Ok(key) => cx.key = Some(key),
            Err(resp) => return resp,
        }
        if let Some(key) = cx.key {
            if let Err(retry) = cx.app.ratelimit.check(key.id, cx.now_ms()) {
                let mut resp = error::rejection(
                    cx.profile(),
                    Rejection::RateLimited,
                    "Too many requests for this key, please retry later",
                );
                if let Ok(v) = HeaderValue::from_str(&retry.to_string()) {
                    resp.headers_mut().insert(http::header::RETRY_AFTER, v);
                }
                return resp;
            }
        }
        let cx: &Ctx = cx;
        return if rest.starts_with("audio/") {
            audio::handle(cx, req).await
        } else if rest.starts_with("images/") {
            images::handle(cx, req).await
        } else if rest == "videos" || rest.starts_with("videos/") {
            video::handle(cx, req).await
        } else if rest == "models" || rest.starts_with("models/") {
            models(cx, method, rest)
        } else {
            cx.not_found(method, path)
        };
    }
    let cx: &Ctx = cx;
    match (method, path) {
        (&Method::GET, "/api/models") => {
            let query = req.uri().query().unwrap_or("");
            error::json_bytes(200, cx.catalog().page_bytes(query))
        }
        (&Method::GET, "/api/usage/token" | "/api/usage/token/") => {
            crate::token_api::usage(cx, &req)
        }
        (_, p) if p == "/api/token" || p.starts_with("/api/token/") => {
            crate::token_api::handle(cx, req).await
        }
        (_, p) if p.starts_with("/media/") => images::public(cx, req).await,
        (_, "/" | "/health") => error::json(200, &serde_json::json!({"status": "ok"})),
        _ => error::json(
            404,
            &serde_json::json!({"success": false, "message": format!("Invalid URL ({method} {path})")}),
        ),
    }
}

/// `GET /v1/models` (the key's models, OpenAI's list shape) and `GET /v1/models/{id}`.
fn models(cx: &Ctx, method: &Method, rest: &str) -> MockResponse {
    if method != Method::GET {
        return cx.not_found(method, &format!("/v1/{rest}"));
    }
    let Some(key) = cx.key else {
        return cx.not_found(method, &format!("/v1/{rest}"));
    };
    let to_json = |m: &gatecheck_schemas::types::ModelRecord| {
        serde_json::json!({
            "id": m.id, "object": "model", "created": m.created, "owned_by": m.provider_code,
        })
    };
    match rest.strip_prefix("models/") {
        None => {
            let data: Vec<_> = cx
                .catalog()
                .models()
                .iter()
                .filter(|m| cx.app.state.model_allowed(key.id, &m.id))
                .map(to_json)
                .collect();
            error::json(200, &serde_json::json!({"object": "list", "data": data}))
        }
        Some(id) => {
            if let Err(resp) = cx.check_model(id) {
                return resp;
            }
            match cx.catalog().model(id) {
                Some(m) => error::json(200, &to_json(m)),
                None => error::v1_error(
                    404,
                    &format!("The model `{id}` does not exist"),
                    Some("model_not_found"),
                    Some("model"),
                ),
            }
        }
    }
}
