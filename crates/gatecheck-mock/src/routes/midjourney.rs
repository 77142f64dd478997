//! The Midjourney task routes (DECISIONS D-MJ), as new-api serves them under `/mj` and
//! `/{mode}/mj`:
//!
//! - `POST /mj/submit/{imagine,change,simple-change,action,modal,describe,blend,shorten,edits,video}`:
//!   `{code:1, description, result:<task id>, properties}`, charged after the submit is
//!   accepted ([`charged_after_submit`]); a refusal is 400 `{description:"<reason> ",
//!   type:"upstream_error", code:4}`.
//! - `GET /mj/task/{id}/fetch`: the task record; an unknown id (or another user's) is 400
//!   `task_no_found`.
//! - `GET /mj/image/{id}` (no auth): the PNG of a SUCCESS task.
//! - `POST /__mock/mj/{id}/outcome`: the outcome override of `/__mock/videos/{id}/outcome`.
//!
//! The key is a Bearer key or `mj-api-secret` ([`effective_key`]). Tasks move on the mock
//! clock with the video plan and prompt rules ([`crate::midjourney`]); faults apply as on any
//! route.

use super::ctx::Ctx;
use crate::error::{self, MockResponse};
use crate::midjourney::{MjOverrideError, MjTask, MJ_PLAN_SECONDS};
use crate::state::AuthedKey;
use gatecheck_schemas::rules::midjourney::{
    action_of_custom_id, charged_after_submit, effective_key, model_for, simple_change,
    CHANGE_ACTIONS, CODE_REQUEST_ERROR, CODE_SUBMITTED, MJ_MODELS, MJ_SECRET_HEADER,
    REFUSAL_STATUS, SUBMIT_ROUTES, TASK_NO_FOUND,
};
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::rules::rejection::ACCEPTED;
use gatecheck_schemas::rules::video::{error_for, VideoOutcome};
use gatecheck_schemas::types::VideoStatus;
use http::{HeaderMap, HeaderValue, Method, Request};
use hyper::body::Incoming;
use serde_json::{json, Value};

/// The rest of a Midjourney path after `/mj/` (or `/<mode>/mj/`); `None` for other paths.
pub(crate) fn mj_rest(path: &str) -> Option<&str> {
    if let Some(rest) = path.strip_prefix("/mj/") {
        return Some(rest);
    }
    let after = path.strip_prefix('/')?;
    let (_, rest) = after.split_once('/')?;
    rest.strip_prefix("mj/")
}

/// Whether the Midjourney path needs a key (all but the image route).
pub(crate) fn needs_key(rest: &str) -> bool {
    !rest.starts_with("image/")
}

/// Authenticates a Midjourney request: the key of `Authorization`, or of `mj-api-secret`
/// when that is empty or `midjourney-proxy`; then as every model route.
pub(crate) fn authenticate(cx: &Ctx, headers: &HeaderMap) -> Result<AuthedKey, MockResponse> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    };
    let key = effective_key(text("authorization"), text(MJ_SECRET_HEADER));
    let mut effective = HeaderMap::new();
    if let Some(v) = key.and_then(|k| HeaderValue::from_str(&format!("Bearer {k}")).ok()) {
        effective.insert(http::header::AUTHORIZATION, v);
    }
    crate::auth::authenticate_key(&cx.app, &effective, cx.client_ip, cx.now())
}

/// A refusal: 400 `{description: "<reason> <result>", type: "upstream_error", code: 4}`.
fn refusal(reason: &str) -> MockResponse {
    error::json(
        REFUSAL_STATUS,
        &json!({"description": format!("{reason} "), "type": "upstream_error", "code": CODE_REQUEST_ERROR}),
    )
}

fn owner(cx: &Ctx) -> i64 {
    cx.key().map(|k| k.user_id).unwrap_or(0)
}

/// Serves the authenticated Midjourney routes (`rest` after `/mj/`).
pub(crate) async fn handle(cx: &Ctx, req: Request<Incoming>, rest: &str) -> MockResponse {
    let method = req.method().clone();
    let parts: Vec<&str> = gatecheck_schemas::routes::segments_of(rest).collect();
    match (&method, parts.as_slice()) {
        (&Method::POST, ["submit", name]) => match SUBMIT_ROUTES.iter().find(|(n, _)| n == name) {
            Some((_, fixed)) => submit(cx, req, name, *fixed).await.unwrap_or_else(|r| r),
            None => cx.not_found(&method, req.uri().path()),
        },
        (&Method::GET, ["task", id, "fetch"]) => match cx.app.state.mj.get(id, owner(cx)) {
            Some(task) => error::json(ACCEPTED, &task.record(cx.now_ms(), &cx.base_url())),
            None => refusal(TASK_NO_FOUND),
        },
        _ => cx.not_found(&method, req.uri().path()),
    }
}

/// What a submit asks for: its action, prompt and origin task.
struct Ask {
    action: String,
    prompt: String,
    origin: Option<String>,
}

/// Reads a submit's body into what it asks for, as new-api's distributor and
/// RelayMidjourneySubmit check it; the refusal's reason otherwise.
fn ask_of(name: &str, fixed: Option<&str>, body: &Value) -> Result<Ask, &'static str> {
    let text = |k: &str| {
        body.get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim()
            .to_owned()
    };
    let task_id = text("taskId");
    let mut ask = Ask {
        action: fixed.unwrap_or("").to_owned(),
        prompt: text("prompt"),
        origin: None,
    };
    match name {
        "imagine" if ask.prompt.is_empty() => return Err("prompt_is_required"),
        "change" => {
            let action = text("action").to_ascii_uppercase();
            let index = body.get("index").and_then(Value::as_i64).unwrap_or(0);
            if task_id.is_empty() {
                return Err("task_id_is_required");
            }
            if action.is_empty() {
                return Err("action_is_required");
            }
            if index == 0 && action != "REROLL" {
                return Err("index_is_required");
            }
            if !CHANGE_ACTIONS.contains(&action.as_str()) {
                return Err("unknown_action");
            }
            ask.action = action;
            ask.origin = Some(task_id);
        }
        "simple-change" => {
            let content = text("content");
            let (id, action, _) = simple_change(&content).ok_or("invalid_request")?;
            ask.action = action.to_owned();
            ask.origin = Some(id.to_owned());
        }
        "action" => {
            let (action, _) = action_of_custom_id(&text("customId"))?;
            if task_id.is_empty() {
                return Err("task_id_is_required");
            }
            ask.action = action.to_owned();
            ask.origin = Some(task_id);
        }
        "modal" | "video" if task_id.is_empty() => return Err("task_id_is_required"),
        "modal" | "video" => ask.origin = Some(task_id),
        _ => {}
    }
    Ok(ask)
}

async fn submit(
    cx: &Ctx,
    req: Request<Incoming>,
    name: &str,
    fixed: Option<&str>,
) -> Result<MockResponse, MockResponse> {
    let body = cx.read_body(req).await?;
    let value: Value = match serde_json::from_slice(&body) {
        Ok(v @ Value::Object(_)) => v,
        _ => return Err(refusal("bind_request_body_failed")),
    };
    let mut ask = ask_of(name, fixed, &value).map_err(refusal)?;
    let model = model_for(&ask.action);
    if !MJ_MODELS.contains(&model.as_str()) {
        return Err(refusal("unknown_relay_action"));
    }
    cx.check_model(&model)?;
    cx.check_channel(&model)?;
    let now_ms = cx.now_ms();
    if let Some(origin) = &ask.origin {
        let Some(task) = cx.app.state.mj.get(origin, owner(cx)) else {
            return Err(refusal("task_not_found"));
        };
        // A modal opens on any task; the other actions need a finished grid.
        if name != "modal" && task.status_at(now_ms) != VideoStatus::Completed {
            return Err(refusal("task_status_not_success"));
        }
        ask.prompt = task.prompt.clone();
    }
    let price = cx.price(&model, Usage::one_request());
    let id = task_id(cx, now_ms);
    let plan = cx
        .fixtures()
        .video
        .plan(now_ms, MJ_PLAN_SECONDS, &ask.prompt);
    // Charged once the submit is accepted, atomically: a key short of quota gets new-api's
    // `quota_not_enough` refusal, and no task is stored.
    let quota = if charged_after_submit(CODE_SUBMITTED) {
        cx.charge(price)
            .map_err(|_| refusal("quota_not_enough"))?
            .price
    } else {
        0
    };
    cx.app.state.mj.insert(MjTask {
        id: id.clone(),
        owner: owner(cx),
        action: ask.action,
        prompt: ask.prompt,
        plan,
        quota,
    });
    Ok(error::json(
        ACCEPTED,
        &json!({
            "code": CODE_SUBMITTED,
            "description": "Submit success",
            "result": id,
            "properties": {"discordInstanceId": "gatecheck", "discordChannelId": "gatecheck"},
        }),
    ))
}

/// A fresh task id: the submit time in ms and three digits (midjourney-proxy's form).
fn task_id(cx: &Ctx, now_ms: i64) -> String {
    loop {
        let salt = crate::media::fnv1a(cx.ids().alnum(8).as_bytes()) % 1000;
        let id = format!("{}{salt:03}", now_ms.max(0));
        if cx.app.state.mj.get_any(&id).is_none() {
            return id;
        }
    }
}

/// Serves `GET /mj/image/{id}` (no auth): the PNG of a SUCCESS task; 400
/// `midjourney_task_not_found` for an unknown one, 404 before it succeeded.
pub(crate) fn image(cx: &Ctx, req: &Request<Incoming>, rest: &str) -> MockResponse {
    let id = rest
        .strip_prefix("image/")
        .unwrap_or("")
        .trim_end_matches('/');
    if *req.method() != Method::GET {
        return cx.not_found(req.method(), req.uri().path());
    }
    let Some(task) = cx.app.state.mj.get_any(id) else {
        return error::json(400, &json!({"error": "midjourney_task_not_found"}));
    };
    if task.status_at(cx.now_ms()) != VideoStatus::Completed {
        return error::json(404, &json!({"error": "midjourney_image_not_ready"}));
    }
    match crate::media::png(crate::media::fnv1a(task.id.as_bytes()), 1024, 1024) {
        Ok(png) => error::bytes_response(ACCEPTED, "image/png", png),
        Err(e) => error::json(500, &json!({"error": e.to_string()})),
    }
}

/// Serves `POST /__mock/mj/{id}/outcome` (control API, access already checked): the body of
/// `/__mock/videos/{id}/outcome` (`outcome`, `code`, `message`, `immediate`).
pub(crate) async fn control(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    let path = req.uri().path().trim_end_matches('/').to_owned();
    let failure = |status: u16, message: &str| {
        error::json(status, &json!({"success": false, "message": message}))
    };
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
    let v: Value = serde_json::from_slice(&body).unwrap_or_default();
    let field = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("");
    let Some(outcome) = VideoOutcome::parse(field("outcome")) else {
        return failure(400, "outcome must be completed, failed or error");
    };
    let immediate = v.get("immediate").and_then(Value::as_bool).unwrap_or(false);
    let err = error_for(outcome, field("code"), field("message"));
    match cx
        .app
        .state
        .mj
        .set_outcome(&id, cx.now_ms(), outcome, err, immediate)
    {
        Ok(t) => error::json(
            200,
            &json!({"success": true, "data": t.record(cx.now_ms(), &cx.base_url())}),
        ),
        Err(e @ MjOverrideError::NotFound(_)) => failure(404, &e.to_string()),
        Err(e @ MjOverrideError::Terminal(_)) => failure(409, &e.to_string()),
    }
}
