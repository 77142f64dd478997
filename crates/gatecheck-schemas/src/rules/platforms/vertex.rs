//! Vertex AI Veo (channel type 41; relay/channel/task/vertex/adaptor.go@0fc1489e, DECISIONS
//! D-PLAT-21).
//!
//! The upstream task is Vertex's `fetchPredictOperation` answer `{name:"projects/<p>/locations/
//! <r>/publishers/google/models/<m>/operations/<id>", done, response:{"@type",
//! raiMediaFilteredCount, videos:[{mimeType, bytesBase64Encoded}]}, error}` (the shared Veo
//! rules: [`super::veo`]). The video comes inline as base64: new-api stores `data` with
//! `bytesBase64Encoded` removed (`redactVideoResponseBody`) and `result_url` its proxy URL.

use super::{veo, Platform};
use crate::decisions::id;

/// Vertex AI Veo.
pub const PLATFORM: Platform = Platform {
    key: super::Key::Vertex,
    channel_type: "41",
    name: "vertex",
    title: "Vertex",
    fetch: super::Fetch::Realtime,
    catalog_model: "veo-3.0-fast-generate-001",
    models: &[
        "veo-3.0-generate-001",
        "veo-3.0-fast-generate-001",
        "veo-3.1-generate-preview",
        "veo-3.1-fast-generate-preview",
    ],
    states: veo::STATES,
    other: None,
    words: veo::WORDS,
    state_pointer: veo::OPERATION_STATE,
    // The video comes as base64, which new-api removes from `data`: no URL there.
    url_pointer: "",
    video_has_model: true,
    decision: id::D_PLAT_21,
    data_schema: crate::schemas::names::VERTEX_OPERATION,
    data_schema_text: include_str!("../../../schemas/vertex-operation.json"),
    control_words: &[veo::UNREACHABLE],
    refusals: None,
    check: super::CheckText {
        title: "A Vertex Veo model (channel type 41, `veo-3.0-fast-generate-001`: the models Vertex shares with Gemini run as `task.platform.gemini`) found in the catalog: as `task.platform.gemini` (a real-time `succeeded` may carry no `url`: Vertex's video is a `data:` URL new-api keeps in `data`).",
        spec: "DECISIONS: Video platforms behind the unified route D-PLAT-21, D-PLAT-22, D-PLAT-9; failures D-TASK-10 to D-TASK-12, D-PLAT-7",
    },
    ratios: veo::other_ratios,
    surface: super::Surface::Unified,
    plugins: super::PluginFacts {
        refuse: Some(veo::refuse_seconds),
        // listArtifacts returns [] (the content route serves the stored `data:` URL); the
        // render adds no error.
        bodies: crate::rules::openai_video::VideoBodies::InputReference,
        ..super::PluginFacts::same("plugins/tasks/vertex-ai/plugin.js@b30dbffe")
    },
};
