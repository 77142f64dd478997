//! The video platforms behind new-api's unified route (DECISIONS D-PLAT): the channels that
//! serve them (the fixture's `channels.json`, else each adaptor's default models), and one
//! adaptor file per platform, which reads the client's request as that adaptor does and
//! writes the upstream's own task (the record's `data`). The rules (channel type, states,
//! status map, progress) are `gatecheck_schemas::rules::platforms`; the routes that submit and
//! fetch are `routes/platform.rs` and `routes/video_unified.rs`.
//!
//! Adding a platform: its description file in `gatecheck-schemas` (`rules::platforms`, one
//! line of its registry) and its hooks file here, one line of `hooks!`: the match on the
//! platform's key is exhaustive, so a registered platform without hooks does not compile
//! (docs/ARCHITECTURE.md, "Adding a video platform").

/// The hooks files, one line per registered platform: `module => Key`; those of the unified
/// route (each an `ADAPTOR: Adaptor`), then, after `;`, those outside it (each a
/// `ROOM: TaskRoom`: native routes, the OpenAI-video task).
macro_rules! hooks {
    ($($module:ident => $key:ident),* $(,)? ; $($room:ident => $rkey:ident),* $(,)?) => {
        $(pub(crate) mod $module;)*
        $(pub(crate) mod $room;)*

        /// The hooks of the unified-route platform `key` (`None`: a platform outside the
        /// unified route, or a run-time platform without hooks).
        pub(crate) fn hooks_of(key: Key) -> Option<&'static Adaptor> {
            match key {
                $(Key::$key => Some(&$module::ADAPTOR),)*
                $(Key::$rkey => None,)*
                Key::Extra(name) => extra(name),
            }
        }

        /// The hooks of the platform `key` outside the unified route (`None`: a platform of
        /// the unified route).
        pub(crate) fn room_of(key: Key) -> Option<&'static TaskRoom> {
            match key {
                $(Key::$key => None,)*
                $(Key::$rkey => Some(&$room::ROOM),)*
                Key::Extra(_) => None,
            }
        }
    };
}

hooks! {
    vidu => Vidu,
    hailuo => Hailuo,
    doubao => Doubao,
    ali => Ali,
    gemini => Gemini,
    vertex => Vertex,
    ;
    sora => Sora,
    kling => Kling,
    jimeng => Jimeng,
}

pub(crate) mod room;
pub(crate) mod veo;

pub(crate) use room::{callback_room, room, Native, NativeCall, NativeRead, TaskRoom};

use gatecheck_schemas::rules::platforms::Platform;
use gatecheck_schemas::rules::platforms::{Era, Key};
use gatecheck_schemas::types::VideoTaskError;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One channel of the deployment (new-api's `channels` row, as far as task routing reads
/// it): its type picks the adaptor, its models and groups decide what it serves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Channel {
    /// The channel id (`channel_id` of its tasks).
    pub id: i64,
    /// The channel type (`52` Vidu, `35` MiniMax, `54` Doubao video, `17` Ali...).
    #[serde(rename = "type")]
    pub channel_type: i64,
    /// A name for people.
    #[serde(default)]
    pub name: String,
    /// The models it serves (the names clients send).
    pub models: Vec<String>,
    /// Client model to upstream model (`model_mapping`); a model not listed goes as it is.
    #[serde(default)]
    pub model_mapping: BTreeMap<String, String>,
    /// The groups it serves, comma-separated (`default`).
    #[serde(default = "default_group")]
    pub group: String,
}

fn default_group() -> String {
    "default".to_owned()
}

impl Channel {
    /// Whether the channel serves `model` to a key of `group` (empty: `default`).
    pub fn serves(&self, model: &str, group: &str) -> bool {
        let group = if group.is_empty() { "default" } else { group };
        self.models.iter().any(|m| m == model) && self.group.split(',').any(|g| g.trim() == group)
    }

    /// The upstream model for `model`.
    pub fn upstream_model<'a>(&'a self, model: &'a str) -> &'a str {
        self.model_mapping
            .get(model)
            .map(String::as_str)
            .filter(|m| !m.is_empty())
            .unwrap_or(model)
    }
}

/// The default channels: one per platform, serving its adaptor's default models to the
/// `default` group (ids 2, 3, ...; channel 1 is the OpenAI-video channel of the other tasks).
pub fn default_channels() -> Vec<Channel> {
    gatecheck_schemas::rules::platforms::unified()
        .zip(2..)
        .map(|(p, id)| Channel {
            id,
            channel_type: p.channel_code(),
            name: p.name.to_owned(),
            models: p.models_any().iter().map(|m| (*m).to_owned()).collect(),
            model_mapping: BTreeMap::new(),
            group: default_group(),
        })
        .collect()
}

/// The `channels.json` fixture file: `{"channels": [...]}`.
#[derive(Debug, Deserialize)]
pub(crate) struct ChannelsFile {
    pub channels: Vec<Channel>,
}

/// What an adaptor reads from the client's request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Read {
    /// new-api's action (`textGenerate`, `generate`...).
    pub action: &'static str,
    /// The duration the upstream renders, seconds.
    pub seconds: i64,
    /// The video's size, `WxH`.
    pub size: String,
}

/// The upstream's view of one task at one moment, for [`Adaptor::upstream`].
pub struct Upstream<'a> {
    /// The upstream's own task id.
    pub id: String,
    /// The upstream model.
    pub model: &'a str,
    /// The upstream's state word.
    pub word: &'static str,
    /// The result URL once succeeded.
    pub url: Option<&'a str>,
    /// The failure, once failed.
    pub error: Option<&'a VideoTaskError>,
    /// Unix seconds.
    pub created_s: i64,
    /// Unix seconds.
    pub updated_s: i64,
    /// The rendered duration.
    pub seconds: i64,
    /// The size, `WxH`.
    pub size: &'a str,
}

/// What `GET /v1/videos/{id}` of a polled platform's task shows, for [`Adaptor::render`].
pub struct VideoView<'a> {
    /// The public task id.
    pub id: &'a str,
    /// The status new-api stores.
    pub status: gatecheck_schemas::rules::task::TaskStatus,
    /// The stored failure reason.
    pub fail_reason: &'a str,
    /// The record's `data` (the upstream's own task).
    pub data: &'a Value,
    /// The result URL in `data` (empty: none).
    pub url: &'a str,
}

/// One platform of the mock: its hooks (a file of this module).
pub struct Adaptor {
    /// Its rules.
    pub rules: &'static Platform,
    /// What it reads of a request (the JSON body as an object).
    pub read: fn(&Map<String, Value>) -> Read,
    /// The upstream's own task (the record's `data`).
    pub upstream: fn(&Upstream<'_>) -> Value,
    /// The failure reason new-api stores (`fail_reason`) for an upstream error.
    pub reason: fn(&VideoTaskError) -> String,
    /// The submit answer's `status` ([`queued`] but where the adaptor reads its upstream's).
    /// The billing ratios are the rules' ([`Platform::ratios`]).
    pub submit_status: fn(&Platform) -> &'static str,
    /// The adaptor's validation of the request (the JSON body and the prompt): new-api's
    /// message for its 400 `invalid_request` ([`prompt_required`] but where the adaptor has
    /// its own).
    pub validate: fn(&Map<String, Value>, &str) -> Result<(), String>,
    /// The `/v1/videos/{id}` `status` where the adaptor reads it from `data` (Ali), else
    /// `None`: new-api's `ToVideoStatus` of the stored status.
    pub video_status: Option<fn(&Value) -> &'static str>,
    /// The rest of the `/v1/videos/{id}` conversion, past `id`, `object`, `status`,
    /// `progress`, the times and `model` ([`render_common`] but where the adaptor has its own).
    pub render: fn(&mut Value, &VideoView<'_>),
    /// A real-time platform whose succeeded answer carries new-api's proxy URL and whose
    /// `/v1/videos/{id}` `completed_at` is the finish (Gemini; Vertex's video is a `data:` URL
    /// kept in `data`).
    pub proxy_url: bool,
}

/// new-api's common `/v1/videos/{id}` rest: `metadata.url` when there is a URL, and a failed
/// task's `error` with the stored reason and `code` (the upstream's code in `data`, read by
/// [`error_code`]).
pub fn render_common(v: &mut Value, view: &VideoView<'_>, code: fn(&Value) -> String) {
    if !view.url.is_empty() {
        v["metadata"] = serde_json::json!({ "url": view.url });
    }
    if view.status == gatecheck_schemas::rules::task::TaskStatus::Failure {
        v["error"] = serde_json::json!({ "message": view.fail_reason, "code": code(view.data) });
    }
}

/// The upstream's error code at `error.code` of `data` (the common place).
pub fn error_code(data: &Value) -> String {
    data["error"]["code"].as_str().unwrap_or("").to_owned()
}

/// The hooks added at run time ([`extend`]).
static EXTRA: std::sync::Mutex<Vec<&'static Adaptor>> = std::sync::Mutex::new(Vec::new());

fn extra(name: &str) -> Option<&'static Adaptor> {
    let extra = EXTRA.lock().ok()?;
    extra.iter().copied().find(|a| a.rules.name == name)
}

/// Adds a platform at run time: its description to `gatecheck_schemas`' registry and its
/// hooks here (a test binary's throwaway platform), before anything reads the registry.
/// Refused with the reason `gatecheck_schemas::rules::platforms::extend` gives, or for a
/// description whose key is not [`Key::Extra`] of its name.
pub fn extend(hooks: &'static Adaptor) -> Result<(), String> {
    let p = hooks.rules;
    if p.key != Key::Extra(p.name) {
        return Err(format!(
            "platform {}: a platform added at run time has the key Key::Extra({:?})",
            p.name, p.name
        ));
    }
    gatecheck_schemas::rules::platforms::extend(p)?;
    EXTRA.lock().map_err(|e| e.to_string())?.push(hooks);
    Ok(())
}

/// `ValidateBasicTaskRequest`'s refusal of a blank prompt.
pub fn prompt_required(_: &Map<String, Value>, prompt: &str) -> Result<(), String> {
    if prompt.trim().is_empty() {
        Err(gatecheck_schemas::rules::task::PROMPT_REQUIRED.to_owned())
    } else {
        Ok(())
    }
}

/// The common submit answer's status (relay/relay_task.go: `queued`).
pub fn queued(_: &Platform) -> &'static str {
    "queued"
}

/// Every word `POST /__mock/videos/{id}/upstream` may store for a platform: its upstream
/// states, and for a real-time platform (Gemini, Vertex) `unreachable`, the real-time fetch
/// failing (DECISIONS D-PLAT-22), and Gemini's `no_key` (D-PLAT-20).
pub(crate) fn control_words(p: &'static Platform) -> Vec<&'static str> {
    let mut words = p.words_any();
    words.extend(p.control_words);
    words
}

/// The adaptor of channel type `t` (`"52"`).
pub(crate) fn adaptor(t: &str) -> Option<&'static Adaptor> {
    // A stored task's type: one of any era's (a task of a plugin-era type, Doubao's 45, was
    // made in the plugin era).
    adaptor_in(Era::Plugins, t)
}

/// The adaptor a channel of type `t` runs in `era` (Doubao's 45 in the plugin era only).
pub(crate) fn adaptor_in(era: Era, t: &str) -> Option<&'static Adaptor> {
    hooks_of(gatecheck_schemas::rules::platforms::by_channel_type_in(era, t)?.key)
}

/// The channel type as the record's `platform` of a task of `p` on a channel of type
/// `channel_type` (one of the platform's own spellings; its first when none matches).
pub(crate) fn platform_text(p: &'static Platform, channel_type: i64) -> &'static str {
    let t = channel_type.to_string();
    std::iter::once(&p.channel_type)
        .chain(p.plugins.channel_types)
        .find(|c| **c == t)
        .copied()
        .unwrap_or(p.channel_type)
}

/// A platform as the dashboard shows it: the channel type and a name (`52 vidu`).
pub(crate) fn platform_label(channel_type: &str) -> String {
    let p = gatecheck_schemas::rules::platforms::by_channel_type(channel_type)
        .or_else(|| adaptor(channel_type).map(|a| a.rules));
    let name = p.map_or("", |p| p.name);
    format!("{channel_type} {name}").trim_end().to_owned()
}

/// The first channel serving `model` to `group`, if any.
pub(crate) fn select<'a>(channels: &'a [Channel], model: &str, group: &str) -> Option<&'a Channel> {
    channels.iter().find(|c| c.serves(model, group))
}

/// The upstream's own id for a task (stable for its public id; never shown to the client
/// except inside `data`).
pub(crate) fn upstream_id(task_id: &str) -> String {
    let h = gatecheck_schemas::rules::media::fnv1a(task_id.as_bytes());
    format!("{:016x}", h)
}

// Readers shared by the adaptors.

/// `key` of `body` as text ("" when absent or not text).
pub(crate) fn text<'a>(body: &'a Map<String, Value>, key: &str) -> &'a str {
    body.get(key).and_then(Value::as_str).unwrap_or("")
}

/// `key` of `body` as an integer (a number or digits in text).
pub(crate) fn int(body: &Map<String, Value>, key: &str) -> Option<i64> {
    match body.get(key)? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// `metadata.<key>` of `body`.
pub(crate) fn meta<'a>(body: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    body.get("metadata")?.as_object()?.get(key)
}

/// How many images the request carries (`images`, `image`, `input_reference`).
pub(crate) fn images(body: &Map<String, Value>) -> usize {
    let list = body
        .get("images")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let one = ["image", "input_reference"]
        .iter()
        .filter(|k| !text(body, k).is_empty())
        .count();
    list + one
}

/// The size `WxH` of a resolution word (`1080p`, `768P`, `720`...), 720p otherwise.
pub(crate) fn size_of_resolution(r: &str) -> &'static str {
    let r = r.to_ascii_lowercase();
    if r.contains("1080") {
        "1920x1080"
    } else if r.contains("768") {
        "1366x768"
    } else if r.contains("512") {
        "910x512"
    } else if r.contains("480") {
        "854x480"
    } else {
        "1280x720"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_platform_has_its_hooks_and_channels_select() {
        for p in gatecheck_schemas::rules::platforms::unified() {
            let hooks = hooks_of(p.key).expect("hooks");
            assert_eq!(hooks.rules, p, "the hooks of {} are its own", p.name);
        }
        for p in gatecheck_schemas::rules::platforms::task_rooms() {
            let room = room_of(p.key).expect("hooks");
            assert_eq!(room.rules, p, "the hooks of {} are its own", p.name);
            assert!(hooks_of(p.key).is_none() && adaptor(p.channel_type).is_none());
        }
        let channels = default_channels();
        let c = select(&channels, "viduq1", "").expect("vidu channel");
        assert_eq!((c.channel_type, c.upstream_model("viduq1")), (52, "viduq1"));
        assert!(select(&channels, "viduq1", "vip").is_none());
        assert!(select(&channels, "sora-2", "").is_none());
        let vidu = gatecheck_schemas::rules::platforms::by_name("vidu").expect("vidu");
        assert!(adaptor(vidu.channel_type).is_some() && adaptor("99").is_none());
        let unknown = gatecheck_schemas::rules::platforms::by_name("nosuch").unwrap_err();
        assert!(unknown.contains("\"nosuch\""), "{unknown}");
    }
}
