//! The rules of one fetched record of a video platform's task (DECISIONS D-PLAT-7, D-PLAT-10),
//! judged by the platform's description (`rules::platforms`). A file beside the registry, not
//! in it: the data-shape rule validates with the schemas, which list the registry's `data`
//! schemas.

use super::platforms::{
    state_word, Era, Platform, RULE_DATA_SHAPE, RULE_PLATFORM, RULE_PROGRESS_MAP, RULE_STATUS_MAP,
};
use super::task::{parse_progress, TaskDto};
use super::video::BrokenRule;

fn broken(rule: &'static str, message: String) -> Result<(), BrokenRule> {
    Err(BrokenRule { rule, message })
}

/// The rules of one fetched record of a task of platform `p` (DECISIONS D-PLAT-7, D-PLAT-10):
/// [`RULE_PLATFORM`], [`RULE_DATA_SHAPE`] (`data` is the platform's own task),
/// [`RULE_STATUS_MAP`] (the upstream state in `data` maps to `status`), [`RULE_PROGRESS_MAP`].
///
/// ```
/// use gatecheck_schemas::rules::platform_record::check_record;
/// use gatecheck_schemas::rules::platforms::vidu;
/// use gatecheck_schemas::rules::task::{TaskDto, TaskProperties, TaskStatus};
/// let mut t = TaskDto {
///     id: 1, created_at: 1, updated_at: 1, task_id: "task_x".into(), platform: "52".into(),
///     user_id: 1, group: "default".into(), channel_id: 1, quota: 1, action: "textGenerate".into(),
///     status: TaskStatus::InProgress, fail_reason: String::new(), result_url: None,
///     submit_time: 1, start_time: 1, finish_time: 0, progress: "30%".into(),
///     properties: TaskProperties::default(),
///     data: serde_json::json!({"state": "processing", "creations": []}),
/// };
/// assert!(check_record(&vidu::PLATFORM, &t).is_ok());
/// t.data = serde_json::json!({"state": "success", "creations": []});
/// assert_eq!(check_record(&vidu::PLATFORM, &t).unwrap_err().rule, "task.status_map");
/// t.data = serde_json::json!({"state": "processing"}); // no `creations`
/// assert_eq!(check_record(&vidu::PLATFORM, &t).unwrap_err().rule, "task.data_shape");
/// ```
pub fn check_record(p: &Platform, t: &TaskDto) -> Result<(), BrokenRule> {
    check_record_in(p, Era::Adaptors, t)
}

/// [`check_record`] by the facts of `era` (the plugin era: the plugin's channel types and
/// status map, `rules::platforms::PluginFacts`).
pub fn check_record_in(p: &Platform, era: Era, t: &TaskDto) -> Result<(), BrokenRule> {
    if !p.serves_in(era, &t.platform) {
        return broken(
            RULE_PLATFORM,
            format!(
                "platform {:?}, but the model is served by a {} channel (type {})",
                t.platform, p.name, p.channel_type
            ),
        );
    }
    // The shape is judged with the JSON Schemas (the `validate` feature, which the runner
    // enables; the mock and the fuzz targets build without it and never call this).
    #[cfg(feature = "validate")]
    if let Err(e) = crate::validate(p.data_schema, &t.data) {
        return broken(
            RULE_DATA_SHAPE,
            format!(
                "data is not {}'s own task (schema {}): {e}",
                p.name, p.data_schema
            ),
        );
    }
    let Some(word) = state_word(p, &t.data) else {
        return broken(
            RULE_STATUS_MAP,
            format!(
                "data has no {} state at {} (data is the upstream's own task)",
                p.name, p.state_pointer
            ),
        );
    };
    let Some((status, progress)) = p.map_in(era, word) else {
        return broken(
            RULE_STATUS_MAP,
            format!(
                "data shows the {} state {word:?}, which new-api's adaptor does not store",
                p.name
            ),
        );
    };
    if status != t.status {
        return broken(
            RULE_STATUS_MAP,
            format!(
                "status {} while its own data shows the {} state {word:?}, which is {}",
                t.status.as_str(),
                p.name,
                status.as_str()
            ),
        );
    }
    if parse_progress(&t.progress) != Some(progress) {
        return broken(
            RULE_PROGRESS_MAP,
            format!(
                "progress {:?} for the {} state {word:?}, new-api stores \"{progress}%\"",
                t.progress, p.name
            ),
        );
    }
    Ok(())
}
