//! Ali Wan and HappyHorse / DashScope (channel type 17): relay/channel/task/ali/adaptor.go@9ba13cd0
//! (DECISIONS D-PLAT-8, D-PLAT-11). Validates as `validateAndInferAliAction` (HappyHorse's
//! image and video counts) and reads `images` (or `image`, `input_reference`: `generate`, else
//! `textGenerate`; HappyHorse's actions by model), `duration`, else `seconds` (5), `size` (`W*H` a DashScope size, else a
//! resolution word) with the per-model defaults, and `metadata.parameters` over them (the
//! metadata overlays the whole DashScope request). Its task is DashScope's `{request_id,
//! output:{task_id, task_status, submit_time, scheduled_time, end_time, orig_prompt,
//! video_url, code, message}, usage}`; its submit answers Ali's own status and the billing
//! ratios `seconds` and `resolution-<R>`.

use super::{size_of_resolution, text, Adaptor, Read, Upstream, VideoView};
use gatecheck_schemas::rules::platforms::ali::{
    action, resolution, seconds, video_status, PLATFORM,
};
use gatecheck_schemas::rules::platforms::Platform;
use gatecheck_schemas::rules::task::ACTION_TEXT_GENERATE;
use gatecheck_schemas::rules::time::utc_parts;
use gatecheck_schemas::types::VideoStatus;
use serde_json::{json, Map, Value};

fn read(body: &Map<String, Value>) -> Read {
    let model = text(body, "model");
    Read {
        // Validated before (`validate`); the prompt no longer matters to the action.
        action: action(body, "-").unwrap_or(ACTION_TEXT_GENERATE),
        seconds: seconds(body),
        size: size_of_resolution(&resolution(body, model)).to_owned(),
    }
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

/// Ali's `ConvertToOpenAIVideo`: `metadata.url` always, and the top-level `code`/`message`,
/// else `output`'s, as `error` (D-PLAT-11).
fn render(v: &mut Value, view: &VideoView<'_>) {
    v["metadata"] = json!({ "url": view.url });
    let d = view.data;
    let top = d["code"].as_str().filter(|c| !c.is_empty());
    let (code, message) = match top {
        Some(c) => (c, d["message"].as_str().unwrap_or("")),
        None => (
            d["output"]["code"].as_str().unwrap_or(""),
            d["output"]["message"].as_str().unwrap_or(""),
        ),
    };
    if !code.is_empty() {
        v["error"] = json!({ "message": message, "code": code });
    }
}

/// Ali Wan.
pub const ADAPTOR: Adaptor = Adaptor {
    rules: &PLATFORM,
    read,
    upstream,
    reason,
    submit_status: |p: &Platform| video_status(p.word(VideoStatus::Queued)),
    validate: |body, prompt| action(body, prompt).map(|_| ()),
    video_status: Some(|data| {
        video_status(
            data.pointer(PLATFORM.state_pointer)
                .and_then(Value::as_str)
                .unwrap_or(""),
        )
    }),
    render,
    proxy_url: false,
};
