//! `POST /kling/v1/videos/{text2video|image2video}` and `GET .../{task_id}` (DECISIONS
//! D-TASK-6): new-api converts the Kling body (middleware KlingRequestConvert: `model_name`
//! or `model`, `prompt`, the rest as metadata) and answers its own objects, not Kling's: the
//! create object with a public `task_` id, and the task envelope on fetch, whose `data` is
//! Kling's task as the upstream last answered it.

use super::ctx::Ctx;
use super::provider::{submit, Submit};
use crate::response::{self, MockResponse};
use gatecheck_schemas::rules::task::{ACTION_GENERATE, ACTION_TEXT_GENERATE, PLATFORM_KLING};
use http::Request;
use hyper::body::Incoming;
use serde_json::Value;

fn text<'a>(body: &'a Value, key: &str) -> &'a str {
    body.get(key).and_then(Value::as_str).unwrap_or("")
}

/// `POST /kling/v1/videos/{text2video,image2video}` (admitted; the fetch is
/// `video_unified::fetch`).
pub(crate) async fn create(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    let body = match cx.read_body(req).await {
        Ok(b) => b,
        Err(resp) => return resp,
    };
    let body: Value = match serde_json::from_slice(&body) {
        Ok(v @ Value::Object(_)) => v,
        _ => return response::invalid("the body must be a JSON object", None),
    };
    let model = match text(&body, "model_name") {
        "" => text(&body, "model"),
        m => m,
    };
    // Kling's `duration` is "5" or "10" (a string; an integer is read too). Any other value
    // is one Kling refuses: it reads as 0, which no model has.
    let seconds = match body.get("duration") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.trim().parse::<i64>().unwrap_or(0)),
        Some(v) => Some(v.as_i64().unwrap_or(0)),
    };
    let size = match text(&body, "aspect_ratio") {
        "16:9" => Some("1280x720".to_owned()),
        "9:16" => Some("720x1280".to_owned()),
        "1:1" => Some("1024x1024".to_owned()),
        _ => None,
    };
    let has_image = !text(&body, "image").is_empty() || !text(&body, "image_tail").is_empty();
    let callback = Some(text(&body, "callback_url").to_owned()).filter(|u| !u.is_empty());
    submit(
        cx,
        Submit {
            platform: PLATFORM_KLING,
            model,
            prompt: text(&body, "prompt"),
            seconds,
            size,
            action: if has_image {
                ACTION_GENERATE
            } else {
                ACTION_TEXT_GENERATE
            },
            callback_url: callback,
        },
    )
}
