//! new-api's unified video routes (DECISIONS D-TASK-1..3):
//!
//! - `POST /v1/video/generations`: a task made exactly as `POST /v1/videos` makes it (same
//!   bodies, validation, charge and clock), answered as the OpenAI video object;
//! - `GET /v1/video/generations/{task_id}`: the task as new-api's task record, in the
//!   `{"code":"success","message":"","data":{...}}` envelope; an unknown id (or another
//!   user's) is 400 `task_not_exist`.
//!
//! [`task_dto`] renders any stored task as the record; the provider routes use it too.

use super::ctx::Ctx;
use super::platform::Selected;
use super::video;
use crate::response::{self, MockResponse};
use crate::tasks::unified::TaskMeta;
use crate::tasks::video::StoredVideo;
use gatecheck_schemas::rules::media::fnv1a;
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::rules::rejection::ACCEPTED;
use gatecheck_schemas::rules::task::{
    progress_text, task_error, TaskDto, TaskEnvelope, TaskProperties, TASK_NOT_EXIST,
    TASK_REFUSAL_STATUS,
};
use gatecheck_schemas::rules::video::shown_progress;
use gatecheck_schemas::types::VideoStatus;
use gatecheck_schemas::Profile;
use http::Request;
use hyper::body::Incoming;

/// The channel every task of the mock runs on.
const CHANNEL_ID: i64 = 1;

/// `POST /v1/video/generations` (admitted): a task of the platform whose channel serves the
/// model (`routes/platform.rs`, DECISIONS D-PLAT), else made as `POST /v1/videos` makes it.
pub(crate) async fn create(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    let f = match video::read_fields(cx, req).await {
        Ok(f) => f,
        Err(resp) => return resp,
    };
    let model = f.model.as_deref().map(str::trim).unwrap_or("");
    match super::platform::select(cx, model).filter(|_| !model.is_empty()) {
        Some(Selected::Platform(a)) => {
            let prompt = f.prompt.as_deref().unwrap_or("");
            return super::platform::submit(
                cx,
                a,
                model,
                prompt,
                f.raw.clone().unwrap_or_default(),
            );
        }
        Some(Selected::Unknown(t)) => return super::platform::invalid_platform(t),
        None => {}
    }
    match video::create_from(cx, f) {
        Ok(task) => video::task_response(cx, &task, &task.id),
        Err(resp) => resp,
    }
}

/// `GET /v1/video/generations/{task_id}` and the provider fetches (admitted): the answer to a
/// fetch of task `id` in new-api's envelope.
pub(crate) fn fetch(cx: &Ctx, id: &str) -> MockResponse {
    let owner = cx.key().map(|k| k.user_id).unwrap_or(0);
    match cx.videos().get(id, owner) {
        // Gemini and Vertex: asked in real time first (D-PLAT-22).
        Some(t) => super::platform_veo::realtime(cx, &t)
            .unwrap_or_else(|| response::json(ACCEPTED, &TaskEnvelope::success(task_dto(cx, &t)))),
        None => not_exist(),
    }
}

/// 400 `{"code":"task_not_exist","message":"task_not_exist","data":null}`.
pub(crate) fn not_exist() -> MockResponse {
    response::json(
        TASK_REFUSAL_STATUS,
        &task_error(TASK_NOT_EXIST, TASK_NOT_EXIST),
    )
}

/// A positive row id for a task, stable for its id.
fn row_id(id: &str) -> i64 {
    i64::try_from(fnv1a(id.as_bytes()) >> 33).unwrap_or(0) + 1
}

/// The upstream's last answer about `t` (`data` of the record): the video object for an
/// OpenAI-video task, a native route's platform's own task for its (its hooks' `upstream`).
fn upstream_data(
    cx: &Ctx,
    t: &StoredVideo,
    meta: &TaskMeta,
    state: &gatecheck_schemas::rules::video::VideoState,
    updated_s: i64,
) -> serde_json::Value {
    let url = t.content_url(&cx.base_url());
    match crate::tasks::platforms::room(meta.platform).and_then(|r| r.upstream) {
        Some(upstream) => upstream(t, state, &url, updated_s * 1000),
        None => super::remix::video_object(cx, t, meta.remixed_from.as_deref()),
    }
}

/// The task as new-api's task record at the mock's now (DECISIONS D-TASK-2).
pub(crate) fn task_dto(cx: &Ctx, t: &StoredVideo) -> TaskDto {
    let now = cx.now_ms();
    let meta = cx
        .app
        .tasks
        .meta
        .get(t)
        .map(|m| TaskMeta::clone(&m))
        .unwrap_or_else(|| TaskMeta::default_for(t));
    let state = t.state(now);
    let status = gatecheck_schemas::rules::platforms::task_status_on(meta.platform, state.status);
    let secs = |ms: i64| ms.div_euclid(1000);
    let started_ms = t.plan.started_at_ms.min(t.plan.finish_at_ms);
    let start_time = if now >= started_ms {
        secs(started_ms)
    } else {
        0
    };
    let finish_time = if status.is_terminal() {
        secs(t.plan.finish_at_ms)
    } else {
        0
    };
    let created_at = secs(t.plan.created_at_ms);
    let quota = cx.price(
        &t.model,
        Usage {
            requests: 1,
            seconds: t.seconds as f64,
            ..Usage::default()
        },
    );
    let group = cx
        .key()
        .and_then(|k| cx.app.state.key(k.id))
        .map(|k| k.group)
        .filter(|g| !g.is_empty())
        .unwrap_or_else(|| "default".to_owned());
    let mut dto = TaskDto {
        id: row_id(&t.id),
        created_at,
        updated_at: created_at.max(start_time).max(finish_time),
        task_id: t.id.clone(),
        platform: meta.platform.to_owned(),
        user_id: t.owner,
        group,
        channel_id: CHANNEL_ID,
        quota,
        action: meta.action.to_owned(),
        status,
        fail_reason: state
            .error
            .as_ref()
            .map(|e| e.message.clone())
            .unwrap_or_default(),
        result_url: (state.status == VideoStatus::Completed).then(|| t.content_url(&cx.base_url())),
        submit_time: created_at,
        start_time,
        finish_time,
        // new-api's poller writes `"100%"` on FAILURE (D-TASK-2), in both profiles.
        progress: progress_text(shown_progress(&state, Profile::NewApi)),
        properties: TaskProperties {
            input: String::new(),
            upstream_model_name: t.model.clone(),
            origin_model_name: t.model.clone(),
        },
        data: upstream_data(
            cx,
            t,
            &meta,
            &state,
            created_at.max(start_time).max(finish_time),
        ),
    };
    // A video platform's task: as its adaptor's poller leaves it (DECISIONS D-PLAT).
    if let Some(a) = crate::tasks::platforms::adaptor(meta.platform) {
        super::platform::dress(cx, a, t, &state, &mut dto);
    }
    dto
}
