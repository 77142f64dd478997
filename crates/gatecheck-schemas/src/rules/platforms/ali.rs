//! Ali Wan / DashScope (channel type 17; relay/channel/task/ali/adaptor.go@9ba13cd0,
//! DECISIONS D-PLAT-8).
//!
//! The upstream task is DashScope's `{request_id, output:{task_id, task_status, submit_time,
//! scheduled_time, end_time, orig_prompt, actual_prompt, video_url, code, message},
//! usage:{duration, video_count, SR}}`. `PENDING` is `QUEUED` (20%), `RUNNING` `IN_PROGRESS`
//! (30%), `SUCCEEDED` `SUCCESS` with `output.video_url`, `FAILED`/`CANCELED`/`UNKNOWN`
//! `FAILURE`; any other state is `QUEUED` at 20%. The submit answer's `status` is Ali's own
//! `output.task_status` through [`video_status`] (`convertAliStatus`), and the submit's billing
//! ratios are `seconds` plus a per-model `resolution-<R>` ([`resolution_ratio`]).

use super::{state, Platform};
use crate::rules::task::TaskStatus::{Failure, InProgress, Queued, Success};
use serde_json::{json, Map, Value};
use crate::decisions::id;

/// Ali (DashScope): the Wan and HappyHorse models of new-api's Ali task adaptor's `ModelList`
/// (constants.go@10d43aa5, in its order); Bailian-Kling (`kling/kling-v3-*`) is in no list and
/// is not served here (DECISIONS D-PLAT-11).
pub const PLATFORM: Platform = Platform {
    key: super::Key::Ali,
    channel_type: "17",
    name: "ali",
    title: "Ali Wan",
    fetch: super::Fetch::Poll,
    catalog_model: "wan2.7-t2v",
    models: &[
        "happyhorse-1.1-t2v",
        "happyhorse-1.1-i2v",
        "happyhorse-1.1-r2v",
        "happyhorse-1.0-t2v",
        "happyhorse-1.0-i2v",
        "happyhorse-1.0-r2v",
        "happyhorse-1.0-video-edit",
        "wan2.7-i2v",
        "wan2.7-t2v",
        "wan2.5-i2v-preview",
        "wan2.2-i2v-flash",
        "wan2.2-i2v-plus",
        "wanx2.1-i2v-plus",
        "wanx2.1-i2v-turbo",
    ],
    states: &[
        state("PENDING", Queued, 20),
        state("RUNNING", InProgress, 30),
        state("SUCCEEDED", Success, 100),
        state("FAILED", Failure, 100),
        state("CANCELED", Failure, 100),
        state("UNKNOWN", Failure, 100),
    ],
    other: Some((Queued, 20)),
    words: ["PENDING", "RUNNING", "SUCCEEDED", "FAILED"],
    state_pointer: "/output/task_status",
    url_pointer: "/output/video_url",
    video_has_model: true,
    decision: id::D_PLAT_8,
    data_schema: crate::schemas::names::ALI_TASK_DATA,
    data_schema_text: include_str!("../../../schemas/ali-task-data.json"),
    control_words: &[],
    refusals: Some(super::Refusals { submit: submit_refusal, relayed: is_relayed_refusal, poll: fetch_refusal }),
    check: super::CheckText {
        title: "An Ali Wan model (channel type 17) found in the catalog: as `task.platform.vidu`, with DashScope's task as `data` (schema `ali-task-data`), the ratios `seconds` and `resolution-<R>`, and its status map (`PENDING` QUEUED 20%, `RUNNING` IN_PROGRESS 30%, `FAILED`/`CANCELED`/`UNKNOWN` FAILURE).",
        spec: "DECISIONS: Video platforms behind the unified route D-PLAT-8; failures D-TASK-10 to D-TASK-12, D-PLAT-7, D-PLAT-9, D-PLAT-10",
    },
    ratios: other_ratios,
    surface: super::Surface::Unified,
    plugins: super::PluginFacts {
        // meta.models at 2f6bf06b: no HappyHorse, wan2.5-t2v-preview added.
        models: Some(&[
            "wan2.7-i2v",
            "wan2.7-t2v",
            "wan2.5-t2v-preview",
            "wan2.5-i2v-preview",
            "wan2.2-i2v-flash",
            "wan2.2-i2v-plus",
            "wanx2.1-i2v-plus",
            "wanx2.1-i2v-turbo",
        ]),
        bodies: crate::rules::openai_video::VideoBodies::NoFiles(
            "Alibaba requires image references to be URLs",
        ),
        render_error: Some(render_error),
        artifact: Some("/output/video_url"),
        native: NATIVE,
        ..super::PluginFacts::same("plugins/tasks/alibaba/plugin.js@2f6bf06b")
    },
};

/// The Alibaba plugin's `openai_video` render error: DashScope's top-level `code` and
/// `message`, else `output.code` and `output.message`.
///
/// ```
/// use gatecheck_schemas::rules::platforms::ali::render_error;
/// let d = serde_json::json!({"output": {"task_status": "FAILED", "code": "DataInspectionFailed", "message": "m"}});
/// assert_eq!(render_error(&d), Some(("DataInspectionFailed".into(), "m".into())));
/// assert_eq!(render_error(&serde_json::json!({"output": {"task_status": "RUNNING"}})), None);
/// ```
pub fn render_error(data: &Value) -> Option<(String, String)> {
    let of = |v: &Value| {
        let code = v.get("code").and_then(Value::as_str).filter(|c| !c.is_empty())?;
        Some((code.to_owned(), v["message"].as_str().unwrap_or("").to_owned()))
    };
    of(data).or_else(|| of(&data["output"]))
}

/// new-api's `convertAliStatus`: the OpenAI video status of an Ali `task_status` (the submit
/// answer and `/v1/videos/{id}` both read Ali's own word, not the task row).
///
/// ```
/// use gatecheck_schemas::rules::platforms::ali::video_status;
/// assert_eq!(video_status("PENDING"), "queued");
/// assert_eq!(video_status("CANCELED"), "failed");
/// assert_eq!(video_status("SUSPENDED"), "unknown");
/// ```
pub fn video_status(word: &str) -> &'static str {
    match word {
        "PENDING" => "queued",
        "RUNNING" => "in_progress",
        "SUCCEEDED" => "completed",
        "FAILED" | "CANCELED" | "UNKNOWN" => "failed",
        _ => "unknown",
    }
}

/// `ProcessAliOtherRatios`' table: the `resolution-<R>` billing ratio of an upstream model at
/// a resolution (`480P`, `720P`, `1080P`), if the adaptor has one.
///
/// ```
/// use gatecheck_schemas::rules::platforms::ali::resolution_ratio;
/// assert_eq!(resolution_ratio("wan2.5-i2v-preview", "720P"), Some(2.0));
/// assert_eq!(resolution_ratio("wan2.7-t2v", "720P"), None);
/// ```
pub fn resolution_ratio(model: &str, resolution: &str) -> Option<f64> {
    let table: &[(&str, f64)] = match model {
        "wan2.6-i2v" => &[("720P", 1.0), ("1080P", 1.0 / 0.6)],
        "wan2.5-t2v-preview" | "wan2.5-i2v-preview" => {
            &[("480P", 1.0), ("720P", 2.0), ("1080P", 1.0 / 0.3)]
        }
        "wan2.2-t2v-plus" | "wan2.2-i2v-plus" => &[("480P", 1.0), ("1080P", 0.7 / 0.14)],
        "wan2.2-kf2v-flash" => &[("480P", 1.0), ("720P", 2.0), ("1080P", 4.8)],
        "wan2.2-i2v-flash" => &[("480P", 1.0), ("720P", 2.0)],
        "wan2.2-s2v" => &[("480P", 1.0), ("720P", 0.9 / 0.5)],
        _ => &[],
    };
    let r = resolution.to_ascii_uppercase();
    table.iter().find(|(k, _)| *k == r).map(|(_, v)| *v)
}

/// `sizeToResolution`: the resolution of a DashScope size (`1280*720`), if it is one.
pub fn size_resolution(size: &str) -> Option<&'static str> {
    const P480: [&str; 3] = ["832*480", "480*832", "624*624"];
    const P720: [&str; 5] = ["1280*720", "720*1280", "960*960", "1088*832", "832*1088"];
    const P1080: [&str; 5] = [
        "1920*1080",
        "1080*1920",
        "1440*1440",
        "1632*1248",
        "1248*1632",
    ];
    if P480.contains(&size) {
        Some("480P")
    } else if P720.contains(&size) {
        Some("720P")
    } else if P1080.contains(&size) {
        Some("1080P")
    } else {
        None
    }
}

/// `metadata.parameters.<key>` (the metadata overlays the DashScope request).
fn param<'a>(body: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    body.get("metadata")?
        .get("parameters")?
        .as_object()?
        .get(key)
}

/// A positive integer field of the body (a number or digits in text).
fn positive(body: &Map<String, Value>, key: &str) -> Option<i64> {
    match body.get(key)? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
    .filter(|d| *d > 0)
}

/// The duration DashScope renders: `metadata.parameters.duration`, else `duration`, else
/// `seconds`, else 5 (`resolveTaskDuration`).
pub fn seconds(body: &Map<String, Value>) -> i64 {
    param(body, "duration")
        .and_then(Value::as_i64)
        .filter(|d| *d > 0)
        .or_else(|| positive(body, "duration"))
        .or_else(|| positive(body, "seconds"))
        .unwrap_or(5)
}

/// The resolution (`480P`, `720P`, `1080P`...) the DashScope request carries for the client's
/// `model` (`convertToAliRequest`'s defaults by model prefix, `size`, metadata over them).
pub fn resolution(body: &Map<String, Value>, model: &str) -> String {
    let text = |k: &str| body.get(k).and_then(Value::as_str).unwrap_or("");
    let size = param(body, "size")
        .and_then(Value::as_str)
        .unwrap_or(text("size"));
    if let Some(r) = param(body, "resolution").and_then(Value::as_str) {
        return r.to_ascii_uppercase();
    }
    if size.contains('*') {
        return size_resolution(size).unwrap_or("").to_owned();
    }
    if !size.is_empty() {
        let r = size.trim().to_ascii_uppercase();
        return if r.ends_with('P') { r } else { r + "P" };
    }
    let t2v = model.contains("t2v");
    let full = if is_happyhorse(model) {
        true // normalizeHappyHorseResolution's default
    } else if t2v {
        model.starts_with("wan2.5") || model.starts_with("wan2.2")
    } else {
        ["wan2.6", "wan2.5", "wan2.2-i2v-plus"]
            .iter()
            .any(|p| model.starts_with(p))
    };
    if full { "1080P" } else { "720P" }.to_owned()
}

/// `EstimateBilling`: `{"seconds": duration}` and, where `ProcessAliOtherRatios`' table has
/// the upstream model, `resolution-<R>` (the defaults follow the client's model, the table
/// the upstream one).
///
/// ```
/// use gatecheck_schemas::rules::platforms::ali::other_ratios;
/// let body = serde_json::json!({"model": "wan2.5-i2v-preview", "size": "720P", "duration": 4});
/// let r = other_ratios(body.as_object().unwrap(), "wan2.5-i2v-preview");
/// assert_eq!(serde_json::Value::Object(r), serde_json::json!({"seconds": 4, "resolution-720P": 2.0}));
/// ```
pub fn other_ratios(body: &Map<String, Value>, upstream_model: &str) -> Map<String, Value> {
    let mut m = Map::new();
    // buildHappyHorseRequest sets no duration for a video edit: `seconds` 0 (D-PLAT-11).
    let edit = is_happyhorse(upstream_model) && upstream_model.contains("-video-edit");
    m.insert(
        "seconds".into(),
        json!(if edit { 0 } else { seconds(body) }),
    );
    let model = body.get("model").and_then(Value::as_str).unwrap_or("");
    let r = resolution(body, model);
    if let Some(ratio) = resolution_ratio(upstream_model, &r) {
        m.insert(format!("resolution-{r}"), json!(ratio));
    }
    m
}

/// `isHappyHorseModel`: a `happyhorse-1.0`/`happyhorse-1.1` model (case and blanks ignored).
pub fn is_happyhorse(model: &str) -> bool {
    let m = model.trim().to_ascii_lowercase();
    m.starts_with("happyhorse-1.0") || m.starts_with("happyhorse-1.1")
}

/// The URLs of a list field of the body (`images`, `videos`).
fn list_len(body: &Map<String, Value>, key: &str) -> usize {
    body.get(key).and_then(Value::as_array).map_or(0, Vec::len)
}

/// The images new-api's Ali adaptor reads: `images`, else `image`, else `input_reference`
/// (parseAliTaskRequest, ValidateRequestAndSetAction).
pub fn image_count(body: &Map<String, Value>) -> usize {
    let one = |k: &str| {
        body.get(k)
            .and_then(Value::as_str)
            .is_some_and(|s| !s.trim().is_empty())
    };
    match list_len(body, "images") {
        0 if one("image") || one("input_reference") => 1,
        n => n,
    }
}

/// `validateAndInferAliAction`: the action of a request to `model`, or new-api's message for
/// its 400 `invalid_request`, `prompt` the request's prompt (HappyHorse's `inferHappyHorseAction`: t2v needs a prompt, i2v
/// exactly one image, r2v a prompt and 1-9 images, video-edit a prompt, one video and at most
/// five images; the Wan models a prompt).
///
/// ```
/// use gatecheck_schemas::rules::platforms::ali::action;
/// let b = |v: serde_json::Value| v.as_object().unwrap().clone();
/// assert_eq!(action(&b(serde_json::json!({"model": "happyhorse-1.1-i2v", "images": ["u"]})), ""), Ok("generate"));
/// assert_eq!(
///     action(&b(serde_json::json!({"model": "happyhorse-1.1-i2v"})), "p").unwrap_err(),
///     "happyhorse i2v requires exactly 1 first-frame image, got 0"
/// );
/// assert_eq!(action(&b(serde_json::json!({"model": "wan2.7-t2v"})), " ").unwrap_err(), "prompt is required");
/// ```
pub fn action(body: &Map<String, Value>, prompt: &str) -> Result<&'static str, String> {
    use crate::rules::task::{ACTION_GENERATE, ACTION_TEXT_GENERATE};
    let model = body.get("model").and_then(Value::as_str).unwrap_or("");
    let prompt = !prompt.trim().is_empty();
    let images = image_count(body);
    let need_prompt = || {
        if prompt {
            Ok(())
        } else {
            Err("prompt is required".to_owned())
        }
    };
    if !is_happyhorse(model) {
        need_prompt()?;
        return Ok(if images > 0 {
            ACTION_GENERATE
        } else {
            ACTION_TEXT_GENERATE
        });
    }
    let m = model.trim().to_ascii_lowercase();
    if m.contains("-t2v") {
        need_prompt()?;
        Ok(ACTION_TEXT_GENERATE)
    } else if m.contains("-i2v") {
        if images != 1 {
            return Err(format!(
                "happyhorse i2v requires exactly 1 first-frame image, got {images}"
            ));
        }
        Ok(ACTION_GENERATE)
    } else if m.contains("-r2v") {
        need_prompt()?;
        if !(1..=9).contains(&images) {
            return Err(format!(
                "happyhorse r2v requires 1-9 reference images, got {images}"
            ));
        }
        Ok(ACTION_REFERENCE_GENERATE)
    } else if m.contains("-video-edit") {
        need_prompt()?;
        let videos = list_len(body, "videos");
        if videos != 1 {
            return Err(format!(
                "happyhorse video-edit requires exactly 1 video, got {videos}"
            ));
        }
        if images > 5 {
            return Err(format!(
                "happyhorse video-edit supports at most 5 reference images, got {images}"
            ));
        }
        Ok(crate::rules::task::ACTION_REMIX)
    } else {
        Err(format!("unsupported happyhorse model: {model}"))
    }
}

/// new-api's `TaskActionReferenceGenerate`.
pub const ACTION_REFERENCE_GENERATE: &str = "referenceGenerate";

/// `DoResponse`'s code for a DashScope answer with a `code` (200: the non-200 ones are
/// `fail_to_fetch_task` before `DoResponse` reads them; DECISIONS D-PLAT-11).
pub const ALI_API_ERROR: &str = "ali_api_error";
/// `DoResponse`'s code for a DashScope answer without `output.task_id` (500).
pub const INVALID_RESPONSE: &str = "invalid_response";
/// controller/relay.go RelayTask: the message of every task error answered 429.
pub const RATE_LIMITED_MESSAGE: &str = "当前分组上游负载已饱和，请稍后再试";

/// How new-api answers a client when DashScope answers its submit `status` with `body`
/// (relay/relay_task.go RelayTaskSubmit, adaptor.go `DoResponse`, controller/relay.go
/// RelayTask; DECISIONS D-PLAT-11): the HTTP status, the task error's `code` and `message`.
/// A non-200 is `fail_to_fetch_task` with the upstream's status and body (a 429's message
/// replaced); a 200 with a `code` is `ali_api_error` `<code>: <message>` answered 200; a 200
/// without `output.task_id` is 500 `invalid_response`. `None`: a 200 new-api accepts, a 200
/// body that is not a JSON object (Go's parse error text is not reproduced), or a message
/// containing `post`, `dial` or `http` (new-api masks those; not modelled).
///
/// ```
/// use gatecheck_schemas::rules::platforms::ali::submit_refusal;
/// let b = r#"{"request_id":"r1","code":"InvalidParameter","message":"bad size"}"#;
/// assert_eq!(submit_refusal(400, b), Some((400, "fail_to_fetch_task", b.to_owned())));
/// assert_eq!(
///     submit_refusal(200, b),
///     Some((200, "ali_api_error", "InvalidParameter: bad size".to_owned()))
/// );
/// assert_eq!(submit_refusal(200, "{}").unwrap().0, 500);
/// assert_eq!(submit_refusal(200, r#"{"output":{"task_id":"t","task_status":"PENDING"}}"#), None);
/// ```
pub fn submit_refusal(status: u16, body: &str) -> Option<(u16, &'static str, String)> {
    let (status, code, message) = if status != 200 {
        let message = if status == 429 {
            RATE_LIMITED_MESSAGE.to_owned()
        } else {
            body.to_owned()
        };
        (status, crate::rules::task::FAIL_TO_FETCH_TASK, message)
    } else {
        let v: Map<String, Value> = serde_json::from_str(body).ok()?;
        let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("");
        let task_id = v
            .get("output")
            .and_then(|o| o.get("task_id"))
            .and_then(Value::as_str)
            .unwrap_or("");
        if !text("code").is_empty() {
            let message = format!("{}: {}", text("code"), text("message"));
            (200, ALI_API_ERROR, message)
        } else if task_id.is_empty() {
            (500, INVALID_RESPONSE, "task_id is empty".to_owned())
        } else {
            return None;
        }
    };
    let lower = message.to_ascii_lowercase();
    if ["post", "dial", "http"].iter().any(|w| lower.contains(w)) {
        return None;
    }
    Some((status, code, message))
}

/// DashScope's error answer to new-api's poll, as the record keeps it (DECISIONS D-PLAT-11):
/// `data` with a top-level `code` and no `output.task_status`. new-api's poller reads any
/// status's body (service/task_polling.go `updateVideoSingleTask`), `ParseTaskResult` maps the
/// missing state to `QUEUED` and the body becomes `data`: the record shows the task queued
/// (20%) until DashScope answers again. Gives the code and the message.
///
/// ```
/// use gatecheck_schemas::rules::platforms::ali::fetch_refusal;
/// let data = serde_json::json!({"request_id": "r", "code": "Throttling", "message": "slow down"});
/// assert_eq!(fetch_refusal(&data), Some(("Throttling", "slow down")));
/// assert_eq!(fetch_refusal(&serde_json::json!({"output": {"task_status": "FAILED"}, "code": "x"})), None);
/// ```
pub fn fetch_refusal(data: &Value) -> Option<(&str, &str)> {
    let code = data.get("code").and_then(Value::as_str)?;
    let state = data.pointer("/output/task_status").and_then(Value::as_str);
    if code.is_empty() || state.is_some_and(|s| !s.is_empty()) {
        return None;
    }
    Some((
        code,
        data.get("message").and_then(Value::as_str).unwrap_or(""),
    ))
}

/// Whether a submit's answer (`status`, JSON `body`) is new-api's relay of a DashScope refusal
/// ([`submit_refusal`]'s forms; DECISIONS D-PLAT-11): `{code, message, data:null}` with
/// `fail_to_fetch_task` and a status other than 200, `ali_api_error` `<code>: <message>`
/// answered 200, or 500 `invalid_response` `task_id is empty`. The upstream refused; the
/// deployment relayed it as new-api does.
///
/// ```
/// use gatecheck_schemas::rules::platforms::ali::is_relayed_refusal;
/// let e = |c: &str, m: &str| serde_json::json!({"code": c, "message": m, "data": null});
/// assert!(is_relayed_refusal(400, &e("fail_to_fetch_task", "{\"code\":\"InvalidParameter\"}")));
/// assert!(is_relayed_refusal(200, &e("ali_api_error", "Throttling: slow down")));
/// assert!(!is_relayed_refusal(400, &e("ali_api_error", "Throttling: slow down")));
/// assert!(!is_relayed_refusal(500, &e("invalid_request", "prompt is required")));
/// ```
pub fn is_relayed_refusal(status: u16, body: &Value) -> bool {
    let Some(o) = body.as_object() else {
        return false;
    };
    let text = |k: &str| o.get(k).and_then(Value::as_str);
    let (Some(code), Some(message)) = (text("code"), text("message")) else {
        return false;
    };
    if o.len() != 3 || !o.get("data").is_some_and(Value::is_null) {
        return false;
    }
    match code {
        crate::rules::task::FAIL_TO_FETCH_TASK => status != 200,
        ALI_API_ERROR => status == 200 && message.contains(": "),
        INVALID_RESPONSE => status == 500 && message == "task_id is empty",
        _ => false,
    }
}

/// The plugin's native DashScope routes (`meta.routes` and `native`, plugin.js@2f6bf06b;
/// DECISIONS D-ERA-15): the create answers `taskCreated`, the fetch `taskStatus`, a refusal
/// `native.error`'s `{code, message, request_id:""}`.
pub const NATIVE: super::native::Native = super::native::Native {
    routes: &[
        super::native::NativeRoute {
            method: "POST",
            path: "/ali/api/v1/services/aigc/video-generation/video-synthesis",
            operation: super::native::NativeOperation::Submit,
            renderer: "taskCreated",
            operation_id: "aliCreateVideoSynthesis",
            decode: Some(decode_create),
            render: |task| {
                let request_id = task.data["request_id"].as_str().unwrap_or("");
                json!({"request_id": request_id,
                    "output": {"task_id": task.task_id, "task_status": "PENDING"}})
            },
            id_pointer: "/output/task_id",
            schema: dashscope_schema,
            example: Some(|model, prompt| {
                json!({"model": model, "input": {"prompt": prompt}, "parameters": {"duration": 5}})
            }),
        },
        super::native::NativeRoute {
            method: "GET",
            path: "/ali/api/v1/tasks/{task_id}",
            operation: super::native::NativeOperation::Query,
            renderer: "taskStatus",
            operation_id: "aliGetTask",
            decode: None,
            render: task_status,
            id_pointer: "/output/task_id",
            schema: dashscope_schema,
            example: None,
        },
    ],
    error: |code, message| json!({"code": code, "message": message, "request_id": ""}),
    error_schema: || {
        json!({"type": "object", "required": ["code", "message", "request_id"], "properties": {
            "code": {"type": "string"}, "message": {"type": "string"},
            "request_id": {"type": "string"}}})
    },
};

/// `native.createVideoTask`: DashScope's body (`model`, `input.prompt`, `input.img_url`,
/// `parameters.duration`, `parameters.size` or `resolution`) to the request the plugin
/// submits (`{model, prompt, image, duration, size}`).
///
/// ```
/// use gatecheck_schemas::rules::platforms::ali::decode_create;
/// let body = serde_json::json!({"model": "wan2.7-t2v", "input": {"prompt": "a cat"}});
/// assert_eq!(decode_create(&body).unwrap().model, "wan2.7-t2v");
/// assert_eq!(decode_create(&serde_json::json!([1])).unwrap_err(), "JSON object required");
/// ```
pub fn decode_create(body: &Value) -> Result<super::native::NativeIntent, String> {
    if !body.is_object() {
        return Err("JSON object required".into());
    }
    let model = body["model"].as_str().unwrap_or("").to_owned();
    let (input, parameters) = (&body["input"], &body["parameters"]);
    let prompt = input["prompt"].as_str().unwrap_or("").to_owned();
    let mut request = Map::new();
    request.insert("model".into(), json!(model));
    request.insert("prompt".into(), json!(prompt));
    let size = parameters
        .get("size")
        .filter(|s| !s.is_null())
        .or_else(|| parameters.get("resolution"));
    let fields = [
        ("image", input.get("img_url")),
        ("duration", parameters.get("duration")),
        ("size", size),
    ];
    for (key, value) in fields {
        if let Some(v) = value.filter(|v| !v.is_null()) {
            request.insert(key.into(), v.clone());
        }
    }
    Ok(super::native::NativeIntent {
        model,
        prompt,
        body: request,
    })
}

/// `native.taskStatus`: the row's `data` (DashScope's task) with `output.task_id` the public
/// task id.
fn task_status(task: &super::native::NativeTask<'_>) -> Value {
    let mut v = match task.data {
        Value::Object(d) => Value::Object(d.clone()),
        _ => json!({}),
    };
    let mut output = match &v["output"] {
        Value::Object(o) => o.clone(),
        _ => Map::new(),
    };
    output.insert("task_id".into(), json!(task.task_id));
    v["output"] = Value::Object(output);
    v
}

fn dashscope_schema() -> Value {
    json!({"type": "object", "required": ["output"], "properties": {
        "request_id": {"type": "string"},
        "output": {"type": "object", "required": ["task_id", "task_status"], "properties": {
            "task_id": {"type": "string", "minLength": 1},
            "task_status": {"type": "string"},
            "video_url": {"type": "string"}}}}})
}
