//! The video platforms behind new-api's unified route (DECISIONS D-PLAT): the channel that
//! serves the model picks the adaptor by its type (relay/relay_adaptor.go `GetTaskAdaptor`),
//! never the model itself.
//!
//! - [`select`]: the channel of a `POST /v1/video/generations`; a type with no adaptor is
//!   400 `invalid_api_platform` (D-PLAT-1).
//! - [`submit`]: validation, charge and the task, answered with new-api's create object and
//!   `X-New-Api-Other-Ratios` (D-PLAT-1).
//! - [`dress`]: the task record of `GET /v1/video/generations/{id}` as the platform's adaptor
//!   leaves it: status and progress from the upstream's state, `data` the upstream's own task
//!   (D-PLAT-2..4).
//! - [`video`]: `GET /v1/videos/{id}` of such a task, the adaptor's conversion (D-PLAT-5).
//!
//! The adaptors (what each reads and writes) are `tasks/platforms/`; the rules
//! `gatecheck_schemas::rules::platforms`.

use super::ctx::Ctx;
use crate::response::{self, MockResponse};
use crate::tasks::platforms::{adaptor, upstream_id, Adaptor, Upstream, VideoView};
use crate::tasks::unified::TaskMeta;
use crate::tasks::video::StoredVideo;
use gatecheck_schemas::rules::platforms::{Refusals, INVALID_API_PLATFORM, OTHER_RATIOS_HEADER};
use gatecheck_schemas::rules::quota::{task_quota, Usage};
use gatecheck_schemas::rules::task::{
    progress_text, task_error, TaskDto, TaskStatus, INVALID_REQUEST, TASK_REFUSAL_STATUS,
};
use gatecheck_schemas::rules::video::VideoState;
use gatecheck_schemas::types::VideoStatus;
use serde_json::{json, Map, Value};

/// The channel types the unified route serves outside the registry; the route runs them as
/// OpenAI-video tasks.
use gatecheck_schemas::rules::task::OPENAI_VIDEO_CHANNEL_TYPES as OTHER_TASK_TYPES;

/// The channel chosen for a model.
pub(crate) enum Selected {
    /// A platform of this file (on the first channel serving the model).
    Platform(&'static Adaptor),
    /// A channel whose type no task adaptor serves.
    Unknown(i64),
}

/// The key's group (`default` when it has none).
fn group(cx: &Ctx) -> String {
    cx.key()
        .and_then(|k| cx.app.state.key(k.id))
        .map(|k| k.group)
        .filter(|g| !g.is_empty())
        .unwrap_or_else(|| "default".to_owned())
}

/// The channel that serves `model` to the caller, when it is a platform's (or a type no
/// adaptor serves); `None`: the OpenAI-video path serves it.
pub(crate) fn select(cx: &Ctx, model: &str) -> Option<Selected> {
    let group = group(cx);
    let channel = crate::tasks::platforms::select(&cx.fixtures().channels, model, &group)?;
    match crate::tasks::platforms::adaptor_in(cx.era(), &channel.channel_type.to_string()) {
        Some(a) => Some(Selected::Platform(a)),
        None if OTHER_TASK_TYPES.contains(&channel.channel_type) => None,
        None => Some(Selected::Unknown(channel.channel_type)),
    }
}

/// 400 `{"code":"invalid_api_platform","message":"invalid api platform: <p>","data":null}`.
pub(crate) fn invalid_platform(channel_type: i64) -> MockResponse {
    response::json(
        TASK_REFUSAL_STATUS,
        &task_error(
            INVALID_API_PLATFORM,
            &format!("invalid api platform: {channel_type}"),
        ),
    )
}

/// `POST /v1/video/generations` for a model a platform's channel serves (admitted).
pub(crate) fn submit(
    cx: &Ctx,
    a: &'static Adaptor,
    model: &str,
    prompt: &str,
    body: serde_json::Map<String, Value>,
) -> MockResponse {
    let (task, ratios) = match place(cx, a, model, prompt, body, Checks::Unified) {
        Ok(placed) => placed,
        Err(resp) => return resp,
    };
    let resp = response::json(
        gatecheck_schemas::rules::rejection::ACCEPTED,
        &json!({
            "id": task.id, "task_id": task.id, "object": "video", "model": task.model,
            "status": (a.submit_status)(a.rules), "progress": 0,
            "created_at": task.plan.created_at_ms.div_euclid(1000),
        }),
    );
    // Vidu and MiniMax (per call) set no ratio: `{}` (D-PLAT-1, D-PLAT-9); Doubao its
    // `video_input` (D-PLAT-9); Ali its `seconds` and `resolution-*` (D-PLAT-8).
    with_ratios(resp, ratios)
}

/// `resp` with `X-New-Api-Other-Ratios: <ratios>` (new-api sets it on every task submit).
pub(crate) fn with_ratios(mut resp: MockResponse, ratios: Map<String, Value>) -> MockResponse {
    if let Ok(v) = http::HeaderValue::from_str(&Value::Object(ratios).to_string()) {
        resp.headers_mut()
            .insert(http::HeaderName::from_static(OTHER_RATIOS_HEADER), v);
    }
    resp
}

/// Which request checks [`place`] runs before it charges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Checks {
    /// The unified route's: the adaptor's validation, then the plugin's JSON refusal.
    Unified,
    /// None: the plugin's `decodeRequest` ran already and set the request, so the host's
    /// `ValidateBasicTaskRequest` does not run (`POST /v1/videos` in the plugin era).
    Decoded,
}

/// Validates, charges and stores a new task of platform `a` (the unified route, and `POST
/// /v1/videos` in the plugin era): the task and the ratios of its `X-New-Api-Other-Ratios`.
pub(crate) fn place(
    cx: &Ctx,
    a: &'static Adaptor,
    model: &str,
    prompt: &str,
    body: serde_json::Map<String, Value>,
    checks: Checks,
) -> Result<(std::sync::Arc<StoredVideo>, Map<String, Value>), MockResponse> {
    let model = model.trim().to_owned();
    cx.check_model(&model)
        .and_then(|()| cx.check_channel(&model))?;
    if cx.catalog().model(&model).is_none() {
        return Err(response::invalid(
            &format!("model {model} is unknown"),
            Some("model"),
        ));
    }
    let prompt = prompt.to_owned();
    if checks == Checks::Unified {
        if let Err(message) = (a.validate)(&body, &prompt) {
            return Err(response::json(
                TASK_REFUSAL_STATUS,
                &task_error(INVALID_REQUEST, &message),
            ));
        }
        // The plugin's `decodeRequest` (the plugin era): 400 `plugin_request_invalid`.
        if let Err(message) = a.rules.refusal_in(cx.era(), &body) {
            return Err(response::json(
                gatecheck_schemas::rules::era::PLUGIN_REFUSAL_STATUS,
                &gatecheck_schemas::rules::era::plugin_refusal_body(&message),
            ));
        }
    }
    let read = (a.read)(&body);
    let usage = Usage {
        requests: 1,
        seconds: read.seconds as f64,
        ..Usage::default()
    };
    let channel = crate::tasks::platforms::select(&cx.fixtures().channels, &model, &group(cx));
    let ratios = (a.rules.ratios_in(cx.era()))(
        &body,
        channel.map_or(model.as_str(), |c| c.upstream_model(&model)),
    );
    // new-api's quota: the price times every ratio of the header (DECISIONS D-PLAT-9).
    let price = cx.price_with(&model, usage, |pricing, usage, group| {
        task_quota(pricing, usage, &ratios, group)
    });
    // Charged at submit; refunded in full if the task fails (VideoStore::settle).
    let charge = cx.charge(price)?;
    // new-api sends the request now: DashScope's refusal, chosen by an upstream fault, is
    // relayed and the charge given back (DECISIONS D-PLAT-11).
    if let Some(refusals) = a.rules.refusals
        && let Some((status, body)) = upstream_refusal(cx, refusals)
    {
        cx.refund(&charge);
        return Err(response::json(status, &body));
    }
    let now_ms = cx.now_ms();
    let task = StoredVideo {
        id: cx.ids().task_id(),
        owner: cx.key().map(|k| k.user_id).unwrap_or(0),
        model,
        seconds: read.seconds,
        size: read.size,
        plan: cx.fixtures().video.plan(now_ms, read.seconds, &prompt),
        prompt: Some(prompt),
        remixed_from_video_id: None,
        key_id: cx.key().map_or(0, |k| k.id),
        charged: charge.price,
    };
    let platform = channel.map_or(a.rules.channel_type, |c| {
        crate::tasks::platforms::platform_text(a.rules, c.channel_type)
    });
    // The plugin era stores the plugin's action name (DECISIONS D-ERA-10).
    let action = a
        .rules
        .plugin_action_in(cx.era(), &body)
        .unwrap_or(read.action);
    let meta = TaskMeta::provider(&task, platform, action);
    cx.app.tasks.meta.insert(&task.id, meta);
    Ok((cx.videos().insert(task, now_ms), ratios))
}

/// The upstream's refusal of a submit of a platform that models them (Ali's DashScope), when
/// an upstream fault (`{"kind":"upstream","status", "body"}`, `POST /__mock/faults`) fires
/// for it: new-api's answer (its [`Refusals::submit`], DECISIONS D-PLAT-11). Faults whose
/// answer new-api would accept or mask are left unfired.
fn upstream_refusal(cx: &Ctx, refusals: Refusals) -> Option<(u16, Value)> {
    let submit_refusal = refusals.submit;
    let path = "/v1/video/generations";
    let kind = cx
        .app
        .faults
        .pick_upstream("POST", path, |s, b| submit_refusal(s, b).is_some())?;
    let (status, body) = kind.upstream()?;
    let (status, code, message) = submit_refusal(status, &body)?;
    Some((status, task_error(code, &message)))
}

/// What the adaptor `a`'s poller leaves of task `t` in `state`.
struct View {
    status: TaskStatus,
    progress: i64,
    url: Option<String>,
    fail_reason: String,
    data: Value,
    channel_id: Option<i64>,
    upstream_model: String,
}

/// [`View`] of task `t` at the mock's now, its record created at `created_s` and last changed
/// at `updated_s` (Unix seconds).
fn view(cx: &Ctx, a: &Adaptor, t: &StoredVideo, state: &VideoState, times: (i64, i64)) -> View {
    let meta = cx.app.tasks.meta.get(t);
    let chosen = meta.as_ref().and_then(|m| m.upstream_word);
    let word = chosen
        .filter(|w| a.rules.alternatives_in(cx.era(), state.status).contains(w))
        .unwrap_or_else(|| a.rules.word(state.status));
    let (status, progress) = a
        .rules
        .map_in(cx.era(), word)
        .unwrap_or((TaskStatus::Unknown, 0));
    let url = (state.status == VideoStatus::Completed).then(|| t.content_url(&cx.base_url()));
    let group = group(cx);
    let channel = crate::tasks::platforms::select(&cx.fixtures().channels, &t.model, &group);
    let upstream_model = channel.map_or(t.model.as_str(), |c| c.upstream_model(&t.model));
    let error = state
        .error
        .as_ref()
        .filter(|_| status == TaskStatus::Failure);
    let data = (a.upstream)(&Upstream {
        id: upstream_id(&t.id),
        model: upstream_model,
        word,
        url: url.as_deref(),
        error,
        created_s: times.0,
        updated_s: times.1,
        seconds: t.seconds,
        size: &t.size,
    });
    let mut v = View {
        status,
        progress,
        fail_reason: error.map(a.reason).unwrap_or_default(),
        url,
        data,
        channel_id: channel.map(|c| c.id),
        upstream_model: upstream_model.to_owned(),
    };
    // The upstream's error answer to the poll (D-PLAT-11): its body becomes `data`, and the
    // state it lacks maps as any other word (Ali: QUEUED 20%) until the task ends.
    let refused = meta.as_ref().and_then(|m| m.upstream_error.as_deref());
    if let Some(body) = refused.filter(|_| !state.status.is_terminal())
        && let (Ok(data), Some((status, progress))) = (
            serde_json::from_str::<Value>(body),
            a.rules.map_in(cx.era(), ""),
        )
    {
        v = View {
            status,
            progress,
            fail_reason: String::new(),
            url: None,
            data,
            ..v
        };
    }
    v
}

/// The record `dto` of task `t` as the adaptor `a`'s poller leaves it in `state`.
pub(crate) fn dress(cx: &Ctx, a: &Adaptor, t: &StoredVideo, state: &VideoState, dto: &mut TaskDto) {
    let v = view(cx, a, t, state, (dto.created_at, dto.updated_at));
    dto.data = v.data;
    dto.properties.upstream_model_name = v.upstream_model;
    dto.channel_id = v.channel_id.unwrap_or(dto.channel_id);
    dto.status = v.status;
    dto.progress = progress_text(v.progress);
    dto.fail_reason = v.fail_reason;
    dto.result_url = v.url;
    // The quota charged at submit, the adaptor's ratios in it (D-PLAT-9), while it is held.
    if t.charged != 0 {
        dto.quota = t.charged;
    }
}

/// A polled platform's task as its record stands at the mock's now: what `/v1/videos/{id}`
/// and the content route read.
pub(crate) struct RecordNow {
    /// `created_at`, Unix seconds.
    pub created: i64,
    /// `updated_at`, Unix seconds: the record's last change (the start, then the end).
    pub updated: i64,
    /// The status, progress, failure reason and `data` the poller left.
    view: View,
}

impl RecordNow {
    /// The row's status.
    pub(crate) fn status(&self) -> TaskStatus {
        self.view.status
    }

    /// The record's `data` (the upstream's own task).
    pub(crate) fn data(&self) -> &Value {
        &self.view.data
    }

    /// The row's failure reason.
    pub(crate) fn fail_reason(&self) -> String {
        self.view.fail_reason.clone()
    }

    /// Whether the row keeps a result URL.
    pub(crate) fn has_result_url(&self) -> bool {
        self.view.url.is_some()
    }
}

/// The record of task `t` of the polled platform `a` at the mock's now.
pub(crate) fn record_now(cx: &Ctx, a: &Adaptor, t: &StoredVideo) -> RecordNow {
    let now = cx.now_ms();
    let state = t.state(now);
    let created = t.plan.created_at_ms.div_euclid(1000);
    let changed_ms = if state.status.is_terminal() {
        t.plan.finish_at_ms
    } else if now >= t.plan.started_at_ms {
        t.plan.started_at_ms.min(t.plan.finish_at_ms)
    } else {
        t.plan.created_at_ms
    };
    let updated = created.max(changed_ms.div_euclid(1000));
    let view = view(cx, a, t, &state, (created, updated));
    RecordNow {
        created,
        updated,
        view,
    }
}

/// `GET /v1/videos/{id}` of a platform's task: its adaptor's `ConvertToOpenAIVideo`
/// (D-PLAT-5), or in the plugin era the plugin's render under the fields the host owns
/// (D-ERA-8); `None` when `t` is no platform's task.
pub(crate) fn video(cx: &Ctx, t: &StoredVideo) -> Option<MockResponse> {
    let meta = cx.app.tasks.meta.get(t)?;
    let a = adaptor(meta.platform)?;
    if gatecheck_schemas::rules::platforms::is_realtime(a.rules) {
        let channel =
            crate::tasks::platforms::select(&cx.fixtures().channels, &t.model, &group(cx));
        let upstream = channel.map_or(t.model.as_str(), |c| c.upstream_model(&t.model));
        return Some(super::platform_veo::video(cx, t, a, upstream));
    }
    let record = record_now(cx, a, t);
    let v = if cx.plays_plugins() {
        plugin_render(a.rules, t, &record)
    } else {
        adaptor_render(a, t, &record)
    };
    Some(response::json(
        gatecheck_schemas::rules::rejection::ACCEPTED,
        &v,
    ))
}

/// `GET /v1/videos/{id}` of `t`, a task of the polled platform `p`, in the plugin era: the
/// plugin's render (its `error`, from the record's `data`) with the host's fields over it.
fn plugin_render(
    p: &gatecheck_schemas::rules::platforms::Platform,
    t: &StoredVideo,
    record: &RecordNow,
) -> Value {
    let mut rendered = json!({});
    if let Some((code, message)) = p.plugins.render_error.and_then(|f| f(record.data())) {
        rendered["error"] = json!({ "code": code, "message": message });
    }
    gatecheck_schemas::rules::openai_video::host_render(rendered, &host_row(t, record))
}

/// The adaptor era's `ConvertToOpenAIVideo` of `t` (D-PLAT-5).
fn adaptor_render(a: &Adaptor, t: &StoredVideo, record: &RecordNow) -> Value {
    let view = &record.view;
    let rules = a.rules;
    let url = view
        .data
        .pointer(rules.url_pointer)
        .and_then(Value::as_str)
        .unwrap_or("");
    // Ali reads its own stored `task_status`, not the record's status (D-PLAT-8).
    let status = match a.video_status {
        Some(of_data) => of_data(&view.data),
        None => gatecheck_schemas::rules::openai_video::to_video_status(view.status),
    };
    let mut v = json!({
        "id": t.id, "object": "video", "status": status,
        "progress": view.progress, "created_at": record.created, "completed_at": record.updated,
    });
    // new-api's Vidu conversion sets no `model`; the mock keeps the video object's `model`,
    // which the OpenAPI document and the SDKs require (DECISIONS D-PLAT-5).
    v["model"] = json!(t.model);
    (a.render)(
        &mut v,
        &VideoView {
            id: &t.id,
            status: view.status,
            fail_reason: &view.fail_reason,
            data: &view.data,
            url,
        },
    );
    v
}

/// The row `Task.ToOpenAIVideo()` reads of `t` (the plugin era's host-owned fields).
pub(crate) fn host_row<'a>(
    t: &'a StoredVideo,
    record: &RecordNow,
) -> gatecheck_schemas::rules::openai_video::HostRow<'a> {
    gatecheck_schemas::rules::openai_video::HostRow {
        id: &t.id,
        model: &t.model,
        status: record.view.status,
        progress: record.view.progress,
        created_at: record.created,
        updated_at: record.updated,
    }
}

/// `POST /__mock/videos/{id}/upstream` (D-PLAT-6): the upstream state task `id` shows, one
/// of those mapping to its status now.
pub(crate) fn choose_upstream(cx: &Ctx, id: &str, word: &str) -> MockResponse {
    use crate::response::control_failure as failure;
    let Some(t) = cx.videos().get_any(id) else {
        return failure(404, &format!("no video task {id}"));
    };
    let Some(meta) = cx.app.tasks.meta.get(&t) else {
        return failure(400, &format!("task {id} is no video platform's task"));
    };
    let Some(a) = adaptor(meta.platform) else {
        return failure(400, &format!("task {id} is no video platform's task"));
    };
    let mut choices = a
        .rules
        .alternatives_in(cx.era(), t.state(cx.now_ms()).status);
    // Gemini and Vertex: `unreachable`, the real-time fetch failing (D-PLAT-22); Gemini's
    // `no_key`, a task stored without its key (D-PLAT-20).
    choices.extend(a.rules.control_words);
    let Some(chosen) = choices.iter().copied().find(|w| *w == word) else {
        return failure(
            400,
            &format!(
                "status {word:?} is not one of {} (the {} states of the task's status now)",
                choices.join(", "),
                a.rules.name
            ),
        );
    };
    // A state replaces the state and clears the conditions and an Ali poll error; a
    // condition is added to them.
    let mut meta = TaskMeta::clone(&meta);
    if a.rules.states.iter().any(|s| s.word == chosen) {
        meta.upstream_word = Some(chosen);
        meta.upstream_flags.clear();
        meta.upstream_error = None;
    } else if !meta.upstream_flags.contains(&chosen) {
        meta.upstream_flags.push(chosen);
    }
    let answer = json!({"success": true, "data": {"task_id": id, "platform": a.rules.channel_type,
        "upstream_status": chosen, "upstream_conditions": meta.upstream_flags}});
    cx.app.tasks.meta.insert(id, meta);
    response::json(200, &answer)
}

/// `POST /__mock/videos/{id}/upstream` with a number (D-PLAT-11): the upstream answers
/// new-api's polls of task `id` with the error `body` (new-api's poller reads the body whatever
/// the status) until the task ends or a state word is chosen; 409 once it has ended.
pub(crate) fn choose_upstream_error(cx: &Ctx, id: &str, body: &Value) -> MockResponse {
    use crate::response::control_failure as failure;
    let Some(t) = cx.videos().get_any(id) else {
        return failure(404, &format!("no video task {id}"));
    };
    let Some(meta) = cx.app.tasks.meta.get(&t) else {
        return failure(400, &format!("task {id} is no video platform's task"));
    };
    let text = match body {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    if let Err(e) = crate::tasks::unified::check_upstream_error(meta.platform, &text) {
        return failure(400, &e);
    }
    if t.state(cx.now_ms()).status.is_terminal() {
        return failure(
            409,
            &format!("task {id} has ended: new-api no longer polls its upstream"),
        );
    }
    let platform = meta.platform;
    let meta = TaskMeta {
        upstream_error: Some(text),
        ..TaskMeta::clone(&meta)
    };
    cx.app.tasks.meta.insert(id, meta);
    response::json(
        200,
        &json!({"success": true, "data": {"task_id": id, "platform": platform, "upstream_error": body}}),
    )
}
