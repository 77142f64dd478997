//! Vidu (channel type 52): relay/channel/task/vidu/adaptor.go (DECISIONS D-PLAT-2). Reads
//! `images` (1 `generate`, 2 `firstTailGenerate`, more `referenceGenerate`, none
//! `textGenerate`, `metadata.action` first), `duration` (5), `size` as the resolution
//! (`1080p`), `metadata` over all of them; its task is `{state, err_code, credits, payload,
//! creations:[{id, url, cover_url}]}`.

use super::{images, int, meta, size_of_resolution, text, Adaptor, Read, Upstream};
use gatecheck_schemas::rules::platforms::vidu::PLATFORM;
use gatecheck_schemas::rules::task::{ACTION_GENERATE, ACTION_TEXT_GENERATE};
use serde_json::{json, Map, Value};

/// Vidu's start and end frames (constant `TaskActionFirstTailGenerate`).
const ACTION_FIRST_TAIL: &str = "firstTailGenerate";
/// Vidu's reference images (constant `TaskActionReferenceGenerate`).
const ACTION_REFERENCE: &str = "referenceGenerate";

fn read(body: &Map<String, Value>) -> Read {
    let action = match (meta(body, "action").and_then(Value::as_str), images(body)) {
        (Some("generate"), _) => ACTION_GENERATE,
        (Some("firstTailGenerate"), _) => ACTION_FIRST_TAIL,
        (Some("referenceGenerate"), _) => ACTION_REFERENCE,
        (Some(_), _) | (None, 0) => ACTION_TEXT_GENERATE,
        (None, 1) => ACTION_GENERATE,
        (None, 2) => ACTION_FIRST_TAIL,
        (None, _) => ACTION_REFERENCE,
    };
    let seconds = meta(body, "duration")
        .and_then(Value::as_i64)
        .or_else(|| int(body, "duration"))
        .filter(|d| *d > 0)
        .unwrap_or(5);
    let resolution =
        meta(body, "resolution")
            .and_then(Value::as_str)
            .unwrap_or(match text(body, "size") {
                "" => "1080p",
                s => s,
            });
    Read {
        action,
        seconds,
        size: size_of_resolution(resolution).to_owned(),
    }
}

fn upstream(u: &Upstream<'_>) -> Value {
    let creations = match u.url {
        Some(url) => json!([{ "id": u.id, "url": url, "cover_url": "" }]),
        None => json!([]),
    };
    json!({
        "id": u.id,
        "state": u.word,
        "err_code": u.error.map(|e| if e.code.is_empty() { e.message.as_str() } else { e.code.as_str() }).unwrap_or(""),
        "credits": u.seconds * 4,
        "payload": "",
        "creations": creations,
    })
}

/// Vidu.
pub const ADAPTOR: Adaptor = Adaptor {
    rules: &PLATFORM,
    read,
    upstream,
    reason: |e| {
        if e.code.is_empty() {
            e.message.clone()
        } else {
            e.code.clone()
        }
    },
    submit_status: super::queued,
    validate: super::prompt_required,
    video_status: None,
    render: |v, view| {
        super::render_common(v, view, |d| d["err_code"].as_str().unwrap_or("").to_owned())
    },
    proxy_url: false,
};
