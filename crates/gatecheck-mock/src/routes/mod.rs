//! Dispatch by method and path, and the handler contract of the model routes.
//!
//! # Request flow
//!
//! Every request goes through [`dispatch`]:
//!
//! 1. A request id is drawn (seeded) and set as `X-Oneapi-Request-Id` on **every** answer,
//!    whatever produced it; handlers do not set it.
//! 2. A CORS preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) is
//!    answered 204 (not under `/__mock`); answers to requests with an `Origin` carry new-api's
//!    CORS headers.
//! 3. `/__mock/*` goes to the control API ([`crate::routes::control`]); it is never faulted or
//!    journaled.
//! 4. Faults (`/__mock/faults`) are applied: a status, a delay, a reset or a hang.
//! 5. `/v1/*`: the key is authenticated before any handler runs: parse and lookup (401),
//!    status / expiry / quota (401, storing status 3 or 4), the IP allowlist (403
//!    `access_denied`), then the per-key rate limit (429 + `Retry-After`). The handler gets a
//!    [`Ctx`] whose [`Ctx::key`] is set.
//! 6. The method and path are resolved in the route table of the OpenAPI document
//!    ([`gatecheck_schemas::routes`]): what it lacks is answered 404 (405 with `Allow` for a
//!    known path in the documented profile) before any handler, so nothing is served
//!    undocumented (on `/v1/*` after step 5 in the documented profile; before it in the
//!    `new-api` profile, whose table also lacks the video list and delete, and whose
//!    not-found answer is new-api's: [`gatecheck_schemas::rules::route`]).
//!
//! An answer given before the request's body is read (steps 4 to 6, and a handler's own
//! refusals) goes through [`Ctx::refuse`]: the rest of a short body is read first, as Go's
//! server does, so that a client still sending is not cut off (see `crate::linger`).
//! 7. The answer is recorded in the journal (with the body length and a preview of textual
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
//!    for a JSON body (speech, image generation): [`Ctx::json_model`]; for a `model`
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
//! A handler that answers before reading the body (a wrong content type, a refused access)
//! returns `cx.refuse(req, resp).await`, never `resp` with the body dropped.
//!
//! Reading the rest of the world: [`Ctx::profile`], [`Ctx::now`] / [`Ctx::now_ms`] (the
//! mock clock; never wall time), [`Ctx::catalog`] (models and
//! [`Catalog::capabilities`](crate::catalog::Catalog::capabilities), from
//! `fixtures/capabilities.json`), [`Ctx::fixtures`] (e.g. `video` = `fixtures/video.json`),
//! [`Ctx::ids`] (seeded task ids), [`Ctx::videos`] (the [`VideoStore`]), [`Ctx::base_url`]
//! (for result URLs), [`Ctx::request_id`].

pub(crate) mod audio;
pub(crate) mod control;
pub(crate) mod ctx;
pub(crate) mod fields;
pub(crate) mod image_edits;
pub(crate) mod images;
pub(crate) mod jimeng;
pub(crate) mod kling;
pub(crate) mod midjourney;
pub(crate) mod outcomes;
pub(crate) mod provider;
pub(crate) mod remix;
pub(crate) mod token_api;
pub(crate) mod ui;
pub(crate) mod unrouted;
pub(crate) mod video;
pub(crate) mod video_unified;

use ctx::{paging_ok, Ctx};
use unrouted::undocumented;

use crate::app::App;
use crate::auth;
use crate::error::{self, MockResponse};
use crate::faults::FaultKind;
use crate::headers::REQUEST_ID_HEADER;
use crate::journal::Record;
use bytes::Bytes;
use gatecheck_schemas::rules::rejection::ACCEPTED;
use gatecheck_schemas::rules::Rejection;
use gatecheck_schemas::Profile;
use http::{HeaderValue, Method, Request};
use hyper::body::Incoming;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

/// The longest a `hang` fault holds a request (then the connection is dropped).
const MAX_HANG: std::time::Duration = std::time::Duration::from_secs(600);

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
    // Tasks that failed since the last request are refunded before anything reads a key.
    app.settle_tasks(at_ms);
    let mut cx = request_ctx(&app, peer, &req, at_ms);
    // A clone of the URI shares the request's bytes: no allocation.
    let uri = req.uri().clone();
    let path = uri.path();

    let control = path == "/__mock" || path.starts_with("/__mock/");
    let cors = req.headers().contains_key(http::header::ORIGIN);
    if cors && !control && is_preflight(&req) {
        return Ok(preflight(&cx));
    }
    if control {
        let mut resp = Box::pin(control::handle(&cx, req)).await;
        set_request_id(&mut resp, cx.request_id.as_str());
        return Ok(resp);
    }

    let method = req.method().clone();
    let mut entry = journal_entry(&cx, &method, &uri);
    let resp = match app.faults.pick(method.as_str(), path) {
        Some(FaultKind::Reset) => {
            entry.fault = Some("reset".into());
            finish(&app, entry, started);
            return Err(Dropped::Reset);
        }
        Some(FaultKind::Hang) => {
            entry.fault = Some("hang".into());
            finish(&app, entry, started);
            // Until shutdown, or at most MAX_HANG, so abandoned hangs cannot pile up forever.
            Box::pin(hang(app.shutdown.clone())).await;
            return Err(Dropped::Shutdown);
        }
        Some(FaultKind::Status {
            status,
            retry_after,
        }) => {
            entry.fault = Some(format!("status {status}"));
            cx.refuse(req, status_fault(status, retry_after)).await
        }
        Some(FaultKind::Delay { ms }) => {
            entry.fault = Some(format!("delay {ms}ms"));
            // At most MAX_HANG, as a hang: a fault of a million years is not a lost task.
            let wait = std::time::Duration::from_millis(ms).min(MAX_HANG);
            Box::pin(tokio::time::sleep(wait)).await;
            cx.at_ms = app.clock.now_ms();
            route(&mut cx, req, &method, path).await
        }
        // Stream faults are picked by the streaming handlers (`pick` never returns them).
        Some(_) | None => route(&mut cx, req, &method, path).await,
    };
    Ok(complete(&app, &mut cx, entry, resp, cors, started).await)
}

/// The handlers' view of one request: its id (drawn here, seeded), the client IP, the `Host`
/// header; no key yet.
fn request_ctx(app: &Arc<App>, peer: SocketAddr, req: &Request<Incoming>, at_ms: i64) -> Ctx {
    let request_id = app.ids.request_id(at_ms);
    let client_ip = auth::client_ip(app, req.headers(), peer);
    // A clone of the Host header shares the request's bytes: no allocation.
    let host = req.headers().get(http::header::HOST).cloned();
    Ctx {
        app: app.clone(),
        peer,
        client_ip,
        request_id,
        at_ms,
        key: None,
        host,
        body_seen: parking_lot::Mutex::new(None),
        key_named: parking_lot::Mutex::new(None),
    }
}

/// A CORS preflight: `OPTIONS` with `Access-Control-Request-Method`.
fn is_preflight(req: &Request<Incoming>) -> bool {
    req.method() == Method::OPTIONS
        && req
            .headers()
            .contains_key(http::header::ACCESS_CONTROL_REQUEST_METHOD)
}

/// The answer to a CORS preflight: 204 with no content type, new-api's CORS headers.
fn preflight(cx: &Ctx) -> MockResponse {
    let mut resp = error::bytes_response(204, "text/plain", Bytes::new());
    resp.headers_mut().remove(http::header::CONTENT_TYPE);
    set_cors(&mut resp, true);
    set_request_id(&mut resp, cx.request_id.as_str());
    resp
}

/// The journal's record of a request, its answer not known yet.
fn journal_entry<'a>(cx: &Ctx, method: &Method, uri: &'a http::Uri) -> Record<'a> {
    Record {
        at_ms: cx.at_ms,
        request_id: cx.request_id,
        method: method.clone(),
        path: uri.path(),
        query: uri.query(),
        client_ip: cx.client_ip,
        key_id: None,
        status: 0,
        duration_us: 0,
        fault: None,
        body_len: None,
        body: None,
    }
}

/// The answer of a `status` fault (with `Retry-After` as set, or 1 second on 429 and 503).
fn status_fault(status: u16, retry_after: Option<u64>) -> MockResponse {
    let mut resp = error::v1_error(
        status,
        &format!("injected fault: status {status}"),
        Some("mock_fault"),
        None,
    );
    let retry = retry_after.or(matches!(status, 429 | 503).then_some(1));
    if let Some(secs) = retry
        && let Ok(v) = HeaderValue::from_str(&secs.to_string())
    {
        resp.headers_mut().insert(http::header::RETRY_AFTER, v);
    }
    resp
}

/// Finishes an answer (new-api's error shape in that profile, CORS, the request id) and
/// journals it.
async fn complete(
    app: &App,
    cx: &mut Ctx,
    mut entry: Record<'_>,
    mut resp: MockResponse,
    cors: bool,
    started: Instant,
) -> MockResponse {
    let path = entry.path;
    if app.config.profile == Profile::NewApi
        && (path.starts_with("/v1/") || provider::is_provider_path(path))
    {
        resp = Box::pin(error::new_api_error_shape(resp, cx.request_id.as_str())).await;
    }
    if cors {
        set_cors(&mut resp, false);
    }
    set_request_id(&mut resp, cx.request_id.as_str());
    entry.status = resp.status().as_u16();
    entry.key_id = cx.key.map(|k| k.id).or(*cx.key_named.get_mut());
    if let Some((len, preview)) = cx.body_seen.get_mut().take() {
        entry.body_len = Some(len);
        entry.body = preview;
    }
    finish(app, entry, started);
    resp
}

/// Holds a `hang` fault's request until shutdown, or at most [`MAX_HANG`], so abandoned hangs
/// cannot pile up forever. Boxed by its caller: the rare fault paths stay out of the
/// per-request future that every request moves around.
async fn hang(mut shutdown: tokio::sync::watch::Receiver<bool>) {
    tokio::select! {
        _ = crate::shutdown::wait_down(&mut shutdown) => {}
        _ = tokio::time::sleep(MAX_HANG) => {}
    }
}

fn finish(app: &App, mut entry: Record<'_>, started: Instant) {
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

/// [`REQUEST_ID_HEADER`] as a header name made at compile time (a `&str` name is parsed and
/// validated at every insert).
const REQUEST_ID_NAME: http::HeaderName = http::HeaderName::from_static(REQUEST_ID_HEADER);

fn set_request_id(resp: &mut MockResponse, id: &str) {
    if let Ok(v) = HeaderValue::from_str(id) {
        resp.headers_mut().insert(REQUEST_ID_NAME, v);
    }
}

/// Routes a request that is neither a control call nor faulted away.
async fn route(cx: &mut Ctx, req: Request<Incoming>, method: &Method, path: &str) -> MockResponse {
    // new-api resolves the route before any route group's middleware runs, so an unrouted
    // request is answered before its key is looked at (DECISIONS D-ROUTE-2); the documented
    // profile checks the key of a `/v1` request first.
    let table_first = cx.profile() == Profile::NewApi || !path.starts_with("/v1/");
    if table_first && let Some(resp) = undocumented(cx, method, path) {
        return cx.refuse(req, resp).await;
    }
    if let Some(rest) = path.strip_prefix("/v1/") {
        if let Err(resp) = cx.admit_key(req.headers()) {
            return cx.refuse(req, resp).await;
        }
        let cx: &Ctx = cx;
        if !table_first && let Some(resp) = undocumented(cx, method, path) {
            return cx.refuse(req, resp).await;
        }
        return v1(cx, req, method, path, rest).await;
    }
    if provider::is_provider_path(path) {
        return Box::pin(provider_route(cx, req, method, path)).await;
    }
    if let Some(rest) = midjourney::mj_rest(path).filter(|r| midjourney::needs_key(r))
        && undocumented(cx, method, path).is_none()
    {
        match midjourney::authenticate(cx, req.headers()) {
            Ok(key) => cx.key = Some(key),
            Err(resp) => return resp,
        }
        return Box::pin(midjourney::handle(cx, req, rest)).await;
    }
    site(cx, req, method, path).await
}

/// Serves an admitted `/v1/` request (`rest` is the path after `/v1/`).
async fn v1(
    cx: &Ctx,
    req: Request<Incoming>,
    method: &Method,
    path: &str,
    rest: &str,
) -> MockResponse {
    if rest == "images/edits" || rest == "images/edits/" {
        Box::pin(image_edits::handle(cx, req)).await
    } else if rest.starts_with("audio/") {
        Box::pin(audio::handle(cx, req)).await
    } else if rest.starts_with("images/") {
        Box::pin(images::handle(cx, req)).await
    } else if let (true, Some(id)) = (method == Method::POST, remix::source_of(rest)) {
        Box::pin(remix::handle(cx, req, id)).await
    } else if rest.starts_with("video/") {
        Box::pin(video_unified::handle(cx, req)).await
    } else if rest == "videos" || rest.starts_with("videos/") {
        if method == Method::POST {
            // Creation reads an upload: boxed, so that its state stays out of this future.
            Box::pin(video::handle(cx, req)).await
        } else {
            // A poll: no body, no future of its own.
            video::answer(
                cx,
                method,
                path.trim_end_matches('/'),
                req.uri().query().unwrap_or(""),
            )
        }
    } else if rest == "models" || rest.starts_with("models/") {
        models(cx, method, rest)
    } else {
        let resp = cx.not_found(method, path);
        cx.refuse(req, resp).await
    }
}

/// Serves the site's own paths: the catalog, token API and usage, media, health; new-api's
/// 404 for the rest.
async fn site(cx: &Ctx, req: Request<Incoming>, method: &Method, path: &str) -> MockResponse {
    match (method, path) {
        (&Method::GET, "/api/models") => {
            let query = req.uri().query().unwrap_or("");
            if let Err(msg) = paging_ok(cx, query) {
                return msg;
            }
            error::json_bytes(ACCEPTED, cx.catalog().page_bytes(query))
        }
        (&Method::GET, "/api/usage/token" | "/api/usage/token/") => token_api::usage(cx, &req),
        (_, p) if p == "/api/token" || p.starts_with("/api/token/") => {
            Box::pin(token_api::handle(cx, req)).await
        }
        (_, p) if p.starts_with("/media/edits/") => image_edits::public(&req),
        (_, p) if midjourney::mj_rest(p).is_some() => {
            midjourney::image(cx, &req, midjourney::mj_rest(p).unwrap_or(""))
        }
        (_, p) if p.starts_with("/media/") => Box::pin(images::public(cx, req)).await,
        (_, "/" | "/health") => error::json(200, &serde_json::json!({"status": "ok"})),
        _ => {
            let message = format!("Invalid URL ({method} {path})");
            let resp = error::json(
                404,
                &serde_json::json!({"success": false, "message": message}),
            );
            cx.refuse(req, resp).await
        }
    }
}

/// Serves a provider path ([`provider::is_provider_path`]).
async fn provider_route(
    cx: &mut Ctx,
    req: Request<Incoming>,
    method: &Method,
    path: &str,
) -> MockResponse {
    if path.starts_with("/jimeng") {
        // The Action and the body are read before the key (JimengRequestConvert, then TokenAuth).
        return Box::pin(jimeng::handle(cx, req)).await;
    }
    if let Err(resp) = cx.admit_key(req.headers()) {
        return resp;
    }
    let cx: &Ctx = cx;
    if let Some(resp) = undocumented(cx, method, path) {
        return resp;
    }
    Box::pin(kling::handle(cx, req)).await
}

/// `GET /v1/models` (the key's models, OpenAI's list shape) and `GET /v1/models/{id}`.
fn models(cx: &Ctx, method: &Method, rest: &str) -> MockResponse {
    if method != Method::GET {
        return cx.not_found(method, &format!("/v1/{rest}"));
    }
    let Some(key) = cx.key else {
        return cx.not_found(method, &format!("/v1/{rest}"));
    };
    let to_json = crate::catalog::model_object;
    match rest.strip_prefix("models/") {
        None => {
            let data: Vec<_> = cx
                .catalog()
                .models()
                .iter()
                .filter(|m| cx.app.state.model_allowed(key.id, &m.id, cx.profile()))
                .map(to_json)
                .collect();
            error::json(
                ACCEPTED,
                &serde_json::json!({"object": "list", "data": data}),
            )
        }
        Some(id) => {
            if let Err(resp) = cx.check_model(id) {
                return resp;
            }
            match cx.catalog().model_body(id) {
                Some(body) => error::json_bytes(ACCEPTED, body),
                None => {
                    let r = Rejection::ModelNotFound;
                    error::v1_error(
                        r.http_status(cx.profile()),
                        &format!("The model `{id}` does not exist"),
                        r.code(cx.profile()),
                        Some("model"),
                    )
                }
            }
        }
    }
}
