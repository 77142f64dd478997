//! The control API under `/__mock/` (like WireMock's `/__admin`).
//!
//! | Route | What it does |
//! |---|---|
//! | `GET /__mock/health` | the signature `{status:"ok", service:"gatecheck-mock", version, profile, clock, now}` ([`gatecheck_schemas::rules::health`]) |
//! | `POST /__mock/reset` | state, journal, faults (the configured ones stay), rate limits and clock back to the start |
//! | `GET /__mock/keys` | every key, full records with secrets |
//! | `GET /__mock/keys/{id}` | one key's current record (404 for an unknown id) |
//! | `POST /__mock/keys` | create a key from a partial record; answers the full record |
//! | `GET /__mock/accounts` | every account with its access token |
//! | `GET /__mock/clock` | `{mode, now, now_ms}` |
//! | `POST /__mock/clock/advance` | `{"seconds":N}` (or `"ms"`) moves the clock forward |
//! | `GET /__mock/faults` | installed faults |
//! | `POST /__mock/faults` | install a [`Fault`] (`{"route","kind",...,"times","probability","seed"}`) |
//! | `DELETE /__mock/faults[/{id}]` | remove all faults, or one |
//! | `GET /__mock/requests?limit=N` | the journal, oldest first |
//! | `POST /__mock/streams` | script the streamed answers of a route (`StreamScript::from_json`) |
//! | `GET /__mock/callbacks` | the Kling callbacks made, oldest first |
//! | `GET /__mock/state`, `PUT /__mock/state` | dump or load the whole state |
//! | `/__mock/videos/*` | video controls (the video routes) |
//! | `GET`/`HEAD /__mock/ui` | the live dashboard (HTML; [`crate::routes::ui`]) |
//! | `/__mock/mj/{id}/outcome` | a Midjourney task's outcome (the `/mj` routes) |
//!
//! Turned off by `--no-control` (every route 404). Only a loopback `Host` is answered
//! (`localhost`, `*.localhost`, 127.0.0.0/8, `[::1]`, the bound address, or a name given to
//! `--allowed-host`; anything else 403: the DNS-rebinding guard of [`crate::routes::control_access`]). Peers other than loopback are refused (403)
//! unless the mock has a control token and the request sends it as `X-Mock-Control-Token` or
//! `Authorization: Bearer <token>`. A browser request from another origin (an `Origin` that is
//! not the request's `Host`, or `Sec-Fetch-Site: cross-site`) is refused (403), and a CORS
//! preflight to `/__mock/*` gets no permission.

use super::ctx::Ctx;
use crate::harness::faults::Fault;
use crate::response::{self, control_failure as failure, MockResponse};
use crate::state::{NewKey, StateSnapshot};
use gatecheck_schemas::rules::catalog::query_pairs;
use http::{Method, Request};
use hyper::body::Incoming;
use serde_json::json;
use std::time::Duration;

/// Serves `/__mock/*`: the table of the module's doc, one route an arm.
pub(crate) async fn handle(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    if let Err((status, why)) =
        crate::routes::control_access::gate(&cx.app, cx.peer, req.headers(), req.uri())
    {
        return cx.refuse(req, failure(status, &why)).await;
    }
    let path = req.uri().path().to_owned();
    let rest = path
        .trim_start_matches("/__mock")
        .trim_matches('/')
        .to_owned();
    let method = req.method().clone();
    let query = req.uri().query().unwrap_or("").to_owned();
    let app = &cx.app;
    if rest == "videos" || rest.starts_with("videos/") {
        return super::outcomes::videos(cx, req).await;
    }
    if rest.starts_with("mj/") {
        return super::outcomes::midjourney(cx, req).await;
    }
    let unknown = || failure(404, &format!("unknown control route {method} {path}"));
    let done = || response::json(200, &json!({"success": true, "message": ""}));
    match (&method, rest.as_str()) {
        // HEAD as GET: hyper sends the head (status, headers) without the body.
        (&Method::GET | &Method::HEAD, r) if r == "ui" || r.starts_with("ui/") => {
            super::ui::serve(r).unwrap_or_else(unknown)
        }
        (&Method::GET, "health" | "") => health(cx),
        (&Method::POST, "reset") => {
            app.reset();
            done()
        }
        (&Method::GET, "keys") => response::json(200, &app.state.keys()),
        (&Method::GET, r) if r.starts_with("keys/") => one_key(cx, &r["keys/".len()..]),
        (&Method::POST, "keys") => create_key(cx, req).await.unwrap_or_else(|r| r),
        (&Method::GET, "accounts") => response::json(200, &app.state.accounts()),
        (&Method::GET, "clock") => clock_json(cx),
        (&Method::POST, "clock/advance") => advance_clock(cx, req).await.unwrap_or_else(|r| r),
        (&Method::GET, "faults") => response::json(200, &app.faults.list()),
        (&Method::POST, "faults") => add_fault(cx, req).await.unwrap_or_else(|r| r),
        (&Method::DELETE, "faults") => {
            app.faults.clear();
            done()
        }
        (&Method::DELETE, r) if r.starts_with("faults/") => {
            match r["faults/".len()..].parse::<u64>() {
                Ok(id) if app.faults.remove(id) => done(),
                _ => failure(404, "no such fault"),
            }
        }
        (&Method::GET, "requests") => requests(cx, &query),
        (&Method::POST, "streams") => script_stream(cx, req).await.unwrap_or_else(|r| r),
        (&Method::GET, "callbacks") => response::json(200, &app.tasks.callbacks.records()),
        (&Method::GET, "state") => response::json(200, &app.snapshot()),
        (&Method::PUT, "state") => match read_json::<StateSnapshot>(cx, req).await {
            Ok(snap) => {
                app.restore(snap);
                done()
            }
            Err(resp) => resp,
        },
        _ => unknown(),
    }
}

/// `GET /__mock/health`: the signature body.
fn health(cx: &Ctx) -> MockResponse {
    let app = &cx.app;
    response::json(
        200,
        &gatecheck_schemas::rules::health::signature_body(
            env!("CARGO_PKG_VERSION"),
            app.config.profile,
            json!({ "era": app.era.as_str(), "clock": app.clock.mode(), "now": app.clock.now() }),
        ),
    )
}

/// `GET /__mock/keys/{id}`: one key's current record (tasks that failed are refunded first,
/// as the library's `MockServer::key` does).
fn one_key(cx: &Ctx, id: &str) -> MockResponse {
    let app = &cx.app;
    let Ok(id) = id.parse::<i64>() else {
        return failure(400, &format!("a key id is a number, not {id:?}"));
    };
    app.settle_tasks(app.clock.now_ms());
    match app.state.key(id) {
        Some(record) => response::json(200, &record),
        None => failure(404, &format!("no key with id {id}")),
    }
}

/// `POST /__mock/streams`: installs a stream script given as JSON; 201.
async fn script_stream(cx: &Ctx, req: Request<Incoming>) -> Result<MockResponse, MockResponse> {
    let body: serde_json::Value = read_json(cx, req).await?;
    let script = crate::StreamScript::from_json(&body)
        .map_err(|e| failure(400, &format!("invalid stream script: {e}")))?;
    let events = script.len();
    cx.app.scripts.add(script);
    Ok(response::json(
        201,
        &json!({"success": true, "message": "", "events": events}),
    ))
}

/// `POST /__mock/keys`: a key from a partial record; 201 with the full record.
async fn create_key(cx: &Ctx, req: Request<Incoming>) -> Result<MockResponse, MockResponse> {
    let new: NewKey = read_json(cx, req).await?;
    let app = &cx.app;
    let record = app.state.create_key(new, app.clock.now(), &app.ids);
    Ok(response::json(201, &record))
}

/// `POST /__mock/clock/advance`: `{"seconds": N}` or `{"ms": N}`, N not negative.
async fn advance_clock(cx: &Ctx, req: Request<Incoming>) -> Result<MockResponse, MockResponse> {
    let body: serde_json::Value = read_json(cx, req).await?;
    let ms = match (body.get("seconds"), body.get("ms")) {
        (Some(s), _) => s.as_f64().map(|s| s * 1000.0),
        (None, Some(ms)) => ms.as_f64(),
        (None, None) => None,
    };
    Ok(match ms {
        Some(ms) if ms >= 0.0 && ms.is_finite() => {
            cx.app.clock.advance(Duration::from_millis(ms as u64));
            clock_json(cx)
        }
        _ => failure(
            400,
            "expected {\"seconds\": N} or {\"ms\": N} with N a non-negative number",
        ),
    })
}

/// `POST /__mock/faults`: installs a [`Fault`] (a `seed` reseeds the faults' draws first);
/// 201 with its id.
async fn add_fault(cx: &Ctx, req: Request<Incoming>) -> Result<MockResponse, MockResponse> {
    let body: serde_json::Value = read_json(cx, req).await?;
    let faults = &cx.app.faults;
    if let Some(seed) = body.get("seed").and_then(|s| s.as_u64()) {
        faults.reseed(seed);
    }
    Ok(match serde_json::from_value::<Fault>(body) {
        // An upstream answer new-api would accept, or whose relay it masks, is no refusal
        // it relays (DECISIONS D-PLAT-11).
        Ok(fault)
            if fault.kind.upstream().is_some_and(|(s, b)| {
                !gatecheck_schemas::rules::platforms::all()
                    .iter()
                    .filter_map(|p| p.refusals)
                    .any(|r| (r.submit)(s, &b).is_some())
            }) =>
        {
            failure(
                400,
                "invalid fault: an upstream answer must be one new-api relays as a refusal \
                 (a non-200, or a 200 DashScope body with a `code` or without `output.task_id`; \
                 none whose message names post, dial or http, which new-api masks)",
            )
        }
        Ok(fault) => {
            let p = fault.probability;
            let fault = fault.probability(p);
            let id = faults.add(fault.clone());
            response::json(201, &json!({"id": id, "fault": fault}))
        }
        Err(e) => failure(400, &format!("invalid fault: {e}")),
    })
}

/// `GET /__mock/requests?limit=N`: the journal, oldest first, with its counts.
fn requests(cx: &Ctx, query: &str) -> MockResponse {
    let journal = &cx.app.journal;
    let limit = query_pairs(query)
        .into_iter()
        .find(|(k, _)| k == "limit")
        .and_then(|(_, v)| v.parse::<usize>().ok());
    response::json(
        200,
        &json!({
            "capacity": journal.capacity(),
            "held": journal.len(),
            "total": journal.total(),
            "requests": journal.recent(limit),
        }),
    )
}

fn clock_json(cx: &Ctx) -> MockResponse {
    let clock = &cx.app.clock;
    response::json(
        200,
        &json!({
            "mode": if clock.is_virtual() { "virtual" } else { "real" },
            "poll_advance": cx.app.config.poll_advance && clock.is_virtual(),
            "now": clock.now(),
            "now_ms": clock.now_ms(),
        }),
    )
}

async fn read_json<T: serde::de::DeserializeOwned>(
    cx: &Ctx,
    req: Request<Incoming>,
) -> Result<T, MockResponse> {
    let body = cx.read_body(req).await?;
    let body = if body.iter().all(u8::is_ascii_whitespace) {
        bytes::Bytes::from_static(b"{}")
    } else {
        body
    };
    serde_json::from_slice(&body).map_err(|e| failure(400, &format!("invalid JSON body: {e}")))
}
