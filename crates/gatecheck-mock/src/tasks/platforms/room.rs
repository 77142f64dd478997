//! The hooks of a platform outside the unified route ([`TaskRoom`]): Kling's and Jimeng's
//! native routes, the generic OpenAI-video task. Its routes are the route table's rows
//! (`routes/kling.rs`, `routes/jimeng.rs`, `routes/video.rs`); what they read of a request
//! and what the platform's upstream answers about a task are here, per platform.

use super::super::video::StoredVideo;
use gatecheck_schemas::rules::platforms::{task_rooms, Platform};
use gatecheck_schemas::rules::video::VideoState;
use serde_json::{Map, Value};

/// What a native submit route reads of its JSON body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NativeRead {
    /// The model (empty when absent).
    pub model: String,
    /// The prompt.
    pub prompt: String,
    /// The requested duration, seconds (`None`: the model's default; 0: a value the upstream
    /// refuses).
    pub seconds: Option<i64>,
    /// The requested size (`None`: the model's default).
    pub size: Option<String>,
    /// new-api's action (`textGenerate` or `generate`).
    pub action: &'static str,
    /// Where the upstream POSTs the task when it ends (Kling's `callback_url`).
    pub callback_url: Option<String>,
}

/// The upstream's own answer about a task in a state: the task, its state, its result URL
/// and the answer's time (ms).
pub type UpstreamFn = fn(&StoredVideo, &VideoState, &str, i64) -> Value;

/// What a native submit route reads of its JSON body.
pub type ReadFn = fn(&Map<String, Value>) -> NativeRead;

/// One platform outside the unified route: its hooks (a file of this module's parent).
pub struct TaskRoom {
    /// Its rules.
    pub rules: &'static Platform,
    /// The record's `data`: the upstream's own answer about the task (`None`: the video
    /// object of an OpenAI-video task).
    pub upstream: Option<UpstreamFn>,
    /// What its native submit route reads of the JSON body (`None`: it has none).
    pub read: Option<ReadFn>,
    /// Whether its upstream POSTs the task to the client's `callback_url` when it ends
    /// (DECISIONS D-TASK-9): the payload is `data` of [`TaskRoom::upstream`]'s answer.
    pub callbacks: bool,
    /// Its plugin's native routes in the plugin era (`native.*`; `None`: it declares none).
    pub native: Option<Native>,
}

/// What a native route asks, as its plugin's decoder reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NativeCall {
    /// A submit of what it read.
    Submit(NativeRead),
    /// A query of the public task id.
    Query(String),
}

/// A plugin's native routes (plugin era): its decoder and its renderers.
pub struct Native {
    /// The decoder (`native.decodeSubmit`, `native.decodeRequest`): the request's path, its
    /// query string and its body (`None`: not JSON) to the call it makes, or the plugin's
    /// refusal message.
    pub decode: fn(&str, &str, Option<&Value>) -> Result<NativeCall, String>,
    /// The answer to a submit (`native.taskCreated`, `renderTask`): the stored task, its
    /// state and the answer's time (ms).
    pub created: fn(&StoredVideo, &VideoState, i64) -> Value,
    /// The answer to a query (`native.taskStatus`, `renderTask`): the upstream's last answer
    /// about the task (the record's `data`) with the public task id.
    pub status: fn(&StoredVideo, Value) -> Value,
    /// `native.error`: the HTTP status, the error's code and message to the body.
    pub error: fn(u16, &str, &str) -> Value,
}

/// The hooks of the platform outside the unified route whose channel type is `platform`.
pub(crate) fn room(platform: &str) -> Option<&'static TaskRoom> {
    task_rooms()
        .find(|p| p.channel_type == platform)
        .and_then(|p| super::room_of(p.key))
}

/// The platform whose upstream sends callbacks (DECISIONS D-TASK-9).
pub(crate) fn callback_room() -> Option<&'static TaskRoom> {
    task_rooms()
        .filter_map(|p| super::room_of(p.key))
        .find(|r| r.callbacks)
}

/// `key` of `body` as text ("" when absent or not text), owned.
pub(crate) fn text_of(body: &Map<String, Value>, key: &str) -> String {
    super::text(body, key).to_owned()
}
