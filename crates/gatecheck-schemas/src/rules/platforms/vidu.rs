//! Vidu (channel type 52; relay/channel/task/vidu/adaptor.go, DECISIONS D-PLAT-2).
//!
//! The upstream task is `{state, err_code, credits, payload, creations:[{id, url, cover_url}]}`;
//! `created`/`queueing` are `SUBMITTED` (10%), `processing` `IN_PROGRESS` (30%), `success`
//! `SUCCESS` with `creations[0].url`, `failed` `FAILURE` with `err_code` as the reason; any
//! other state is a poll error (the task is left as it was). `/v1/videos/{id}` shows no
//! `model`.

use super::{state, Platform};
use crate::rules::task::TaskStatus::{Failure, InProgress, Submitted, Success};
use crate::decisions::id;

/// Vidu.
pub const PLATFORM: Platform = Platform {
    key: super::Key::Vidu,
    channel_type: "52",
    name: "vidu",
    title: "Vidu",
    fetch: super::Fetch::Poll,
    catalog_model: "viduq1",
    models: &["viduq2", "viduq1", "vidu2.0", "vidu1.5"],
    states: &[
        state("created", Submitted, 10),
        state("queueing", Submitted, 10),
        state("processing", InProgress, 30),
        state("success", Success, 100),
        state("failed", Failure, 100),
    ],
    other: None,
    words: ["queueing", "processing", "success", "failed"],
    state_pointer: "/state",
    url_pointer: "/creations/0/url",
    video_has_model: false,
    decision: id::D_PLAT_2,
    data_schema: crate::schemas::names::VIDU_TASK_DATA,
    data_schema_text: include_str!("../../../schemas/vidu-task-data.json"),
    control_words: &[],
    refusals: None,
    check: super::CheckText {
        title: "A Vidu model (channel type 52) found in the catalog: new-api's create object, then its record followed to a terminal state with platform `52`, `data` Vidu's task and the status Vidu's `state` maps to; `/v1/videos/{id}` answers the same task. `data` must be Vidu's own task (schema `vidu-task-data`), and the record's `quota` the catalog price times the `X-New-Api-Other-Ratios` the submit announced (`{}`: per call). Another form, or other ratios than the adaptor's, deviates; another task, a state going back, SUCCESS without its result, a status or a shape its own `data` contradicts, or a charge the announced ratios do not explain fails.",
        spec: "DECISIONS: Video platforms behind the unified route D-PLAT-2; failures D-TASK-10 to D-TASK-12, D-PLAT-7, D-PLAT-9, D-PLAT-10",
    },
    ratios: super::no_ratios,
    surface: super::Surface::Unified,
    plugins: super::PluginFacts {
        refuse: Some(crate::rules::openai_video::seconds_within_limit),
        bodies: crate::rules::openai_video::VideoBodies::JsonOnly,
        render_error: Some(render_error),
        artifact: Some("/creations/0/url"),
        action: Some(plugin_action),
        ..super::PluginFacts::same("plugins/tasks/vidu/plugin.js@2f6bf06b")
    },
};

/// The Vidu plugin's `openai_video` render error (`legacyRenderers.openai_video`): a failed
/// task's `err_code` as both code and message.
///
/// ```
/// use gatecheck_schemas::rules::platforms::vidu::render_error;
/// let d = serde_json::json!({"state": "failed", "err_code": "CreditInsufficient"});
/// assert_eq!(render_error(&d), Some(("CreditInsufficient".into(), "CreditInsufficient".into())));
/// assert_eq!(render_error(&serde_json::json!({"state": "success", "err_code": ""})), None);
/// ```
pub fn render_error(data: &serde_json::Value) -> Option<(String, String)> {
    let code = data["err_code"].as_str().filter(|c| !c.is_empty())?;
    (data["state"] == "failed").then(|| (code.to_owned(), code.to_owned()))
}

/// The Vidu plugin's `actionFor`: `metadata.action` under its new names (`generate` is
/// `image_to_video`, `textGenerate` `text_to_video`, `firstTailGenerate`
/// `first_tail_to_video`, `referenceGenerate` `reference_to_video`, `remixGenerate` `remix`,
/// another kept only where it is a plugin name), else by the number of `images`.
///
/// ```
/// use gatecheck_schemas::rules::platforms::vidu::plugin_action;
/// let b = |v: serde_json::Value| v.as_object().cloned().unwrap();
/// assert_eq!(plugin_action(&b(serde_json::json!({}))), "text_to_video");
/// assert_eq!(plugin_action(&b(serde_json::json!({"images": ["a", "b"]}))), "first_tail_to_video");
/// assert_eq!(plugin_action(&b(serde_json::json!({"metadata": {"action": "generate"}}))), "image_to_video");
/// ```
pub fn plugin_action(body: &serde_json::Map<String, serde_json::Value>) -> &'static str {
    use crate::rules::openai_video as ov;
    let named = body
        .get("metadata")
        .and_then(|m| m.get("action"))
        .and_then(serde_json::Value::as_str);
    if let Some(a) = named {
        return match a {
            "generate" => ov::ACTION_IMAGE_TO_VIDEO,
            "textGenerate" => ov::ACTION_TEXT_TO_VIDEO,
            "firstTailGenerate" => ov::ACTION_FIRST_TAIL_TO_VIDEO,
            "referenceGenerate" => ov::ACTION_REFERENCE_TO_VIDEO,
            "remixGenerate" => ov::ACTION_REMIX,
            // The plugin keeps another word as sent; the mock stores only its own names.
            other => ov::PLUGIN_ACTIONS
                .into_iter()
                .find(|n| *n == other)
                .unwrap_or(ov::ACTION_TEXT_TO_VIDEO),
        };
    }
    match body.get("images").and_then(serde_json::Value::as_array).map_or(0, Vec::len) {
        0 => ov::ACTION_TEXT_TO_VIDEO,
        1 => ov::ACTION_IMAGE_TO_VIDEO,
        2 => ov::ACTION_FIRST_TAIL_TO_VIDEO,
        _ => ov::ACTION_REFERENCE_TO_VIDEO,
    }
}
