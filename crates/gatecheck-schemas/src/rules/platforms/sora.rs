//! Sora / OpenAI video (channel types 55 and 1; relay/channel/task/sora/adaptor.go, DECISIONS
//! D-TASK-1): the generic OpenAI-video task of `POST /v1/videos` and of a model no platform's
//! channel serves on the unified route.
//!
//! The record's `data` is the video object as the upstream answers it: `queued` is `QUEUED`,
//! `in_progress` (or `processing`) `IN_PROGRESS`, `completed` `SUCCESS`, `failed` `FAILURE`.
//! The progress of the record is the mock's clock's (D-TASK-2).

use super::{state, Platform};
use crate::rules::openai_video::{seconds_within_limit, VideoBodies};
use crate::rules::task::TaskStatus::{Failure, InProgress, Queued, Success, Unknown};
use serde_json::{Map, Value};
use crate::decisions::id;

/// Sora / OpenAI video.
pub const PLATFORM: Platform = Platform {
    key: super::Key::Sora,
    channel_type: "55",
    name: "sora",
    title: "OpenAI/Sora",
    fetch: super::Fetch::Poll,
    catalog_model: "sora-2",
    models: &["sora-2", "sora-2-pro"],
    states: &[
        state("queued", Queued, 0),
        state("processing", InProgress, 50),
        state("in_progress", InProgress, 50),
        state("completed", Success, 100),
        state("failed", Failure, 100),
    ],
    other: None,
    words: ["queued", "in_progress", "completed", "failed"],
    state_pointer: "/status",
    url_pointer: "/metadata/url",
    video_has_model: true,
    decision: id::D_TASK_1,
    // The video object is judged by the `video.*` checks and `video-task`, not a `data` schema.
    data_schema: "",
    data_schema_text: "",
    control_words: &[],
    refusals: None,
    check: super::CheckText {
        title: "In new-api's plugin era, under `--expect new-api` (skipped otherwise; the `video.*` checks judge the task): the OpenAI-video task's plugin (channel types 55 and 1) refuses an empty prompt (`field prompt is required`) and a file part other than `input_reference` (`unexpected file field`), 400 `plugin_request_invalid`. A task made, or another refusal, deviates.",
        spec: "DECISIONS: D-ERA-11, D-ERA-4, D-ERA-10",
    },
    ratios: super::no_ratios,
    surface: super::Surface::OpenAiVideo(&["1"]),
    plugins: super::PluginFacts {
        refuse: Some(seconds_within_limit),
        // decodeRequest: JSON, or multipart whose only file is `input_reference`.
        bodies: VideoBodies::InputReference,
        ratios: Some(plugin_ratios),
        // parseTaskResult: `pending` is QUEUED and `cancelled` FAILURE too; another word UNKNOWN.
        states: Some((
            &[
                state("queued", Queued, 0),
                state("pending", Queued, 0),
                state("processing", InProgress, 50),
                state("in_progress", InProgress, 50),
                state("completed", Success, 100),
                state("failed", Failure, 100),
                state("cancelled", Failure, 100),
            ],
            Some((Unknown, 0)),
        )),
        render_error: Some(render_error),
        ..super::PluginFacts::same("plugins/tasks/sora/plugin.js@2f6bf06b")
    },
};

/// The Sora plugin's billing ratios (`extractUsage`; `rules::openai_video::openai_channel_ratios`):
/// `{"seconds": N}` from the body's `seconds`, else `duration`, as text.
///
/// ```
/// use gatecheck_schemas::rules::platforms::sora::plugin_ratios;
/// let b = |v: serde_json::Value| v.as_object().cloned().unwrap();
/// let r = plugin_ratios(&b(serde_json::json!({"seconds": "8"})), "sora-2");
/// assert_eq!(serde_json::Value::Object(r), serde_json::json!({"seconds": 8}));
/// ```
pub fn plugin_ratios(body: &Map<String, Value>, _model: &str) -> Map<String, Value> {
    let seconds = body
        .get("seconds")
        .or_else(|| body.get("duration"))
        .map(|d| d.as_str().map_or_else(|| d.to_string(), str::to_owned));
    crate::rules::openai_video::openai_channel_ratios(seconds.as_deref())
}

/// The Sora plugin's `openai_video` render error (`legacyRenderers.openai_video`): a failed
/// task's is always `video_generation_failed`, whatever the upstream said.
pub const FAILED_CODE: &str = "video_generation_failed";
/// The message of [`FAILED_CODE`].
pub const FAILED_MESSAGE: &str = "The video generation task failed.";

/// The Sora plugin's render error of a task whose record's `data` (the video object) is
/// `failed`: [`FAILED_CODE`] with [`FAILED_MESSAGE`].
///
/// ```
/// use gatecheck_schemas::rules::platforms::sora::render_error;
/// let failed = serde_json::json!({"status": "failed", "error": {"code": "x", "message": "y"}});
/// assert_eq!(render_error(&failed).unwrap().0, "video_generation_failed");
/// assert_eq!(render_error(&serde_json::json!({"status": "completed"})), None);
/// ```
pub fn render_error(data: &Value) -> Option<(String, String)> {
    (data["status"] == "failed").then(|| (FAILED_CODE.to_owned(), FAILED_MESSAGE.to_owned()))
}
