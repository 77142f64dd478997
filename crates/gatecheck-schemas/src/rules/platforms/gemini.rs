//! Gemini Veo (channel type 24; relay/channel/task/gemini/adaptor.go@14639a76, DECISIONS
//! D-PLAT-20).
//!
//! The upstream task is the Gemini API's operation `{name:"models/<m>/operations/<id>", done,
//! response:{"@type", generateVideoResponse:{generatedSamples:[{video:{uri}}]}}, error:{code,
//! message}}` (the shared Veo rules: [`super::veo`]). On success the record's `result_url`
//! is new-api's own proxy URL (`/v1/videos/{task_id}/content`), which downloads the upstream
//! `uri` with the key stored on the task.

use super::{veo, Platform};
use crate::decisions::id;

/// Gemini Veo.
pub const PLATFORM: Platform = Platform {
    key: super::Key::Gemini,
    channel_type: "24",
    name: "gemini",
    title: "Gemini",
    fetch: super::Fetch::Realtime,
    catalog_model: "veo-3.1-fast-generate-preview",
    models: &[
        "veo-3.0-generate-001",
        "veo-3.1-generate-preview",
        "veo-3.1-fast-generate-preview",
    ],
    states: veo::STATES,
    other: None,
    words: veo::WORDS,
    state_pointer: veo::OPERATION_STATE,
    url_pointer: "/response/generateVideoResponse/generatedSamples/0/video/uri",
    video_has_model: true,
    decision: id::D_PLAT_20,
    data_schema: crate::schemas::names::GEMINI_OPERATION,
    data_schema_text: include_str!("../../../schemas/gemini-operation.json"),
    control_words: &[veo::UNREACHABLE, veo::NO_KEY],
    refusals: None,
    check: super::CheckText {
        title: "A Gemini Veo model (channel type 24) found in the catalog: new-api's create object, then the real-time answer followed to a terminal status (`queued`, `processing`, `succeeded`, `failed`), a `succeeded` task's content a valid MP4; `/v1/videos/{id}` answers the same task, ended as it ended. The submit's `X-New-Api-Other-Ratios` must be the adaptor's `{\"seconds\": N}` (the charge is not judged: the real-time answer shows no `quota`). A record instead of the real-time answer is judged by Veo's status map (`done`/`error` of the operation in `data`) and deviates, as do a missing ratios header and other ratios; another task, a status going back, a contradicted status map or content that is no MP4 fails.",
        spec: "DECISIONS: Video platforms behind the unified route D-PLAT-20, D-PLAT-22, D-PLAT-9; failures D-TASK-10 to D-TASK-12, D-PLAT-7",
    },
    ratios: veo::other_ratios,
    surface: super::Surface::Unified,
    plugins: super::PluginFacts {
        // meta.models adds veo-3.0-fast-generate-001, which Vertex serves here too: left
        // to the adaptors' list, so that model stays Vertex's (the default channels).
        refuse: Some(veo::refuse_seconds),
        bodies: crate::rules::openai_video::VideoBodies::InputReference,
        // listArtifacts: the first generated video's `uri` (`generatedSamples` since
        // plugins/google_generated_samples_test.go@5f25d81d); the render adds no error.
        artifact: Some("/response/generateVideoResponse/generatedSamples/0/video/uri"),
        ..super::PluginFacts::same("plugins/tasks/google/plugin.js@b30dbffe")
    },
};
