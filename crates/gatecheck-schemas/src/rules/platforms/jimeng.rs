//! Jimeng (channel type 51; relay/channel/task/jimeng/adaptor.go, DECISIONS D-TASK-7): its own
//! route, `POST /jimeng/?Action=...` (the route table's row), not the unified route; a
//! Jimeng model elsewhere runs as an OpenAI-video task.
//!
//! The record's `data` is Volcengine's own answer `{code:10000, message, request_id, status,
//! data:{status, video_url}}`: `in_queue` is `QUEUED`, `generating` `IN_PROGRESS`, `done`
//! `SUCCESS`; an answer with another `code` (`failed` here, the mock's word for it: it has no
//! `data.status`) is `FAILURE`. The progress of the record is the mock's clock's (D-TASK-2).

use super::{state, Platform};
use crate::rules::task::TaskStatus::{Failure, InProgress, Queued, Success};
use crate::decisions::id;

/// Jimeng.
pub const PLATFORM: Platform = Platform {
    key: super::Key::Jimeng,
    channel_type: "51",
    name: "jimeng",
    title: "Jimeng",
    fetch: super::Fetch::Poll,
    catalog_model: "jimeng_vgfm_t2v_l20",
    models: &["jimeng_vgfm_t2v_l20"],
    states: &[
        state("in_queue", Queued, 10),
        state("generating", InProgress, 50),
        state("done", Success, 100),
        state("failed", Failure, 100),
    ],
    other: None,
    words: ["in_queue", "generating", "done", "failed"],
    state_pointer: "/data/status",
    url_pointer: "/data/video_url",
    video_has_model: true,
    decision: id::D_TASK_7,
    // Volcengine's task is judged by its own checks (`task.jimeng.*`), not by a `data` schema.
    data_schema: "",
    data_schema_text: "",
    control_words: &[],
    refusals: None,
    check: super::CheckText {
        title: "In new-api's plugin era, under `--expect new-api` (skipped otherwise; the adaptors era's `task.jimeng.*` judge the route): a Jimeng request (channel type 51) with an Action other than its two, or with none, is refused 400 `{code: 400, message}`; `CVSync2AsyncSubmitTask` answers Volcengine's body with the public task id at `data.task_id`, and `CVSync2AsyncGetResult` Volcengine's body naming the task asked for. A refusal not made, or another form, deviates; a query answering another task fails.",
        spec: "DECISIONS: D-ERA-11; failures D-TASK-10",
    },
    ratios: super::no_ratios,
    surface: super::Surface::Native,
    plugins: super::PluginFacts {
        refuse: Some(video_refusal),
        bodies: crate::rules::openai_video::VideoBodies::InputReference,
        render_error: Some(render_error),
        artifact: Some("/data/video_url"),
        action: Some(plugin_action),
        ..super::PluginFacts::same("plugins/tasks/jimeng/plugin.js@cd01ea4a")
    },
};

/// The Jimeng plugin's refusal of an Action other than its two (`decodeNativeRequest`).
pub const MSG_UNSUPPORTED_ACTION: &str = "unsupported Jimeng Action";

/// Whether a `req_key` is a 3.0 one (`isV3ReqKey`: it names `v30`), which allows 10 seconds.
fn is_v3(req_key: &str) -> bool {
    req_key.contains("v30")
}

/// The Jimeng plugin's `openai_video` `decodeRequest` refusal of a JSON body: `seconds`
/// (else `duration`) other than 5, or than 5 and 10 for a 3.0 `req_key`
/// (`validateSecondsForReqKey`, of the body's `model`).
///
/// ```
/// use gatecheck_schemas::rules::platforms::jimeng::video_refusal;
/// let b = |v: serde_json::Value| v.as_object().cloned().unwrap();
/// assert!(video_refusal(&b(serde_json::json!({"model": "jimeng_vgfm_t2v_l20", "seconds": "5"}))).is_ok());
/// assert_eq!(video_refusal(&b(serde_json::json!({"model": "jimeng_vgfm_t2v_l20", "seconds": 10}))).unwrap_err(), "seconds must be 5");
/// assert!(video_refusal(&b(serde_json::json!({"model": "jimeng_v30", "seconds": 10}))).is_ok());
/// assert!(video_refusal(&b(serde_json::json!({"model": "jimeng_v30"}))).is_ok());
/// ```
pub fn video_refusal(body: &serde_json::Map<String, serde_json::Value>) -> Result<(), String> {
    use serde_json::Value;
    let Some(v) = body.get("seconds").or_else(|| body.get("duration")) else {
        return Ok(());
    };
    let n = match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok().or(s.trim().is_empty().then_some(0.0)),
        _ => None,
    };
    let model = body.get("model").and_then(Value::as_str).unwrap_or("");
    match (is_v3(model), n) {
        (true, Some(n)) if n == 5.0 || n == 10.0 => Ok(()),
        (true, _) => Err("seconds must be 5 or 10".to_owned()),
        (false, Some(5.0)) => Ok(()),
        (false, _) => Err("seconds must be 5".to_owned()),
    }
}

/// The Jimeng plugin's `openai_video` render error: Volcengine's `message` with its `code` as
/// text when `code` is not 10000.
///
/// ```
/// use gatecheck_schemas::rules::platforms::jimeng::render_error;
/// let d = serde_json::json!({"code": 50500, "message": "risk", "data": null});
/// assert_eq!(render_error(&d), Some(("50500".into(), "risk".into())));
/// assert_eq!(render_error(&serde_json::json!({"code": 10000, "data": {"status": "done"}})), None);
/// ```
pub fn render_error(data: &serde_json::Value) -> Option<(String, String)> {
    if data.get("code").and_then(serde_json::Value::as_i64) == Some(10000) {
        return None;
    }
    let code = match data.get("code") {
        Some(serde_json::Value::Number(n)) => n.to_string(),
        _ => "0".to_owned(),
    };
    Some((code, data["message"].as_str().unwrap_or("").to_owned()))
}

/// The Jimeng plugin's action by image count (`actionForImageCount`): two or more images are
/// `first_tail_to_video`, one `image_to_video`, none `text_to_video`.
///
/// ```
/// use gatecheck_schemas::rules::platforms::jimeng::plugin_action;
/// let b = |v: serde_json::Value| v.as_object().cloned().unwrap();
/// assert_eq!(plugin_action(&b(serde_json::json!({"images": ["a", "b"]}))), "first_tail_to_video");
/// assert_eq!(plugin_action(&b(serde_json::json!({"image": "a"}))), "image_to_video");
/// ```
pub fn plugin_action(body: &serde_json::Map<String, serde_json::Value>) -> &'static str {
    use crate::rules::openai_video as ov;
    let listed = ["image_urls", "binary_data_base64", "images"]
        .iter()
        .filter_map(|k| body.get(*k).and_then(serde_json::Value::as_array))
        .map(Vec::len)
        .find(|n| *n > 0)
        .unwrap_or(0);
    match listed {
        0 => ov::image_or_text(body),
        1 => ov::ACTION_IMAGE_TO_VIDEO,
        _ => ov::ACTION_FIRST_TAIL_TO_VIDEO,
    }
}
