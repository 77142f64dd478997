//! Kling (channel type 50): its native routes' hooks (middleware/kling_adapter.go
//! KlingRequestConvert, relay/channel/task/kling/adaptor.go; DECISIONS D-TASK-6, D-TASK-9).
//! Reads `model_name` (else `model`), `prompt`, `duration` ("5"/"10", a number too),
//! `aspect_ratio` (16:9, 9:16, 1:1 pick the size), `image`/`image_tail` (image to video) and
//! `callback_url`; its task is Kling's own answer `{code:0, message, request_id, data:{task_id,
//! task_status, task_status_msg, task_result:{videos}, created_at, updated_at}}`.

use super::room::{text_of, Native, NativeCall, NativeRead, TaskRoom};
use super::text;
use crate::tasks::video::StoredVideo;
use gatecheck_schemas::rules::openai_video::{ACTION_IMAGE_TO_VIDEO, ACTION_TEXT_TO_VIDEO};
use gatecheck_schemas::rules::era::MSG_JSON_BODY_REQUIRED;
use gatecheck_schemas::rules::platforms::kling::{self, PLATFORM};
use gatecheck_schemas::rules::task::{ACTION_GENERATE, ACTION_TEXT_GENERATE};
use gatecheck_schemas::rules::video::VideoState;
use gatecheck_schemas::types::VideoStatus;
use serde_json::{json, Map, Value};

fn read(body: &Map<String, Value>) -> NativeRead {
    let model = match text(body, "model_name") {
        "" => text_of(body, "model"),
        m => m.to_owned(),
    };
    // Kling's `duration` is "5" or "10" (a string; an integer is read too). Any other value
    // is one Kling refuses: it reads as 0, which no model has.
    let seconds = match body.get("duration") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.trim().parse::<i64>().unwrap_or(0)),
        Some(v) => Some(v.as_i64().unwrap_or(0)),
    };
    let size = match text(body, "aspect_ratio") {
        "16:9" => Some("1280x720".to_owned()),
        "9:16" => Some("720x1280".to_owned()),
        "1:1" => Some("1024x1024".to_owned()),
        _ => None,
    };
    let has_image = !text(body, "image").is_empty() || !text(body, "image_tail").is_empty();
    NativeRead {
        model,
        prompt: text_of(body, "prompt"),
        seconds,
        size,
        action: if has_image {
            ACTION_GENERATE
        } else {
            ACTION_TEXT_GENERATE
        },
        callback_url: Some(text_of(body, "callback_url")).filter(|u| !u.is_empty()),
    }
}

/// Kling's own answer about task `t` in `state` (the `data` of new-api's record, and the
/// payload of a callback), times in ms.
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
            "task_status": PLATFORM.word(state.status),
            "task_status_msg": state.error.as_ref().map(|e| e.message.as_str()).unwrap_or(""),
            "task_result": { "videos": videos },
            "created_at": t.plan.created_at_ms,
            "updated_at": updated_ms,
        }
    })
}

/// The Kling plugin's native routes (plugins/tasks/kling/plugin.js@cd01ea4a `native`).
const NATIVE: Option<Native> = Some(Native {
    decode,
    created,
    status,
    error: |_, code, message| json!({ "code": code, "message": message }),
});

/// `native.decodeSubmit`, and `buildSubmitRequest`'s mode: a JSON object with a model (the
/// prompt not required); the route's path names the action.
fn decode(path: &str, _query: &str, body: Option<&Value>) -> Result<NativeCall, String> {
    let body = body.ok_or_else(|| MSG_JSON_BODY_REQUIRED.to_owned())?;
    let body = body
        .as_object()
        .ok_or_else(|| "request body must be an object".to_owned())?;
    kling::native_refusal(body)?;
    let image = path.trim_end_matches('/').ends_with("image2video");
    Ok(NativeCall::Submit(NativeRead {
        action: if image {
            ACTION_IMAGE_TO_VIDEO
        } else {
            ACTION_TEXT_TO_VIDEO
        },
        ..read(body)
    }))
}

/// `native.taskCreated`: Kling's submit answer, `data.task_id` the public id.
fn created(t: &StoredVideo, state: &VideoState, now_ms: i64) -> Value {
    let mut v = kling_task(t, state, "", now_ms);
    if let Some(data) = v["data"].as_object_mut() {
        data.remove("task_status_msg");
        data.remove("task_result");
    }
    v
}

/// `native.taskStatus`: the stored poll answer, `data.task_id` the public id.
fn status(t: &StoredVideo, mut stored: Value) -> Value {
    if !stored["data"].is_object() {
        stored["data"] = json!({});
    }
    stored["data"]["task_id"] = json!(t.id);
    stored
}

/// Kling.
pub const ROOM: TaskRoom = TaskRoom {
    rules: &PLATFORM,
    upstream: Some(kling_task),
    read: Some(read),
    native: NATIVE,
    callbacks: true,
};
