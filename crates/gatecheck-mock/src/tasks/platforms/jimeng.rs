//! Jimeng (channel type 51): its native route's hooks (middleware/jimeng_adapter.go
//! JimengRequestConvert, relay/channel/task/jimeng/adaptor.go; DECISIONS D-TASK-7). Reads
//! `req_key` (the model), `prompt` and `image`/`image_urls` (image to video); its task is
//! Volcengine's own answer `{code:10000, message:"Success", data:{status, video_url}}`, a
//! failed one the provider's error code with its message.

use super::room::{text_of, NativeRead, TaskRoom};
use super::text;
use crate::tasks::video::StoredVideo;
use gatecheck_schemas::rules::platforms::jimeng::PLATFORM;
use gatecheck_schemas::rules::task::{ACTION_GENERATE, ACTION_TEXT_GENERATE};
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

/// Jimeng.
pub const ROOM: TaskRoom = TaskRoom {
    rules: &PLATFORM,
    upstream: Some(jimeng_task),
    read: Some(read),
    callbacks: false,
};
