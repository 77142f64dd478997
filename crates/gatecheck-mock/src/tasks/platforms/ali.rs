//! Ali Wan / DashScope (channel type 17): relay/channel/task/ali/adaptor.go@9ba13cd0
//! (DECISIONS D-PLAT-8). Reads `images` (or `image`, `input_reference`: `generate`, else
//! `textGenerate`), `duration`, else `seconds` (5), `size` (`W*H` a DashScope size, else a
//! resolution word) with the per-model defaults, and `metadata.parameters` over them (the
//! metadata overlays the whole DashScope request). Its task is DashScope's `{request_id,
//! output:{task_id, task_status, submit_time, scheduled_time, end_time, orig_prompt,
//! video_url, code, message}, usage}`; its submit answers Ali's own status and the billing
//! ratios `seconds` and `resolution-<R>`.

use super::{images, int, meta, size_of_resolution, text, Adaptor, Read, Upstream};
use gatecheck_schemas::rules::platforms::ali::{
    resolution_ratio, size_resolution, video_status, PLATFORM,
};
use gatecheck_schemas::rules::platforms::Platform;
use gatecheck_schemas::rules::task::{ACTION_GENERATE, ACTION_TEXT_GENERATE};
use gatecheck_schemas::rules::time::utc_parts;
use gatecheck_schemas::types::VideoStatus;
use serde_json::{json, Map, Value};

/// `metadata.parameters.<key>` (the metadata overlays the DashScope request).
fn param<'a>(body: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    meta(body, "parameters")?.as_object()?.get(key)
}

fn seconds(body: &Map<String, Value>) -> i64 {
    param(body, "duration")
        .and_then(Value::as_i64)
        .or_else(|| int(body, "duration").filter(|d| *d > 0))
        .or_else(|| int(body, "seconds"))
        .filter(|d| *d > 0)
        .unwrap_or(5)
}

/// The resolution (`480P`, `720P`, `1080P`...) the DashScope request carries for `model`.
fn resolution(body: &Map<String, Value>, model: &str) -> String {
    let size = param(body, "size")
        .and_then(Value::as_str)
        .unwrap_or(text(body, "size"));
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
    let full = if t2v {
        model.starts_with("wan2.5") || model.starts_with("wan2.2")
    } else {
        ["wan2.6", "wan2.5", "wan2.2-i2v-plus"]
            .iter()
            .any(|p| model.starts_with(p))
    };
    if full { "1080P" } else { "720P" }.to_owned()
}

fn read(body: &Map<String, Value>) -> Read {
    let model = text(body, "model");
    Read {
        action: if images(body) > 0 {
            ACTION_GENERATE
        } else {
            ACTION_TEXT_GENERATE
        },
        seconds: seconds(body),
        size: size_of_resolution(&resolution(body, model)).to_owned(),
    }
}

/// `EstimateBilling`: `{"seconds": duration}` and, where the model has one, `resolution-<R>`.
fn ratios(body: &Map<String, Value>, upstream_model: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("seconds".into(), json!(seconds(body)));
    // The defaults follow the client's model, the table the upstream one (convertToAliRequest).
    let r = resolution(body, text(body, "model"));
    if let Some(ratio) = resolution_ratio(upstream_model, &r) {
        m.insert(format!("resolution-{r}"), json!(ratio));
    }
    m
}

/// DashScope's time text (`2025-09-25 11:07:28.590`).
fn time(s: i64) -> String {
    let (y, mo, d, h, mi, se) = utc_parts(s);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{se:02}.000")
}

fn upstream(u: &Upstream<'_>) -> Value {
    let mut out = json!({
        "task_id": u.id,
        "task_status": u.word,
        "submit_time": time(u.created_s),
    });
    if u.word != PLATFORM.word(VideoStatus::Queued) {
        out["scheduled_time"] = json!(time(u.created_s));
    }
    if let Some(url) = u.url {
        out["video_url"] = json!(url);
        out["end_time"] = json!(time(u.updated_s));
    }
    if let Some(e) = u.error {
        out["code"] = json!(e.code);
        out["message"] = json!(e.message);
        out["end_time"] = json!(time(u.updated_s));
    }
    let resolution = match u.size {
        "1920x1080" => 1080,
        "854x480" => 480,
        _ => 720,
    };
    json!({
        "request_id": format!("{}-req", u.id),
        "output": out,
        "usage": { "duration": u.seconds, "video_count": 1, "SR": resolution },
    })
}

/// `ParseTaskResult`'s reason: Ali's `output` code and message (top-level `message` first,
/// which DashScope's task fetch leaves empty).
fn reason(e: &gatecheck_schemas::types::VideoTaskError) -> String {
    if e.message.is_empty() {
        "task failed".to_owned()
    } else {
        format!("task failed, code: {} , message: {}", e.code, e.message)
    }
}

/// Ali Wan.
pub(crate) const ADAPTOR: Adaptor = Adaptor {
    rules: &PLATFORM,
    read,
    upstream,
    reason,
    submit_status: |p: &Platform| video_status(p.word(VideoStatus::Queued)),
    ratios,
};
