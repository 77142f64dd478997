//! `POST /v1/videos/{video_id}/remix` (DECISIONS D-TASK-4, D-TASK-5): a new task from a
//! completed one of the key's user, with the source's model, seconds and size, charged at
//! submit like a create, on the same clock as every video task.
//!
//! In new-api's order: the source is looked up first (unknown: 400 `task_not_exist` /
//! `task_origin_not_exist`), then the JSON body (`prompt` required: 400 `invalid_request`),
//! then the upstream refuses a source that is not completed (400 `fail_to_fetch_task`, the
//! pre-consumed quota refunded: the mock charges nothing), then the charge.

use super::ctx::Ctx;
use crate::response::{self, MockResponse};
use crate::tasks::unified::TaskMeta;
use crate::tasks::video::StoredVideo;
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::rules::rejection::ACCEPTED;
use gatecheck_schemas::rules::task::{
    task_error, ACTION_REMIX, FAIL_TO_FETCH_TASK, INVALID_REQUEST, REMIX_PROMPT_REQUIRED,
    TASK_NOT_EXIST, TASK_ORIGIN_NOT_EXIST, TASK_REFUSAL_STATUS,
};
use gatecheck_schemas::types::VideoStatus;
use http::Request;
use hyper::body::Incoming;
use serde_json::Value;

fn task_err(status: u16, code: &str, message: &str) -> MockResponse {
    response::json(status, &task_error(code, message))
}

/// Serves a remix of `source_id` (authenticated).
pub(crate) async fn handle(cx: &Ctx, req: Request<Incoming>, source_id: &str) -> MockResponse {
    let owner = cx.key().map(|k| k.user_id).unwrap_or(0);
    let Some(source) = cx.videos().get(source_id, owner) else {
        return task_err(TASK_REFUSAL_STATUS, TASK_NOT_EXIST, TASK_ORIGIN_NOT_EXIST);
    };
    let body = match cx.read_body(req).await {
        Ok(b) => b,
        Err(resp) => return resp,
    };
    let prompt = match serde_json::from_slice::<Value>(&body) {
        Ok(v) => v
            .get("prompt")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        Err(e) => return task_err(TASK_REFUSAL_STATUS, INVALID_REQUEST, &e.to_string()),
    };
    if prompt.trim().is_empty() {
        return task_err(TASK_REFUSAL_STATUS, INVALID_REQUEST, REMIX_PROMPT_REQUIRED);
    }
    let now_ms = cx.now_ms();
    let status = source.status_at(now_ms);
    if status != VideoStatus::Completed {
        // What the upstream answers, relayed by new-api as the message (D-TASK-5).
        let upstream = serde_json::json!({"error": {
            "message": format!("Video {source_id} is not completed (status: {}); only completed videos can be remixed.", status.as_str()),
            "type": "invalid_request_error", "param": null, "code": "invalid_video_state"}});
        return task_err(
            TASK_REFUSAL_STATUS,
            FAIL_TO_FETCH_TASK,
            &upstream.to_string(),
        );
    }
    let usage = Usage {
        requests: 1,
        seconds: source.seconds as f64,
        ..Usage::default()
    };
    // Charged at submit; refunded in full if the remix fails (VideoStore::settle).
    let charge = match cx.charge(cx.price(&source.model, usage)) {
        Ok(charge) => charge,
        Err(resp) => return resp,
    };
    let task = StoredVideo {
        id: cx.ids().task_id(),
        owner,
        model: source.model.clone(),
        seconds: source.seconds,
        size: source.size.clone(),
        plan: cx.fixtures().video.plan(now_ms, source.seconds, &prompt),
        prompt: Some(prompt.to_string()),
        remixed_from_video_id: Some(source.id.clone()),
        key_id: cx.key().map_or(0, |k| k.id),
        charged: charge.price,
    };
    let meta = TaskMeta {
        remixed_from: Some(source.id.clone()),
        ..TaskMeta::sora(&task, ACTION_REMIX)
    };
    cx.app.tasks.meta.insert(&task.id, meta);
    cx.videos().insert(task.clone(), now_ms);
    answer(cx, &task)
}

/// The video object of `t` at the mock's now, with `remixed_from_video_id` when it has one.
pub(crate) fn video_object(cx: &Ctx, t: &StoredVideo, remixed_from: Option<&str>) -> Value {
    let mut v = serde_json::to_value(t.render(cx.now_ms(), &cx.base_url(), cx.profile()))
        .unwrap_or(Value::Null);
    if let (Some(from), Some(obj)) = (remixed_from, v.as_object_mut()) {
        obj.insert("remixed_from_video_id".into(), from.into());
    }
    v
}

/// The answer showing the remix `t` (create and poll).
pub(crate) fn answer(cx: &Ctx, t: &StoredVideo) -> MockResponse {
    let meta = cx.app.tasks.meta.get(t);
    let from = meta.as_ref().and_then(|m| m.remixed_from.as_deref());
    response::json(ACCEPTED, &video_object(cx, t, from))
}
