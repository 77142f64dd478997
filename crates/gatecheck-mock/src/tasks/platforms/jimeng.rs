//! Jimeng (channel type 51): its native route's hooks (middleware/jimeng_adapter.go
//! JimengRequestConvert, relay/channel/task/jimeng/adaptor.go; DECISIONS D-TASK-7). Reads
//! `req_key` (the model), `prompt` and `image`/`image_urls` (image to video); its task is
//! Volcengine's own answer `{code:10000, message:"Success", data:{status, video_url}}`, a
//! failed one the provider's error code with its message.

use super::room::{text_of, Native, NativeCall, NativeRead, TaskRoom};
use gatecheck_schemas::rules::era::MSG_JSON_BODY_REQUIRED;
use super::text;
use crate::tasks::video::StoredVideo;
use gatecheck_schemas::rules::platforms::jimeng::{self, MSG_UNSUPPORTED_ACTION, PLATFORM};
use gatecheck_schemas::rules::task::{
    ACTION_GENERATE, ACTION_TEXT_GENERATE, JIMENG_GET_RESULT, JIMENG_SUBMIT, MSG_ACTION_REQUIRED,
    MSG_TASK_ID_REQUIRED,
};
use gatecheck_schemas::rules::video::VideoState;
use gatecheck_schemas::types::VideoStatus;
use serde_json::{json, Map, Value};

fn read(body: &Map<String, Value>) -> NativeRead {
    let has_image = !text(body, "image").is_empty()
        || body
            .get("image_urls")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty());
    NativeRead {
        model: text_of(body, "req_key"),
        prompt: text_of(body, "prompt"),
        seconds: None,
        size: None,
        action: if has_image {
            ACTION_GENERATE
        } else {
            ACTION_TEXT_GENERATE
        },
        callback_url: None,
    }
}

/// Volcengine's own answer about task `t` in `state` (the `data` of new-api's record).
pub(crate) fn jimeng_task(t: &StoredVideo, state: &VideoState, url: &str, _: i64) -> Value {
    if let Some(e) = state.error.as_ref().filter(|_| state.status.is_terminal()) {
        return json!({ "code": 50500, "message": e.message, "data": null, "request_id": t.id });
    }
    // A failure without its error shows `done`, as before any state word was modelled.
    let word = match state.status {
        VideoStatus::Queued | VideoStatus::InProgress => PLATFORM.word(state.status),
        _ => PLATFORM.word(VideoStatus::Completed),
    };
    let video_url = (state.status == VideoStatus::Completed).then_some(url);
    json!({
        "code": 10000,
        "message": "Success",
        "request_id": t.id,
        "status": 10000,
        "data": { "status": word, "video_url": video_url },
    })
}

/// The Jimeng plugin's native route (plugins/tasks/jimeng/plugin.js@cd01ea4a `native`).
const NATIVE: Option<Native> = Some(Native {
    decode,
    created,
    status,
    error: |status, _, message| json!({ "code": status, "message": message }),
});

/// `native.decodeRequest`: a JSON body, `?Action=` present, `CVSync2AsyncGetResult` with a
/// `task_id`, `CVSync2AsyncSubmitTask` a submit, another Action refused.
fn decode(_path: &str, query: &str, body: Option<&Value>) -> Result<NativeCall, String> {
    let body = body.ok_or_else(|| MSG_JSON_BODY_REQUIRED.to_owned())?;
    let action = url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "Action")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default();
    if action.is_empty() {
        return Err(MSG_ACTION_REQUIRED.to_owned());
    }
    let empty = Map::new();
    let body = body.as_object().unwrap_or(&empty);
    if action == JIMENG_GET_RESULT {
        return match body.get("task_id").and_then(Value::as_str) {
            Some(id) if !id.trim().is_empty() => Ok(NativeCall::Query(id.to_owned())),
            _ => Err(MSG_TASK_ID_REQUIRED.to_owned()),
        };
    }
    if action != JIMENG_SUBMIT {
        return Err(MSG_UNSUPPORTED_ACTION.to_owned());
    }
    Ok(NativeCall::Submit(NativeRead {
        action: jimeng::plugin_action(body),
        ..read(body)
    }))
}

/// `renderTask` of a submit: Volcengine's submit answer, `data.task_id` the public id.
fn created(t: &StoredVideo, _: &VideoState, _: i64) -> Value {
    json!({
        "code": 10000,
        "message": "Success",
        "request_id": t.id,
        "status": 10000,
        "data": { "task_id": t.id },
        "req_key": t.model,
    })
}

/// `renderTask` of a query: the stored answer, `code` 10000 when it has none, `data` an
/// object with the public `task_id`.
fn status(t: &StoredVideo, mut stored: Value) -> Value {
    if stored.get("code").is_none() {
        stored["code"] = json!(10000);
    }
    if !stored["data"].is_object() {
        stored["data"] = json!({});
    }
    stored["data"]["task_id"] = json!(t.id);
    stored
}

/// Jimeng.
pub const ROOM: TaskRoom = TaskRoom {
    rules: &PLATFORM,
    upstream: Some(jimeng_task),
    read: Some(read),
    native: NATIVE,
    callbacks: false,
};
