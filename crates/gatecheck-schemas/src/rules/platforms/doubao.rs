//! Doubao / VolcEngine Seedance (channel type 54; relay/channel/task/doubao/adaptor.go,
//! DECISIONS D-PLAT-4).
//!
//! The upstream task is `{id, model, status, content:{video_url}, seed, resolution, duration,
//! ratio, framespersecond, service_tier, usage:{completion_tokens, total_tokens},
//! error:{code, message}, created_at, updated_at}`. `pending`/`queued` are `QUEUED` (10%),
//! `processing`/`running` `IN_PROGRESS` (50%), `succeeded` `SUCCESS` with
//! `content.video_url`, `failed` `FAILURE` with `error.message`; any other state is
//! `IN_PROGRESS` at 30%.

use super::{state, Platform};
use crate::rules::task::TaskStatus::{Failure, InProgress, Queued, Success};
use serde_json::{json, Map, Value};
use crate::decisions::id;

/// Doubao Seedance.
pub const PLATFORM: Platform = Platform {
    key: super::Key::Doubao,
    channel_type: "54",
    name: "doubao",
    title: "Doubao Seedance",
    fetch: super::Fetch::Poll,
    catalog_model: "doubao-seedance-1-0-pro-250528",
    models: &[
        "doubao-seedance-1-0-pro-250528",
        "doubao-seedance-1-0-lite-t2v",
        "doubao-seedance-1-0-lite-i2v",
        "doubao-seedance-1-5-pro-251215",
        "doubao-seedance-2-0-260128",
        "doubao-seedance-2-0-fast-260128",
    ],
    states: &[
        state("pending", Queued, 10),
        state("queued", Queued, 10),
        state("processing", InProgress, 50),
        state("running", InProgress, 50),
        state("succeeded", Success, 100),
        state("failed", Failure, 100),
    ],
    other: Some((InProgress, 30)),
    words: ["queued", "processing", "succeeded", "failed"],
    state_pointer: "/status",
    url_pointer: "/content/video_url",
    video_has_model: true,
    decision: id::D_PLAT_4,
    data_schema: crate::schemas::names::DOUBAO_TASK_DATA,
    data_schema_text: include_str!("../../../schemas/doubao-task-data.json"),
    control_words: &[],
    refusals: None,
    check: super::CheckText {
        title: "A Doubao Seedance model (channel type 54) found in the catalog: as `task.platform.vidu`, with Volcengine Ark's task as `data` (schema `doubao-task-data`) and its status map (`queued` QUEUED 10%, `running` IN_PROGRESS 50%); the ratios are `GetVideoInputRatio`'s `video_input` (D-PLAT-9).",
        spec: "DECISIONS: Video platforms behind the unified route D-PLAT-4; failures D-TASK-10 to D-TASK-12, D-PLAT-7, D-PLAT-9, D-PLAT-10",
    },
    ratios: other_ratios,
    surface: super::Surface::Unified,
    plugins: super::PluginFacts {
        models: Some(&[
            "doubao-seedance-1-0-pro-250528",
            "doubao-seedance-1-0-lite-t2v",
            "doubao-seedance-1-0-lite-i2v",
            "doubao-seedance-1-5-pro-251215",
            "doubao-seedance-2-0-260128",
            "doubao-seedance-2-0-fast-260128",
            "doubao-seedance-2-0-mini-260615",
            "doubao-seedance-2-5-260628",
        ]),
        // meta.channelTypes [54, 45]: VolcEngine-type channels serve Ark video models.
        channel_types: &["45"],
        states: Some((
            &[
                state("pending", Queued, 10),
                state("queued", Queued, 10),
                state("processing", InProgress, 50),
                state("running", InProgress, 50),
                state("succeeded", Success, 100),
                state("failed", Failure, 100),
                state("expired", Failure, 100),
                state("cancelled", Failure, 100),
            ],
            Some((InProgress, 30)),
        )),
        ratios: Some(plugin_ratios),
        refuse: Some(crate::rules::openai_video::seconds_within_limit),
        bodies: crate::rules::openai_video::VideoBodies::NoFiles(
            "Doubao requires image and video references to be URLs inside metadata.content",
        ),
        render_error: Some(render_error),
        artifact: Some("/content/video_url"),
        native: NATIVE,
        ..super::PluginFacts::same("plugins/tasks/doubao/plugin.js@2f6bf06b")
    },
};

/// The price tiers of `GetVideoInputRatio`: `(model, 1080p, video input)` → the price per
/// million tokens (constants.go@2f95f708's table: 2.0 is 46, 28 with a video input, 51 at
/// 1080p, 31 at 1080p with a video input; 2.0-fast 37 and 22, no 1080p). The base is the
/// 480p/720p tier without video.
const PRICE_TIERS: [(&str, bool, bool, f64); 6] = [
    ("doubao-seedance-2-0-260128", false, false, 46.0),
    ("doubao-seedance-2-0-260128", false, true, 28.0),
    ("doubao-seedance-2-0-260128", true, false, 51.0),
    ("doubao-seedance-2-0-260128", true, true, 31.0),
    ("doubao-seedance-2-0-fast-260128", false, false, 37.0),
    ("doubao-seedance-2-0-fast-260128", false, true, 22.0),
];

/// `GetVideoInputRatio(model, resolution, hasVideo)`: the tier's price over the model's base
/// tier; a combination without a tier is the base (1.0); `None` for a model without tiers.
///
/// ```
/// use gatecheck_schemas::rules::platforms::doubao::video_input_ratio;
/// let m = "doubao-seedance-2-0-260128";
/// assert_eq!(video_input_ratio(m, "720p", true), Some(28.0 / 46.0));
/// assert_eq!(video_input_ratio(m, "1080P", false), Some(51.0 / 46.0));
/// assert_eq!(video_input_ratio("doubao-seedance-2-0-fast-260128", "1080p", false), Some(1.0));
/// assert_eq!(video_input_ratio("doubao-seedance-1-0-pro-250528", "720p", true), None);
/// ```
pub fn video_input_ratio(model: &str, resolution: &str, has_video: bool) -> Option<f64> {
    let price = |hd: bool, video: bool| {
        PRICE_TIERS
            .iter()
            .find(|t| t.0 == model && t.1 == hd && t.2 == video)
            .map(|t| t.3)
    };
    let base = price(false, false).filter(|b| *b > 0.0)?;
    let hd = resolution.trim().eq_ignore_ascii_case("1080p");
    Some(price(hd, has_video).map_or(1.0, |p| p / base))
}

/// `hasVideoInMetadata`: whether `metadata.content` holds an item of type `video_url` (or with
/// a `video_url` field).
pub fn has_video_input(body: &Map<String, Value>) -> bool {
    body.get("metadata")
        .and_then(|m| m.get("content"))
        .and_then(Value::as_array)
        .is_some_and(|items| {
            items
                .iter()
                .any(|i| i["type"] == "video_url" || i.get("video_url").is_some())
        })
}

/// `EstimateBilling` (adaptor.go@035aa734): `{"video_input": r}` for the client's model (its
/// origin name, not the upstream one), `metadata.resolution` and whether the request carries
/// a video input, when the model has tiers and `r` is not 1; else none (per call).
///
/// ```
/// use gatecheck_schemas::rules::platforms::doubao::other_ratios;
/// let body = serde_json::json!({"model": "doubao-seedance-2-0-260128",
///     "metadata": {"content": [{"type": "video_url", "video_url": {"url": "https://x/v.mp4"}}]}});
/// let r = other_ratios(body.as_object().unwrap(), "ignored");
/// assert_eq!(r["video_input"], serde_json::json!(28.0 / 46.0));
/// ```
pub fn other_ratios(body: &Map<String, Value>, _upstream_model: &str) -> Map<String, Value> {
    let model = body.get("model").and_then(Value::as_str).unwrap_or("");
    let resolution = body
        .get("metadata")
        .and_then(|m| m.get("resolution"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let mut out = Map::new();
    if let Some(r) =
        video_input_ratio(model, resolution, has_video_input(body)).filter(|r| *r != 1.0)
    {
        out.insert("video_input".into(), json!(r));
    }
    out
}

/// The plugin's `videoInputRatio(model, resolution, content)` (plugin.js@2f6bf06b): the
/// price of the tier over the model's base, 1 where the plugin has no tier.
///
/// ```
/// use gatecheck_schemas::rules::platforms::doubao::plugin_video_input_ratio as r;
/// assert_eq!(r("doubao-seedance-2-0-260128", "4k", true), 16.0 / 46.0);
/// assert_eq!(r("doubao-seedance-2-0-260128", "720p", false), 1.0);
/// assert_eq!(r("doubao-seedance-2-0-mini-260615", "720p", true), 14.0 / 23.0);
/// assert_eq!(r("doubao-seedance-2-5-260628", "1080P", false), 11.7 / 10.7);
/// assert_eq!(r("doubao-seedance-1-0-pro-250528", "1080p", true), 1.0);
/// ```
pub fn plugin_video_input_ratio(model: &str, resolution: &str, video: bool) -> f64 {
    let res = resolution.trim().to_ascii_lowercase();
    let pick = |with: f64, without: f64| if video { with } else { without };
    match model {
        "doubao-seedance-2-5-260628" if res == "1080p" => pick(7.0 / 10.7, 11.7 / 10.7),
        "doubao-seedance-2-5-260628" => pick(42.0 / 70.0, 1.0),
        "doubao-seedance-2-0-260128" if res == "1080p" => pick(31.0 / 46.0, 51.0 / 46.0),
        "doubao-seedance-2-0-260128" if res == "4k" => pick(16.0 / 46.0, 26.0 / 46.0),
        "doubao-seedance-2-0-260128" => pick(28.0 / 46.0, 1.0),
        "doubao-seedance-2-0-fast-260128" => pick(22.0 / 37.0, 1.0),
        "doubao-seedance-2-0-mini-260615" => pick(14.0 / 23.0, 1.0),
        _ => 1.0,
    }
}

/// The plugin's `extractUsage` under `billing_ratios`: `{"video_input_ratio": r}` for the
/// client's model, `metadata.resolution` and a video in `metadata.content`, none when r is 1.
///
/// ```
/// use gatecheck_schemas::rules::platforms::doubao::plugin_ratios;
/// let body = serde_json::json!({"model": "doubao-seedance-2-0-260128",
///     "metadata": {"resolution": "4k"}});
/// let r = plugin_ratios(body.as_object().unwrap(), "ignored");
/// assert_eq!(r["video_input_ratio"], serde_json::json!(26.0 / 46.0));
/// ```
pub fn plugin_ratios(body: &Map<String, Value>, _upstream_model: &str) -> Map<String, Value> {
    let model = body.get("model").and_then(Value::as_str).unwrap_or("");
    let resolution = body
        .get("metadata")
        .and_then(|m| m.get("resolution"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let r = plugin_video_input_ratio(model, resolution, has_video_input(body));
    let mut out = Map::new();
    if r != 1.0 {
        out.insert("video_input_ratio".into(), json!(r));
    }
    out
}

/// The Doubao plugin's `openai_video` render error: a `failed` task's `error.code` and
/// `error.message` (`""` when missing); `expired` and `cancelled` render none.
///
/// ```
/// use gatecheck_schemas::rules::platforms::doubao::render_error;
/// let d = serde_json::json!({"status": "failed", "error": {"code": "c", "message": "m"}});
/// assert_eq!(render_error(&d), Some(("c".into(), "m".into())));
/// assert_eq!(render_error(&serde_json::json!({"status": "expired"})), None);
/// ```
pub fn render_error(data: &Value) -> Option<(String, String)> {
    if data["status"] != "failed" {
        return None;
    }
    let text = |k: &str| data["error"][k].as_str().unwrap_or("").to_owned();
    Some((text("code"), text("message")))
}

/// The plugin's native Ark routes (`meta.routes` and `native`, plugin.js@2f6bf06b; DECISIONS
/// D-ERA-15): the create answers `taskCreated`, the fetch `taskStatus`, a refusal
/// `native.error`'s `{error:{code, message}}`.
pub const NATIVE: super::native::Native = super::native::Native {
    routes: &[
        super::native::NativeRoute {
            method: "POST",
            path: "/doubao/api/v3/contents/generations/tasks",
            operation: super::native::NativeOperation::Submit,
            renderer: "taskCreated",
            operation_id: "doubaoCreateTask",
            decode: Some(decode_create),
            render: task_created,
            id_pointer: "/id",
            schema: created_schema,
            example: Some(|model, prompt| {
                json!({"model": model, "content": [{"type": "text", "text": prompt}]})
            }),
        },
        super::native::NativeRoute {
            method: "GET",
            path: "/doubao/api/v3/contents/generations/tasks/{task_id}",
            operation: super::native::NativeOperation::Query,
            renderer: "taskStatus",
            operation_id: "doubaoGetTask",
            decode: None,
            render: task_status,
            id_pointer: "/id",
            schema: status_schema,
            example: None,
        },
    ],
    error: |code, message| json!({"error": {"code": code, "message": message}}),
    error_schema: || {
        json!({"type": "object", "required": ["error"], "properties": {"error": {
            "type": "object", "required": ["code", "message"],
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}}}}})
    },
};

/// `native.createTask`: Ark's body (`model`, `content` of `text` items and references,
/// `duration`) to the request the plugin submits (`{model, prompt, metadata: body, seconds}`).
///
/// ```
/// use gatecheck_schemas::rules::platforms::doubao::decode_create;
/// let body = serde_json::json!({"model": "m", "content": [{"type": "text", "text": "a cat"}]});
/// assert_eq!(decode_create(&body).unwrap().prompt, "a cat");
/// assert_eq!(decode_create(&serde_json::json!({"model": "m"})).unwrap_err(), "content is required");
/// ```
pub fn decode_create(body: &Value) -> Result<super::native::NativeIntent, String> {
    let Some(object) = body.as_object() else {
        return Err("request body must be an object".into());
    };
    let model = super::native::trimmed(body, "model");
    if model.is_empty() {
        return Err("model is required".into());
    }
    let content = match body.get("content") {
        None => &[][..],
        Some(Value::Array(items)) => items.as_slice(),
        Some(_) => return Err("content must be an array".into()),
    };
    let mut texts = Vec::new();
    let mut reference = false;
    for item in content.iter().filter(|i| i.is_object()) {
        match (item["type"].as_str(), item["text"].as_str()) {
            (Some("text"), Some(t)) => texts.push(t),
            _ => reference = true,
        }
    }
    if texts.is_empty() && !reference {
        return Err("content is required".into());
    }
    let prompt: Vec<&str> = texts.into_iter().filter(|t| !t.trim().is_empty()).collect();
    let mut request = Map::new();
    request.insert("model".into(), json!(model));
    request.insert("prompt".into(), json!(prompt.join("\n")));
    request.insert("metadata".into(), Value::Object(object.clone()));
    if let Some(seconds) = body.get("duration").and_then(Value::as_f64).filter(|s| *s > 0.0) {
        request.insert("seconds".into(), json!(seconds));
    }
    Ok(super::native::NativeIntent {
        model: model.to_owned(),
        prompt: prompt.join("\n"),
        body: request,
    })
}

/// `native.taskCreated`: the row's `data` (Ark's create answer, `{id}`) with `id` the public
/// task id; the mock's row keeps the whole Ark task, so only `id` is rendered.
fn task_created(task: &super::native::NativeTask<'_>) -> Value {
    json!({ "id": task.task_id })
}

/// `native.taskStatus`: the row's `data` (Ark's task) with `id` the public task id; a row
/// without `data` renders its status in Ark's words.
fn task_status(task: &super::native::NativeTask<'_>) -> Value {
    use crate::rules::task::TaskStatus;
    if let Value::Object(data) = task.data {
        let mut v = data.clone();
        v.insert("id".into(), json!(task.task_id));
        return Value::Object(v);
    }
    let status = match task.status {
        TaskStatus::InProgress => "running",
        TaskStatus::Success => "succeeded",
        TaskStatus::Failure => "failed",
        _ => "queued",
    };
    let mut v = json!({ "id": task.task_id, "status": status });
    if !task.fail_reason.is_empty() {
        v["error"] = json!({ "message": task.fail_reason });
    }
    v
}

fn created_schema() -> Value {
    json!({"type": "object", "required": ["id"], "properties": {"id": {"type": "string", "minLength": 1}}})
}

fn status_schema() -> Value {
    json!({"type": "object", "required": ["id", "status"], "properties": {
        "id": {"type": "string", "minLength": 1},
        "status": {"type": "string"},
        "content": {"type": "object", "properties": {"video_url": {"type": "string"}}},
        "error": {"type": "object", "properties": {"code": {"type": "string"}, "message": {"type": "string"}}}}})
}
