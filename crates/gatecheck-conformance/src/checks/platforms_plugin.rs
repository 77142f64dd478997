//! What `task.platform.*` judges of a polled platform's task in new-api's plugin era, under
//! `--expect new-api` (`CheckCtx::judges_plugins`; nothing in another era or expectation):
//!
//! - [`decode`]: a multipart `POST /v1/videos` where the plugin decodes JSON only is refused
//!   400 `plugin_request_invalid` (DECISIONS D-ERA-10; a task made deviates).
//! - [`early_content`] and [`judge_early`]: the content right after the submit is refused
//!   naming the row's status (D-ERA-9: content served before SUCCESS fails, another status
//!   deviates).
//! - [`judge_action`]: the record's `action` is the plugin's name (D-ERA-10).
//! - [`after_end`]: `GET /v1/videos/{id}` of the ended task is the host's render over the
//!   plugin's (D-ERA-8: a status other than the row's fails; a `task_id`, a `metadata.url` or
//!   an `error` other than the plugin's deviates), and its content is the video or, failed,
//!   a refusal naming `FAILURE` (D-ERA-9).

use super::{accepted, CheckCtx, Halt};
use crate::http::client::{Exchange, Part, RequestSpec};
use gatecheck_schemas::decisions::id;
use gatecheck_schemas::rules::era::{is_plugin_refusal, PLUGIN_REFUSAL_STATUS};
use gatecheck_schemas::rules::openai_video::{
    host_render, named_status, BodyKind, HostRow, NOT_COMPLETED_STATUS,
};
use gatecheck_schemas::rules::platforms::{Era, Platform};
use gatecheck_schemas::rules::task::{TaskDto, TaskStatus};
use serde_json::{Map, Value};

/// The multipart submit of a plugin that decodes JSON only: refused, or a deviation.
pub(crate) async fn decode(
    ctx: &CheckCtx,
    p: &Platform,
    model: &str,
    price: i64,
) -> Result<u32, Halt> {
    if !ctx.judges_plugins() || p.plugins.bodies.refusal(BodyKind::Multipart, &[]).is_ok() {
        return Ok(0);
    }
    let spec = RequestSpec::post("/v1/videos")
        .auth(ctx.model_auth()?)
        .multipart(vec![
            Part::text("model", model),
            Part::text("prompt", "a paper kite over dunes (gatecheck)"),
        ]);
    let ex = ctx.send(&spec, price).await?;
    let body = ex.json().unwrap_or(Value::Null);
    if ex.status.as_u16() == PLUGIN_REFUSAL_STATUS && is_plugin_refusal(&body) {
        return Ok(1);
    }
    Err(ctx.deviate(
        id::D_ERA_10,
        format!(
            "a multipart POST /v1/videos of a {} model was answered {}: its plugin decodes a \
             JSON object only (400 plugin_request_invalid)",
            p.title,
            super::answer_summary(&ex)
        ),
        &spec,
        Some(&ex),
    ))
}

/// The content of a task just submitted.
pub(crate) struct Early {
    spec: RequestSpec,
    ex: Exchange,
}

/// Asks the content of task `id` right after its submit (plugin era only).
pub(crate) async fn early_content(ctx: &CheckCtx, id: &str) -> Result<Option<Early>, Halt> {
    if !ctx.judges_plugins() {
        return Ok(None);
    }
    let spec = RequestSpec::get(format!("/v1/videos/{id}/content")).auth(ctx.model_auth()?);
    let ex = ctx.send(&spec, 0).await?;
    Ok(Some(Early { spec, ex }))
}

/// The early content against the first record: served before SUCCESS fails; a refusal
/// naming a status the platform's row never has, or one past the record read after it,
/// deviates.
pub(crate) fn judge_early(
    ctx: &CheckCtx,
    p: &Platform,
    early: &Early,
    first: &TaskDto,
) -> Result<(), Halt> {
    let (spec, ex) = (&early.spec, &early.ex);
    if accepted(ex) {
        if first.status == TaskStatus::Success {
            return Ok(());
        }
        return Err(ctx.fail(
            format!(
                "the content of a task whose record is {} was served (DECISIONS D-ERA-9: 400 until SUCCESS)",
                first.status.as_str()
            ),
            spec,
            Some(ex),
        ));
    }
    if ex.status.as_u16() != NOT_COMPLETED_STATUS {
        return Err(ctx.deviate(
            id::D_ERA_9,
            format!(
                "the content of an unfinished task was answered {}, not 400",
                ex.status
            ),
            spec,
            Some(ex),
        ));
    }
    let named = named_status(&ex.json().unwrap_or(Value::Null));
    if named.is_some_and(|s| may_precede(p, s, first.status)) {
        return Ok(());
    }
    Err(ctx.deviate(
        id::D_ERA_9,
        format!(
            "the content refusal names status {}, which the {} record read after it ({}) does not explain (new-api names the row's own status)",
            named.map_or("none", TaskStatus::as_str),
            p.title,
            first.status.as_str()
        ),
        spec,
        Some(ex),
    ))
}

/// Whether a row of platform `p` may have had status `named` before showing `later`: one the
/// plugin stores (or `NOT_START`, before the first poll), at most as far on as `later` (the
/// record is read after the content, and a task may move in between).
fn may_precede(p: &Platform, named: TaskStatus, later: TaskStatus) -> bool {
    let rank = |s: TaskStatus| match s {
        TaskStatus::NotStart | TaskStatus::Submitted | TaskStatus::Queued => 0,
        TaskStatus::InProgress | TaskStatus::Unknown => 1,
        TaskStatus::Success | TaskStatus::Failure => 2,
    };
    let stored = named == TaskStatus::NotStart
        || p.states_in(Era::Plugins).iter().any(|s| s.status == named);
    stored && (named == later || rank(named) < rank(later))
}

/// The record's `action` against the plugin's name for the request `body` (plugin era).
pub(crate) fn judge_action(
    ctx: &CheckCtx,
    p: &Platform,
    body: &Map<String, Value>,
    t: &TaskDto,
    spec: &RequestSpec,
    ex: &Exchange,
) -> Result<(), Halt> {
    if !ctx.judges_plugins() {
        return Ok(());
    }
    match p.plugin_action_in(Era::Plugins, body) {
        Some(want) if t.action != want => Err(ctx.deviate(
            id::D_ERA_10,
            format!(
                "the record's action is {:?}, the {} plugin's name for this request {want:?}",
                t.action, p.title
            ),
            spec,
            Some(ex),
        )),
        _ => Ok(()),
    }
}

/// `GET /v1/videos/{id}` and the content of the ended task whose last record is `last`.
pub(crate) async fn after_end(
    ctx: &CheckCtx,
    p: &Platform,
    id: &str,
    last: &TaskDto,
) -> Result<u32, Halt> {
    if !ctx.judges_plugins() || !last.status.is_terminal() {
        return Ok(0);
    }
    let auth = ctx.model_auth()?;
    let spec = RequestSpec::get(format!("/v1/videos/{id}")).auth(auth.clone());
    let ex = ctx.send(&spec, 0).await?;
    judge_render(ctx, p, last, &ex.json().unwrap_or(Value::Null), &spec, &ex)?;
    let spec = RequestSpec::get(format!("/v1/videos/{id}/content")).auth(auth);
    let ex = ctx.send(&spec, 0).await?;
    judge_ended_content(ctx, last, &spec, &ex)?;
    Ok(2)
}

/// What new-api's plugin era shows on `GET /v1/videos/{id}` of the task whose last record is
/// `last`: the plugin's render of its `data` under the host's fields (`host_render`).
fn expected_render(p: &Platform, last: &TaskDto) -> Value {
    let mut rendered = serde_json::json!({});
    if let Some((code, message)) = p.plugins.render_error.and_then(|f| f(&last.data)) {
        rendered["error"] = serde_json::json!({"code": code, "message": message});
    }
    let row = HostRow {
        id: &last.task_id,
        model: &last.properties.origin_model_name,
        status: last.status,
        progress: gatecheck_schemas::rules::task::parse_progress(&last.progress).unwrap_or(0),
        created_at: last.created_at,
        updated_at: last.updated_at,
    };
    host_render(rendered, &row)
}

/// The host's render `v` of the ended task against its last record: another status fails
/// (the service contradicting itself); a `task_id`, a `metadata.url`, another `model` or
/// another `error` deviates. The times and progress are not judged (the poller may touch the
/// row after the record was read).
fn judge_render(
    ctx: &CheckCtx,
    p: &Platform,
    last: &TaskDto,
    v: &Value,
    spec: &RequestSpec,
    ex: &Exchange,
) -> Result<(), Halt> {
    let want = expected_render(p, last);
    if v["status"] != want["status"] {
        return Err(ctx.fail(
            format!(
                "/v1/videos/{{id}} shows status {}, the ended record {} ({}): the host writes the row's status (DECISIONS D-ERA-8)",
                v["status"],
                last.status.as_str(),
                want["status"]
            ),
            spec,
            Some(ex),
        ));
    }
    let error = |x: &Value| x.get("error").filter(|e| !e.is_null()).cloned();
    let problem = if v.get("task_id").is_some_and(|t| !t.is_null()) {
        Some(format!("a task_id {}", v["task_id"]))
    } else if let Some(url) = v.pointer("/metadata/url") {
        Some(format!("a metadata.url {url}"))
    } else if v["model"] != want["model"] {
        Some(format!(
            "the model {}, the task's {}",
            v["model"], want["model"]
        ))
    } else if error(v) != error(&want) {
        Some(format!(
            "the error {}, where the {} plugin renders {} from the record's data",
            error(v).unwrap_or(Value::Null),
            p.title,
            error(&want).unwrap_or(Value::Null)
        ))
    } else {
        None
    };
    match problem {
        Some(m) => Err(ctx.deviate(
            id::D_ERA_8,
            format!("/v1/videos/{{id}} shows {m} (the plugin era's host render)"),
            spec,
            Some(ex),
        )),
        None => Ok(()),
    }
}

/// The content of the ended task: the video of a SUCCESS, a refusal naming `FAILURE`.
fn judge_ended_content(
    ctx: &CheckCtx,
    last: &TaskDto,
    spec: &RequestSpec,
    ex: &Exchange,
) -> Result<(), Halt> {
    if last.status == TaskStatus::Success {
        let mp4 = ex.content_type().as_deref() == Some("video/mp4")
            && gatecheck_schemas::rules::media::parse_mp4(&ex.body).is_ok();
        if accepted(ex) && mp4 {
            return Ok(());
        }
        return Err(ctx.fail(
            format!(
                "the content of a SUCCESS task was answered {} (its plugin's video artifact, DECISIONS D-ERA-9)",
                super::answer_summary(ex)
            ),
            spec,
            Some(ex),
        ));
    }
    if accepted(ex) {
        return Err(ctx.fail("the content of a failed task was served", spec, Some(ex)));
    }
    let named = named_status(&ex.json().unwrap_or(Value::Null));
    if ex.status.as_u16() == NOT_COMPLETED_STATUS && named == Some(TaskStatus::Failure) {
        return Ok(());
    }
    Err(ctx.deviate(
        id::D_ERA_9,
        format!(
            "the content of a failed task was answered {}, not 400 naming FAILURE",
            super::answer_summary(ex)
        ),
        spec,
        Some(ex),
    ))
}
