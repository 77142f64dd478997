//! The planted bugs of the key rules on the route families other than `POST /v1/videos`
//! (`key.routes.*`): a gateway whose key checks hold on the video route
//! and lapse on one family. Each is invisible to the `/v1/videos`-only key checks.

use super::planted::{Bug, Planted};
use gatecheck_conformance::Status;

/// This surface's rows of [`planted`](super::planted::planted).
pub(crate) fn rows() -> Vec<Planted> {
    vec![
        (
            Bug::ExpiredKeyOnUnified,
            "key.routes.unified",
            Status::Failed,
            "key::admit (is_past_expiry) on POST /v1/video/generations",
        ),
        (
            Bug::ExhaustedKeyOnStream,
            "key.routes.audio-stream",
            Status::Failed,
            "key::admit (quota) on a speech stream",
        ),
        (
            Bug::ExhaustedKeyOnStream,
            "key.routes.images-stream",
            Status::Failed,
            "key::admit (quota) on an image stream",
        ),
        (
            Bug::DisabledKeyOnKling,
            "key.routes.kling",
            Status::Failed,
            "key::admit (KeyRejection::Disabled) on /kling/",
        ),
        (
            Bug::ModelLimitsIgnoredOnEdits,
            "key.routes.images-edits",
            Status::Failed,
            "key::model_allowed on POST /v1/images/edits",
        ),
        (
            Bug::IpAllowlistIgnoredOnMidjourney,
            "key.routes.midjourney",
            Status::Failed,
            "ip::allows on /mj/",
        ),
        (
            Bug::ExpiredKeyOnVideoPoll,
            "key.routes.videos",
            Status::Failed,
            "key::admit (is_past_expiry) on GET /v1/videos/{task_id}",
        ),
        (
            Bug::DisabledKeyOnModelList,
            "key.routes.models",
            Status::Failed,
            "key::admit (KeyRejection::Disabled) on GET /v1/models",
        ),
    ]
}

/// Whether `bug` is one of this surface's.
pub(crate) fn plants(bug: Bug) -> bool {
    rows().iter().any(|r| r.0 == bug)
}

/// Whether a request body asks for a stream (`"stream": true` or `"stream_format": "sse"`).
pub(crate) fn asks_stream(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(body).is_ok_and(|v| {
        v.get("stream") == Some(&serde_json::json!(true)) || v["stream_format"] == "sse"
    })
}

/// The refusal the bug lets through, seen in the answer: (path, status, message, code, whether
/// the request asked for a stream). `true` when the gateway should admit the request instead.
pub(crate) fn lets_through(
    bug: Bug,
    path: &str,
    (status, message, code): (u16, &str, &str),
    stream: bool,
) -> bool {
    let disabled = status == 401 && message.contains("status is unavailable");
    let expired = status == 401 && message.contains("expired");
    let exhausted = status == 401 && message.contains("quota is exhausted");
    match bug {
        Bug::ExpiredKeyOnUnified => expired && path.starts_with("/v1/video/generations"),
        Bug::ExhaustedKeyOnStream => exhausted && stream,
        Bug::DisabledKeyOnKling => disabled && path.starts_with("/kling/"),
        Bug::ModelLimitsIgnoredOnEdits => {
            status == 403 && code == "model_not_allowed" && path == "/v1/images/edits"
        }
        Bug::IpAllowlistIgnoredOnMidjourney => {
            status == 403 && code == "access_denied" && path.starts_with("/mj/")
        }
        Bug::ExpiredKeyOnVideoPoll => expired && path.starts_with("/v1/videos/task_"),
        Bug::DisabledKeyOnModelList => disabled && path == "/v1/models",
        _ => false,
    }
}
