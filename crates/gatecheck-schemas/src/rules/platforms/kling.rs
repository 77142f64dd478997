//! Kling (channel type 50; relay/channel/task/kling/adaptor.go, DECISIONS D-TASK-6): its own
//! routes, `POST /kling/v1/videos/{text2video|image2video}` and `GET .../{task_id}` (the route
//! table's rows), not the unified route; a Kling model elsewhere runs as an OpenAI-video task.
//!
//! The record's `data` is Kling's own answer `{code:0, message, request_id, data:{task_id,
//! task_status, task_status_msg, task_result:{videos:[{id, url, duration}]}, created_at,
//! updated_at}}`; `submitted` is `SUBMITTED`, `processing` `IN_PROGRESS`, `succeed` `SUCCESS`
//! and `failed` `FAILURE`. The progress of the record is the mock's clock's (D-TASK-2), not
//! this table's.

use super::{state, Platform};
use crate::rules::task::TaskStatus::{Failure, InProgress, Submitted, Success};
use crate::decisions::id;

/// Kling.
pub const PLATFORM: Platform = Platform {
    key: super::Key::Kling,
    channel_type: "50",
    name: "kling",
    title: "Kling",
    fetch: super::Fetch::Poll,
    catalog_model: "kling-v2-master",
    models: &["kling-v1", "kling-v1-6", "kling-v2-master"],
    states: &[
        state("submitted", Submitted, 0),
        state("processing", InProgress, 50),
        state("succeed", Success, 100),
        state("failed", Failure, 100),
    ],
    other: None,
    words: ["submitted", "processing", "succeed", "failed"],
    state_pointer: "/data/task_status",
    url_pointer: "/data/task_result/videos/0/url",
    video_has_model: true,
    decision: id::D_TASK_6,
    // Kling's task is judged by its own checks (`task.kling.*`), not by a `data` schema.
    data_schema: "",
    data_schema_text: "",
    control_words: &[],
    refusals: None,
    check: super::CheckText {
        title: "In new-api's plugin era, under `--expect new-api` (skipped otherwise; the adaptors era's `task.kling.*` judge the routes): a Kling native submit (channel type 50) without a prompt answers Kling's own submit body with the public task id at `data.task_id`, a mode its plugin refuses is 400 in the plugin's `{code, message}`, and the query answers Kling's body naming the task asked for. A refusal not made, or another form, deviates; a query answering another task fails.",
        spec: "DECISIONS: D-ERA-11; failures D-TASK-10",
    },
    ratios: super::no_ratios,
    surface: super::Surface::Native,
    plugins: super::PluginFacts {
        models: Some(&["kling-v1", "kling-v1-6", "kling-v2-master"]),
        refuse: Some(video_refusal),
        bodies: crate::rules::openai_video::VideoBodies::InputReference,
        render_error: Some(render_error),
        artifact: Some("/data/task_result/videos/0/url"),
        ..super::PluginFacts::same("plugins/tasks/kling/plugin.js@cd01ea4a")
    },
};

/// The Kling plugin's `decodeNativeSubmit`'s refusal of a model that is missing or blank.
pub const MSG_MODEL_REQUIRED: &str = "model is required";
/// `resolveKlingMode`'s refusal of `std` for `kling-v2-master`.
pub const MSG_V2_MASTER_STD: &str = "kling-v2-master does not support mode std";
/// `validateKlingDuration`'s refusal.
pub const MSG_DURATION: &str = "seconds must be a positive integer at most 3600";
/// The model whose only mode is `pro` (`UNITS_PER_SECOND` lists no `std` for it).
const PRO_ONLY: &str = "kling-v2-master";

/// A JSON value as the plugin's `trimmed(String(value || ""))` reads it.
fn trimmed(v: Option<&serde_json::Value>) -> String {
    use serde_json::Value;
    match v {
        None | Some(Value::Null | Value::Bool(false)) => String::new(),
        Some(Value::String(s)) => s.trim().to_owned(),
        Some(Value::Number(n)) if n.as_f64() == Some(0.0) => String::new(),
        Some(other) => other.to_string(),
    }
}

/// `resolveKlingMode` (plugins/tasks/kling/plugin.js@cd01ea4a): the mode of `model` for the
/// requested `mode` (`std` when none; `kling-v2-master` is `pro` only), or its refusal.
///
/// ```
/// use gatecheck_schemas::rules::platforms::kling::resolve_mode;
/// let m = |s: &str| serde_json::json!(s);
/// assert_eq!(resolve_mode("kling-v1", None), Ok("std"));
/// assert_eq!(resolve_mode("kling-v2-master", None), Ok("pro"));
/// assert_eq!(resolve_mode("kling-v2-master", Some(&m("STD"))).unwrap_err(), "kling-v2-master does not support mode std");
/// assert_eq!(resolve_mode("kling-v1", Some(&m("fast"))).unwrap_err(), "mode must be std or pro");
/// ```
pub fn resolve_mode(model: &str, mode: Option<&serde_json::Value>) -> Result<&'static str, String> {
    let raw = trimmed(mode).to_lowercase();
    if model == PRO_ONLY {
        return match raw.as_str() {
            "std" => Err(MSG_V2_MASTER_STD.to_owned()),
            "" | "pro" => Ok("pro"),
            _ => Err("mode must be pro".to_owned()),
        };
    }
    match raw.as_str() {
        "" | "std" => Ok("std"),
        "pro" => Ok("pro"),
        _ => Err("mode must be std or pro".to_owned()),
    }
}

/// The model of a native submit body: `model_name` (text), else `model` (text); "" when
/// neither (`decodeNativeSubmit`).
pub fn native_model(body: &serde_json::Map<String, serde_json::Value>) -> &str {
    let text = |k: &str| body.get(k).and_then(serde_json::Value::as_str).unwrap_or("");
    match text("model_name") {
        "" => text("model"),
        m => m,
    }
}

/// The Kling plugin's refusal of a native submit (`POST /kling/v1/videos/*`): a blank model
/// (`decodeNativeSubmit`; the prompt is not required), then the mode of the body for that
/// model (`buildSubmitRequest`'s `outboundMode`).
///
/// ```
/// use gatecheck_schemas::rules::platforms::kling::native_refusal;
/// let b = |v: serde_json::Value| v.as_object().cloned().unwrap();
/// assert!(native_refusal(&b(serde_json::json!({"model_name": "kling-v1"}))).is_ok());
/// assert_eq!(native_refusal(&b(serde_json::json!({"prompt": "p"}))).unwrap_err(), "model is required");
/// assert!(native_refusal(&b(serde_json::json!({"model": "kling-v2-master", "mode": "std"}))).is_err());
/// ```
pub fn native_refusal(body: &serde_json::Map<String, serde_json::Value>) -> Result<(), String> {
    let model = native_model(body);
    if model.trim().is_empty() {
        return Err(MSG_MODEL_REQUIRED.to_owned());
    }
    resolve_mode(model, body.get("mode")).map(|_| ())
}

/// The Kling plugin's `openai_video` `decodeRequest` refusal of a JSON body: `seconds`
/// (else `duration`) not a positive integer at most 3600 (`validateKlingDuration`), then the
/// mode of `model` (`resolveKlingMode`, `metadata.mode` when there is no `mode`).
///
/// ```
/// use gatecheck_schemas::rules::platforms::kling::video_refusal;
/// let b = |v: serde_json::Value| v.as_object().cloned().unwrap();
/// assert!(video_refusal(&b(serde_json::json!({"model": "kling-v1", "seconds": "5"}))).is_ok());
/// assert!(video_refusal(&b(serde_json::json!({"model": "kling-v1", "seconds": 2.5}))).is_err());
/// assert!(video_refusal(&b(serde_json::json!({"model": "kling-v2-master", "mode": "std"}))).is_err());
/// ```
pub fn video_refusal(body: &serde_json::Map<String, serde_json::Value>) -> Result<(), String> {
    use serde_json::Value;
    if let Some(v) = body.get("seconds").or_else(|| body.get("duration")) {
        let n = match v {
            Value::Number(n) => n.as_f64(),
            Value::String(s) if s.trim().is_empty() => Some(0.0),
            Value::String(s) => s.trim().parse::<f64>().ok(),
            Value::Null => Some(0.0),
            Value::Bool(b) => Some(f64::from(u8::from(*b))),
            _ => None,
        };
        if !n.is_some_and(|n| n.fract() == 0.0 && n > 0.0 && n <= 3600.0) {
            return Err(MSG_DURATION.to_owned());
        }
    }
    let model = body.get("model").and_then(Value::as_str).unwrap_or("kling-v1");
    let mode = body
        .get("mode")
        .filter(|m| !trimmed(Some(m)).is_empty())
        .or_else(|| body.get("metadata").and_then(|m| m.get("mode")));
    resolve_mode(model, mode).map(|_| ())
}

/// The Kling plugin's `openai_video` render error: Kling's own `message` with its `code` as
/// text when `code` is not 0, then a `failed` task's `task_status_msg` with code `""`.
///
/// ```
/// use gatecheck_schemas::rules::platforms::kling::render_error;
/// let d = serde_json::json!({"code": 0, "data": {"task_status": "failed", "task_status_msg": "risk"}});
/// assert_eq!(render_error(&d), Some((String::new(), "risk".into())));
/// assert_eq!(render_error(&serde_json::json!({"code": 0, "data": {"task_status": "succeed"}})), None);
/// ```
pub fn render_error(data: &serde_json::Value) -> Option<(String, String)> {
    let inner = &data["data"];
    if inner["task_status"] == "failed" {
        let message = inner["task_status_msg"].as_str().unwrap_or("").to_owned();
        return Some((String::new(), message));
    }
    let code = data.get("code").filter(|c| c.as_i64() != Some(0))?;
    let message = data["message"].as_str().filter(|m| !m.is_empty())?;
    let code = code.as_str().map_or_else(|| code.to_string(), str::to_owned);
    Some((code, message.to_owned()))
}
