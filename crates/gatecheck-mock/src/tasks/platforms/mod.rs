//! The video platforms behind new-api's unified route (DECISIONS D-PLAT): the channels that
//! serve them (the fixture's `channels.json`, else each adaptor's default models), and one
//! adaptor file per platform, which reads the client's request as that adaptor does and
//! writes the upstream's own task (the record's `data`). The rules (channel type, states,
//! status map, progress) are `gatecheck_schemas::rules::platforms`; the routes that submit and
//! fetch are `routes/platform.rs` and `routes/video_unified.rs`.
//!
//! Adding a platform: a file here with an [`Adaptor`], its line in [`ADAPTORS`], its rules
//! file in `gatecheck-schemas` (a [`Platform`]), a model in the catalog fixture and a
//! DECISIONS row (docs/ARCHITECTURE.md, "Adding a video platform").

pub(crate) mod ali;
pub(crate) mod doubao;
pub(crate) mod gemini;
pub(crate) mod hailuo;
pub(crate) mod veo;
pub(crate) mod vertex;
pub(crate) mod vidu;

use gatecheck_schemas::rules::platforms::Platform;
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
    ADAPTORS
        .iter()
        .zip(2..)
        .map(|(a, id)| Channel {
            id,
            channel_type: a.rules.channel_type.parse().unwrap_or(0),
            name: a.rules.name.to_owned(),
            models: a.rules.models.iter().map(|m| (*m).to_owned()).collect(),
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
pub(crate) struct Read {
    /// new-api's action (`textGenerate`, `generate`...).
    pub action: &'static str,
    /// The duration the upstream renders, seconds.
    pub seconds: i64,
    /// The video's size, `WxH`.
    pub size: String,
}

/// The upstream's view of one task at one moment, for [`Adaptor::upstream`].
pub(crate) struct Upstream<'a> {
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

/// One platform of the mock.
pub(crate) struct Adaptor {
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
}

/// `ValidateBasicTaskRequest`'s refusal of a blank prompt.
pub(crate) fn prompt_required(_: &Map<String, Value>, prompt: &str) -> Result<(), String> {
    if prompt.trim().is_empty() {
        Err(gatecheck_schemas::rules::task::PROMPT_REQUIRED.to_owned())
    } else {
        Ok(())
    }
}

/// The common submit answer's status (relay/relay_task.go: `queued`).
pub(crate) fn queued(_: &Platform) -> &'static str {
    "queued"
}

/// Every adaptor, in the order of `rules::platforms::ALL`.
pub(crate) const ADAPTORS: [&Adaptor; 6] = [
    &vidu::ADAPTOR,
    &hailuo::ADAPTOR,
    &doubao::ADAPTOR,
    &ali::ADAPTOR,
    &gemini::ADAPTOR,
    &vertex::ADAPTOR,
];

/// Every word `POST /__mock/videos/{id}/upstream` may store for a platform: its upstream
/// states, and for a real-time platform (Gemini, Vertex) `unreachable`, the real-time fetch
/// failing (DECISIONS D-PLAT-22), and Gemini's `no_key` (D-PLAT-20).
pub(crate) fn control_words(p: &'static Platform) -> Vec<&'static str> {
    let mut words: Vec<_> = p.states.iter().map(|s| s.word).collect();
    if gatecheck_schemas::rules::platforms::is_realtime(p) {
        words.extend(gatecheck_schemas::rules::platforms::veo::control_words(p));
    }
    words
}

/// The adaptor of channel type `t` (`"52"`).
pub(crate) fn adaptor(t: &str) -> Option<&'static Adaptor> {
    let rules = gatecheck_schemas::rules::platforms::by_channel_type(t)?;
    ADAPTORS
        .into_iter()
        .find(|a| a.rules.channel_type == rules.channel_type)
}

/// A platform as the dashboard shows it: the channel type and a name (`52 vidu`).
pub(crate) fn platform_label(channel_type: &str) -> String {
    let name = match channel_type {
        "55" => "sora",
        "50" => "kling",
        "51" => "jimeng",
        t => adaptor(t).map_or("", |a| a.rules.name),
    };
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
    fn adaptors_follow_the_rules_list_and_channels_select() {
        let rules: Vec<_> = gatecheck_schemas::rules::platforms::ALL.to_vec();
        let ours: Vec<_> = ADAPTORS.iter().map(|a| a.rules).collect();
        assert_eq!(
            ours, rules,
            "one adaptor per rules::platforms entry, same order"
        );
        let channels = default_channels();
        let c = select(&channels, "viduq1", "").expect("vidu channel");
        assert_eq!((c.channel_type, c.upstream_model("viduq1")), (52, "viduq1"));
        assert!(select(&channels, "viduq1", "vip").is_none());
        assert!(select(&channels, "sora-2", "").is_none());
        assert!(adaptor("52").is_some() && adaptor("99").is_none());
    }
}
