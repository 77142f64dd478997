//! The planted bugs of new-api's task routes (DECISIONS D-TASK), applied by the mutation
//! proxy (`mutation_proxy.rs`) to the unified video routes and remix.

use super::planted::Bug;
use bytes::Bytes;
use http::StatusCode;
use serde_json::{json, Value};

/// Whether `bug` is one of the task routes' bugs.
pub(crate) fn plants(bug: Bug) -> bool {
    matches!(
        bug,
        Bug::TaskStatusLowercase
            | Bug::TaskSuccessWithoutResultUrl
            | Bug::TaskUnknownId404
            | Bug::UnifiedCreateVideoId
            | Bug::RemixWithoutSource
            | Bug::RemixUnfinishedAccepted
            | Bug::RemixUnknownSource404
            | Bug::RemixBlankPromptAccepted
            | Bug::TaskProgressNumber
            | Bug::KlingRawEnvelope
            | Bug::KlingRawFetch
            | Bug::JimengGetResultSubmits
            | Bug::JimengActionOptional
    )
}

/// Applies `bug` to the answer of `method path?query`.
pub(crate) fn rewrite(
    bug: Bug,
    method: &http::Method,
    path: &str,
    query: &str,
    status: &mut StatusCode,
    body: &mut Bytes,
) {
    let Ok(mut v) = serde_json::from_slice::<Value>(body) else {
        return;
    };
    let fetch = method == http::Method::GET && path.starts_with("/v1/video/generations/");
    let create = method == http::Method::POST && path == "/v1/video/generations";
    let remix = method == http::Method::POST && path.ends_with("/remix");
    let code = v["code"].as_str().unwrap_or("").to_owned();
    let kling = path.starts_with("/kling/v1/videos/");
    let post = method == http::Method::POST;
    let ok = *status == StatusCode::OK;
    let changed = match bug {
        Bug::TaskStatusLowercase if fetch && ok => {
            let lower = v["data"]["status"].as_str().map(str::to_ascii_lowercase);
            lower.map(|s| v["data"]["status"] = json!(s)).is_some()
        }
        Bug::TaskProgressNumber if fetch && ok => {
            let n = v["data"]["progress"]
                .as_str()
                .and_then(|p| p.trim_end_matches('%').parse::<i64>().ok());
            n.map(|n| v["data"]["progress"] = json!(n)).is_some()
        }
        Bug::TaskSuccessWithoutResultUrl if fetch && ok && v["data"]["status"] == "SUCCESS" => v
            ["data"]
            .as_object_mut()
            .and_then(|d| d.remove("result_url"))
            .is_some(),
        Bug::TaskUnknownId404 if fetch && code == "task_not_exist" => {
            *status = StatusCode::NOT_FOUND;
            v = json!({"error": {"message": "task not found", "type": "invalid_request_error", "param": null, "code": null}});
            true
        }
        Bug::KlingRawEnvelope if kling && post && ok => {
            v = json!({"code": 0, "message": "SUCCEED", "request_id": "r1",
                       "data": {"task_id": v["id"], "task_status": "submitted"}});
            true
        }
        Bug::KlingRawFetch if kling && !post && ok => {
            v = v["data"]["data"].take();
            true
        }
        Bug::JimengGetResultSubmits
            if path.starts_with("/jimeng") && query.contains("CVSync2AsyncGetResult") && ok =>
        {
            v = json!({"id": "task_PLANTEDplantedPLANTEDplanted0000", "task_id": "task_PLANTEDplantedPLANTEDplanted0000",
                       "object": "video", "model": "jimeng", "status": "queued", "progress": 0, "created_at": 1});
            true
        }
        Bug::JimengActionOptional
            if path.starts_with("/jimeng")
                && !query.contains("Action=")
                && *status == StatusCode::BAD_REQUEST =>
        {
            *status = StatusCode::OK;
            v = json!({"id": "task_PLANTEDplantedPLANTEDplanted0000", "object": "video",
                       "model": "jimeng", "status": "queued", "progress": 0, "created_at": 1});
            true
        }
        Bug::UnifiedCreateVideoId if create && ok => {
            v["id"] = json!("video_68d7512d07848190b3e45da0ecbebcde");
            true
        }
        Bug::RemixWithoutSource if remix && ok => v
            .as_object_mut()
            .and_then(|o| o.remove("remixed_from_video_id"))
            .is_some(),
        Bug::RemixUnfinishedAccepted | Bug::RemixBlankPromptAccepted
            if remix
                && code
                    == if bug == Bug::RemixUnfinishedAccepted {
                        "fail_to_fetch_task"
                    } else {
                        "invalid_request"
                    } =>
        {
            *status = StatusCode::OK;
            v = json!({"id": "task_PLANTEDplantedPLANTEDplanted0000", "object": "video",
                       "model": "sora-2", "status": "queued", "progress": 0, "created_at": 1});
            true
        }
        Bug::RemixUnknownSource404 if remix && code == "task_not_exist" => {
            *status = StatusCode::NOT_FOUND;
            true
        }
        _ => false,
    };
    if changed {
        *body = Bytes::from(v.to_string());
    }
}
