//! `/v1/videos*`.
//!
//! - `POST /v1/videos`: multipart/form-data (what the OpenAI SDK sends),
//!   x-www-form-urlencoded or JSON with `model`, `prompt`, `seconds` (string or integer),
//!   `size` (`input_reference` is accepted and ignored). Defaults come from the model's
//!   capabilities. Answers the queued task.
//! - `GET /v1/videos`: the caller's tasks, newest first (OpenAI's list shape).
//! - `GET /v1/videos/{id}`: the task now (404, or the `new-api` 400 `task_not_exist`, for an
//!   unknown id or another user's task).
//! - `DELETE /v1/videos/{id}`: forgets the caller's task (`{id, object: "video.deleted",
//!   deleted: true}`).
//! - `GET /v1/videos/{id}/content`: the MP4 of a completed task (400 before that);
//!   `?variant=thumbnail` gives a PNG still.
//!
//! The control routes `/__mock/videos/*` are in `routes/outcomes.rs`.
//!
//! Task answers carry `openai-poll-after-ms`.

use super::ctx::Ctx;
pub(crate) use super::video_fields::{read_fields, Fields};
use crate::media;
use crate::response::{self, MockResponse};
use crate::tasks::video::StoredVideo;
use gatecheck_schemas::rules::media::{parse_size, MAX_PROMPT_CHARS};
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::rules::rejection::ACCEPTED;
use gatecheck_schemas::rules::video::{content_rejection, POLL_AFTER_HEADER};
use gatecheck_schemas::types::VideoStatus;
use gatecheck_schemas::Profile;
use http::{HeaderValue, Request};
use hyper::body::Incoming;
use serde_json::json;

/// [`POLL_AFTER_HEADER`] as a header name made at compile time (not parsed per poll).
const POLL_AFTER_NAME: http::HeaderName = http::HeaderName::from_static(POLL_AFTER_HEADER);

/// `DELETE /v1/videos/{task_id}` (admitted): forgets the caller's task.
pub(crate) fn delete(cx: &Ctx, id: &str) -> MockResponse {
    if cx.videos().remove(id, owner(cx)) {
        response::json(
            200,
            &json!({"id": id, "object": "video.deleted", "deleted": true}),
        )
    } else {
        response::task_not_found(cx.profile())
    }
}

fn owner(cx: &Ctx) -> i64 {
    cx.key().map(|k| k.user_id).unwrap_or(0)
}

fn poll_after(cx: &Ctx) -> HeaderValue {
    if polls_move_clock(cx) {
        return HeaderValue::from(crate::harness::polls::HINT_MS);
    }
    cx.videos().poll_after_header(&cx.fixtures().video)
}

/// Whether polls move the clock ([`crate::MockConfig::poll_advance`], virtual clocks only).
fn polls_move_clock(cx: &Ctx) -> bool {
    cx.app.config.poll_advance && cx.app.clock.is_virtual()
}

/// The answer showing task `t`, whose id is `id` (a poll passes the id of its path, equal to
/// the task's and already in the cache, where the task's own copy is one more heap read).
pub(crate) fn task_response(cx: &Ctx, t: &StoredVideo, id: &str) -> MockResponse {
    let now = cx.now_ms();
    // The state is computed once. Only a completed task shows URLs: the others need no URL
    // (no String per poll), and the rest of the answer is borrowed from the task.
    let state = t.state(now);
    let url = (state.status == VideoStatus::Completed).then(|| t.content_url(&cx.base_url()));
    let mut seconds = [0; 20];
    let mut view = t.view(state, url.as_deref(), &mut seconds, cx.profile());
    (view.id, view.task_id) = (id, id);
    if cx.plays_plugins() {
        host_owned(&mut view, t, now);
    }
    let mut resp = response::json_written(ACCEPTED, |buf| view.write_json(buf));
    resp.headers_mut().insert(POLL_AFTER_NAME, poll_after(cx));
    resp
}

/// The plugin era's `GET /v1/videos/{id}` and create answer: `Task.ToOpenAIVideo()`, whose
/// fields the host owns over any plugin's render (jsplugin/adaptor.go@60a13c2e
/// `ConvertToOpenAIVideo`, DECISIONS D-ERA-2, D-ERA-3): no `task_id`, `completed_at` the row's
/// `updated_at` (the last state change: creation, start, finish), and no `metadata.url` (the
/// result only through `/content`).
fn host_owned(view: &mut gatecheck_schemas::types::VideoTask<&str>, t: &StoredVideo, now_ms: i64) {
    let p = &t.plan;
    let updated_ms = if now_ms >= p.finish_at_ms {
        p.finish_at_ms
    } else if now_ms >= p.started_at_ms {
        p.started_at_ms
    } else {
        p.created_at_ms
    };
    view.task_id = "";
    view.completed_at = Some(updated_ms.div_euclid(1000));
    if let Some(meta) = view.metadata.as_mut().and_then(|m| m.as_object_mut()) {
        meta.retain(|k, _| !k.eq_ignore_ascii_case("url"));
    }
    if view
        .metadata
        .as_ref()
        .is_some_and(|m| m.as_object().is_some_and(|o| o.is_empty()))
    {
        view.metadata = None;
    }
}

/// `POST /v1/videos` (admitted). In the plugin era a model a platform's channel serves runs
/// that platform's plugin (`routes/plugin_video.rs`, DECISIONS D-ERA-8), and a generic task
/// announces its plugin's billing ratios.
pub(crate) async fn create(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    let f = match read_fields(cx, req).await {
        Ok(f) => f,
        Err(resp) => return resp,
    };
    if !cx.plays_plugins() {
        return match create_from(cx, f) {
            Ok(task) => task_response(cx, &task, &task.id),
            Err(resp) => resp,
        };
    }
    let model = f.model.as_deref().map(str::trim).unwrap_or("");
    match super::platform::select(cx, model).filter(|_| !model.is_empty()) {
        Some(super::platform::Selected::Platform(a)) => super::plugin_video::create(cx, a, f),
        Some(super::platform::Selected::Unknown(t)) => super::platform::invalid_platform(t),
        None => {
            let ratios = super::plugin_video::generic_ratios(&f);
            match create_from(cx, f) {
                Ok(task) => {
                    super::platform::with_ratios(task_response(cx, &task, &task.id), ratios)
                }
                Err(resp) => resp,
            }
        }
    }
}

/// Validates, charges and stores a new task from its fields (`POST /v1/videos`, and the
/// unified route of `routes/video_unified.rs`); the answer is the caller's.
pub(crate) fn create_from(
    cx: &Ctx,
    f: Fields,
) -> Result<std::sync::Arc<StoredVideo>, MockResponse> {
    let model = match f.model.as_deref().map(str::trim) {
        Some(m) if !m.is_empty() => m.to_owned(),
        _ => return Err(response::invalid("model is required", Some("model"))),
    };
    cx.check_model(&model)?;
    cx.check_channel(&model)?;
    let Some(cap) = cx
        .catalog()
        .capabilities(&model)
        .and_then(|c| c.video.as_ref())
    else {
        return Err(response::invalid(
            &format!("model {model} is unknown or not a video model"),
            Some("model"),
        ));
    };
    // The plugin era: the plugin's `decodeRequest` and `buildSubmitRequest` refuse it
    // (DECISIONS D-ERA-4, D-ERA-10).
    if cx.plays_plugins() {
        super::plugin_video::generic_refusal(&f)?;
    }
    let prompt = f.prompt.unwrap_or_default();
    if cx.plays_plugins() && prompt.trim().is_empty() {
        use gatecheck_schemas::rules::era;
        return Err(response::json(
            era::PLUGIN_REFUSAL_STATUS,
            &era::plugin_refusal_body(era::MSG_FIELD_PROMPT_REQUIRED),
        ));
    }
    if prompt.trim().is_empty() || prompt.chars().count() > MAX_PROMPT_CHARS {
        return Err(response::invalid(
            &format!("prompt must be 1 to {MAX_PROMPT_CHARS} characters"),
            Some("prompt"),
        ));
    }
    let seconds = match f.seconds.as_deref().map(str::trim) {
        None | Some("") => cap.default_seconds,
        Some(s) => match s.parse::<i64>() {
            Ok(n) if cap.seconds.contains(&n) => n,
            _ => {
                let allowed: Vec<String> = cap.seconds.iter().map(i64::to_string).collect();
                return Err(response::invalid(
                    &format!("seconds {s:?} is not one of {}", allowed.join(", ")),
                    Some("seconds"),
                ));
            }
        },
    };
    // Absent: the model's default. Present: exactly `<w>x<h>` (no trimming, not empty) and
    // one of the model's sizes.
    let size = match f.size.as_deref() {
        None => cap.default_size.clone(),
        Some(s) if parse_size(s).is_some() && cap.sizes.iter().any(|x| x == s) => s.to_owned(),
        Some(s) => {
            return Err(response::invalid(
                &format!("size {s:?} is not one of {}", cap.sizes.join(", ")),
                Some("size"),
            ))
        }
    };
    let usage = Usage {
        requests: 1,
        seconds: seconds as f64,
        ..Usage::default()
    };
    // Charged at submit; refunded in full if the task fails (VideoStore::settle).
    let charge = cx.charge(cx.price(&model, usage))?;
    let now_ms = cx.now_ms();
    let plan = cx.fixtures().video.plan(now_ms, seconds, &prompt);
    let task = StoredVideo {
        id: cx.ids().task_id(),
        owner: owner(cx),
        model,
        seconds,
        size,
        plan,
        prompt: Some(prompt),
        remixed_from_video_id: None,
        key_id: cx.key().map_or(0, |k| k.id),
        charged: charge.price,
    };
    Ok(cx.videos().insert(task, now_ms))
}

/// `GET /v1/videos` (admitted).
pub(crate) fn list(cx: &Ctx) -> MockResponse {
    let now = cx.now_ms();
    let base = cx.base_url();
    let data: Vec<_> = cx
        .videos()
        .list(owner(cx), 100)
        .iter()
        .map(|t| t.render(now, &base, cx.profile()))
        .collect();
    let first = data.first().map(|t| t.id.clone());
    let last = data.last().map(|t| t.id.clone());
    response::json(
        200,
        &json!({"object": "list", "data": data, "first_id": first, "last_id": last, "has_more": false}),
    )
}

fn find(cx: &Ctx, id: &str) -> Option<std::sync::Arc<StoredVideo>> {
    cx.videos().get(id, owner(cx))
}

/// Before [`retrieve`], with [`crate::MockConfig::poll_advance`]: a repeated poll of a pending
/// task at an unmoved clock moves the clock by the fixture's `poll_after_ms`, and the request
/// is answered at the new time ([`crate::harness::polls`]). Nothing without it.
pub(crate) fn advance_on_poll(cx: &mut Ctx, id: &str) {
    if !polls_move_clock(cx) {
        return;
    }
    let Some(t) = find(cx, id) else { return };
    let app = cx.app.clone();
    let pending = !t.state(cx.at_ms).status.is_terminal();
    let step = std::time::Duration::from_millis(cx.fixtures().video.poll_after_ms);
    cx.at_ms = app.polls.poll(id, cx.at_ms, pending, &app.clock, step);
}

/// `GET /v1/videos/{task_id}` (admitted).
pub(crate) fn retrieve(cx: &Ctx, id: &str) -> MockResponse {
    match find(cx, id) {
        // A remix shows its source (DECISIONS D-TASK-4).
        Some(t) if cx.app.tasks.meta.remixed_from(&t).is_some() => super::remix::answer(cx, &t),
        // A task of a video platform: its adaptor's conversion (DECISIONS D-PLAT-5).
        Some(t) if cx.app.tasks.meta.any_platform() => match super::platform::video(cx, &t) {
            Some(answer) => answer,
            None => task_response(cx, &t, id),
        },
        Some(t) => task_response(cx, &t, id),
        None => response::task_not_found(cx.profile()),
    }
}

/// new-api's content-route error (controller/video_proxy.go VideoProxy, DECISIONS NA10).
fn proxy_error(status: u16, message: &str) -> MockResponse {
    response::json(
        status,
        &json!({"error": {"message": message, "type": "invalid_request_error"}}),
    )
}

/// new-api's internal task status, as its content route names it.
fn internal_status(s: VideoStatus) -> &'static str {
    match s {
        VideoStatus::Queued => "QUEUED",
        VideoStatus::InProgress => "IN_PROGRESS",
        VideoStatus::Completed => "SUCCESS",
        VideoStatus::Failed | VideoStatus::Error => "FAILURE",
    }
}

/// `GET /v1/videos/{task_id}/content` (admitted).
pub(crate) fn content(cx: &Ctx, id: &str, query: &str) -> MockResponse {
    let new_api = cx.profile() == Profile::NewApi;
    let Some(task) = find(cx, id) else {
        if new_api {
            return proxy_error(404, "Task not found");
        }
        return response::task_not_found(cx.profile());
    };
    // The plugin era: a platform's task is served from its plugin's artifact (D-ERA-9).
    if cx.plays_plugins()
        && cx.app.tasks.meta.any_platform()
        && let Some(a) = cx
            .app
            .tasks
            .meta
            .get(&task)
            .and_then(|m| crate::tasks::platforms::adaptor(m.platform))
    {
        if let Some(resp) = super::plugin_video::content(cx, a, &task) {
            return resp;
        }
        return served(&task, query);
    }
    let status = task.status_at(cx.now_ms());
    if let Some(r) = content_rejection(status) {
        if new_api {
            let message = format!(
                "Task is not completed yet, current status: {}",
                internal_status(status)
            );
            return proxy_error(r.http_status(cx.profile()), &message);
        }
        let message = format!("the video is not ready: task status is {}", status.as_str());
        return response::v1_error(
            r.http_status(cx.profile()),
            &message,
            r.code(cx.profile()),
            None,
        );
    }
    // A Veo task whose video new-api could not get (DECISIONS D-PLAT-20, D-PLAT-21).
    if cx.app.tasks.meta.any_platform()
        && let Some(resp) = super::platform_veo::content_failure(cx, &task)
    {
        return resp;
    }
    served(&task, query)
}

/// The content of `task`, completed: its MP4, or `?variant=thumbnail` a PNG still.
fn served(task: &StoredVideo, query: &str) -> MockResponse {
    let (w, h) = parse_size(&task.size).unwrap_or((1280, 720));
    let variant = url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "variant")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_else(|| "video".to_owned());
    match variant.as_str() {
        "video" => response::bytes_response(
            200,
            "video/mp4",
            media::cached_mp4(w, h, task.seconds.clamp(1, 600) as u32),
        ),
        "thumbnail" | "spritesheet" => {
            match media::png(media::fnv1a(task.id.as_bytes()), w.min(512), h.min(512)) {
                Ok(png) => response::bytes_response(ACCEPTED, "image/png", png),
                Err(e) => response::v1_error(500, &e.to_string(), None, None),
            }
        }
        other => response::invalid(
            &format!("variant {other:?} is not one of video, thumbnail, spritesheet"),
            Some("variant"),
        ),
    }
}
