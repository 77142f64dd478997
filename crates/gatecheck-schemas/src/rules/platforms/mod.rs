//! The video platforms new-api selects behind its unified video route by the serving
//! channel's type (relay/relay_adaptor.go `GetTaskAdaptor`; DECISIONS D-PLAT): one file per
//! platform, each a [`Platform`] built from its new-api adaptor (channel type, default
//! models, the upstream's states with new-api's status and progress for each, where `data`
//! keeps the state and the result URL, what `/v1/videos/{id}` shows).
//!
//! The mock renders a task of a platform from these tables (its adaptor file in
//! `gatecheck-mock`'s task room writes the upstream's own body), and the runner judges what a
//! target answers with the same tables ([`check_record`]): a platform is one place.
//!
//! ```
//! use gatecheck_schemas::rules::platforms::{by_channel_type, vidu};
//! use gatecheck_schemas::rules::task::TaskStatus;
//! let p = by_channel_type("52").unwrap();
//! assert_eq!(p.name, vidu::PLATFORM.name);
//! assert_eq!(p.map("queueing"), Some((TaskStatus::Submitted, 10)));
//! assert_eq!(p.map("no-such-state"), None);
//! ```

pub mod ali;
pub mod doubao;
pub mod gemini;
pub mod hailuo;
pub mod veo;
pub mod vertex;
pub mod vidu;

use super::task::{parse_progress, TaskDto, TaskStatus};
use super::video::BrokenRule;
use crate::types::VideoStatus;
use serde_json::{Map, Value};

/// The header new-api sets on every task submit: the adaptor's billing ratios as JSON, `{}`
/// when there are none (relay/relay_task.go RelayTaskSubmit; DECISIONS D-PLAT-1).
pub const OTHER_RATIOS_HEADER: &str = "x-new-api-other-ratios";
/// The code of a submit whose channel type no adaptor serves (relay/relay_task.go
/// RelayTaskSubmit: 400 `invalid api platform: <type>`).
pub const INVALID_API_PLATFORM: &str = "invalid_api_platform";

/// One upstream state and what new-api's poller stores for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UpstreamState {
    /// The upstream's word (`queueing`, `Processing`, `succeeded`...).
    pub word: &'static str,
    /// The task status new-api stores.
    pub status: TaskStatus,
    /// The progress new-api stores (`"NN%"` as a number).
    pub progress: i64,
}

/// A state-table row (const helper).
pub(crate) const fn state(word: &'static str, status: TaskStatus, progress: i64) -> UpstreamState {
    UpstreamState {
        word,
        status,
        progress,
    }
}

/// One video platform (one new-api task adaptor). Two are equal when they are the same
/// channel type.
#[derive(Debug, Clone, Copy)]
pub struct Platform {
    /// The channel type as text: the task's `platform` (`"52"`).
    pub channel_type: &'static str,
    /// A short lower-case name (`vidu`): the check ids, the docs, the control API.
    pub name: &'static str,
    /// The adaptor's `GetModelList`: the default models of a channel of this type.
    pub models: &'static [&'static str],
    /// Every upstream state the adaptor maps, in lifecycle order.
    pub states: &'static [UpstreamState],
    /// What any other state maps to; `None`: the poll fails and the task is left as it was.
    pub other: Option<(TaskStatus, i64)>,
    /// The words the mock's upstream shows for a task queued, running, completed, failed.
    pub words: [&'static str; 4],
    /// The JSON pointer of the state word in the record's `data`.
    pub state_pointer: &'static str,
    /// The JSON pointer of the result URL in `data` once the task succeeded.
    pub url_pointer: &'static str,
    /// Whether new-api's `/v1/videos/{id}` conversion shows `model` (the mock always does:
    /// DECISIONS D-PLAT-5).
    pub video_has_model: bool,
    /// The DECISIONS row of the platform.
    pub decision: &'static str,
    /// The schema of the record's `data` (the upstream's own task; `schemas/<name>.json`).
    pub data_schema: &'static str,
    /// The adaptor's `EstimateBilling`: the `X-New-Api-Other-Ratios` of a submit, from the
    /// client's JSON body and the upstream model ([`no_ratios`] where it bills per call).
    pub ratios: fn(&Map<String, Value>, &str) -> Map<String, Value>,
}

impl PartialEq for Platform {
    fn eq(&self, other: &Self) -> bool {
        self.channel_type == other.channel_type && self.name == other.name
    }
}

impl Eq for Platform {}

/// No billing ratios: the adaptor bills per call, `X-New-Api-Other-Ratios: {}`.
pub fn no_ratios(_: &Map<String, Value>, _: &str) -> Map<String, Value> {
    Map::new()
}

/// Every platform of this module, in channel-type order of the docs.
pub const ALL: [&Platform; 6] = [
    &vidu::PLATFORM,
    &hailuo::PLATFORM,
    &doubao::PLATFORM,
    &ali::PLATFORM,
    &gemini::PLATFORM,
    &vertex::PLATFORM,
];

/// The platform of a channel type (`"52"`), if it is one of [`ALL`].
pub fn by_channel_type(channel_type: &str) -> Option<&'static Platform> {
    ALL.into_iter().find(|p| p.channel_type == channel_type)
}

/// The platform whose default models list `model`, if any.
pub fn by_default_model(model: &str) -> Option<&'static Platform> {
    ALL.into_iter().find(|p| p.models.contains(&model))
}

impl Platform {
    /// What new-api stores for the upstream's `word`: status and progress, or `None` where
    /// the adaptor refuses the word (the poll fails, the task is unchanged).
    pub fn map(&self, word: &str) -> Option<(TaskStatus, i64)> {
        self.states
            .iter()
            .find(|s| s.word == word)
            .map(|s| (s.status, s.progress))
            .or(self.other)
    }

    /// The word the mock's upstream shows for a video status.
    pub fn word(&self, s: VideoStatus) -> &'static str {
        match s {
            VideoStatus::Queued => self.words[0],
            VideoStatus::InProgress => self.words[1],
            VideoStatus::Completed => self.words[2],
            VideoStatus::Failed | VideoStatus::Error => self.words[3],
        }
    }

    /// The words of the mock's upstream that map to the same task status as `word` shows for
    /// `s` (the choices `POST /__mock/videos/{id}/upstream` offers).
    pub fn alternatives(&self, s: VideoStatus) -> Vec<&'static str> {
        let shown = self.map(self.word(s)).map(|m| m.0);
        self.states
            .iter()
            .filter(|st| Some(st.status) == shown)
            .map(|st| st.word)
            .collect()
    }
}

/// `data.platform` is the channel type of the platform that serves the model.
pub const RULE_PLATFORM: &str = "task.platform";
/// `status` is what the adaptor maps the upstream state in `data` to.
pub const RULE_STATUS_MAP: &str = "task.status_map";
/// `progress` is what the adaptor stores for that state.
pub const RULE_PROGRESS_MAP: &str = "task.progress_map";
/// `data` has the shape of the platform's own task ([`Platform::data_schema`]).
pub const RULE_DATA_SHAPE: &str = "task.data_shape";

/// Whether a broken rule of this module is a failure: a status its own `data` contradicts
/// (DECISIONS D-PLAT-7), or a `data` that is not the platform's own task where new-api reads
/// it (DECISIONS D-PLAT-10). The platform and the progress deviate.
pub fn is_failure_rule(rule: &str) -> bool {
    rule == RULE_STATUS_MAP || rule == RULE_DATA_SHAPE
}

fn broken(rule: &'static str, message: String) -> Result<(), BrokenRule> {
    Err(BrokenRule { rule, message })
}

/// The upstream state word of a record's `data`, if `data` has one (a Veo operation's is
/// read from `done` and `error`: [`veo::operation_word`]).
pub fn state_word<'a>(p: &Platform, data: &'a Value) -> Option<&'a str> {
    if p.state_pointer == veo::OPERATION_STATE {
        return veo::operation_word(data);
    }
    data.pointer(p.state_pointer).and_then(Value::as_str)
}

/// Whether platform `p` is asked in real time on every fetch of its tasks (Gemini and
/// Vertex: relay/relay_task.go `tryRealtimeFetch`, DECISIONS D-PLAT-22).
pub fn is_realtime(p: &Platform) -> bool {
    p.state_pointer == veo::OPERATION_STATE
}

/// The rules of one fetched record of a task of platform `p` (DECISIONS D-PLAT-7, D-PLAT-10):
/// [`RULE_PLATFORM`], [`RULE_DATA_SHAPE`] (`data` is the platform's own task),
/// [`RULE_STATUS_MAP`] (the upstream state in `data` maps to `status`), [`RULE_PROGRESS_MAP`].
///
/// ```
/// use gatecheck_schemas::rules::platforms::{check_record, vidu};
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
    if t.platform != p.channel_type {
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
    let Some((status, progress)) = p.map(word) else {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_platform_is_whole() {
        for p in ALL {
            assert_eq!(by_channel_type(p.channel_type), Some(p));
            assert!(!p.models.is_empty());
            for s in [
                VideoStatus::Queued,
                VideoStatus::InProgress,
                VideoStatus::Completed,
                VideoStatus::Failed,
            ] {
                let (status, _) = p.map(p.word(s)).expect("the mock's words are mapped");
                assert!(p.alternatives(s).contains(&p.word(s)));
                assert_eq!(status.is_terminal(), s.is_terminal(), "{} {s:?}", p.name);
            }
        }
    }
}
