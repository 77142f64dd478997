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
//! 5. The method and path are resolved **once** in the route table of the OpenAPI document
//!    ([`gatecheck_schemas::routes::lookup`]): a hit names the route's
//!    [`Op`] and carries its path parameters; a miss knows the
//!    methods served at the path. A miss is answered 404 (405 with `Allow` for a known path in
//!    the documented profile) before any handler, so nothing is served undocumented; in the
//!    documented profile a `/v1/*` miss has its key checked first (step 6), in the `new-api`
//!    profile, whose table also lacks the video list and delete, it does not, and its
//!    not-found answer is new-api's ([`gatecheck_schemas::rules::route`]).
//! 6. A hit is admitted as its route is ([`admit`]): on `/v1/*` the key is authenticated before
//!    any handler runs: parse and lookup (401), status / expiry / quota (401, storing status 3
//!    or 4), the IP allowlist (403 `access_denied`), then the per-key rate limit (429 +
//!    `Retry-After`); Kling's routes alike, Midjourney's by Bearer key or `mj-api-secret`. The
//!    handler gets a [`Ctx`] whose [`Ctx::key`] is set.
//! 7. [`serve`] runs the route's handler: one `match` arm per `Op`, reading top to bottom.
//!
//! An answer given before the request's body is read (steps 4 to 6, and a handler's own
//! refusals) goes through [`Ctx::refuse`]: the rest of a short body is read first, as Go's
//! server does, so that a client still sending is not cut off (see `crate::routes::linger`).
//! 8. The answer is recorded in the journal (with the body length and a preview of textual
//!    bodies read through [`Ctx::read_body`]).
//!
//! # Handler contract
//!
//! A handler serves one operation of the table. It is called by [`serve`] already admitted,
//! with the path parameters its template names (`video::retrieve(cx, found.param("task_id"))`),
//! and does not match method or path again:
//!
//! ```text
//! pub(crate) async fn speech(cx: &Ctx, req: Request<Incoming>) -> MockResponse  // reads a body
//! pub(crate) fn retrieve(cx: &Ctx, id: &str) -> MockResponse                    // does not
//! ```
//!
//! The mock's own paths outside the contract are served before the lookup: the control API
//! `/__mock/*` ([`control`], its UI and `/__mock/videos/*` outcomes in `outcomes.rs`) and CORS
//! preflights.
//!
//! Inside a model handler, in this order (new-api's):
//!
//! 1. Read the body under the upload limit: [`Ctx::read_body`] (413 before reading it all)
//!    or [`Ctx::read_multipart`] (the bounded body split into its parts,
//!    [`gatecheck_codecs::multipart::Parts`]). Find `model` (required).
//! 2. Model limits: [`Ctx::check_model`] (403), then the model's capability. Steps 1 and 2
//!    for a JSON body (speech, image generation): [`Ctx::json_model`]; for a `model`
//!    found otherwise (multipart): [`Ctx::required_model`]. Video reads JSON, form or
//!    multipart fields and answers [`response::invalid`], so it does these steps itself.
//! 3. Validate. Audio and image routes answer [`response::validation`] (400, or 500
//!    `invalid_request` in the `new-api` profile); video routes answer [`response::invalid`]
//!    (always 400). An unknown task is [`response::task_not_found`] (profile-aware).
//! 4. Price it ([`Ctx::price`], from the catalog pricing and a
//!    [`gatecheck_schemas::rules::quota::Usage`]) and charge it atomically: [`Ctx::charge`]
//!    (403 `pre_consume_token_quota_failed` when the remaining quota is lower). Steps 2 and 4
//!    together: [`Ctx::admit_model_request`]. A failure after charging can
//!    [`Ctx::refund`].
//! 5. Answer: [`response::json`], [`response::bytes_response`], ...
//!
//! A handler that answers before reading the body (a wrong content type, a refused access)
//! returns `cx.refuse(req, resp).await`, never `resp` with the body dropped.
//!
//! Reading the rest of the world: [`Ctx::profile`], [`Ctx::now`] / [`Ctx::now_ms`] (the
//! mock clock; never wall time), [`Ctx::catalog`] (models and
//! [`Catalog::capabilities`](crate::fixtures::catalog::Catalog::capabilities), from
//! `fixtures/capabilities.json`), [`Ctx::fixtures`] (e.g. `video` = `fixtures/video.json`),
//! [`Ctx::ids`] (seeded task ids), [`Ctx::videos`] (the `VideoStore`), [`Ctx::base_url`]
//! (for result URLs), [`Ctx::request_id`].

pub(crate) mod audio;
pub(crate) mod auth;
pub(crate) mod control;
pub(crate) mod control_access;
pub(crate) mod ctx;
pub(crate) mod fields;
pub(crate) mod form;
pub(crate) mod image_edits;
pub(crate) mod images;
pub(crate) mod jimeng;
pub(crate) mod kling;
pub(crate) mod linger;
pub(crate) mod midjourney;
pub(crate) mod models;
pub(crate) mod native;
pub(crate) mod outcomes;
pub(crate) mod platform;
pub(crate) mod platform_veo;
pub(crate) mod plugin_video;
pub(crate) mod provider;
pub(crate) mod remix;
pub(crate) mod site;
pub(crate) mod token_api;
pub(crate) mod token_batch;
pub(crate) mod ui;
pub(crate) mod unrouted;
pub(crate) mod user_api;
pub(crate) mod video;
pub(crate) mod video_fields;
pub(crate) mod video_unified;

use ctx::Ctx;

use crate::app::App;
use crate::harness::faults::FaultKind;
use crate::harness::journal::Record;
use crate::response::headers::REQUEST_ID_HEADER;
use crate::response::{self, MockResponse};
use bytes::Bytes;
use gatecheck_schemas::routes::{lookup_named, Found, Lookup, MjOp, Op, Route};
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
    entry.headers = app.journal.header_lines(req.headers());
    let resp = match app.faults.pick(method.as_str(), path) {
        Some(FaultKind::Reset) => {
            entry.fault = Some("reset".into());
            finish(&app, entry, started);
            return Err(Dropped::Reset);
        }
        Some(FaultKind::Hang) => {
            entry.fault = Some("hang".into());
            finish(&app, entry, started);
            // Until shutdown or a reset, or at most MAX_HANG, so abandoned hangs cannot pile
            // up forever.
            Box::pin(hold(&app, MAX_HANG)).await;
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
            // At most MAX_HANG, as a hang: a fault of a million years is not a lost task. A
            // shutdown drops the request, so that stopping the mock never waits a delay out.
            // A reset ends the wait with 503 `mock_reset`, the handler not run: the request
            // belongs to the state before the reset and must not change the fresh one.
            let wait = std::time::Duration::from_millis(ms).min(MAX_HANG);
            match Box::pin(hold(&app, wait)).await {
                Held::Shutdown => {
                    finish(&app, entry, started);
                    return Err(Dropped::Shutdown);
                }
                Held::Reset => cut_by_reset(),
                Held::Elapsed => {
                    cx.at_ms = app.clock.now_ms();
                    route(&mut cx, req, &method, path).await
                }
            }
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
        form_seen: parking_lot::Mutex::new(None),
        priced: parking_lot::Mutex::new(None),
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
    let mut resp = response::bytes_response(204, "text/plain", Bytes::new());
    resp.headers_mut().remove(http::header::CONTENT_TYPE);
    set_cors(&mut resp, true);
    set_request_id(&mut resp, cx.request_id.as_str());
    resp
}

/// The journal's record of a request, its answer not known yet.
fn journal_entry<'a>(cx: &Ctx, method: &Method, uri: &'a http::Uri) -> Record<'a> {
    Record {
        generation: cx.app.journal.generation(),
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
        headers: String::new(),
        form: None,
    }
}

/// The answer of a `status` fault (with `Retry-After` as set, or 1 second on 429 and 503).
fn status_fault(status: u16, retry_after: Option<u64>) -> MockResponse {
    let mut resp = response::v1_error(
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

/// The answer to a request a reset cut out of its `delay` fault: 503 `mock_reset`, no
/// `Retry-After` (the request is not to be retried against the fresh state unasked).
fn cut_by_reset() -> MockResponse {
    response::v1_error(
        503,
        "the mock was reset while this request waited in a delay fault: it was not served",
        Some(MOCK_RESET),
        None,
    )
}

/// The error code of [`cut_by_reset`].
const MOCK_RESET: &str = "mock_reset";

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
        resp = Box::pin(response::new_api_error_shape(resp, cx.request_id.as_str())).await;
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
    entry.form = cx.form_seen.get_mut().take();
    finish(app, entry, started);
    resp
}

/// How a fault's hold of a request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Held {
    /// Its time ran out.
    Elapsed,
    /// The mock was reset ([`App::reset`]).
    Reset,
    /// The server is shutting down.
    Shutdown,
}

/// Holds a request for a `delay` or `hang` fault: `wait`, or less if the mock is reset or
/// shuts down first. Boxed by its caller: the rare fault paths stay out of the per-request
/// future that every request moves around.
async fn hold(app: &App, wait: std::time::Duration) -> Held {
    let mut shutdown = app.shutdown.clone();
    tokio::select! {
        _ = crate::shutdown::wait_down(&mut shutdown) => Held::Shutdown,
        _ = app.waits_cancelled.notified() => Held::Reset,
        _ = tokio::time::sleep(wait) => Held::Elapsed,
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

/// Routes a request that is neither a control call nor faulted away: one lookup in the route
/// table, then [`serve`] for what it serves, the not-found answer for the rest.
async fn route(cx: &mut Ctx, req: Request<Incoming>, method: &Method, path: &str) -> MockResponse {
    let named = gatecheck_schemas::NamedProfile::new(cx.profile(), cx.era());
    let miss = match lookup_named(named, method.as_str(), path) {
        Lookup::Found(found) => return serve(cx, req, &found).await,
        Lookup::Miss(miss) => miss,
    };
    // new-api resolves the route before any route group's middleware runs, so an unrouted
    // request is answered before its key is looked at (DECISIONS D-ROUTE-2); the documented
    // profile checks the key of a `/v1` request first.
    if cx.profile() != Profile::NewApi
        && path.starts_with("/v1/")
        && let Err(resp) = cx.admit_key(req.headers())
    {
        return cx.refuse(req, resp).await;
    }
    let resp = unrouted::answer(cx, method, path, &miss);
    cx.refuse(req, resp).await
}

/// Admits a request as its route does, in new-api's middleware order: the key on `/v1/*`
/// (refused after the rest of a short body), on Kling's routes and, as a Bearer key or
/// `mj-api-secret`, on Midjourney's (refused at once). Jimeng reads its `Action` and body
/// before the key, and the token API authenticates its account, in their handlers; the
/// media, the catalog, `GET /api/usage/token` and health are public.
async fn admit(
    cx: &mut Ctx,
    req: Request<Incoming>,
    route: &Route,
) -> Result<Request<Incoming>, MockResponse> {
    match route.op {
        Op::CreateKlingTask | Op::GetKlingTask | Op::Native(_) => cx.admit_key(req.headers())?,
        Op::Mj(op) if op != MjOp::Image => {
            cx.key = Some(midjourney::authenticate(cx, req.headers())?);
        }
        Op::ListKeyModels | Op::GetKeyModel | Op::ListGeminiModels => {
            let query = req.uri().query().unwrap_or("");
            let v1 = route.op != Op::ListGeminiModels;
            let admitted = cx.admit_key(&models::list_headers(req.headers(), query, v1));
            if let Err(resp) = admitted {
                return Err(cx.refuse(req, resp).await);
            }
        }
        _ if route.path.starts_with("/v1/") => {
            if let Err(resp) = cx.admit_key(req.headers()) {
                return Err(cx.refuse(req, resp).await);
            }
        }
        _ => {}
    }
    Ok(req)
}

/// Serves a request the route table matched: [`admit`], then one handler per [`Op`], given
/// its path parameters. Handlers that read a body are boxed, so that their state stays out of
/// the per-request future; the rest answer without a future of their own.
async fn serve(cx: &mut Ctx, req: Request<Incoming>, found: &Found<'_>) -> MockResponse {
    let req = match admit(cx, req, found.route).await {
        Ok(req) => req,
        Err(resp) => return resp,
    };
    let query = req.uri().query().unwrap_or("");
    if found.route.op == Op::GetVideo {
        // With `poll_advance`, a repeated poll moves the clock before the answer.
        video::advance_on_poll(cx, found.param("task_id"));
    }
    match found.route.op {
        Op::CreateTranslation => Box::pin(audio::transcription(cx, req, true)).await,
        Op::CreateTranscription => Box::pin(audio::transcription(cx, req, false)).await,
        Op::CreateSpeech => Box::pin(audio::speech(cx, req)).await,
        Op::CreateImage => Box::pin(images::generate(cx, req)).await,
        Op::CreateImageEdit => Box::pin(image_edits::edit(cx, req)).await,
        Op::CreateVideo => Box::pin(video::create(cx, req)).await,
        Op::ListVideos => video::list(cx),
        Op::GetVideo => video::retrieve(cx, found.param("task_id")),
        Op::DeleteVideo => video::delete(cx, found.param("task_id")),
        Op::GetVideoContent => video::content(cx, found.param("task_id"), query),
        Op::RemixVideo => Box::pin(remix::handle(cx, req, found.param("video_id"))).await,
        Op::CreateVideoGeneration => Box::pin(video_unified::create(cx, req)).await,
        Op::GetVideoGeneration => video_unified::fetch(cx, found.param("task_id")),
        Op::ListKeyModels => models::list(cx, req.headers(), query),
        Op::ListGeminiModels => models::gemini(cx),
        Op::GetKeyModel => models::get(cx, found.param("model")),
        Op::CreateKlingTask => Box::pin(kling::create(cx, req)).await,
        Op::GetKlingTask => video_unified::fetch(cx, found.param("task_id")),
        Op::Jimeng => Box::pin(jimeng::handle(cx, req)).await,
        Op::Native(op) => Box::pin(native::serve(cx, req, op, found.param("task_id"))).await,
        Op::Mj(MjOp::Submit(name)) => Box::pin(midjourney::submit(cx, req, name)).await,
        Op::Mj(MjOp::Upload) => Box::pin(midjourney::upload(cx, req)).await,
        Op::Mj(MjOp::Swap) => Box::pin(midjourney::swap(cx, req)).await,
        Op::Mj(MjOp::List) => Box::pin(midjourney::list(cx, req)).await,
        Op::Mj(MjOp::Fetch) => midjourney::fetch(cx, found.param("id")),
        Op::Mj(MjOp::ImageSeed) => midjourney::seed(cx, found.param("id")),
        Op::Mj(MjOp::Image) => midjourney::image(cx, found.param("id")),
        Op::ListModels => models::catalog_page(cx, query),
        Op::GetPricing => site::pricing(cx, req.headers()),
        Op::GetStatus => site::status(cx),
        Op::GetTokenUsage => token_api::usage(cx, &req),
        Op::UpdateToken => Box::pin(token_api::update_token(cx, req)).await,
        Op::ListTokens => Box::pin(token_api::list_tokens(cx, req)).await,
        Op::CreateToken => Box::pin(token_api::create_token(cx, req)).await,
        Op::GetToken => Box::pin(token_api::get_token(cx, req, found.param("id"))).await,
        Op::DeleteToken => Box::pin(token_api::delete_token(cx, req, found.param("id"))).await,
        Op::GetTokenKey => Box::pin(token_api::token_key(cx, req, found.param("id"))).await,
        Op::SearchTokens => Box::pin(token_batch::search(cx, req)).await,
        Op::DeleteTokenBatch => Box::pin(token_batch::delete(cx, req)).await,
        Op::GetTokenKeysBatch => Box::pin(token_batch::keys(cx, req)).await,
        Op::GetSelf => Box::pin(user_api::get_self(cx, req)).await,
        Op::GetSelfGroups => Box::pin(user_api::self_groups(cx, req)).await,
        Op::GetUserModels => Box::pin(user_api::user_models(cx, req)).await,
        Op::GetSelfLogs => Box::pin(user_api::self_logs(cx, req)).await,
        Op::GetSelfLogStat => Box::pin(user_api::self_log_stat(cx, req)).await,
        Op::GetSelfQuotaData => Box::pin(user_api::self_quota_data(cx, req)).await,
        Op::MediaImage => Box::pin(images::public(cx, &req, found.param("file"))).await,
        Op::MediaEdit => image_edits::public(req.uri().path(), found.param("file")),
        Op::Health => response::json(200, &serde_json::json!({"status": "ok"})),
    }
}
