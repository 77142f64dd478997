//! Jimeng (channel type 51; relay/channel/task/jimeng/adaptor.go, DECISIONS D-TASK-7): its own
//! route, `POST /jimeng/?Action=...` (the route table's row), not the unified route; a
//! Jimeng model elsewhere runs as an OpenAI-video task.
//!
//! The record's `data` is Volcengine's own answer `{code:10000, message, request_id, status,
//! data:{status, video_url}}`: `in_queue` is `QUEUED`, `generating` `IN_PROGRESS`, `done`
//! `SUCCESS`; an answer with another `code` (`failed` here, the mock's word for it: it has no
//! `data.status`) is `FAILURE`. The progress of the record is the mock's clock's (D-TASK-2).

use super::{state, Platform};
use crate::rules::task::TaskStatus::{Failure, InProgress, Queued, Success};

/// Jimeng.
pub const PLATFORM: Platform = Platform {
    key: super::Key::Jimeng,
    channel_type: "51",
    name: "jimeng",
    title: "Jimeng",
    fetch: super::Fetch::Poll,
    catalog_model: "jimeng_vgfm_t2v_l20",
    models: &["jimeng_vgfm_t2v_l20"],
    states: &[
        state("in_queue", Queued, 10),
        state("generating", InProgress, 50),
        state("done", Success, 100),
        state("failed", Failure, 100),
    ],
    other: None,
    words: ["in_queue", "generating", "done", "failed"],
    state_pointer: "/data/status",
    url_pointer: "/data/video_url",
    video_has_model: true,
    decision: "D-TASK-7",
    // Volcengine's task is judged by its own checks (`task.jimeng.*`), not by a `data` schema.
    data_schema: "",
    data_schema_text: "",
    control_words: &[],
    refusals: None,
    check: super::CheckText {
        title: "Jimeng's native route (channel type 51) as its plugin renders it.",
        spec: "DECISIONS: D-TASK-7",
    },
    ratios: super::no_ratios,
    surface: super::Surface::Native,
    plugins: super::PluginFacts::same("plugins/tasks/jimeng/plugin.js@cd01ea4a"),
};
