//! Kling (channel type 50; relay/channel/task/kling/adaptor.go, DECISIONS D-TASK-6): its own
//! routes, `POST /kling/v1/videos/{text2video|image2video}` and `GET .../{task_id}` (the route
//! table's rows), not the unified route; a Kling model elsewhere runs as an OpenAI-video task.
//!
//! The record's `data` is Kling's own answer `{code:0, message, request_id, data:{task_id,
//! task_status, task_status_msg, task_result:{videos:[{id, url, duration}]}, created_at,
//! updated_at}}`; `submitted` is `SUBMITTED`, `processing` `IN_PROGRESS`, `succeed` `SUCCESS`
//! and `failed` `FAILURE`. The progress of the record is the mock's clock's (D-TASK-2), not
//! this table's.

use super::{state, Platform};
use crate::rules::task::TaskStatus::{Failure, InProgress, Submitted, Success};

/// Kling.
pub const PLATFORM: Platform = Platform {
    key: super::Key::Kling,
    channel_type: "50",
    name: "kling",
    title: "Kling",
    fetch: super::Fetch::Poll,
    catalog_model: "kling-v2-master",
    models: &["kling-v1", "kling-v1-6", "kling-v2-master"],
    states: &[
        state("submitted", Submitted, 0),
        state("processing", InProgress, 50),
        state("succeed", Success, 100),
        state("failed", Failure, 100),
    ],
    other: None,
    words: ["submitted", "processing", "succeed", "failed"],
    state_pointer: "/data/task_status",
    url_pointer: "/data/task_result/videos/0/url",
    video_has_model: true,
    decision: "D-TASK-6",
    // Kling's task is judged by its own checks (`task.kling.*`), not by a `data` schema.
    data_schema: "",
    data_schema_text: "",
    control_words: &[],
    refusals: None,
    check: super::CheckText {
        title: "Kling's native routes (channel type 50) as its plugin renders them.",
        spec: "DECISIONS: D-TASK-6",
    },
    ratios: super::no_ratios,
    surface: super::Surface::Native,
    plugins: super::PluginFacts::same("plugins/tasks/kling/plugin.js@cd01ea4a"),
};
