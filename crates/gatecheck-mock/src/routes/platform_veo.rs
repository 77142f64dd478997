//! What new-api does differently for a task of Gemini (24) or Vertex (41) Veo
//! (relay/relay_task.go@14639a76 `tryRealtimeFetch`, the adaptors' `ConvertToOpenAIVideo`;
//! DECISIONS D-PLAT-20..22):
//!
//! - [`realtime`]: every `GET /v1/video/generations/{id}` first asks the upstream, and answers
//!   `{"code":"success","message":"","data":{"error":null,"format":"mp4","metadata":null,
//!   "status":<simple>,"task_id","url"}}`, not the record. The mock's upstream is its clock, so
//!   the answer is the state at the mock's now; `POST /__mock/videos/{id}/upstream`
//!   `{"status":"unreachable"}` makes the real-time fetch fail, and the fetch then answers the
//!   record as the poller left it (`data` the operation), as new-api does.
//! - [`content_failure`]: `GET /v1/videos/{id}/content` of a succeeded task whose video
//!   new-api could not get (controller/video_proxy.go VideoProxy's Gemini and Vertex branches):
//!   the upstream `filtered` (no video), `unreachable`, or Gemini's `no_key` chosen through
//!   the control API answer `{"error":{"message","type":"server_error"}}` with new-api's
//!   status (`rules::platforms::veo::content_failure`).
//! - [`video`]: `GET /v1/videos/{id}`: `model` from the operation name, `completed_at` Gemini's
//!   `finish_time` (else `updated_at`), Vertex's `updated_at`; no `metadata` (the stored result
//!   URL is the proxy URL, never a `data:` URL), no `error`.

use super::ctx::Ctx;
use crate::response::{self, MockResponse};
use crate::tasks::platforms::{adaptor, upstream_id, Adaptor};
use crate::tasks::video::StoredVideo;
use gatecheck_schemas::rules::platforms::is_realtime;
use gatecheck_schemas::rules::platforms::veo::{
    content_failure as failure, model_of_operation, realtime_status, CONTENT_ERROR_TYPE,
    UNREACHABLE,
};
use gatecheck_schemas::rules::rejection::ACCEPTED;
use gatecheck_schemas::rules::task::TaskStatus;
use serde_json::json;

/// The status and progress the upstream shows for `t` at the mock's now.
fn now_status(cx: &Ctx, a: &Adaptor, t: &StoredVideo) -> (TaskStatus, i64) {
    let word = a.rules.word(t.state(cx.now_ms()).status);
    a.rules.map(word).unwrap_or((TaskStatus::Unknown, 0))
}

/// The real-time answer to a fetch of `t`, when `t` is a Gemini or Vertex task whose upstream
/// answers; `None` otherwise (the record path answers).
pub(crate) fn realtime(cx: &Ctx, t: &StoredVideo) -> Option<MockResponse> {
    let meta = cx.app.tasks.meta.get(t)?;
    let a = adaptor(meta.platform).filter(|a| is_realtime(a.rules))?;
    if meta.upstream_flags.contains(&UNREACHABLE) {
        return None;
    }
    let (status, _) = now_status(cx, a, t);
    // Gemini's success carries no URL, so new-api stores its proxy URL; Vertex's is a `data:`
    // URL, kept in `data` and not in `result_url` (empty then); a failure stores no reason.
    let url = if status == TaskStatus::Success && a.proxy_url {
        t.content_url(&cx.base_url())
    } else {
        String::new()
    };
    Some(response::json(
        ACCEPTED,
        &json!({"code": "success", "message": "", "data": {
            "error": null, "format": "mp4", "metadata": null,
            "status": realtime_status(status), "task_id": t.id, "url": url,
        }}),
    ))
}

/// new-api's content-route error for a succeeded Gemini or Vertex task `t` whose upstream
/// state or key was chosen so that its video cannot be got; `None`: the video is served.
pub(crate) fn content_failure(cx: &Ctx, t: &StoredVideo) -> Option<MockResponse> {
    let meta = cx.app.tasks.meta.get(t)?;
    let a = adaptor(meta.platform).filter(|a| is_realtime(a.rules))?;
    let (status, message) = failure(a.rules, meta.upstream_word, &meta.upstream_flags)?;
    Some(response::json(
        status,
        &json!({"error": {"message": message, "type": CONTENT_ERROR_TYPE}}),
    ))
}

/// The plugin era's content refusal of a Gemini or Vertex task `t` (`None`: the video is
/// served): 400 naming the status until it succeeded, then the conditions chosen through the
/// control API (`rules::platforms::veo::plugin_content_failure`, DECISIONS D-ERA-9).
pub(crate) fn plugin_content(
    cx: &Ctx,
    a: &Adaptor,
    t: &StoredVideo,
) -> Option<(u16, serde_json::Value)> {
    let (status, _) = now_status(cx, a, t);
    if status != TaskStatus::Success {
        return Some((
            400,
            gatecheck_schemas::rules::openai_video::not_completed_body(status),
        ));
    }
    let meta = cx.app.tasks.meta.get(t)?;
    gatecheck_schemas::rules::platforms::veo::plugin_content_failure(
        a.rules,
        meta.upstream_word,
        &meta.upstream_flags,
    )
}

/// `GET /v1/videos/{id}` of a Gemini or Vertex task `t` sent upstream as `upstream_model`:
/// its adaptor's conversion.
pub(crate) fn video(cx: &Ctx, t: &StoredVideo, a: &Adaptor, upstream_model: &str) -> MockResponse {
    let now = cx.now_ms();
    let state = t.state(now);
    let (status, progress) = now_status(cx, a, t);
    let secs = |ms: i64| ms.div_euclid(1000);
    let created = secs(t.plan.created_at_ms);
    let started = t.plan.started_at_ms.min(t.plan.finish_at_ms);
    let finish = if state.status.is_terminal() {
        secs(t.plan.finish_at_ms)
    } else {
        0
    };
    let updated = if finish > 0 {
        finish
    } else if now >= started {
        created.max(secs(started))
    } else {
        created
    };
    let completed = if a.proxy_url && finish > 0 {
        finish
    } else {
        updated
    };
    let name = format!("models/{upstream_model}/operations/{}", upstream_id(&t.id));
    let status_word = match status {
        TaskStatus::Queued | TaskStatus::Submitted => "queued",
        TaskStatus::InProgress => "in_progress",
        TaskStatus::Success => "completed",
        TaskStatus::Failure => "failed",
        _ => "unknown",
    };
    // The plugin era's host writes the origin model over the render (DECISIONS D-ERA-8).
    let model = if cx.plays_plugins() {
        t.model.as_str()
    } else {
        model_of_operation(&name)
    };
    response::json(
        ACCEPTED,
        &json!({
            "id": t.id, "object": "video", "model": model,
            "status": status_word, "progress": progress,
            "created_at": created, "completed_at": completed,
        }),
    )
}
