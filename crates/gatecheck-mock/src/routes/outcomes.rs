//! The control API's task routes (access already checked by `routes/control.rs`):
//!
//! - `GET /__mock/videos`: every video task, with its owner and platform (`55 sora`,
//!   `52 vidu`...).
//! - `POST /__mock/videos/{id}/outcome` `{"outcome":"completed|failed|error","code"?,
//!   "message"?,"immediate"?}` overrides the outcome of a task that is not terminal yet (409
//!   when it is).
//! - `POST /__mock/videos/{id}/upstream` `{"status":"<upstream state>"}`: for a video
//!   platform's task (DECISIONS D-PLAT-6), the upstream state its record shows, one of those
//!   mapping to the task's status now (Vidu `created` or `queueing`, Doubao `pending` or
//!   `queued`...); 400 naming the choices otherwise, 404 for an unknown task. With a number,
//!   `{"status":500,"body":{...}}`: an Ali task's upstream answering new-api's polls with that
//!   error body (DECISIONS D-PLAT-11).
//! - `POST /__mock/mj/{id}/outcome`: the same body, for a Midjourney task.

use super::ctx::Ctx;
use crate::response::{control_failure as failure, MockResponse};
use crate::tasks::midjourney::MjOverrideError;
use crate::tasks::video::OutcomeOverrideError;
use gatecheck_schemas::rules::video::{error_for, VideoOutcome};
use gatecheck_schemas::types::VideoTaskError;
use http::{Method, Request};
use hyper::body::Incoming;
use serde_json::{json, Value};

/// What an outcome override body asks for.
struct Override {
    outcome: VideoOutcome,
    error: Option<VideoTaskError>,
    immediate: bool,
}

/// Reads an outcome override body (`outcome`, `code`, `message`, `immediate`); 400 when the
/// outcome is not one of `completed`, `failed`, `error`.
fn parse_override(v: &Value) -> Result<Override, MockResponse> {
    let field = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("");
    let Some(outcome) = VideoOutcome::parse(field("outcome")) else {
        return Err(failure(400, "outcome must be completed, failed or error"));
    };
    Ok(Override {
        outcome,
        error: error_for(outcome, field("code"), field("message")),
        immediate: v.get("immediate").and_then(Value::as_bool).unwrap_or(false),
    })
}

/// Serves `/__mock/videos/*`.
pub(crate) async fn videos(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    let path = req.uri().path().trim_end_matches('/').to_owned();
    let method = req.method().clone();
    let rest = path.strip_prefix("/__mock/videos").unwrap_or("");
    let parts: Vec<&str> = gatecheck_schemas::routes::segments_of(rest).collect();
    match (&method, parts.as_slice()) {
        (&Method::GET, []) => {
            let now = cx.now_ms();
            let base = cx.base_url();
            let tasks: Vec<_> = cx
                .videos()
                .snapshot()
                .tasks
                .into_iter()
                .map(|t| {
                    // The platform the task routes show (DECISIONS D-TASK-2, D-PLAT): the
                    // OpenAI-video task's for a task of `/v1/videos`.
                    let openai = gatecheck_schemas::rules::platforms::OPENAI_VIDEO.channel_type;
                    let platform = crate::tasks::platforms::platform_label(
                        cx.app.tasks.meta.get(&t).map_or(openai, |m| m.platform),
                    );
                    json!({"owner": t.owner, "platform": platform, "task": t.render(now, &base, cx.profile())})
                })
                .collect();
            crate::response::json(200, &json!({"success": true, "data": tasks}))
        }
        (&Method::POST, [id, "outcome"]) => {
            let id = (*id).to_owned();
            let body = match cx.read_body(req).await {
                Ok(b) => b,
                Err(resp) => return resp,
            };
            let v: Value = match serde_json::from_slice(&body) {
                Ok(v) => v,
                Err(e) => return failure(400, &format!("invalid JSON body: {e}")),
            };
            let o = match parse_override(&v) {
                Ok(o) => o,
                Err(resp) => return resp,
            };
            match cx
                .videos()
                .set_outcome(&id, cx.now_ms(), o.outcome, o.error, o.immediate)
            {
                Ok(t) => crate::response::json(
                    200,
                    &json!({"success": true, "data": t.render(cx.now_ms(), &cx.base_url(), cx.profile())}),
                ),
                Err(e @ OutcomeOverrideError::NotFound(_)) => failure(404, &e.to_string()),
                Err(e @ OutcomeOverrideError::Terminal(_)) => failure(409, &e.to_string()),
            }
        }
        (&Method::POST, [id, "upstream"]) => {
            let id = (*id).to_owned();
            let body = match cx.read_body(req).await {
                Ok(b) => b,
                Err(resp) => return resp,
            };
            let v: Value = serde_json::from_slice(&body).unwrap_or_default();
            // A number: the upstream's error answer to the poll, with its body (D-PLAT-11).
            if v.get("status").is_some_and(Value::is_u64) {
                return super::platform::choose_upstream_error(cx, &id, &v["body"]);
            }
            let word = v.get("status").and_then(Value::as_str).unwrap_or("");
            super::platform::choose_upstream(cx, &id, word)
        }
        _ => failure(404, &format!("unknown control route {method} {path}")),
    }
}

/// Serves `POST /__mock/mj/{id}/outcome`: the body of `/__mock/videos/{id}/outcome`.
pub(crate) async fn midjourney(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    let path = req.uri().path().trim_end_matches('/').to_owned();
    let id = match path
        .strip_prefix("/__mock/mj/")
        .and_then(|r| r.strip_suffix("/outcome"))
    {
        Some(id) if *req.method() == Method::POST => id.to_owned(),
        _ => {
            return failure(
                404,
                &format!("unknown control route {} {path}", req.method()),
            )
        }
    };
    let body = match cx.read_body(req).await {
        Ok(b) => b,
        Err(resp) => return resp,
    };
    // A body that is not JSON reads as no outcome (400 below).
    let v: Value = serde_json::from_slice(&body).unwrap_or_default();
    let o = match parse_override(&v) {
        Ok(o) => o,
        Err(resp) => return resp,
    };
    match cx
        .app
        .tasks
        .mj
        .set_outcome(&id, cx.now_ms(), o.outcome, o.error, o.immediate)
    {
        Ok(t) => crate::response::json(
            200,
            &json!({"success": true, "data": t.record(cx.now_ms(), &cx.base_url())}),
        ),
        Err(e @ MjOverrideError::NotFound(_)) => failure(404, &e.to_string()),
        Err(e @ MjOverrideError::Terminal(_)) => failure(409, &e.to_string()),
    }
}
