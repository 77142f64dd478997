//! `POST /jimeng/?Action=CVSync2AsyncSubmitTask|CVSync2AsyncGetResult&Version=...` (DECISIONS
//! D-TASK-7): new-api converts Volcengine's body (middleware JimengRequestConvert: what
//! Jimeng's hooks read, `tasks/platforms/jimeng.rs`) and answers its own objects: the create object with a public `task_` id,
//! and the task envelope for `CVSync2AsyncGetResult` (`task_id` in the body). Without
//! `Action`, or with a body that is not JSON, it answers 400 before the key is read.

use super::ctx::Ctx;
use super::provider::{submit, Submit};
use crate::response::{self, MockResponse};
use crate::tasks::platforms::jimeng::ROOM;
use gatecheck_schemas::rules::task::{
    JIMENG_GET_RESULT, MSG_ACTION_REQUIRED, MSG_INVALID_BODY, MSG_TASK_ID_REQUIRED,
    TASK_REFUSAL_STATUS,
};
use http::Request;
use hyper::body::Incoming;
use serde_json::Value;

/// `POST /jimeng/` (not yet admitted: the checks before the key come first).
pub(crate) async fn handle(cx: &mut Ctx, req: Request<Incoming>) -> MockResponse {
    // The plugin era: the plugin's native route (`routes/native.rs`).
    if cx.plays_plugins()
        && let Some(native) = ROOM.native.as_ref()
    {
        return Box::pin(super::plugin_native::handle(cx, req, &ROOM, native, false)).await;
    }
    let query = req.uri().query().unwrap_or("").to_owned();
    let action = url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "Action")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default();
    if action.is_empty() {
        return response::v1_error(TASK_REFUSAL_STATUS, MSG_ACTION_REQUIRED, None, None);
    }
    let headers = req.headers().clone();
    let body = match cx.read_body(req).await {
        Ok(b) => b,
        Err(resp) => return resp,
    };
    let Ok(Value::Object(body)) = serde_json::from_slice::<Value>(&body) else {
        return response::v1_error(TASK_REFUSAL_STATUS, MSG_INVALID_BODY, None, None);
    };
    let text = |key: &str| crate::tasks::platforms::room::text_of(&body, key);
    if action == JIMENG_GET_RESULT && text("task_id").is_empty() {
        return response::v1_error(TASK_REFUSAL_STATUS, MSG_TASK_ID_REQUIRED, None, None);
    }
    if let Err(resp) = cx.admit_key(&headers) {
        return resp;
    }
    let cx: &Ctx = cx;
    if action == JIMENG_GET_RESULT {
        return super::video_unified::fetch(cx, &text("task_id"));
    }
    let Some(read) = ROOM.read else {
        return response::v1_error(TASK_REFUSAL_STATUS, MSG_INVALID_BODY, None, None);
    };
    submit(cx, Submit::of(ROOM.rules.channel_type, read(&body)))
}
