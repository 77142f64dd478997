//! The plugin era's native routes of Kling and Jimeng, which their hooks render (`native`,
//! `tasks/platforms/room.rs`; DECISIONS D-ERA-11): Kling's `/kling/v1/videos/*` and Jimeng's
//! `/jimeng/`, on their own rows of the route table (the routes a plugin declares as data,
//! Doubao's and Ali's, are `routes/native.rs`). The
//! plugin's decoder reads the request (its refusal: 400, in the plugin's `native.error`), the
//! task is made and charged as on the adaptors' routes, and the answers are the plugin's
//! renders of the vendor's own bodies with the public task id: `native.taskCreated` or
//! `renderTask` for a submit, `native.taskStatus` or `renderTask` for a query. The key's and
//! the channel's refusals come first and are new-api's own (its middleware runs before the
//! plugin).

use super::ctx::Ctx;
use super::provider::{place, Refusal, Submit};
use crate::response::{self, MockResponse};
use crate::tasks::platforms::{Native, NativeCall, TaskRoom};
use gatecheck_schemas::rules::era::PLUGIN_REQUEST_INVALID;
use gatecheck_schemas::rules::rejection::ACCEPTED;
use gatecheck_schemas::rules::task::{INVALID_REQUEST, TASK_NOT_EXIST, TASK_REFUSAL_STATUS};
use http::Request;
use hyper::body::Incoming;
use serde_json::Value;

/// The plugin's `native.error` answer, 400.
fn refused(native: &Native, code: &str, message: &str) -> MockResponse {
    response::json(
        TASK_REFUSAL_STATUS,
        &(native.error)(TASK_REFUSAL_STATUS, code, message),
    )
}

/// A native route of `room` in the plugin era; `admitted`: the key was checked before the
/// body (Kling's routes), else it is checked after the plugin's decoder (Jimeng's).
pub(crate) async fn handle(
    cx: &mut Ctx,
    req: Request<Incoming>,
    room: &'static TaskRoom,
    native: &'static Native,
    admitted: bool,
) -> MockResponse {
    let path = req.uri().path().to_owned();
    let query = req.uri().query().unwrap_or("").to_owned();
    let headers = req.headers().clone();
    let body = match cx.read_body(req).await {
        Ok(b) => b,
        Err(resp) => return resp,
    };
    let json = serde_json::from_slice::<Value>(&body).ok();
    let call = match (native.decode)(&path, &query, json.as_ref()) {
        Ok(call) => call,
        Err(message) => return refused(native, PLUGIN_REQUEST_INVALID, &message),
    };
    if !admitted && let Err(resp) = cx.admit_key(&headers) {
        return resp;
    }
    let cx: &Ctx = cx;
    let read = match call {
        NativeCall::Query(id) => return query_task(cx, native, &id),
        NativeCall::Submit(read) => read,
    };
    let refuse = |r: Refusal<'_>| match r {
        Refusal::Invalid(message) => refused(native, INVALID_REQUEST, message),
        Refusal::Task(code, message) => refused(native, code, message),
    };
    match place(
        cx,
        Submit::of(room.rules.channel_type, read),
        false,
        &refuse,
    ) {
        Ok(task) => {
            let now = cx.now_ms();
            response::json(ACCEPTED, &(native.created)(&task, &task.state(now), now))
        }
        Err(resp) => resp,
    }
}

/// A query of task `id` in the plugin era: the plugin's render of the upstream's last answer
/// (the record's `data`), or its `native.error` of `task_not_exist`.
pub(crate) fn query_task(cx: &Ctx, native: &Native, id: &str) -> MockResponse {
    let owner = cx.key().map(|k| k.user_id).unwrap_or(0);
    match cx.videos().get(id, owner) {
        Some(t) => {
            let stored = super::video_unified::task_dto(cx, &t).data;
            response::json(ACCEPTED, &(native.status)(&t, stored))
        }
        None => refused(native, TASK_NOT_EXIST, TASK_NOT_EXIST),
    }
}
