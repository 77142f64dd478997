//! MiniMax / Hailuo (channel type 35): relay/channel/task/hailuo/adaptor.go (DECISIONS
//! D-PLAT-3). Reads `duration` (6) and the resolution from `size` (`1080`, `768`, `720`,
//! `512` in it, else 720P); top-level `images` are not read (only
//! `metadata.first_frame_image`), the action is `generate`. Its task is `{task_id, status,
//! file_id, video_width, video_height, base_resp:{status_code, status_msg}}`, and a success
//! carries the file's `download_url` (`/v1/files/retrieve`).

use super::{int, size_of_resolution, text, Adaptor, Read, Upstream};
use gatecheck_schemas::rules::media::parse_size;
use gatecheck_schemas::rules::platforms::hailuo::PLATFORM;
use gatecheck_schemas::rules::task::ACTION_GENERATE;
use serde_json::{json, Map, Value};

fn read(body: &Map<String, Value>) -> Read {
    let seconds = int(body, "duration").filter(|d| *d > 0).unwrap_or(6);
    Read {
        action: ACTION_GENERATE,
        seconds,
        size: size_of_resolution(text(body, "size")).to_owned(),
    }
}

fn upstream(u: &Upstream<'_>) -> Value {
    let (w, h) = parse_size(u.size).unwrap_or((1280, 720));
    let (code, msg) = match u.error {
        Some(e) => (1026, e.message.as_str()),
        None => (0, "success"),
    };
    let mut v = json!({
        "task_id": u.id,
        "status": u.word,
        "file_id": if u.url.is_some() { u.id.as_str() } else { "" },
        "video_width": w,
        "video_height": h,
        "base_resp": { "status_code": code, "status_msg": msg },
    });
    if let Some(url) = u.url {
        v["file"] = json!({ "file_id": u.id, "download_url": url });
    }
    v
}

/// MiniMax / Hailuo.
pub const ADAPTOR: Adaptor = Adaptor {
    rules: &PLATFORM,
    read,
    upstream,
    reason: |e| {
        if e.message.is_empty() {
            "task failed".to_owned()
        } else {
            e.message.clone()
        }
    },
    submit_status: super::queued,
    validate: super::prompt_required,
    video_status: None,
    render: |v, view| super::render_common(v, view, |d| d["base_resp"]["status_code"].to_string()),
    proxy_url: false,
};
