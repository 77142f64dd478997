//! The providers' own task objects, as the provider last answered about a task: Kling's
//! (DECISIONS D-TASK-6, also the payload of a Kling callback, D-TASK-9) and Volcengine's for
//! Jimeng (D-TASK-7). new-api's task envelope carries them as its `data`
//! (`routes/video_unified.rs`).

use super::video::StoredVideo;
use gatecheck_schemas::rules::video::VideoState;
use gatecheck_schemas::types::VideoStatus;
use serde_json::{json, Value};

/// Kling's status word (`submitted`, `processing`, `succeed`, `failed`).
pub(crate) fn kling_status(s: VideoStatus) -> &'static str {
    match s {
        VideoStatus::Queued => "submitted",
        VideoStatus::InProgress => "processing",
        VideoStatus::Completed => "succeed",
        VideoStatus::Failed | VideoStatus::Error => "failed",
    }
}

/// Kling's own answer about task `t` in `state` (the `data` of new-api's record, and the
/// payload of a callback): `{code:0, message, request_id, data:{task_id, task_status,
/// task_status_msg, task_result:{videos}, created_at, updated_at}}`, times in ms.
pub(crate) fn kling_task(t: &StoredVideo, state: &VideoState, url: &str, updated_ms: i64) -> Value {
    let videos = if state.status == VideoStatus::Completed {
        json!([{ "id": t.id, "url": url, "duration": t.seconds.to_string() }])
    } else {
        json!([])
    };
    json!({
        "code": 0,
        "message": "SUCCEED",
        "request_id": format!("req-{}", &t.id[t.id.len().saturating_sub(12)..]),
        "data": {
            "task_id": t.id,
            "task_status": kling_status(state.status),
            "task_status_msg": state.error.as_ref().map(|e| e.message.as_str()).unwrap_or(""),
            "task_result": { "videos": videos },
            "created_at": t.plan.created_at_ms,
            "updated_at": updated_ms,
        }
    })
}

/// Volcengine's own answer about task `t` in `state` (the `data` of new-api's record):
/// `{code:10000, message:"Success", data:{status: in_queue|generating|done, video_url}}`; a
/// failed task is the provider's error code with its message.
pub(crate) fn jimeng_task(t: &StoredVideo, state: &VideoState, url: &str) -> Value {
    if let Some(e) = state.error.as_ref().filter(|_| state.status.is_terminal()) {
        return json!({ "code": 50500, "message": e.message, "data": null, "request_id": t.id });
    }
    let status = match state.status {
        VideoStatus::Queued => "in_queue",
        VideoStatus::InProgress => "generating",
        _ => "done",
    };
    let video_url = (state.status == VideoStatus::Completed).then_some(url);
    json!({
        "code": 10000,
        "message": "Success",
        "request_id": t.id,
        "status": 10000,
        "data": { "status": status, "video_url": video_url },
    })
}
