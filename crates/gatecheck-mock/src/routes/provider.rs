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

/// A refusal of [`place`]'s own checks, before its answer is written.
pub(crate) enum Refusal<'a> {
    /// A field the route needs (`model`): the `/v1` invalid-request answer in the adaptors era.
    Invalid(&'a str),
    /// new-api's task error: its code and message.
    Task(&'a str, &'a str),
}

/// The adaptors era's answers to [`Refusal`]s.
pub(crate) fn adaptor_refusal(r: Refusal<'_>) -> MockResponse {
    use gatecheck_schemas::rules::task::TASK_REFUSAL_STATUS;
    match r {
        Refusal::Invalid(message) => response::invalid(message, Some("model")),
        Refusal::Task(code, message) => task_err(TASK_REFUSAL_STATUS, code, message),
    }
}

/// Validates, charges and stores a provider task, and answers new-api's create object
/// (`dto.NewOpenAIVideo` with the public id: no seconds, size or metadata).
pub(crate) fn submit(cx: &Ctx, s: Submit) -> MockResponse {
    let task = match place(cx, s, true, &adaptor_refusal) {
        Ok(task) => task,
        Err(resp) => return resp,
    };
    response::json(
        gatecheck_schemas::rules::rejection::ACCEPTED,
        &serde_json::json!({
            "id": task.id, "task_id": task.id, "object": "video", "model": task.model,
            "status": "queued", "progress": 0,
            "created_at": task.plan.created_at_ms.div_euclid(1000),
        }),
    )
}

/// Validates, charges and stores a provider task (a blank prompt refused where
/// `prompt_required`; its own refusals answered by `refuse`).
pub(crate) fn place(
    cx: &Ctx,
    s: Submit,
    prompt_required: bool,
    refuse: &dyn Fn(Refusal<'_>) -> MockResponse,
) -> Result<crate::tasks::video::StoredVideo, MockResponse> {
    use gatecheck_schemas::rules::quota::Usage;
    use gatecheck_schemas::rules::task::{INVALID_REQUEST, PROMPT_REQUIRED, TASK_FAILED};
    let model = s.model.trim();
    if model.is_empty() {
        return Err(refuse(Refusal::Invalid("model is required")));
    }
    cx.check_model(model)
        .and_then(|()| cx.check_channel(model))?;
    let Some(cap) = cx
        .catalog()
        .capabilities(model)
        .and_then(|c| c.video.clone())
    else {
        let message = format!("model {model} is unknown or not a video model");
        return Err(refuse(Refusal::Invalid(&message)));
    };
    if prompt_required && s.prompt.trim().is_empty() {
        return Err(refuse(Refusal::Task(INVALID_REQUEST, PROMPT_REQUIRED)));
    }
    let seconds = s.seconds.unwrap_or(cap.default_seconds);
    if !cap.seconds.contains(&seconds) {
        let allowed: Vec<String> = cap.seconds.iter().map(i64::to_string).collect();
        let message = format!("duration {seconds} is not one of {}", allowed.join(", "));
        return Err(refuse(Refusal::Task(TASK_FAILED, &message)));
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
    let charge = cx.charge(cx.price(model, usage))?;
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
    Ok(task)
}
