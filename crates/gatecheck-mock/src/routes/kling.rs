//! `POST /kling/v1/videos/{text2video|image2video}` and `GET .../{task_id}` (DECISIONS
//! D-TASK-6): new-api converts the Kling body (middleware KlingRequestConvert: what Kling's
//! hooks read, `tasks/platforms/kling.rs`) and answers its own objects, not Kling's: the
//! create object with a public `task_` id, and the task envelope on fetch, whose `data` is
//! Kling's task as the upstream last answered it.

use super::ctx::Ctx;
use super::provider::{submit, Submit};
use crate::response::{self, MockResponse};
use crate::tasks::platforms::kling::ROOM;
use http::Request;
use hyper::body::Incoming;
use serde_json::Value;

/// `POST /kling/v1/videos/{text2video,image2video}` (admitted). In the plugin era, the
/// plugin's native route (`routes/native.rs`).
pub(crate) async fn create(cx: &mut Ctx, req: Request<Incoming>) -> MockResponse {
    if cx.plays_plugins()
        && let Some(native) = ROOM.native.as_ref()
    {
        return Box::pin(super::plugin_native::handle(cx, req, &ROOM, native, true)).await;
    }
    let body = match cx.read_body(req).await {
        Ok(b) => b,
        Err(resp) => return resp,
    };
    let Ok(Value::Object(body)) = serde_json::from_slice::<Value>(&body) else {
        return response::invalid("the body must be a JSON object", None);
    };
    let Some(read) = ROOM.read else {
        return response::invalid("the body must be a JSON object", None);
    };
    submit(cx, Submit::of(ROOM.rules.channel_type, read(&body)))
}

/// `GET /kling/v1/videos/{text2video,image2video}/{task_id}` (admitted): new-api's envelope,
/// or in the plugin era the plugin's `native.taskStatus`.
pub(crate) fn fetch(cx: &Ctx, id: &str) -> MockResponse {
    match ROOM.native.as_ref().filter(|_| cx.plays_plugins()) {
        Some(native) => super::plugin_native::query_task(cx, native, id),
        None => super::video_unified::fetch(cx, id),
    }
}
