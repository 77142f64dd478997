//! Doubao / VolcEngine Seedance (channel type 54): relay/channel/task/doubao/adaptor.go
//! (DECISIONS D-PLAT-4, the `@035aa734` version). Reads `duration`, else `seconds`, and
//! `metadata` (`resolution`, `ratio`, `duration`, `seed`...); the action is `generate`. Its task
//! is `{id, model, status, content:{video_url}, seed, resolution, duration, ratio,
//! framespersecond, service_tier, usage, error, created_at, updated_at}`.

use super::{int, meta, size_of_resolution, Adaptor, Read, Upstream, VideoView};
use gatecheck_schemas::rules::platforms::doubao::PLATFORM;
use gatecheck_schemas::rules::task::ACTION_GENERATE;
use serde_json::{json, Map, Value};

fn read(body: &Map<String, Value>) -> Read {
    let seconds = meta(body, "duration")
        .and_then(Value::as_i64)
        .or_else(|| int(body, "duration"))
        .or_else(|| int(body, "seconds"))
        .filter(|d| *d > 0)
        .unwrap_or(5);
    let resolution = meta(body, "resolution")
        .and_then(Value::as_str)
        .unwrap_or("720p");
    Read {
        action: ACTION_GENERATE,
        seconds,
        size: size_of_resolution(resolution).to_owned(),
    }
}

fn upstream(u: &Upstream<'_>) -> Value {
    let resolution = match u.size {
        "1920x1080" => "1080p",
        "854x480" => "480p",
        _ => "720p",
    };
    let tokens = u.seconds * 20_000;
    let mut v = json!({
        "id": format!("cgt-{}", u.id),
        "model": u.model,
        "status": u.word,
        "content": { "video_url": u.url.unwrap_or("") },
        "seed": 42,
        "resolution": resolution,
        "duration": u.seconds,
        "ratio": "16:9",
        "framespersecond": 24,
        "service_tier": "default",
        "usage": { "completion_tokens": tokens, "total_tokens": tokens },
        "created_at": u.created_s,
        "updated_at": u.updated_s,
    });
    if let Some(e) = u.error {
        v["error"] = json!({ "code": e.code, "message": e.message });
    }
    v
}

/// Doubao's `ConvertToOpenAIVideo`: `task_id` and `metadata.url` always, then the common
/// failure.
fn render(v: &mut Value, view: &VideoView<'_>) {
    v["task_id"] = json!(view.id);
    v["metadata"] = json!({ "url": view.url });
    super::render_common(v, view, super::error_code);
}

/// Doubao Seedance.
pub const ADAPTOR: Adaptor = Adaptor {
    rules: &PLATFORM,
    read,
    upstream,
    reason: |e| e.message.clone(),
    submit_status: super::queued,
    validate: super::prompt_required,
    video_status: None,
    render,
    proxy_url: false,
};
