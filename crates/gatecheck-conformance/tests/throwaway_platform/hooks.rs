//! The throwaway platform's hooks: what the mock's task room holds of a platform
//! (docs/ARCHITECTURE.md, "Adding a video platform", step 2). A registered platform is this
//! file under `crates/gatecheck-mock/src/tasks/platforms/` with its line in `hooks!`.

use super::description::PLATFORM;
use gatecheck_mock::platform_hooks::{
    error_code, prompt_required, queued, render_common, Adaptor, Read, Upstream,
};
use gatecheck_schemas::rules::task::ACTION_TEXT_GENERATE;
use serde_json::{json, Map, Value};

fn read(body: &Map<String, Value>) -> Read {
    let seconds = body
        .get("duration")
        .and_then(Value::as_i64)
        .filter(|d| *d > 0);
    Read {
        action: ACTION_TEXT_GENERATE,
        seconds: seconds.unwrap_or(5),
        size: "1280x720".to_owned(),
    }
}

fn upstream(u: &Upstream<'_>) -> Value {
    json!({
        "id": u.id,
        "phase": u.word,
        "result": { "url": u.url.unwrap_or("") },
        "reason": u.error.map(|e| e.message.as_str()).unwrap_or(""),
    })
}

/// The throwaway platform's hooks.
pub static HOOKS: Adaptor = Adaptor {
    rules: &PLATFORM,
    read,
    upstream,
    reason: |e| e.message.clone(),
    submit_status: queued,
    validate: prompt_required,
    video_status: None,
    render: |v, view| render_common(v, view, error_code),
    proxy_url: false,
};
