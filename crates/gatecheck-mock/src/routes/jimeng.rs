//! `POST /jimeng/?Action=CVSync2AsyncSubmitTask|CVSync2AsyncGetResult&Version=...` (DECISIONS
//! D-TASK-7): new-api converts Volcengine's body (middleware JimengRequestConvert: `req_key`
//! is the model) and answers its own objects: the create object with a public `task_` id,
//! and the task envelope for `CVSync2AsyncGetResult` (`task_id` in the body). Without
//! `Action`, or with a body that is not JSON, it answers 400 before the key is read.

use super::ctx::Ctx;
use super::provider::{submit, Submit};
use crate::response::{self, MockResponse};
use gatecheck_schemas::rules::task::{
    ACTION_GENERATE, ACTION_TEXT_GENERATE, JIMENG_GET_RESULT, MSG_ACTION_REQUIRED,
    MSG_INVALID_BODY, MSG_TASK_ID_REQUIRED, PLATFORM_JIMENG, TASK_REFUSAL_STATUS,
};
use http::Request;
use hyper::body::Incoming;
use serde_json::Value;

/// `POST /jimeng/` (not yet admitted: the checks before the key come first).
pub(crate) async fn handle(cx: &mut Ctx, req: Request<Incoming>) -> MockResponse {
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
    let Ok(body @ Value::Object(_)) = serde_json::from_slice::<Value>(&body) else {
        return response::v1_error(TASK_REFUSAL_STATUS, MSG_INVALID_BODY, None, None);
    };
    let text = |key: &str| {
        body.get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
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
    let has_image = !text("image").is_empty()
        || body
            .get("image_urls")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty());
    submit(
        cx,
        Submit {
            platform: PLATFORM_JIMENG,
            model: &text("req_key"),
            prompt: &text("prompt"),
            seconds: None,
            size: None,
            action: if has_image {
                ACTION_GENERATE
            } else {
                ACTION_TEXT_GENERATE
            },
            callback_url: None,
        },
    )
}
