//! The provider task routes outside `/v1` (DECISIONS D-TASK-6..8): `/kling/v1/videos/*`
//! (`routes/kling.rs`) and `/jimeng/?Action=...` (`routes/jimeng.rs`). Their requests are
//! admitted as `/v1` requests are ([`Ctx::admit_key`]: key, status, expiry, quota, IP
//! allowlist, rate limit; new-api's TokenAuth runs after its request-convert middleware),
//! and their tasks are video tasks of the one store, read back in new-api's task envelope
//! (`routes/video_unified.rs`).

use super::ctx::Ctx;
use crate::response::{self, MockResponse};

/// Whether `path` is one of the provider routes' paths.
pub(crate) fn is_provider_path(path: &str) -> bool {
    path.starts_with("/kling/") || path == "/jimeng" || path.starts_with("/jimeng/")
}

/// A task submitted on a provider route, after its route read the body.
pub(crate) struct Submit {
    /// `ChannelType` as text.
    pub platform: &'static str,
    /// The model (`model_name`/`model`, `req_key`); empty when absent.
    pub model: String,
    /// The prompt.
    pub prompt: String,
    /// The requested duration, seconds (`None`: the model's default).
    pub seconds: Option<i64>,
    /// The requested size (`None`: the model's default).
    pub size: Option<String>,
    /// `textGenerate` or `generate`.
    pub action: &'static str,
    /// Kling's `callback_url`.
    pub callback_url: Option<String>,
}

impl Submit {
    /// The submit of what the platform of channel type `platform` read of its body.
    pub(crate) fn of(platform: &'static str, read: crate::tasks::platforms::NativeRead) -> Self {
        Submit {
            platform,
            model: read.model,
            prompt: read.prompt,
            seconds: read.seconds,
            size: read.size,
            action: read.action,
            callback_url: read.callback_url,
        }
    }
}

fn task_err(status: u16, code: &str, message: &str) -> MockResponse {
    response::json(
        status,
        &gatecheck_schemas::rules::task::task_error(code, message),
    )
}

/// Validates, charges and stores a provider task, and answers new-api's create object
/// (`dto.NewOpenAIVideo` with the public id: no seconds, size or metadata).
pub(crate) fn submit(cx: &Ctx, s: Submit) -> MockResponse {
    use gatecheck_schemas::rules::quota::Usage;
    use gatecheck_schemas::rules::task::{
        INVALID_REQUEST, PROMPT_REQUIRED, TASK_FAILED, TASK_REFUSAL_STATUS,
    };
    let model = s.model.trim();
    if model.is_empty() {
        return response::invalid("model is required", Some("model"));
    }
    if let Err(resp) = cx.check_model(model).and_then(|()| cx.check_channel(model)) {
        return resp;
    }
    let Some(cap) = cx
        .catalog()
        .capabilities(model)
        .and_then(|c| c.video.clone())
    else {
        return response::invalid(
            &format!("model {model} is unknown or not a video model"),
            Some("model"),
        );
    };
    if s.prompt.trim().is_empty() {
        return task_err(TASK_REFUSAL_STATUS, INVALID_REQUEST, PROMPT_REQUIRED);
    }
    let seconds = s.seconds.unwrap_or(cap.default_seconds);
    if !cap.seconds.contains(&seconds) {
        let allowed: Vec<String> = cap.seconds.iter().map(i64::to_string).collect();
        let message = format!("duration {seconds} is not one of {}", allowed.join(", "));
        return task_err(TASK_REFUSAL_STATUS, TASK_FAILED, &message);
    }
    let size = s
        .size
        .filter(|x| cap.sizes.contains(x))
        .unwrap_or_else(|| cap.default_size.clone());
    let usage = Usage {
        requests: 1,
        seconds: seconds as f64,
        ..Usage::default()
    };
    // Charged at submit; refunded in full if the task fails (VideoStore::settle).
    let charge = match cx.charge(cx.price(model, usage)) {
        Ok(charge) => charge,
        Err(resp) => return resp,
    };
    let now_ms = cx.now_ms();
    let task = crate::tasks::video::StoredVideo {
        id: cx.ids().task_id(),
        owner: cx.key().map(|k| k.user_id).unwrap_or(0),
        model: model.to_owned(),
        seconds,
        size,
        plan: cx.fixtures().video.plan(now_ms, seconds, &s.prompt),
        prompt: Some(s.prompt.clone()),
        remixed_from_video_id: None,
        key_id: cx.key().map_or(0, |k| k.id),
        charged: charge.price,
    };
    if let Some(url) = &s.callback_url {
        cx.app.register_callback(&task.id, url);
    }
    let meta = crate::tasks::unified::TaskMeta {
        callback_url: s
            .callback_url
            .map(|u| crate::userinfo::redact(&u).into_owned()),
        ..crate::tasks::unified::TaskMeta::provider(&task, s.platform, s.action)
    };
    cx.app.tasks.meta.insert(&task.id, meta);
    cx.videos().insert(task.clone(), now_ms);
    response::json(
        gatecheck_schemas::rules::rejection::ACCEPTED,
        &serde_json::json!({
            "id": task.id, "task_id": task.id, "object": "video", "model": task.model,
            "status": "queued", "progress": 0, "created_at": now_ms.div_euclid(1000),
        }),
    )
}
