//! Gemini Veo (channel type 24; relay/channel/task/gemini/adaptor.go@14639a76, DECISIONS
//! D-PLAT-20).
//!
//! The upstream task is the Gemini API's operation `{name:"models/<m>/operations/<id>", done,
//! response:{"@type", generateVideoResponse:{generatedSamples:[{video:{uri}}]}}, error:{code,
//! message}}` (the shared Veo rules: [`super::veo`]). On success the record's `result_url`
//! is new-api's own proxy URL (`/v1/videos/{task_id}/content`), which downloads the upstream
//! `uri` with the key stored on the task.

use super::{veo, Platform};

/// Gemini Veo.
pub const PLATFORM: Platform = Platform {
    channel_type: "24",
    name: "gemini",
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
    decision: "D-PLAT-20",
    data_schema: crate::schemas::names::GEMINI_OPERATION,
    ratios: veo::other_ratios,
};
