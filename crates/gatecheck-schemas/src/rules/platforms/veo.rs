//! Google Veo, the rules Gemini (channel type 24) and Vertex (41) share
//! (relay/channel/task/gemini/*.go, relay/channel/task/vertex/adaptor.go@0fc1489e,
//! relay/relay_task.go@14639a76 `tryRealtimeFetch`; DECISIONS D-PLAT-20..22).
//!
//! The upstream task is a long-running operation `{name, done, response?, error?}`: it has no
//! state word, so the word this module's [`operation_word`] reads from it is `error` (an
//! `error.message`: FAILURE 100%), `running` (`done` false: IN_PROGRESS 50%) or `done`
//! (SUCCESS 100%). new-api asks the upstream in real time on every fetch of such a task
//! ([`realtime_status`]); the billing ratio is `seconds` ([`resolve_duration`]).

use super::state;
use super::{Platform, UpstreamState};
use crate::rules::task::TaskStatus::{self, Failure, InProgress, Success};
use serde_json::{json, Map, Value};

/// The state pointer of a Veo platform: the operation's `done` (with `error` before it).
pub const OPERATION_STATE: &str = "/done";
/// The operation is still running (`done` false).
pub const RUNNING: &str = "running";
/// The operation is done without an error.
pub const DONE: &str = "done";
/// The operation carries an `error.message`.
pub const ERROR: &str = "error";
/// The operation is done without an error but carries no video (Veo's safety filter:
/// `raiMediaFilteredCount` and no sample): new-api stores SUCCESS, and its content route finds
/// no URL to serve (DECISIONS D-PLAT-20, D-PLAT-21).
pub const FILTERED: &str = "filtered";
/// The control API's word for "the real-time fetch fails": the fetch answers the stored
/// record as the poller left it (`tryRealtimeFetch` returns nothing; DECISIONS D-PLAT-22);
/// the content route then fails as [`content_failure`] says.
pub const UNREACHABLE: &str = "unreachable";
/// The control API's word for "no key stored on the task" (Gemini: a row stored without
/// `PrivateData.Key`): the content route answers 500 [`NO_KEY_MESSAGE`].
pub const NO_KEY: &str = "no_key";

/// The states of a Veo operation (`ParseTaskResult`): no queued state.
pub const STATES: &[UpstreamState] = &[
    state(RUNNING, InProgress, 50),
    state(DONE, Success, 100),
    state(FILTERED, Success, 100),
    state(ERROR, Failure, 100),
];

/// The `type` of every error of new-api's content route past the task lookup
/// (controller/video_proxy.go `videoProxyError(c, status, "server_error", message)`).
pub const CONTENT_ERROR_TYPE: &str = "server_error";
/// VideoProxy's 500 for a Gemini task without a stored key.
pub const NO_KEY_MESSAGE: &str = "API key not stored for task";
/// VideoProxy's 502 when the video URL was found but its download failed.
pub const FETCH_FAILED: &str = "Failed to fetch video content";
/// VideoProxy's 502 when the upstream answered the download with another status than 200/206.
pub const UPSTREAM_STATUS_PREFIX: &str = "Upstream service returned status ";

/// VideoProxy's 502 when `getGeminiVideoURL`/`getVertexVideoURL` finds no URL (the
/// platform's [`Platform::title`] names it).
pub fn resolve_failed(p: &Platform) -> String {
    format!("Failed to resolve {} video URL", p.title)
}

/// How new-api's content route (controller/video_proxy.go@05393ffc `VideoProxy`,
/// video_proxy_gemini.go@10a80865 `getGeminiVideoURL`, `getVertexVideoURL`) answers a succeeded
/// Veo task whose upstream shows the state `word` under the conditions `flags` (its
/// [`Platform::control_words`]):
/// the status and message of its `{"error":{"message","type":"server_error"}}`, or `None` when
/// it serves the video. In that order:
///
/// - Gemini `no_key`: 500 `API key not stored for task` (checked before any URL).
/// - `filtered` (no video in the operation, stored or fetched again): 502 `Failed to resolve
///   Gemini video URL` / `Failed to resolve Vertex video URL`.
/// - `unreachable`: Vertex's URL needs a new fetch (the stored `data` has its base64 removed,
///   the stored result URL is the proxy's own): 502 `Failed to resolve Vertex video URL`;
///   Gemini's `uri` is in the stored `data`, so the URL resolves and its download fails: 502
///   `Failed to fetch video content`.
///
/// ```
/// use gatecheck_schemas::rules::platforms::{gemini, vertex, veo::content_failure};
/// let down = ["unreachable"];
/// assert_eq!(content_failure(&vertex::PLATFORM, None, &down), Some((502, "Failed to resolve Vertex video URL".into())));
/// assert_eq!(content_failure(&gemini::PLATFORM, Some("done"), &down), Some((502, "Failed to fetch video content".into())));
/// assert_eq!(content_failure(&gemini::PLATFORM, Some("filtered"), &down), Some((502, "Failed to resolve Gemini video URL".into())));
/// assert_eq!(content_failure(&gemini::PLATFORM, Some("filtered"), &["no_key"]).unwrap().0, 500);
/// assert_eq!(content_failure(&vertex::PLATFORM, None, &["no_key"]), None);
/// assert_eq!(content_failure(&gemini::PLATFORM, Some("done"), &[]), None);
/// ```
pub fn content_failure(p: &Platform, word: Option<&str>, flags: &[&str]) -> Option<(u16, String)> {
    if p.control_words.contains(&NO_KEY) && flags.contains(&NO_KEY) {
        return Some((500, NO_KEY_MESSAGE.to_owned()));
    }
    if word == Some(FILTERED) {
        return Some((502, resolve_failed(p)));
    }
    if !flags.contains(&UNREACHABLE) {
        return None;
    }
    // The URL in the stored `data` (Gemini's `uri`) resolves, and its download fails.
    Some(if !p.url_pointer.is_empty() {
        (502, FETCH_FAILED.to_owned())
    } else {
        (502, resolve_failed(p))
    })
}

/// How the plugin era's content route (controller/video_proxy.go `VideoProxy`, plugin-era
/// variants, medium; DECISIONS D-ERA-9) answers a succeeded Veo task whose upstream shows
/// `word` under the conditions `flags`: the status and body, or `None` when it serves the
/// video. The plugin's artifact replaces the adaptors' URL resolution: Gemini lists the
/// operation's `uri` (fetched with the channel's key, so `no_key` no longer matters), Vertex
/// lists none and the stored `data:` URL is served without asking the upstream.
///
/// - `filtered` (no video): no artifact and no stored result URL: 410 `artifact_gone`.
/// - `unreachable`, Gemini: the artifact's download fails: 502 `artifact_upstream_error`
///   `Failed to fetch artifact content` (`proxyTaskMedia`).
///
/// ```
/// use gatecheck_schemas::rules::platforms::{gemini, vertex, veo::plugin_content_failure};
/// assert_eq!(plugin_content_failure(&gemini::PLATFORM, Some("filtered"), &[]).unwrap().0, 410);
/// assert_eq!(plugin_content_failure(&gemini::PLATFORM, Some("done"), &["unreachable"]).unwrap().0, 502);
/// assert_eq!(plugin_content_failure(&vertex::PLATFORM, Some("done"), &["unreachable"]), None);
/// assert_eq!(plugin_content_failure(&gemini::PLATFORM, Some("done"), &["no_key"]), None);
/// ```
pub fn plugin_content_failure(
    p: &Platform,
    word: Option<&str>,
    flags: &[&str],
) -> Option<(u16, serde_json::Value)> {
    if word == Some(FILTERED) {
        use crate::rules::openai_video::{artifact_gone_body, ARTIFACT_GONE_STATUS};
        return Some((ARTIFACT_GONE_STATUS, artifact_gone_body()));
    }
    if flags.contains(&UNREACHABLE) && p.plugins.artifact.is_some() {
        return Some((
            502,
            serde_json::json!({"error": {
                "message": ARTIFACT_FETCH_FAILED,
                "type": ARTIFACT_UPSTREAM_ERROR,
                "code": ARTIFACT_UPSTREAM_ERROR,
            }}),
        ));
    }
    None
}

/// The code of the plugin era's content error for a download that failed (`proxyTaskMedia`).
pub const ARTIFACT_UPSTREAM_ERROR: &str = "artifact_upstream_error";
/// Its message.
pub const ARTIFACT_FETCH_FAILED: &str = "Failed to fetch artifact content";

/// What the content route of a Veo task answered `status` with `body`: the cause when it is
/// new-api's own error for an upstream that failed it (no URL resolved, the download failed or
/// answered another status: the upstream's failure, not the deployment's), `None` otherwise
/// (including [`NO_KEY_MESSAGE`], the deployment's own stored task).
///
/// ```
/// use gatecheck_schemas::rules::platforms::veo::upstream_content_failure;
/// use serde_json::json;
/// let e = |m: &str| json!({"error": {"message": m, "type": "server_error"}});
/// assert!(upstream_content_failure(502, &e("Failed to resolve Gemini video URL")).is_some());
/// assert!(upstream_content_failure(502, &e("Upstream service returned status 404")).is_some());
/// assert!(upstream_content_failure(500, &e("Failed to fetch video content")).is_none());
/// assert!(upstream_content_failure(502, &e("bad gateway")).is_none());
/// let gone = gatecheck_schemas::rules::openai_video::artifact_gone_body();
/// assert!(upstream_content_failure(410, &gone).is_some());
/// ```
pub fn upstream_content_failure(status: u16, body: &Value) -> Option<String> {
    let e = &body["error"];
    // The plugin era's: no artifact of a filtered operation, or its download failed
    // (DECISIONS D-ERA-9).
    let code = e["code"].as_str();
    if (status == crate::rules::openai_video::ARTIFACT_GONE_STATUS
        && code == Some(crate::rules::openai_video::ARTIFACT_GONE))
        || (status == 502 && code == Some(ARTIFACT_UPSTREAM_ERROR))
    {
        return e["message"].as_str().map(str::to_owned);
    }
    if status != 502 || e["type"].as_str() != Some(CONTENT_ERROR_TYPE) {
        return None;
    }
    let m = e["message"].as_str()?;
    let known = m == FETCH_FAILED
        || super::all()
            .iter()
            .any(|p| super::is_realtime(p) && resolve_failed(p) == m)
        || m.strip_prefix(UPSTREAM_STATUS_PREFIX)
            .is_some_and(|n| n.parse::<u16>().is_ok());
    known.then(|| m.to_owned())
}
/// The words the mock's upstream shows for queued, running, completed, failed.
pub const WORDS: [&str; 4] = [RUNNING, RUNNING, DONE, ERROR];

/// The model new-api's `ConvertToOpenAIVideo` shows when the operation name names none.
pub const DEFAULT_MODEL: &str = "veo-3.0-generate-001";

/// The state word of an operation: `error` when `error.message` (or an error given as text)
/// is set, else `done` or `running` by `done`; `None` when `data` is no operation.
///
/// ```
/// use gatecheck_schemas::rules::platforms::veo::operation_word;
/// use serde_json::json;
/// assert_eq!(operation_word(&json!({"name": "x", "done": false})), Some("running"));
/// assert_eq!(operation_word(&json!({"name": "x"})), Some("running"));
/// assert_eq!(operation_word(&json!({"done": true, "error": {"message": "no"}})), Some("error"));
/// assert_eq!(operation_word(&json!({"done": true, "response": {}})), Some("done"));
/// assert_eq!(operation_word(&json!({"state": "x"})), None);
/// ```
pub fn operation_word(data: &Value) -> Option<&'static str> {
    let o = data.as_object()?;
    if !o.contains_key("name") && !o.contains_key("done") {
        return None;
    }
    let message = match o.get("error") {
        Some(Value::String(s)) => s.as_str(),
        Some(e) => e.get("message").and_then(Value::as_str).unwrap_or(""),
        None => "",
    };
    if !message.is_empty() {
        return Some(ERROR);
    }
    Some(match o.get("done").and_then(Value::as_bool) {
        Some(true) => DONE,
        _ => RUNNING,
    })
}

/// The model of an operation name (`models/<m>/operations/<id>`, or Vertex's
/// `projects/p/locations/r/publishers/google/models/<m>/operations/<id>`), else
/// [`DEFAULT_MODEL`] (`extractModelFromOperationName`).
///
/// ```
/// use gatecheck_schemas::rules::platforms::veo::model_of_operation;
/// assert_eq!(model_of_operation("models/veo-3.1-generate-preview/operations/ab"), "veo-3.1-generate-preview");
/// assert_eq!(model_of_operation("operations/ab"), "veo-3.0-generate-001");
/// ```
pub fn model_of_operation(name: &str) -> &str {
    name.split_once("models/")
        .and_then(|(_, rest)| rest.split_once("/operations/"))
        .map(|(m, _)| m)
        .filter(|m| !m.is_empty() && !m.contains('/'))
        .unwrap_or(DEFAULT_MODEL)
}

/// `mapTaskStatusToSimple`: the `status` of the real-time answer for a task status.
///
/// ```
/// use gatecheck_schemas::rules::platforms::veo::realtime_status;
/// use gatecheck_schemas::rules::task::TaskStatus;
/// assert_eq!(realtime_status(TaskStatus::Success), "succeeded");
/// assert_eq!(realtime_status(TaskStatus::NotStart), "processing");
/// ```
pub fn realtime_status(s: TaskStatus) -> &'static str {
    match s {
        TaskStatus::Success => "succeeded",
        TaskStatus::Failure => "failed",
        TaskStatus::Queued | TaskStatus::Submitted => "queued",
        _ => "processing",
    }
}

/// Every `status` word of the real-time answer, in lifecycle order (a later one never goes
/// back to an earlier one but `failed`/`succeeded`, which are both terminal).
pub const REALTIME_STATUSES: [&str; 4] = ["queued", "processing", "succeeded", "failed"];

/// `ResolveVeoDuration`: `metadata.durationSeconds` (a positive number), else `duration`,
/// else `seconds` (digits), else 8.
///
/// ```
/// use gatecheck_schemas::rules::platforms::veo::resolve_duration;
/// assert_eq!(resolve_duration(Some(6), 4, "5"), 6);
/// assert_eq!(resolve_duration(None, 0, "5"), 5);
/// assert_eq!(resolve_duration(None, 0, ""), 8);
/// ```
pub fn resolve_duration(meta_seconds: Option<i64>, duration: i64, seconds: &str) -> i64 {
    meta_seconds
        .filter(|d| *d > 0)
        .or((duration > 0).then_some(duration))
        .or_else(|| seconds.trim().parse().ok().filter(|s: &i64| *s > 0))
        .unwrap_or(8)
}

/// `ResolveVeoDuration` over a client's JSON body: `metadata.durationSeconds`, else
/// `duration` (a number or digits), else `seconds` (a number or digits), else 8.
///
/// ```
/// use gatecheck_schemas::rules::platforms::veo::seconds;
/// let b = |v: serde_json::Value| v.as_object().unwrap().clone();
/// assert_eq!(seconds(&b(serde_json::json!({"duration": 4, "metadata": {"durationSeconds": 6}}))), 6);
/// assert_eq!(seconds(&b(serde_json::json!({"seconds": "5"}))), 5);
/// assert_eq!(seconds(&b(serde_json::json!({}))), 8);
/// ```
pub fn seconds(body: &Map<String, Value>) -> i64 {
    let meta = body
        .get("metadata")
        .and_then(Value::as_object)
        .and_then(|m| m.get("durationSeconds"))
        .and_then(Value::as_f64)
        .map(|f| f as i64);
    let duration = match body.get("duration") {
        Some(Value::Number(n)) => n.as_i64(),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    };
    let secs = match body.get("seconds") {
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    resolve_duration(meta, duration.unwrap_or(0), &secs)
}

/// `EstimateBilling` of Gemini and Vertex (vertex/adaptor.go@0fc1489e; DECISIONS D-PLAT-20):
/// `{"seconds": ResolveVeoDuration(...)}` ([`seconds`]); the `resolution` ratio of the later
/// versions is not modelled.
///
/// ```
/// use gatecheck_schemas::rules::platforms::veo::other_ratios;
/// let body = serde_json::json!({"duration": 6});
/// let r = other_ratios(body.as_object().unwrap(), "veo-3.0-generate-001");
/// assert_eq!(serde_json::Value::Object(r), serde_json::json!({"seconds": 6}));
/// ```
pub fn other_ratios(body: &Map<String, Value>, _upstream_model: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("seconds".into(), json!(seconds(body)));
    m
}

/// The Veo plugins' `decodeRequest` refusal of a duration other than 4, 6 or 8 seconds
/// (google/plugin.js, vertex-ai/plugin.js@b30dbffe: `seconds must be one of 4, 6, or 8`; a
/// request without one renders 8).
///
/// ```
/// use gatecheck_schemas::rules::platforms::veo::refuse_seconds;
/// let b = |v: serde_json::Value| v.as_object().unwrap().clone();
/// assert!(refuse_seconds(&b(serde_json::json!({"seconds": "6"}))).is_ok());
/// assert!(refuse_seconds(&b(serde_json::json!({}))).is_ok());
/// assert_eq!(refuse_seconds(&b(serde_json::json!({"duration": 5}))).unwrap_err(), "seconds must be one of 4, 6, or 8");
/// ```
pub fn refuse_seconds(body: &Map<String, Value>) -> Result<(), String> {
    if [4, 6, 8].contains(&seconds(body)) {
        Ok(())
    } else {
        Err("seconds must be one of 4, 6, or 8".to_owned())
    }
}

/// `SizeToVeoResolution`: `4k` from 3840 pixels, `1080p` from 1920, else `720p`.
pub fn size_resolution(size: &str) -> &'static str {
    let (w, h) = dims(size);
    match w.max(h) {
        d if d >= 3840 => "4k",
        d if d >= 1920 => "1080p",
        _ => "720p",
    }
}

/// `SizeToVeoAspectRatio`: `9:16` when taller than wide, else `16:9`.
pub fn size_aspect_ratio(size: &str) -> &'static str {
    let (w, h) = dims(size);
    if w > 0 && h > w {
        "9:16"
    } else {
        "16:9"
    }
}

fn dims(size: &str) -> (i64, i64) {
    let lower = size.to_ascii_lowercase();
    let Some((w, h)) = lower.split_once('x') else {
        return (0, 0);
    };
    (w.trim().parse().unwrap_or(0), h.trim().parse().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_new_api() {
        assert_eq!(size_resolution("1920x1080"), "1080p");
        assert_eq!(size_resolution("720x1280"), "720p");
        assert_eq!(size_resolution("3840x2160"), "4k");
        assert_eq!(size_resolution("big"), "720p");
        assert_eq!(size_aspect_ratio("720x1280"), "9:16");
        assert_eq!(size_aspect_ratio("1280x720"), "16:9");
        assert_eq!(size_aspect_ratio("x"), "16:9");
    }
}
