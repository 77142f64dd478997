//! new-api's `openai_video` host protocol in the plugin era (DECISIONS D-ERA-8 to D-ERA-10):
//! what the host does around a platform's plugin on `POST /v1/videos`, `GET /v1/videos/{id}`
//! and `GET|HEAD /v1/videos/{id}/content`. Per-platform facts are each description's
//! [`PluginFacts`](super::platforms::PluginFacts); this module holds what the host owns.
//!
//! - The bodies a plugin's `protocols.openai_video.decodeRequest` takes ([`VideoBodies`],
//!   [`VideoBodies::refusal`]): its refusal is 400 `plugin_request_invalid`
//!   (relay/channel/task/jsplugin/adaptor.go@60a13c2e `ValidateRequestAndSetAction`).
//! - The host-owned render ([`to_video_status`], [`host_render`]): `ConvertToOpenAIVideo`
//!   keeps the plugin's render but overwrites `id`, `object`, `status`, `progress`,
//!   `created_at`, `model` and `completed_at` with `Task.ToOpenAIVideo()`'s, empties
//!   `task_id` and deletes every `metadata` key equal to `url` (adaptor.go@60a13c2e).
//! - The content route ([`plugin_content`]): controller/video_proxy.go `VideoProxy` of the
//!   plugin era (medium: its variants ids 57627849430 and 58568192382, not pinned to a main
//!   commit) answers a task that is not SUCCESS 400 naming the row's status, then serves the
//!   first video artifact the plugin lists (`listArtifacts`, `buildContentRequest`), else the
//!   stored result URL, else 410 `artifact_gone` (`writeTaskArtifactError`, every variant).
//! - The billing ratios of a generic OpenAI-video task ([`openai_channel_ratios`]): the plugin
//!   of channel types 55 and 1 (plugins/tasks/sora/plugin.js@2f6bf06b `extractUsage`) bills
//!   by its `seconds` alone.

use super::task::TaskStatus;
use serde_json::{json, Map, Value};

/// How a request body reached the decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    /// A JSON object.
    Json,
    /// `multipart/form-data`.
    Multipart,
    /// Any other encoding (`application/x-www-form-urlencoded`).
    Other,
}

/// `decodeRequest`'s refusal of a body that is neither JSON nor multipart.
pub const MSG_JSON_OR_MULTIPART: &str = "JSON or multipart body required";
/// `decodeRequest`'s refusal of a body that is not a JSON object (Vidu, Hailuo).
pub const MSG_JSON_OBJECT_REQUIRED: &str = "JSON object required";
/// The prefix of `decodeRequest`'s refusal of a file part other than `input_reference`.
pub const MSG_UNEXPECTED_FILE: &str = "unexpected file field: ";
/// `decodeRequest`'s refusal of a second `input_reference` file.
pub const MSG_ONE_INPUT_REFERENCE: &str = "input_reference must be provided once";

/// The bodies a plugin's `protocols.openai_video.decodeRequest` takes on `POST /v1/videos`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VideoBodies {
    /// Whatever the host passes (a plugin whose decoder reads any body).
    Any,
    /// A JSON object only (`JSON object required`): plugins/tasks/vidu/plugin.js and
    /// plugins/tasks/hailuo/plugin.js@2f6bf06b.
    JsonOnly,
    /// JSON, or multipart without a file (the message refusing one): Doubao, Ali.
    NoFiles(&'static str),
    /// JSON, or multipart whose only file is one `input_reference` (Sora, Gemini, Vertex).
    InputReference,
}

impl VideoBodies {
    /// The decoder's refusal of a body of `kind` carrying the file parts named `files`
    /// (`Err(message)`: 400 `plugin_request_invalid`).
    ///
    /// ```
    /// use gatecheck_schemas::rules::openai_video::{BodyKind, VideoBodies};
    /// assert!(VideoBodies::JsonOnly.refusal(BodyKind::Json, &[]).is_ok());
    /// assert_eq!(VideoBodies::JsonOnly.refusal(BodyKind::Multipart, &[]).unwrap_err(), "JSON object required");
    /// assert!(VideoBodies::InputReference.refusal(BodyKind::Multipart, &["input_reference"]).is_ok());
    /// assert_eq!(
    ///     VideoBodies::InputReference.refusal(BodyKind::Multipart, &["image"]).unwrap_err(),
    ///     "unexpected file field: image"
    /// );
    /// assert!(VideoBodies::NoFiles("no files").refusal(BodyKind::Multipart, &["x"]).is_err());
    /// ```
    pub fn refusal(self, kind: BodyKind, files: &[&str]) -> Result<(), String> {
        match (self, kind) {
            (VideoBodies::Any, _) | (_, BodyKind::Json) => Ok(()),
            (VideoBodies::JsonOnly, _) => Err(MSG_JSON_OBJECT_REQUIRED.to_owned()),
            (_, BodyKind::Other) => Err(MSG_JSON_OR_MULTIPART.to_owned()),
            (VideoBodies::NoFiles(message), BodyKind::Multipart) => {
                if files.is_empty() {
                    Ok(())
                } else {
                    Err(message.to_owned())
                }
            }
            (VideoBodies::InputReference, BodyKind::Multipart) => {
                if let Some(other) = files.iter().find(|f| **f != INPUT_REFERENCE) {
                    return Err(format!("{MSG_UNEXPECTED_FILE}{other}"));
                }
                if files.len() > 1 {
                    return Err(MSG_ONE_INPUT_REFERENCE.to_owned());
                }
                Ok(())
            }
        }
    }
}

/// The one file part the OpenAI-video decoders take.
pub const INPUT_REFERENCE: &str = "input_reference";

/// The refusal of `seconds` (else `duration`) outside 1..3600, as the JSON decoders of Vidu,
/// Hailuo, Doubao and Sora write it (`Number(seconds)` not finite, not above 0 or above 3600).
///
/// ```
/// use gatecheck_schemas::rules::openai_video::seconds_within_limit;
/// let body = |v: serde_json::Value| v.as_object().cloned().unwrap();
/// assert!(seconds_within_limit(&body(serde_json::json!({"seconds": "8"}))).is_ok());
/// assert!(seconds_within_limit(&body(serde_json::json!({}))).is_ok());
/// assert!(seconds_within_limit(&body(serde_json::json!({"duration": 4000}))).is_err());
/// assert!(seconds_within_limit(&body(serde_json::json!({"seconds": 0}))).is_err());
/// assert!(seconds_within_limit(&body(serde_json::json!({"seconds": "x"}))).is_err());
/// ```
pub fn seconds_within_limit(body: &Map<String, Value>) -> Result<(), String> {
    let Some(v) = body.get("seconds").or_else(|| body.get("duration")) else {
        return Ok(());
    };
    let n = match v {
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) if s.trim().is_empty() => 0.0,
        Value::String(s) => s.trim().parse::<f64>().unwrap_or(f64::NAN),
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Null => 0.0,
        _ => f64::NAN,
    };
    if n.is_finite() && n > 0.0 && n <= f64::from(MAX_TASK_SECONDS) {
        Ok(())
    } else {
        Err(MSG_SECONDS_RANGE.to_owned())
    }
}

/// The decoders' refusal of a duration outside 1..3600.
pub const MSG_SECONDS_RANGE: &str = "seconds must be between 1 and 3600";
/// The host's ceiling of a task's seconds (relay/common `MaxTaskDurationSeconds`).
pub const MAX_TASK_SECONDS: u32 = 3600;

/// new-api's `TaskStatus.ToVideoStatus()`, the status the host writes over a plugin's render:
/// a just-inserted `NOT_START` row is `queued` (the variant DECISIONS D-ERA-2 follows).
///
/// ```
/// use gatecheck_schemas::rules::openai_video::to_video_status;
/// use gatecheck_schemas::rules::task::TaskStatus;
/// assert_eq!(to_video_status(TaskStatus::Submitted), "queued");
/// assert_eq!(to_video_status(TaskStatus::Success), "completed");
/// assert_eq!(to_video_status(TaskStatus::Unknown), "unknown");
/// ```
pub fn to_video_status(s: TaskStatus) -> &'static str {
    match s {
        TaskStatus::NotStart | TaskStatus::Queued | TaskStatus::Submitted => "queued",
        TaskStatus::InProgress => "in_progress",
        TaskStatus::Success => "completed",
        TaskStatus::Failure => "failed",
        TaskStatus::Unknown => "unknown",
    }
}

/// The row `GET /v1/videos/{id}` renders: what `Task.ToOpenAIVideo()` reads.
#[derive(Debug, Clone, Copy)]
pub struct HostRow<'a> {
    /// The public task id.
    pub id: &'a str,
    /// The origin model (`Properties.OriginModelName`).
    pub model: &'a str,
    /// The row's status.
    pub status: TaskStatus,
    /// The row's progress, a number.
    pub progress: i64,
    /// `created_at`, Unix seconds.
    pub created_at: i64,
    /// `updated_at`, Unix seconds (the host's `completed_at`).
    pub updated_at: i64,
}

/// `ConvertToOpenAIVideo` (adaptor.go@60a13c2e): the plugin's render `rendered` with the
/// fields the host owns written over it, no `task_id`, and no `metadata` key equal to `url`
/// (an emptied `metadata` removed).
///
/// ```
/// use gatecheck_schemas::rules::openai_video::{host_render, HostRow};
/// use gatecheck_schemas::rules::task::TaskStatus;
/// let row = HostRow { id: "task_1", model: "viduq1", status: TaskStatus::Success,
///     progress: 100, created_at: 1, updated_at: 9 };
/// let v = host_render(serde_json::json!({"id": "up", "task_id": "up", "model": "",
///     "status": "unknown", "metadata": {"URL": "http://x"}, "error": {"code": "c"}}), &row);
/// assert_eq!(v["id"], "task_1");
/// assert_eq!(v["status"], "completed");
/// assert_eq!(v["model"], "viduq1");
/// assert_eq!(v["completed_at"], 9);
/// assert!(v.get("task_id").is_none() && v.get("metadata").is_none());
/// assert_eq!(v["error"]["code"], "c");
/// ```
pub fn host_render(rendered: Value, row: &HostRow<'_>) -> Value {
    let mut v = match rendered {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    v.remove("task_id");
    v.insert("id".into(), json!(row.id));
    v.insert("object".into(), json!("video"));
    v.insert("status".into(), json!(to_video_status(row.status)));
    v.insert("progress".into(), json!(row.progress));
    v.insert("created_at".into(), json!(row.created_at));
    v.insert("model".into(), json!(row.model));
    v.insert("completed_at".into(), json!(row.updated_at));
    let emptied = match v.get_mut("metadata") {
        Some(Value::Object(meta)) => {
            meta.retain(|k, _| !k.eq_ignore_ascii_case("url"));
            meta.is_empty()
        }
        Some(Value::Null) => true,
        _ => false,
    };
    if emptied {
        v.remove("metadata");
    }
    Value::Object(v)
}

/// The content route's answer to a platform task in the plugin era.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PluginContent {
    /// The row is not SUCCESS: 400, naming its status ([`not_completed_body`]).
    NotCompleted(TaskStatus),
    /// The plugin's first video artifact (or the stored result URL) is served.
    Served,
    /// No artifact and no stored result URL: 410 `artifact_gone` ([`artifact_gone_body`]).
    Gone,
}

/// What the plugin-era content route answers for a task of row status `status`, whose plugin
/// lists its video artifact at `artifact` in `data` (`None`: it lists none), the row keeping
/// a result URL or not (`result_url`).
///
/// ```
/// use gatecheck_schemas::rules::openai_video::{plugin_content, PluginContent};
/// use gatecheck_schemas::rules::task::TaskStatus;
/// let data = serde_json::json!({"creations": [{"url": "http://cdn/v.mp4"}]});
/// let at = Some("/creations/0/url");
/// assert_eq!(plugin_content(TaskStatus::Submitted, at, &data, true), PluginContent::NotCompleted(TaskStatus::Submitted));
/// assert_eq!(plugin_content(TaskStatus::Success, at, &data, false), PluginContent::Served);
/// let empty = serde_json::json!({"creations": []});
/// assert_eq!(plugin_content(TaskStatus::Success, at, &empty, false), PluginContent::Gone);
/// assert_eq!(plugin_content(TaskStatus::Success, None, &empty, true), PluginContent::Served);
/// ```
pub fn plugin_content(
    status: TaskStatus,
    artifact: Option<&str>,
    data: &Value,
    result_url: bool,
) -> PluginContent {
    if status != TaskStatus::Success {
        return PluginContent::NotCompleted(status);
    }
    let listed = artifact
        .and_then(|p| data.pointer(p))
        .and_then(Value::as_str)
        .is_some_and(|u| !u.trim().is_empty());
    if listed || result_url {
        PluginContent::Served
    } else {
        PluginContent::Gone
    }
}

/// The prefix of the content route's refusal of a task that is not SUCCESS
/// (controller/video_proxy.go `VideoProxy`, both eras).
pub const NOT_COMPLETED_PREFIX: &str = "Task is not completed yet, current status: ";
/// The status of the content route's refusal of a task that is not SUCCESS
/// ([`not_completed_body`]).
pub const NOT_COMPLETED_STATUS: u16 = 400;

/// `VideoProxy`'s 400 body for a row of status `status`: `{"error": {"message", "type":
/// "invalid_request_error"}}`.
pub fn not_completed_body(status: TaskStatus) -> Value {
    json!({"error": {
        "message": format!("{NOT_COMPLETED_PREFIX}{}", status.as_str()),
        "type": "invalid_request_error",
    }})
}

/// The row status a content refusal names (`Task is not completed yet, current status: X`),
/// if its message is one.
///
/// ```
/// use gatecheck_schemas::rules::openai_video::{named_status, not_completed_body};
/// use gatecheck_schemas::rules::task::TaskStatus;
/// assert_eq!(named_status(&not_completed_body(TaskStatus::Submitted)), Some(TaskStatus::Submitted));
/// assert_eq!(named_status(&serde_json::json!({"error": {"message": "no"}})), None);
/// ```
pub fn named_status(body: &Value) -> Option<TaskStatus> {
    let message = body.pointer("/error/message")?.as_str()?;
    TaskStatus::parse(message.strip_prefix(NOT_COMPLETED_PREFIX)?.trim())
}

/// The code of the content route's 410 (controller `writeTaskArtifactError`).
pub const ARTIFACT_GONE: &str = "artifact_gone";
/// The status of the content route's answer of a task with no artifact to serve
/// ([`artifact_gone_body`]).
pub const ARTIFACT_GONE_STATUS: u16 = 410;

/// The 410 body of a task with no artifact to serve: `{"error": {"message": "Artifact content
/// is no longer available", "type": "artifact_gone", "code": "artifact_gone"}}`.
pub fn artifact_gone_body() -> Value {
    json!({"error": {
        "message": "Artifact content is no longer available",
        "type": ARTIFACT_GONE,
        "code": ARTIFACT_GONE,
    }})
}

/// The `Cache-Control` the plugin era's content errors carry (`videoProxyError`,
/// `writeTaskArtifactError`).
pub const CONTENT_ERROR_CACHE_CONTROL: &str = "private, no-store";

/// The billing ratios (`X-New-Api-Other-Ratios`) of a generic OpenAI-video task, the plugin of
/// channel types 55 and 1 (plugins/tasks/sora/plugin.js@2f6bf06b `extractUsage`: `seconds`
/// from the request's `seconds`, else `duration`, else 4, at most 3600; its `size` fact is an
/// enum, which `validatedUsageRatios` keeps out of the ratios): `{"seconds": N}`.
///
/// ```
/// use gatecheck_schemas::rules::openai_video::openai_channel_ratios;
/// assert_eq!(serde_json::Value::Object(openai_channel_ratios(Some("8"))), serde_json::json!({"seconds": 8}));
/// assert_eq!(serde_json::Value::Object(openai_channel_ratios(None)), serde_json::json!({"seconds": 4}));
/// assert_eq!(serde_json::Value::Object(openai_channel_ratios(Some("2.5"))), serde_json::json!({"seconds": 2.5}));
/// ```
pub fn openai_channel_ratios(seconds: Option<&str>) -> Map<String, Value> {
    let n = seconds
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|n| n.is_finite() && *n > 0.0)
        .unwrap_or(4.0)
        .min(f64::from(MAX_TASK_SECONDS));
    let mut m = Map::new();
    // Go writes a whole float64 without a fraction (`8`, not `8.0`).
    let shown = if n.fract() == 0.0 {
        json!(n as i64)
    } else {
        json!(n)
    };
    m.insert("seconds".into(), shown);
    m
}

/// The plugins' action names (the record's `action`; their `buildSubmitRequest` returns one,
/// which the host stores: relay/channel/task/jsplugin/adaptor.go@60a13c2e `buildSubmit`).
pub const ACTION_TEXT_TO_VIDEO: &str = "text_to_video";
/// An image-to-video task.
pub const ACTION_IMAGE_TO_VIDEO: &str = "image_to_video";
/// Vidu's start and end frames.
pub const ACTION_FIRST_TAIL_TO_VIDEO: &str = "first_tail_to_video";
/// Vidu's reference images.
pub const ACTION_REFERENCE_TO_VIDEO: &str = "reference_to_video";
/// A remix.
pub const ACTION_REMIX: &str = "remix";
/// Every action name a plugin stores.
pub const PLUGIN_ACTIONS: [&str; 5] = [
    ACTION_TEXT_TO_VIDEO,
    ACTION_IMAGE_TO_VIDEO,
    ACTION_FIRST_TAIL_TO_VIDEO,
    ACTION_REFERENCE_TO_VIDEO,
    ACTION_REMIX,
];

/// The action most plugins' `buildSubmitRequest` names: `image_to_video` when the request
/// carries an image (`image`, `images`, `input_reference`), else `text_to_video` (Hailuo,
/// Doubao, Ali, Gemini, Vertex at their pinned commits).
///
/// ```
/// use gatecheck_schemas::rules::openai_video::image_or_text;
/// let b = |v: serde_json::Value| v.as_object().cloned().unwrap();
/// assert_eq!(image_or_text(&b(serde_json::json!({"prompt": "p"}))), "text_to_video");
/// assert_eq!(image_or_text(&b(serde_json::json!({"images": ["u"]}))), "image_to_video");
/// ```
pub fn image_or_text(body: &Map<String, Value>) -> &'static str {
    let text = |k: &str| {
        body.get(k)
            .and_then(Value::as_str)
            .is_some_and(|s| !s.trim().is_empty())
    };
    let listed = body
        .get("images")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    if listed || text("image") || text(INPUT_REFERENCE) {
        ACTION_IMAGE_TO_VIDEO
    } else {
        ACTION_TEXT_TO_VIDEO
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_files_and_other_bodies() {
        let b = VideoBodies::NoFiles("files refused");
        assert!(b.refusal(BodyKind::Multipart, &[]).is_ok());
        assert_eq!(
            b.refusal(BodyKind::Other, &[]).unwrap_err(),
            MSG_JSON_OR_MULTIPART
        );
        assert_eq!(
            VideoBodies::InputReference
                .refusal(BodyKind::Multipart, &[INPUT_REFERENCE, INPUT_REFERENCE])
                .unwrap_err(),
            MSG_ONE_INPUT_REFERENCE
        );
        assert!(VideoBodies::Any.refusal(BodyKind::Other, &["x"]).is_ok());
    }

    #[test]
    fn gone_body_and_named_status() {
        assert_eq!(artifact_gone_body()["error"]["code"], ARTIFACT_GONE);
        for s in TaskStatus::ALL {
            assert_eq!(named_status(&not_completed_body(s)), Some(s));
        }
    }
}
