//! The embedded JSON Schema documents of `schemas/`, by resource name.
//!
//! The files are compiled into the crate (`include_str!`), so nothing is read from disk or the
//! network at run time. Each is a draft 2020-12 schema whose `$id` is
//! `https://gatecheck.dev/schemas/<name>.json`; shared definitions live in `common.json` and are
//! reached with relative `$ref`s.

use crate::rules::platforms::Platform;
use serde_json::Value;
use std::sync::LazyLock;

/// The base URI of every schema's `$id`.
pub const SCHEMA_BASE_URI: &str = "https://gatecheck.dev/schemas/";

/// The name of the shared-definitions document (`schemas/common.json`). It is not a resource:
/// [`schema_names`] does not list it and [`crate::validate`] refuses it.
pub const COMMON_DEFS: &str = "common";

/// Resource names, as used by [`crate::validate`], [`crate::schema`] and `gatecheck schemas`.
pub mod names {
    /// An API key record (`data` of the key-update response).
    pub const KEY_RECORD: &str = "key-record";
    /// The body of `PUT /api/token/`.
    pub const TOKEN_UPDATE_REQUEST: &str = "token-update-request";
    /// The response of `PUT /api/token/`: success (with the key record) or logical failure.
    pub const TOKEN_UPDATE_ENVELOPE: &str = "token-update-envelope";
    /// A video task (create and poll responses).
    pub const VIDEO_TASK: &str = "video-task";
    /// The fields of `POST /v1/videos`.
    pub const VIDEO_CREATE_REQUEST: &str = "video-create-request";
    /// A model record of the catalog (both forms of `endpoints`).
    pub const MODEL_RECORD: &str = "model-record";
    /// The catalog envelope of `GET /api/models`.
    pub const CATALOG_ENVELOPE: &str = "catalog-envelope";
    /// The body of `POST /v1/images/generations`.
    pub const IMAGE_REQUEST: &str = "image-request";
    /// The result of `POST /v1/images/generations`.
    pub const IMAGE_RESULT: &str = "image-result";
    /// The form fields of the translation and transcription routes.
    pub const TRANSCRIPTION_FORM: &str = "transcription-form";
    /// The `json` result of translation and transcription.
    pub const TRANSLATION_RESULT: &str = "translation-result";
    /// The `verbose_json` result of translation and transcription.
    pub const VERBOSE_TRANSCRIPTION: &str = "verbose-transcription";
    /// The body of `POST /v1/audio/speech`.
    pub const SPEECH_REQUEST: &str = "speech-request";
    /// The error body of the `/v1/*` routes.
    pub const V1_ERROR: &str = "v1-error";
    /// The logical-failure envelope of the `/api/*` routes.
    pub const API_FAILURE: &str = "api-failure";
    /// An event of a speech stream: a base64 part of the audio.
    pub const SPEECH_AUDIO_DELTA: &str = "speech-audio-delta";
    /// The terminal event of a speech stream, with the usage.
    pub const SPEECH_AUDIO_DONE: &str = "speech-audio-done";
    /// An event of a transcription stream: the next piece of text.
    pub const TRANSCRIPT_TEXT_DELTA: &str = "transcript-text-delta";
    /// An optional event of a transcription stream: one segment.
    pub const TRANSCRIPT_TEXT_SEGMENT: &str = "transcript-text-segment";
    /// The terminal event of a transcription stream: the whole text and the usage.
    pub const TRANSCRIPT_TEXT_DONE: &str = "transcript-text-done";
    /// An event of an image stream: a partial image.
    pub const IMAGE_GENERATION_PARTIAL_IMAGE: &str = "image-generation-partial-image";
    /// The terminal event of an image stream: the final image and the usage.
    pub const IMAGE_GENERATION_COMPLETED: &str = "image-generation-completed";
    /// The form fields of `POST /v1/images/edits` (DECISIONS D-EDIT).
    pub const IMAGE_EDIT_FORM: &str = "image-edit-form";
    /// The answer of `POST /mj/submit/*` (DECISIONS D-MJ).
    pub const MJ_SUBMIT_ANSWER: &str = "mj-submit-answer";
    /// The task record of `GET /mj/task/{id}/fetch` (DECISIONS D-MJ).
    pub const MJ_TASK: &str = "mj-task";
    /// new-api's task fetch envelope `{code:"success", message, data: TaskDto}`.
    pub const TASK_ENVELOPE: &str = "task-envelope";
    /// new-api's task error body `{code, message, data:null}`.
    pub const TASK_ERROR: &str = "task-error";
    /// The body of `POST /v1/videos/{video_id}/remix`.
    pub const VIDEO_REMIX_REQUEST: &str = "video-remix-request";
    /// The body of `POST /kling/v1/videos/{text2video|image2video}`.
    pub const KLING_VIDEO_REQUEST: &str = "kling-video-request";
    /// The body of `POST /jimeng/?Action=...`.
    pub const JIMENG_REQUEST: &str = "jimeng-request";
    /// The response of `GET /api/pricing` (DECISIONS D-CATALOG-2).
    pub const PRICING_ANSWER: &str = "pricing-answer";
    /// The response of `GET /api/status` (DECISIONS D-CATALOG-2).
    pub const STATUS_ANSWER: &str = "status-answer";
    /// The response of `GET /api/token/search` (DECISIONS D-TOKEN-6).
    pub const TOKEN_SEARCH_ENVELOPE: &str = "token-search-envelope";
    /// The response of `POST /api/token/batch` (DECISIONS D-TOKEN-7).
    pub const TOKEN_BATCH_ENVELOPE: &str = "token-batch-envelope";
    /// The response of `POST /api/token/batch/keys` (DECISIONS D-TOKEN-8).
    pub const TOKEN_KEYS_ENVELOPE: &str = "token-keys-envelope";
    /// `GET /v1/models` for Anthropic's clients (DECISIONS D-MODELS-1).
    pub const ANTHROPIC_MODEL_LIST: &str = "anthropic-model-list";
    /// `GET /v1beta/models`, Gemini's list (DECISIONS D-MODELS-3).
    pub const GEMINI_MODEL_LIST: &str = "gemini-model-list";
    // The `data` of each video platform's task record (DECISIONS D-PLAT).
    /// The `data` of a Vidu (52) task record: Vidu's own task.
    pub const VIDU_TASK_DATA: &str = "vidu-task-data";
    /// The `data` of a MiniMax/Hailuo (35) task record: MiniMax's own task.
    pub const HAILUO_TASK_DATA: &str = "hailuo-task-data";
    /// The `data` of a Doubao Seedance (54) task record: Ark's own task.
    pub const DOUBAO_TASK_DATA: &str = "doubao-task-data";
    /// The `data` of an Ali (17) task record: DashScope's own task.
    pub const ALI_TASK_DATA: &str = "ali-task-data";
    // Gemini and Vertex Veo.
    /// The `data` of a Gemini Veo task record: the operation (DECISIONS D-PLAT-20).
    pub const GEMINI_OPERATION: &str = "gemini-operation";
    /// The `data` of a Vertex Veo task record: the operation (DECISIONS D-PLAT-21).
    pub const VERTEX_OPERATION: &str = "vertex-operation";
    /// The real-time answer of a Gemini/Vertex task fetch (DECISIONS D-PLAT-22).
    pub const TASK_REALTIME_ENVELOPE: &str = "task-realtime-envelope";
}

/// `(name, file text)` of every embedded document, resources first, `common` last.
const STATIC_SOURCES: [(&str, &str); 39] = [
    (
        names::KEY_RECORD,
        include_str!("../schemas/key-record.json"),
    ),
    (
        names::TOKEN_UPDATE_REQUEST,
        include_str!("../schemas/token-update-request.json"),
    ),
    (
        names::TOKEN_UPDATE_ENVELOPE,
        include_str!("../schemas/token-update-envelope.json"),
    ),
    (
        names::VIDEO_TASK,
        include_str!("../schemas/video-task.json"),
    ),
    (
        names::VIDEO_CREATE_REQUEST,
        include_str!("../schemas/video-create-request.json"),
    ),
    (
        names::MODEL_RECORD,
        include_str!("../schemas/model-record.json"),
    ),
    (
        names::CATALOG_ENVELOPE,
        include_str!("../schemas/catalog-envelope.json"),
    ),
    (
        names::IMAGE_REQUEST,
        include_str!("../schemas/image-request.json"),
    ),
    (
        names::IMAGE_RESULT,
        include_str!("../schemas/image-result.json"),
    ),
    (
        names::TRANSCRIPTION_FORM,
        include_str!("../schemas/transcription-form.json"),
    ),
    (
        names::TRANSLATION_RESULT,
        include_str!("../schemas/translation-result.json"),
    ),
    (
        names::VERBOSE_TRANSCRIPTION,
        include_str!("../schemas/verbose-transcription.json"),
    ),
    (
        names::SPEECH_REQUEST,
        include_str!("../schemas/speech-request.json"),
    ),
    (names::V1_ERROR, include_str!("../schemas/v1-error.json")),
    (
        names::API_FAILURE,
        include_str!("../schemas/api-failure.json"),
    ),
    (
        names::SPEECH_AUDIO_DELTA,
        include_str!("../schemas/speech-audio-delta.json"),
    ),
    (
        names::SPEECH_AUDIO_DONE,
        include_str!("../schemas/speech-audio-done.json"),
    ),
    (
        names::TRANSCRIPT_TEXT_DELTA,
        include_str!("../schemas/transcript-text-delta.json"),
    ),
    (
        names::TRANSCRIPT_TEXT_SEGMENT,
        include_str!("../schemas/transcript-text-segment.json"),
    ),
    (
        names::TRANSCRIPT_TEXT_DONE,
        include_str!("../schemas/transcript-text-done.json"),
    ),
    (
        names::IMAGE_GENERATION_PARTIAL_IMAGE,
        include_str!("../schemas/image-generation-partial-image.json"),
    ),
    (
        names::IMAGE_GENERATION_COMPLETED,
        include_str!("../schemas/image-generation-completed.json"),
    ),
    (
        names::IMAGE_EDIT_FORM,
        include_str!("../schemas/image-edit-form.json"),
    ),
    (
        names::MJ_SUBMIT_ANSWER,
        include_str!("../schemas/mj-submit-answer.json"),
    ),
    (names::MJ_TASK, include_str!("../schemas/mj-task.json")),
    (
        names::TASK_ENVELOPE,
        include_str!("../schemas/task-envelope.json"),
    ),
    (
        names::TASK_ERROR,
        include_str!("../schemas/task-error.json"),
    ),
    (
        names::VIDEO_REMIX_REQUEST,
        include_str!("../schemas/video-remix-request.json"),
    ),
    (
        names::KLING_VIDEO_REQUEST,
        include_str!("../schemas/kling-video-request.json"),
    ),
    (
        names::JIMENG_REQUEST,
        include_str!("../schemas/jimeng-request.json"),
    ),
    (
        names::PRICING_ANSWER,
        include_str!("../schemas/pricing-answer.json"),
    ),
    (
        names::STATUS_ANSWER,
        include_str!("../schemas/status-answer.json"),
    ),
    (
        names::TOKEN_SEARCH_ENVELOPE,
        include_str!("../schemas/token-search-envelope.json"),
    ),
    (
        names::TOKEN_BATCH_ENVELOPE,
        include_str!("../schemas/token-batch-envelope.json"),
    ),
    (
        names::TOKEN_KEYS_ENVELOPE,
        include_str!("../schemas/token-keys-envelope.json"),
    ),
    (
        names::ANTHROPIC_MODEL_LIST,
        include_str!("../schemas/anthropic-model-list.json"),
    ),
    (
        names::GEMINI_MODEL_LIST,
        include_str!("../schemas/gemini-model-list.json"),
    ),
    // The video platforms' task data come from their descriptions (`rules::platforms`).
    (
        names::TASK_REALTIME_ENVELOPE,
        include_str!("../schemas/task-realtime-envelope.json"),
    ),
    (COMMON_DEFS, include_str!("../schemas/common.json")),
];

/// The resource names, in a stable order.
const STATIC_NAMES: [&str; 38] = [
    names::KEY_RECORD,
    names::TOKEN_UPDATE_REQUEST,
    names::TOKEN_UPDATE_ENVELOPE,
    names::VIDEO_TASK,
    names::VIDEO_CREATE_REQUEST,
    names::MODEL_RECORD,
    names::CATALOG_ENVELOPE,
    names::IMAGE_REQUEST,
    names::IMAGE_RESULT,
    names::TRANSCRIPTION_FORM,
    names::TRANSLATION_RESULT,
    names::VERBOSE_TRANSCRIPTION,
    names::SPEECH_REQUEST,
    names::V1_ERROR,
    names::API_FAILURE,
    names::SPEECH_AUDIO_DELTA,
    names::SPEECH_AUDIO_DONE,
    names::TRANSCRIPT_TEXT_DELTA,
    names::TRANSCRIPT_TEXT_SEGMENT,
    names::TRANSCRIPT_TEXT_DONE,
    names::IMAGE_GENERATION_PARTIAL_IMAGE,
    names::IMAGE_GENERATION_COMPLETED,
    names::IMAGE_EDIT_FORM,
    names::MJ_SUBMIT_ANSWER,
    names::MJ_TASK,
    names::TASK_ENVELOPE,
    names::TASK_ERROR,
    names::VIDEO_REMIX_REQUEST,
    names::KLING_VIDEO_REQUEST,
    names::JIMENG_REQUEST,
    names::PRICING_ANSWER,
    names::STATUS_ANSWER,
    names::TOKEN_SEARCH_ENVELOPE,
    names::TOKEN_BATCH_ENVELOPE,
    names::TOKEN_KEYS_ENVELOPE,
    names::ANTHROPIC_MODEL_LIST,
    names::GEMINI_MODEL_LIST,
    // The video platforms' task data come from their descriptions (`rules::platforms`).
    names::TASK_REALTIME_ENVELOPE,
];

/// One parsed document.
pub(crate) struct Document {
    /// Resource name, or [`COMMON_DEFS`].
    pub(crate) name: &'static str,
    /// The parsed schema, or why the embedded text does not parse (a build defect).
    pub(crate) value: Result<Value, String>,
}

/// Where the platforms' `data` schemas go in the lists: before the last two static sources
/// (the real-time envelope and `common`), the last static name.
fn with_platforms<T: Copy>(items: &[T], tail: usize, of: impl Fn(&Platform) -> T) -> Vec<T> {
    let (head, rest) = items.split_at(items.len() - tail);
    let platforms = crate::rules::platforms::all().iter().map(|p| of(p));
    head.iter()
        .copied()
        .chain(platforms)
        .chain(rest.iter().copied())
        .collect()
}

/// `(name, file text)` of every embedded document, resources first, `common` last: the
/// static ones and each video platform's `data` schema (its description's).
static SOURCES: LazyLock<Vec<(&'static str, &'static str)>> =
    LazyLock::new(|| with_platforms(&STATIC_SOURCES, 2, |p| (p.data_schema, p.data_schema_text)));

/// The resource names, in a stable order: the static ones and the platforms'.
static NAMES: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| with_platforms(&STATIC_NAMES, 1, |p| p.data_schema));

/// Every embedded document, parsed once.
pub(crate) static DOCUMENTS: LazyLock<Vec<Document>> = LazyLock::new(|| {
    SOURCES
        .iter()
        .map(|(name, text)| Document {
            name,
            value: serde_json::from_str(text).map_err(|e| format!("{name}.json: {e}")),
        })
        .collect()
});

/// The names of every resource schema, in a stable order (`common` is not one of them).
///
/// ```
/// assert!(gatecheck_schemas::schema_names().contains(&"video-task"));
/// assert_eq!(gatecheck_schemas::schema_names().len(), 44);
/// ```
pub fn schema_names() -> &'static [&'static str] {
    NAMES.as_slice()
}

/// The JSON Schema of a resource, or `None` for an unknown name.
///
/// ```
/// let schema = gatecheck_schemas::schema("video-task").unwrap();
/// assert_eq!(schema["$id"], "https://gatecheck.dev/schemas/video-task.json");
/// assert!(gatecheck_schemas::schema("nope").is_none());
/// ```
pub fn schema(name: &str) -> Option<&'static Value> {
    if !NAMES.contains(&name) {
        return None;
    }
    document(name)
}

/// Any embedded document (a resource or [`COMMON_DEFS`]), if it parses.
pub(crate) fn document(name: &str) -> Option<&'static Value> {
    DOCUMENTS
        .iter()
        .find(|d| d.name == name)
        .and_then(|d| d.value.as_ref().ok())
}

/// The `$id` of a document: [`SCHEMA_BASE_URI`] + `<name>.json`.
#[cfg(feature = "validate")]
pub(crate) fn id_of(name: &str) -> String {
    format!("{SCHEMA_BASE_URI}{name}.json")
}

/// What a relative `$ref` between the schema files points at.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum RefTarget {
    /// `common.json#/$defs/<name>`.
    Common(String),
    /// `<resource>.json`.
    Resource(String),
}

impl RefTarget {
    /// Parses `common.json#/$defs/size` or `key-record.json`.
    pub(crate) fn parse(reference: &str) -> Self {
        let (file, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let stem = file.trim_end_matches(".json");
        match fragment.strip_prefix("/$defs/") {
            Some(def) if stem == COMMON_DEFS => Self::Common(def.to_owned()),
            _ => Self::Resource(stem.to_owned()),
        }
    }

    /// The schema it points at.
    #[cfg(feature = "validate")]
    pub(crate) fn resolve(&self) -> Option<&'static Value> {
        match self {
            Self::Common(def) => document(COMMON_DEFS)?.get("$defs")?.get(def),
            Self::Resource(name) => schema(name),
        }
    }
}

/// A copy of `value` without `$schema` and `$id` at any level, every `$ref` rewritten by `map`.
pub(crate) fn rewrite_refs(value: &Value, map: &mut dyn FnMut(RefTarget) -> String) -> Value {
    match value {
        Value::Object(object) => {
            let mut out = serde_json::Map::new();
            for (key, v) in object {
                match (key.as_str(), v) {
                    ("$schema" | "$id", _) => {}
                    ("$ref", Value::String(r)) => {
                        out.insert(key.clone(), Value::String(map(RefTarget::parse(r))));
                    }
                    _ => {
                        out.insert(key.clone(), rewrite_refs(v, map));
                    }
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| rewrite_refs(v, map)).collect()),
        other => other.clone(),
    }
}
