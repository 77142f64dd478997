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

/// `POST /kling/v1/videos/{text2video,image2video}` (admitted; the fetch is
/// `video_unified::fetch`).
pub(crate) async fn create(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
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
