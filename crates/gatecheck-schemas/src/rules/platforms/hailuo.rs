//! MiniMax / Hailuo (channel type 35; relay/channel/task/hailuo/adaptor.go, DECISIONS
//! D-PLAT-3).
//!
//! The upstream task is `{task_id, status, file_id, video_width, video_height,
//! base_resp:{status_code, status_msg}}`. There is no queued state: `Preparing`/`Queueing`
//! are `IN_PROGRESS` at 30%, `Processing` at 50%, `Success` `SUCCESS` (the URL from
//! `/v1/files/retrieve`), `Fail` `FAILURE` with `status_msg` (else `task failed`); any other
//! state, the empty one too, is `IN_PROGRESS` at 30%.

use super::{state, Platform};
use crate::rules::task::TaskStatus::{Failure, InProgress, Success};
use crate::decisions::id;

/// MiniMax / Hailuo.
pub const PLATFORM: Platform = Platform {
    key: super::Key::Hailuo,
    channel_type: "35",
    name: "hailuo",
    title: "MiniMax/Hailuo",
    fetch: super::Fetch::Poll,
    catalog_model: "MiniMax-Hailuo-02",
    models: &[
        "MiniMax-H3",
        "MiniMax-Hailuo-2.3",
        "MiniMax-Hailuo-2.3-Fast",
        "MiniMax-Hailuo-02",
        "T2V-01-Director",
        "T2V-01",
        "I2V-01-Director",
        "I2V-01-live",
        "I2V-01",
        "S2V-01",
    ],
    states: &[
        state("Preparing", InProgress, 30),
        state("Queueing", InProgress, 30),
        state("Processing", InProgress, 50),
        state("Success", Success, 100),
        state("Fail", Failure, 100),
    ],
    other: Some((InProgress, 30)),
    words: ["Queueing", "Processing", "Success", "Fail"],
    state_pointer: "/status",
    url_pointer: "/file/download_url",
    video_has_model: true,
    decision: id::D_PLAT_3,
    data_schema: crate::schemas::names::HAILUO_TASK_DATA,
    data_schema_text: include_str!("../../../schemas/hailuo-task-data.json"),
    control_words: &[],
    refusals: None,
    check: super::CheckText {
        title: "A MiniMax/Hailuo model (channel type 35) found in the catalog: as `task.platform.vidu`, with MiniMax's task as `data` (schema `hailuo-task-data`) and its status map (no queued state: `Queueing` is IN_PROGRESS 30%).",
        spec: "DECISIONS: Video platforms behind the unified route D-PLAT-3; failures D-TASK-10 to D-TASK-12, D-PLAT-7, D-PLAT-9, D-PLAT-10",
    },
    ratios: super::no_ratios,
    surface: super::Surface::Unified,
    plugins: super::PluginFacts {
        // meta.models at 2f6bf06b: no MiniMax-H3.
        models: Some(&[
            "MiniMax-Hailuo-2.3",
            "MiniMax-Hailuo-2.3-Fast",
            "MiniMax-Hailuo-02",
            "T2V-01-Director",
            "T2V-01",
            "I2V-01-Director",
            "I2V-01-live",
            "I2V-01",
            "S2V-01",
        ]),
        refuse: Some(crate::rules::openai_video::seconds_within_limit),
        bodies: crate::rules::openai_video::VideoBodies::JsonOnly,
        render_error: Some(render_error),
        // listArtifacts: the `file_id` of a SUCCESS task (buildContentRequest downloads it
        // from `/v1/files/download`).
        artifact: Some("/file_id"),
        ..super::PluginFacts::same("plugins/tasks/hailuo/plugin.js@2f6bf06b")
    },
};

/// The Hailuo plugin's `openai_video` render error: a `base_resp.status_code` other than 0,
/// as text, with its `status_msg` (any status; a `Fail` with code 0 renders none).
///
/// ```
/// use gatecheck_schemas::rules::platforms::hailuo::render_error;
/// let d = serde_json::json!({"status": "Fail", "base_resp": {"status_code": 1026, "status_msg": "sensitive"}});
/// assert_eq!(render_error(&d), Some(("1026".into(), "sensitive".into())));
/// let ok = serde_json::json!({"status": "Fail", "base_resp": {"status_code": 0, "status_msg": "success"}});
/// assert_eq!(render_error(&ok), None);
/// ```
pub fn render_error(data: &serde_json::Value) -> Option<(String, String)> {
    let base = data.get("base_resp")?;
    let code = base.get("status_code").filter(|c| c.as_i64() != Some(0))?;
    let code = match code {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    Some((code, base["status_msg"].as_str().unwrap_or("").to_owned()))
}
