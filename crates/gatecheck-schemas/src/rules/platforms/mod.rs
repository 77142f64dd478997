//! The video platforms new-api selects behind its unified video route by the serving
//! channel's type (relay/relay_adaptor.go `GetTaskAdaptor`; DECISIONS D-PLAT): one file per
//! platform, each a [`Platform`] built from its new-api adaptor (channel type, default
//! models, the upstream's states with new-api's status and progress for each, where `data`
//! keeps the state and the result URL, what `/v1/videos/{id}` shows).
//!
//! The mock renders a task of a platform from these tables (its adaptor file in
//! `gatecheck-mock`'s task room writes the upstream's own body), and the runner judges what a
//! target answers with the same tables (`rules::platform_record::check_record`): a platform is one place.
//!
//! ```
//! use gatecheck_schemas::rules::platforms::{by_channel_type, vidu};
//! use gatecheck_schemas::rules::task::TaskStatus;
//! let p = by_channel_type("52").unwrap();
//! assert_eq!(p.name, vidu::PLATFORM.name);
//! assert_eq!(p.map("queueing"), Some((TaskStatus::Submitted, 10)));
//! assert_eq!(p.map("no-such-state"), None);
//! ```

/// The registry: each platform's module (its description, `pub const PLATFORM`), the
/// [`Key`] enum and the list of registered platforms, from one line per platform.
macro_rules! registry {
    ($($module:ident => $key:ident),* $(,)?) => {
        $(pub mod $module;)*

        /// The key of a video platform: one per registered description, and
        /// [`Key::Extra`] for one added at run time ([`extend`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Key {
            $(
                #[doc = concat!("`rules::platforms::", stringify!($module), "`.")]
                $key,
            )*
            /// A platform added at run time, by its name.
            Extra(&'static str),
        }

        /// The registered platforms, in the registry's order.
        const REGISTERED: &[&Platform] = &[$(&$module::PLATFORM),*];

        impl Key {
            /// The description of a key (`None`: an [`Key::Extra`] not added).
            pub fn platform(self) -> Option<&'static Platform> {
                match self {
                    $(Key::$key => Some(&$module::PLATFORM),)*
                    Key::Extra(name) => all().iter().copied().find(|p| p.name == name),
                }
            }
        }
    };
}

// The registry: one line per platform, its description file and its key. Adding a line
// here and the file is all `gatecheck-schemas` needs; the mock's hooks match on [`Key`]
// exhaustively (a registered platform without hooks does not compile).
registry! {
    vidu => Vidu,
    hailuo => Hailuo,
    doubao => Doubao,
    ali => Ali,
    gemini => Gemini,
    vertex => Vertex,
    sora => Sora,
    kling => Kling,
    jimeng => Jimeng,
}

pub mod native;
pub mod veo;

/// The platform of new-api's generic OpenAI-video tasks (`POST /v1/videos` on an OpenAI or
/// Sora channel; the record's `platform` of a task no other platform serves).
pub const OPENAI_VIDEO: &Platform = &sora::PLATFORM;

use super::openai_video::VideoBodies;
use super::task::TaskStatus;
use crate::types::VideoStatus;
pub use crate::Era;

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
    /// The registry's key of the platform ([`Key::Extra`] for one added at run time).
    pub key: Key,
    /// The channel type as text: the task's `platform` (`"52"`), the one spelling of it
    /// ([`Platform::channel_code`] is the number a channel row carries).
    pub channel_type: &'static str,
    /// A short lower-case name (`vidu`): the check ids, the docs, the control API.
    pub name: &'static str,
    /// The name people read (`Vidu`, `MiniMax/Hailuo`): messages and the docs.
    pub title: &'static str,
    /// How new-api answers a fetch of its task: the stored record, or the upstream asked.
    pub fetch: Fetch,
    /// The model of the embedded catalog (`fixtures/catalog.json`) the tests and the docs
    /// use for the platform.
    pub catalog_model: &'static str,
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
    pub decision: crate::decisions::Id,
    /// The schema of the record's `data` (the upstream's own task; `schemas/<name>.json`).
    pub data_schema: &'static str,
    /// The adaptor's `EstimateBilling`: the `X-New-Api-Other-Ratios` of a submit, from the
    /// client's JSON body and the upstream model ([`no_ratios`] where it bills per call).
    pub ratios: fn(&Map<String, Value>, &str) -> Map<String, Value>,
    /// The schema text of [`Platform::data_schema`] (`include_str!` of its file in `schemas/`):
    /// the schema list and the OpenAPI document take it from here.
    pub data_schema_text: &'static str,
    /// The control API's words beside the states (`POST /__mock/videos/{id}/upstream`): a
    /// real-time platform's `unreachable`, Gemini's `no_key` ([`veo::UNREACHABLE`], [`veo::NO_KEY`]).
    pub control_words: &'static [&'static str],
    /// The upstream refusals new-api relays, where the platform models them (Ali).
    pub refusals: Option<Refusals>,
    /// The runner's check of the platform (`task.platform.<name>`): its title and spec
    /// reference (the check's id, kind, route and function follow from the rest).
    pub check: CheckText,
    /// Where the platform's tasks come from: the unified route, its own native routes, or
    /// the generic OpenAI-video task.
    pub surface: Surface,
    /// What new-api's task plugin of the platform changed (the plugin era, PR #7076); the
    /// fields above are the Go adaptor's (the adaptors era, frozen).
    pub plugins: PluginFacts,
}

/// Where a platform's tasks are made, which decides what the registry derives for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// Behind the unified video route, on a channel of its type: a default channel, the
    /// unified route's dispatch, a `data` schema and the runner's `task.platform.<name>`.
    Unified,
    /// Its own routes of the route table (Kling's `/kling/v1/videos/*`, Jimeng's `/jimeng/`),
    /// served by its hooks; its models run as OpenAI-video tasks on the unified route and on
    /// `/v1/videos` (DECISIONS D-TASK-6, D-TASK-7).
    Native,
    /// The generic OpenAI-video task of `/v1/videos` (DECISIONS D-TASK-1), whose channel types
    /// also include these (OpenAI's 1: relay/relay_adaptor.go `GetTaskAdaptor`).
    OpenAiVideo(&'static [&'static str]),
}

/// A state table: the states, and what any other state maps to.
pub type StateTable = (&'static [UpstreamState], Option<(TaskStatus, i64)>);
/// An `EstimateBilling`: the client's JSON body and the upstream model to the ratios.
pub type RatiosFn = fn(&Map<String, Value>, &str) -> Map<String, Value>;
/// A plugin's refusal of a JSON body (`Err(message)`).
pub type RefuseFn = fn(&Map<String, Value>) -> Result<(), String>;
/// An upstream's submit answer (status, body) to new-api's answer (status, code, message).
pub type SubmitRefusalFn = fn(u16, &str) -> Option<(u16, &'static str, String)>;

/// What new-api's task plugin (`plugins/tasks/<key>/plugin.js`, the plugin era) changed of a
/// platform's Go adaptor: each `None` or empty field keeps the adaptor's fact
/// ([`Platform::models_in`], [`Platform::map_in`], [`Platform::ratios_in`],
/// [`Platform::serves_in`], [`Platform::refusal_in`]).
#[derive(Debug, Clone, Copy)]
pub struct PluginFacts {
    /// The plugin file and the upstream commit read (`plugins/tasks/doubao/plugin.js@2f6bf06b`).
    pub source: &'static str,
    /// `meta.models`.
    pub models: Option<&'static [&'static str]>,
    /// `meta.channelTypes` beside [`Platform::channel_type`] (Doubao's 45).
    pub channel_types: &'static [&'static str],
    /// `parseTaskResult`'s states, and what any other state maps to.
    pub states: Option<StateTable>,
    /// `extractUsage` under `usagePurpose === "billing_ratios"`: the submit's
    /// `X-New-Api-Other-Ratios`.
    pub ratios: Option<RatiosFn>,
    /// `protocols.openai_video.decodeRequest`'s refusal of a JSON body (`Err(message)`:
    /// 400 `plugin_request_invalid`, `rules::era::plugin_refusal_body`).
    pub refuse: Option<RefuseFn>,
    /// The bodies `protocols.openai_video.decodeRequest` takes on `POST /v1/videos` (a new
    /// fact: the Go adaptors took every encoding the host read).
    pub bodies: VideoBodies,
    /// The `error` of `protocols.openai_video.render` (`code`, `message`) from the record's
    /// `data`, which the host keeps over its own fields (`rules::openai_video::host_render`);
    /// `None`: the plugin renders none. Unlike the fields above, `None` is a plugin fact too:
    /// the adaptor's conversion is not kept.
    pub render_error: Option<RenderErrorFn>,
    /// `listArtifacts`: the JSON pointer in `data` of the video artifact the plugin lists for
    /// a SUCCESS task (its URL or file id); `None`: it lists none, and the content route
    /// falls back to the stored result URL (`rules::openai_video::plugin_content`).
    pub artifact: Option<&'static str>,
    /// The action `buildSubmitRequest` names for a request (the record's `action`); `None`:
    /// `rules::openai_video::image_or_text`.
    pub action: Option<ActionFn>,
    /// `meta.routes` and `native`: the vendor routes the plugin declares, how each renders,
    /// and its `native.error` ([`native::Native::NONE`]: none).
    pub native: native::Native,
}

impl PluginFacts {
    /// A plugin that keeps every fact of the adaptor, read at `source` (any body, no
    /// rendered error, no artifact listed).
    pub const fn same(source: &'static str) -> Self {
        PluginFacts {
            source,
            models: None,
            channel_types: &[],
            states: None,
            ratios: None,
            refuse: None,
            bodies: VideoBodies::Any,
            render_error: None,
            artifact: None,
            action: None,
            native: native::Native::NONE,
        }
    }
}

/// A plugin's action name for a request body (`buildSubmitRequest`'s `action`).
pub type ActionFn = fn(&Map<String, Value>) -> &'static str;

/// A plugin render's `error` from the record's `data`: `(code, message)`.
pub type RenderErrorFn = fn(&Value) -> Option<(String, String)>;

/// How new-api answers a fetch of a platform's task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fetch {
    /// The record the poller stored (service/task_polling.go).
    Poll,
    /// The upstream asked on every fetch (relay/relay_task.go `tryRealtimeFetch`, DECISIONS
    /// D-PLAT-22): Gemini and Vertex Veo.
    Realtime,
}

/// The upstream refusals new-api relays for a platform (Ali: DECISIONS D-PLAT-11).
#[derive(Debug, Clone, Copy)]
pub struct Refusals {
    /// How new-api answers a client when the upstream answers its submit `status` with `body`:
    /// the HTTP status, the task error's `code` and `message`; `None`: accepted or not modelled.
    pub submit: SubmitRefusalFn,
    /// Whether a submit's answer is new-api's relay of such a refusal.
    pub relayed: fn(u16, &Value) -> bool,
    /// The code and message of an upstream error answer to the poll as the record keeps it.
    pub poll: for<'a> fn(&'a Value) -> Option<(&'a str, &'a str)>,
}

/// A platform's row of the runner's check list.
#[derive(Debug, Clone, Copy)]
pub struct CheckText {
    /// What it checks.
    pub title: &'static str,
    /// Its spec reference (`DECISIONS: ...`).
    pub spec: &'static str,
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

/// The registered platforms and the ones added at run time ([`extend`]), in registry order.
static REGISTRY: std::sync::OnceLock<Vec<&'static Platform>> = std::sync::OnceLock::new();
/// The platforms [`extend`] adds before the registry is first read.
static EXTRA: std::sync::Mutex<Vec<&'static Platform>> = std::sync::Mutex::new(Vec::new());

/// Every platform: the registry's, then any [`extend`] added before this was first called.
pub fn all() -> &'static [&'static Platform] {
    REGISTRY.get_or_init(|| {
        let extra = EXTRA.lock().map(|e| e.clone()).unwrap_or_default();
        REGISTERED.iter().copied().chain(extra).collect()
    })
}

/// Adds a platform to the registry at run time: a test binary's throwaway platform (its
/// description and, in the mock, its hooks: `gatecheck_mock::platform_hooks::extend`), before
/// anything reads the registry. Refused, with the reason, once the registry was read, or for
/// a key, name or channel type already taken.
pub fn extend(p: &'static Platform) -> Result<(), String> {
    if REGISTRY.get().is_some() {
        return Err(format!(
            "platform {}: the registry was read already; extend it first",
            p.name
        ));
    }
    let mut extra = EXTRA.lock().map_err(|e| e.to_string())?;
    let taken = REGISTERED
        .iter()
        .chain(extra.iter())
        .find(|q| q.key == p.key || q.name == p.name || q.channel_type == p.channel_type);
    if let Some(q) = taken {
        return Err(format!(
            "platform {} (channel type {}): {} (channel type {}) is registered with that key, name or channel type",
            p.name, p.channel_type, q.name, q.channel_type
        ));
    }
    extra.push(p);
    Ok(())
}

/// The platforms of the unified route ([`Surface::Unified`]), in registry order: what the
/// default channels, the `data` schemas, the OpenAPI document's platform list and the
/// runner's `task.platform.<name>` checks are made from.
pub fn unified() -> impl Iterator<Item = &'static Platform> {
    all()
        .iter()
        .copied()
        .filter(|p| p.surface == Surface::Unified)
}

/// The platforms outside the unified route (native routes, the OpenAI-video task), in
/// registry order.
pub fn task_rooms() -> impl Iterator<Item = &'static Platform> {
    all()
        .iter()
        .copied()
        .filter(|p| p.surface != Surface::Unified)
}

/// The status new-api's poller stores for a task of `platform` (a channel type) whose video
/// status is `s`: what the status map of a platform outside the unified route says of its
/// upstream's word (a queued Kling task is `SUBMITTED`: relay/channel/task/kling
/// ParseTaskResult), else [`TaskStatus::of`] (a unified-route platform's record is its
/// adaptor's).
///
/// ```
/// use gatecheck_schemas::rules::platforms::{kling, task_status_on, OPENAI_VIDEO};
/// use gatecheck_schemas::rules::task::TaskStatus;
/// use gatecheck_schemas::types::VideoStatus;
/// assert_eq!(task_status_on(kling::PLATFORM.channel_type, VideoStatus::Queued), TaskStatus::Submitted);
/// assert_eq!(task_status_on(OPENAI_VIDEO.channel_type, VideoStatus::Queued), TaskStatus::Queued);
/// ```
pub fn task_status_on(platform: &str, s: VideoStatus) -> TaskStatus {
    task_rooms()
        .find(|p| p.channel_type == platform)
        .and_then(|p| p.status_of(s))
        .unwrap_or_else(|| TaskStatus::of(s))
}

/// The platform of a channel type (`"52"`), if it is one of [`all`].
pub fn by_channel_type(channel_type: &str) -> Option<&'static Platform> {
    all()
        .iter()
        .copied()
        .find(|p| p.channel_type == channel_type)
}

/// The platform a channel of type `channel_type` runs in `era` (Doubao's 45 in the plugin
/// era), if any.
pub fn by_channel_type_in(era: Era, channel_type: &str) -> Option<&'static Platform> {
    all()
        .iter()
        .copied()
        .find(|p| p.serves_in(era, channel_type))
}

/// The platform whose default models in `era` list `model`, if any.
pub fn by_default_model_in(era: Era, model: &str) -> Option<&'static Platform> {
    all()
        .iter()
        .copied()
        .find(|p| p.models_in(era).contains(&model))
}

/// The platform whose default models list `model`, if any.
pub fn by_default_model(model: &str) -> Option<&'static Platform> {
    all().iter().copied().find(|p| p.models.contains(&model))
}

/// The platform named `name` (`vidu`), or an error naming it and the registered ones.
pub fn by_name(name: &str) -> Result<&'static Platform, String> {
    all()
        .iter()
        .copied()
        .find(|p| p.name == name)
        .ok_or_else(|| {
            let names: Vec<_> = all().iter().map(|p| p.name).collect();
            format!(
                "no video platform {name:?} is registered (the registry: {})",
                names.join(", ")
            )
        })
}

/// The platform of the runner's check `id` (`task.platform.<name>`), if any.
pub fn by_check_id(id: &str) -> Option<&'static Platform> {
    let name = id.strip_prefix(CHECK_PREFIX)?;
    all().iter().copied().find(|p| p.name == name)
}

/// The prefix of a platform's check id: `task.platform.` and its name.
pub const CHECK_PREFIX: &str = "task.platform.";

impl Platform {
    /// The channel type as the number a channel row carries (`52`).
    pub fn channel_code(&self) -> i64 {
        self.channel_type.parse().unwrap_or(0)
    }

    /// The default models of a channel of this type in `era`.
    pub fn models_in(&self, era: Era) -> &'static [&'static str] {
        match (era, self.plugins.models) {
            (Era::Plugins, Some(m)) => m,
            _ => self.models,
        }
    }

    /// Every model either era lists (the default channel of the platform serves them all:
    /// a channel's models are its own list, the adaptor's only its defaults).
    pub fn models_any(&self) -> Vec<&'static str> {
        let mut all: Vec<_> = self.models.to_vec();
        for m in self.plugins.models.unwrap_or(&[]) {
            if !all.contains(m) {
                all.push(m);
            }
        }
        all
    }

    /// The states and the fallback of `era`.
    fn table_in(&self, era: Era) -> (&'static [UpstreamState], Option<(TaskStatus, i64)>) {
        match (era, self.plugins.states) {
            (Era::Plugins, Some(t)) => t,
            _ => (self.states, self.other),
        }
    }

    /// The states of `era`, in lifecycle order.
    pub fn states_in(&self, era: Era) -> &'static [UpstreamState] {
        self.table_in(era).0
    }

    /// What new-api stores for the upstream's `word` in `era` ([`Platform::map`] for the
    /// adaptors').
    pub fn map_in(&self, era: Era, word: &str) -> Option<(TaskStatus, i64)> {
        let (states, other) = self.table_in(era);
        states
            .iter()
            .find(|s| s.word == word)
            .map(|s| (s.status, s.progress))
            .or(other)
    }

    /// [`Platform::alternatives`] in `era`.
    pub fn alternatives_in(&self, era: Era, s: VideoStatus) -> Vec<&'static str> {
        let shown = self.map_in(era, self.word(s)).map(|m| m.0);
        self.states_in(era)
            .iter()
            .filter(|st| Some(st.status) == shown)
            .map(|st| st.word)
            .collect()
    }

    /// Every state word either era maps (a stored task's words load in both).
    pub fn words_any(&self) -> Vec<&'static str> {
        let mut words: Vec<_> = self.states.iter().map(|s| s.word).collect();
        for s in self.plugins.states.map_or(&[][..], |t| t.0) {
            if !words.contains(&s.word) {
                words.push(s.word);
            }
        }
        words
    }

    /// The submit's billing ratios in `era`.
    pub fn ratios_in(&self, era: Era) -> fn(&Map<String, Value>, &str) -> Map<String, Value> {
        match (era, self.plugins.ratios) {
            (Era::Plugins, Some(r)) => r,
            _ => self.ratios,
        }
    }

    /// Whether a channel of type `channel_type` runs this platform in `era`.
    pub fn serves_in(&self, era: Era, channel_type: &str) -> bool {
        channel_type == self.channel_type
            || (era == Era::Plugins && self.plugins.channel_types.contains(&channel_type))
            || matches!(self.surface, Surface::OpenAiVideo(also) if also.contains(&channel_type))
    }

    /// The plugin's refusal of a JSON body in `era` (none in the adaptors').
    pub fn refusal_in(&self, era: Era, body: &Map<String, Value>) -> Result<(), String> {
        match (era, self.plugins.refuse) {
            (Era::Plugins, Some(refuse)) => refuse(body),
            _ => Ok(()),
        }
    }

    /// The plugin's refusal of a `POST /v1/videos` body of `kind` with the file parts
    /// `files` in `era` (none in the adaptors'): its accepted bodies, then, for JSON, its
    /// refusal of the body's fields.
    pub fn video_refusal_in(
        &self,
        era: Era,
        kind: super::openai_video::BodyKind,
        files: &[&str],
        body: &Map<String, Value>,
    ) -> Result<(), String> {
        if era != Era::Plugins {
            return Ok(());
        }
        self.plugins.bodies.refusal(kind, files)?;
        self.refusal_in(era, body)
    }

    /// The action new-api stores for a submit of `body` in `era`: the plugin's name in the
    /// plugin era, `None` in the adaptors' (each adaptor's own word).
    pub fn plugin_action_in(&self, era: Era, body: &Map<String, Value>) -> Option<&'static str> {
        (era == Era::Plugins).then(|| {
            self.plugins
                .action
                .map_or_else(|| super::openai_video::image_or_text(body), |f| f(body))
        })
    }

    /// The runner's check id of the platform (`task.platform.vidu`).
    pub fn check_id(&self) -> String {
        format!("{CHECK_PREFIX}{}", self.name)
    }

    /// What new-api stores for the upstream's `word`: status and progress, or `None` where
    /// the adaptor refuses the word (the poll fails, the task is unchanged).
    pub fn map(&self, word: &str) -> Option<(TaskStatus, i64)> {
        self.states
            .iter()
            .find(|s| s.word == word)
            .map(|s| (s.status, s.progress))
            .or(self.other)
    }

    /// The task status new-api's poller stores for the upstream's word of the video status
    /// `s` (`None`: the word is not mapped).
    pub fn status_of(&self, s: VideoStatus) -> Option<TaskStatus> {
        self.map(self.word(s)).map(|m| m.0)
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

/// The upstream state word of a record's `data`, if `data` has one (a Veo operation's is
/// read from `done` and `error`: [`veo::operation_word`]).
pub fn state_word<'a>(p: &Platform, data: &'a Value) -> Option<&'a str> {
    if p.fetch == Fetch::Realtime {
        return veo::operation_word(data);
    }
    data.pointer(p.state_pointer).and_then(Value::as_str)
}

/// Whether platform `p` is asked in real time on every fetch of its tasks (Gemini and
/// Vertex: relay/relay_task.go `tryRealtimeFetch`, DECISIONS D-PLAT-22).
pub fn is_realtime(p: &Platform) -> bool {
    p.fetch == Fetch::Realtime
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_platform_is_whole() {
        for p in all() {
            let p = *p;
            assert_eq!(p.key.platform(), Some(p), "{}", p.name);
            assert!(p.models.contains(&p.catalog_model), "{}", p.name);
            assert_eq!(p.channel_code().to_string(), p.channel_type, "{}", p.name);
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
