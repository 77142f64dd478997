//! new-api's plugin era on `/v1/videos` (the `openai_video` host protocol around each
//! platform's plugin; `gatecheck_schemas::rules::openai_video`, DECISIONS D-ERA-8 to D-ERA-10):
//!
//! - [`create`]: `POST /v1/videos` for a model a platform's channel serves: the plugin's
//!   `decodeRequest` (the bodies it takes, its refusals: 400 `plugin_request_invalid`), the
//!   charge, and `Task.ToOpenAIVideo()` of the new row with `X-New-Api-Other-Ratios`.
//! - `GET /v1/videos/{id}` of such a task is `routes/platform.rs`'s `plugin_render`.
//! - [`content`]: `GET|HEAD /v1/videos/{id}/content`: 400 naming the row's status until it is
//!   SUCCESS, then the plugin's video artifact, else 410 `artifact_gone`.
//! - [`generic_refusal`], [`generic_ratios`]: the same host around the plugin of a generic
//!   OpenAI-video task (channel types 55 and 1).

use super::ctx::Ctx;
use super::platform::{record_now, with_ratios, Checks};
use super::video_fields::Fields;
use crate::response::{self, MockResponse};
use crate::tasks::platforms::Adaptor;
use crate::tasks::video::StoredVideo;
use gatecheck_schemas::rules::era::{plugin_refusal_body, PLUGIN_REFUSAL_STATUS};
use gatecheck_schemas::rules::openai_video::{
    artifact_gone_body, host_render, not_completed_body, plugin_content, seconds_within_limit,
    BodyKind, HostRow, PluginContent, VideoBodies, ARTIFACT_GONE_STATUS,
    CONTENT_ERROR_CACHE_CONTROL, NOT_COMPLETED_STATUS,
};
use gatecheck_schemas::rules::platforms::Era;
use gatecheck_schemas::rules::rejection::ACCEPTED;
use gatecheck_schemas::rules::task::TaskStatus;
use serde_json::{json, Map, Value};

/// The bodies the plugin of a generic OpenAI-video task decodes (plugins/tasks/sora/plugin.js
/// @2f6bf06b `protocols.openai_video.decodeRequest`: JSON, or multipart whose only file is
/// `input_reference`).
const GENERIC_BODIES: VideoBodies = VideoBodies::InputReference;

/// The JSON fields a plugin reads of `f` (the JSON body, else the form's text fields).
fn body_of(f: &Fields) -> Map<String, Value> {
    f.raw.clone().unwrap_or_else(|| f.form.clone())
}

/// The plugin's refusal of a body, 400 `plugin_request_invalid` (DECISIONS D-ERA-4).
fn refused(message: &str) -> MockResponse {
    response::json(PLUGIN_REFUSAL_STATUS, &plugin_refusal_body(message))
}

/// `POST /v1/videos` for a model platform `a`'s channel serves, in the plugin era (admitted).
pub(crate) fn create(cx: &Ctx, a: &'static Adaptor, f: Fields) -> MockResponse {
    let model = f.model.as_deref().map(str::trim).unwrap_or("").to_owned();
    if let Err(resp) = cx
        .check_model(&model)
        .and_then(|()| cx.check_channel(&model))
    {
        return resp;
    }
    let body = body_of(&f);
    let files: Vec<&str> = f.files.iter().map(String::as_str).collect();
    let kind = f.kind.unwrap_or(BodyKind::Json);
    if let Err(m) = a.rules.video_refusal_in(Era::Plugins, kind, &files, &body) {
        return refused(&m);
    }
    let prompt = f.prompt.clone().unwrap_or_default();
    let (task, ratios) = match super::platform::place(cx, a, &model, &prompt, body, Checks::Decoded)
    {
        Ok(placed) => placed,
        Err(resp) => return resp,
    };
    let created = task.plan.created_at_ms.div_euclid(1000);
    let row = HostRow {
        id: &task.id,
        model: &task.model,
        status: TaskStatus::NotStart,
        progress: 0,
        created_at: created,
        updated_at: created,
    };
    with_ratios(response::json(ACCEPTED, &created_answer(&row)), ratios)
}

/// `presentTaskSubmission`'s answer to an `openai_video` create: `Task.ToOpenAIVideo()` of
/// the new row (controller/relay.go, plugin era; medium): no `task_id`, and `metadata.url`
/// the row's result URL, empty until the task ends.
pub(crate) fn created_answer(row: &HostRow<'_>) -> Value {
    let mut v = host_render(json!({}), row);
    v["metadata"] = json!({ "url": "" });
    v
}

/// A content-route error of the plugin era, with its `Cache-Control: private, no-store`.
fn content_error(status: u16, body: &Value) -> MockResponse {
    let mut resp = response::json(status, body);
    resp.headers_mut().insert(
        http::header::CACHE_CONTROL,
        http::HeaderValue::from_static(CONTENT_ERROR_CACHE_CONTROL),
    );
    resp
}

/// `GET|HEAD /v1/videos/{id}/content` of `t`, a task of platform `a`, in the plugin era: the
/// refusal, or `None` when its video is served (by the caller). A real-time platform (Veo)
/// reads the upstream's state and conditions chosen through the control API.
pub(crate) fn content(cx: &Ctx, a: &Adaptor, t: &StoredVideo) -> Option<MockResponse> {
    if gatecheck_schemas::rules::platforms::is_realtime(a.rules) {
        return super::platform_veo::plugin_content(cx, a, t)
            .map(|(status, body)| content_error(status, &body));
    }
    let record = record_now(cx, a, t);
    match plugin_content(
        record.status(),
        a.rules.plugins.artifact,
        record.data(),
        record.has_result_url(),
    ) {
        PluginContent::NotCompleted(s) => {
            Some(content_error(NOT_COMPLETED_STATUS, &not_completed_body(s)))
        }
        PluginContent::Gone => Some(content_error(ARTIFACT_GONE_STATUS, &artifact_gone_body())),
        PluginContent::Served => None,
    }
}

/// The refusal by the plugin of a generic OpenAI-video task of the body `f` (before the
/// prompt check its `buildSubmitRequest` makes), in the plugin era.
pub(crate) fn generic_refusal(f: &Fields) -> Result<(), MockResponse> {
    let files: Vec<&str> = f.files.iter().map(String::as_str).collect();
    // A urlencoded body is left to the host (not modelled: the mock reads it).
    let kind = match f.kind {
        Some(BodyKind::Multipart) => BodyKind::Multipart,
        _ => BodyKind::Json,
    };
    GENERIC_BODIES
        .refusal(kind, &files)
        .and_then(|()| seconds_within_limit(&body_of(f)))
        .map_err(|m| refused(&m))
}

/// The `X-New-Api-Other-Ratios` of a generic OpenAI-video task's submit in the plugin era.
pub(crate) fn generic_ratios(f: &Fields) -> Map<String, Value> {
    let seconds = f.seconds_text().or_else(|| {
        body_of(f)
            .get("duration")
            .map(|d| d.as_str().map_or_else(|| d.to_string(), str::to_owned))
    });
    gatecheck_schemas::rules::openai_video::openai_channel_ratios(seconds.as_deref())
}
