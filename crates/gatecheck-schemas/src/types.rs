//! Serde types for every resource and request of the contract.
//!
//! These are the typed face of the JSON Schemas in `schemas/`: a value of one of these types,
//! serialized, validates against the schema of the same name (a property test holds them to it).
//! Response types ignore unknown fields, as a real deployment may add some.

use serde::{Deserialize, Serialize};

mod stream;
mod tasks;
pub use stream::{
    stream_event_schema, StreamEvent, StreamUsage, TranscriptStreamUsage, STREAM_EVENT_SCHEMAS,
};
pub use tasks::{ImageEditForm, MjSubmitAnswer, MjTask};

/// Key status 1: enabled for model requests.
pub const KEY_STATUS_ENABLED: i64 = 1;
/// Key status 2: disabled.
pub const KEY_STATUS_DISABLED: i64 = 2;
/// Key status 3: expired.
pub const KEY_STATUS_EXPIRED: i64 = 3;
/// Key status 4: quota exhausted.
pub const KEY_STATUS_EXHAUSTED: i64 = 4;

/// An API key record, as returned inside `data` of the key-update response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyRecord {
    /// Key identifier.
    pub id: i64,
    /// Owning account.
    pub user_id: i64,
    /// The key secret, stored without the `sk-` prefix.
    pub key: String,
    /// 1 enabled, 2 disabled, 3 expired, 4 quota exhausted.
    pub status: i64,
    /// Display name, at most 50 Unicode characters.
    pub name: String,
    /// Unix seconds.
    pub created_time: i64,
    /// Unix seconds.
    pub accessed_time: i64,
    /// Unix seconds; -1 means never expires.
    pub expired_time: i64,
    /// Remaining quota in internal units.
    pub remain_quota: i64,
    /// When true, remaining-quota checks are bypassed.
    pub unlimited_quota: bool,
    /// When false, `model_limits` is ignored.
    pub model_limits_enabled: bool,
    /// Comma-separated model identifiers; empty means no restriction.
    pub model_limits: String,
    /// Newline-separated IP allowlist; null or empty means no restriction.
    pub allow_ips: Option<String>,
    /// Quota consumed.
    pub used_quota: i64,
    /// Account group restriction; empty means none.
    pub group: String,
    /// Cross-group retry for automatic group routing.
    pub cross_group_retry: bool,
}

/// The body of `PUT /api/token/`. Omitted fields are `None` and are not serialized.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUpdateRequest {
    /// Key identifier (required).
    pub id: i64,
    /// New display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// New status, 1 to 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<i64>,
    /// Unix seconds, or -1 for no expiry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expired_time: Option<i64>,
    /// Remaining quota.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remain_quota: Option<i64>,
    /// Bypass remaining-quota checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unlimited_quota: Option<bool>,
    /// Enable `model_limits`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_limits_enabled: Option<bool>,
    /// Comma-separated model identifiers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_limits: Option<String>,
    /// Newline-separated allowlist. `Some(None)` sends an explicit `null`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "double_option"
    )]
    pub allow_ips: Option<Option<String>>,
    /// Group restriction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Cross-group retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_group_retry: Option<bool>,
}

/// `Option<Option<T>>` that tells an absent field from an explicit `null`.
mod double_option {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(super) fn serialize<S: Serializer, T: Serialize>(
        value: &Option<Option<T>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(inner) => inner.serialize(serializer),
            None => serializer.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        deserializer: D,
    ) -> Result<Option<Option<T>>, D::Error> {
        Option::<T>::deserialize(deserializer).map(Some)
    }
}

/// The `/api/*` envelope: `{success, message, data}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "T: Deserialize<'de>"))]
pub struct ApiEnvelope<T> {
    /// True on success.
    pub success: bool,
    /// Empty on success; the reason otherwise.
    #[serde(default)]
    pub message: String,
    /// The payload, absent on a logical failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<T>,
}

/// The `/api/*` logical failure: HTTP 200 with `{success:false, message}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiFailure {
    /// Always false.
    pub success: bool,
    /// What went wrong.
    pub message: String,
}

/// The `/v1/*` error body: `{"error":{message,type,param,code}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct V1Error {
    /// The error object.
    pub error: V1ErrorDetail,
}

/// The inner object of [`V1Error`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct V1ErrorDetail {
    /// Human-readable reason.
    pub message: String,
    /// Error type; `new_api_error` from the gateway itself.
    #[serde(rename = "type")]
    pub kind: String,
    /// The offending parameter, if any.
    pub param: Option<String>,
    /// A machine-readable code, if any.
    pub code: Option<String>,
}

/// Video task status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VideoStatus {
    /// Initial state, progress 0.
    Queued,
    /// Running; progress between 0 and 99.
    InProgress,
    /// Terminal success; progress 100.
    Completed,
    /// Terminal failure.
    Failed,
    /// Terminal error.
    Error,
}

impl VideoStatus {
    /// Whether polling stops at this status.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Error)
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::InProgress => "in_progress",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Error => "error",
        }
    }
}

/// The error of a failed video task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VideoTaskError {
    /// Machine-readable code.
    pub code: String,
    /// Human-readable reason.
    pub message: String,
}

/// A video task, as returned by the create and poll routes.
///
/// `S` is its string type: `String` (the default) for a task read from an answer, `&str` for
/// one rendered from borrowed parts (the mock serializes a poll answer without copying the
/// task's strings); [`VideoTask::into_owned`] turns the second into the first.
///
/// Serialized by hand (the same bytes as [`VideoTask::write_json`]): `None` fields are left
/// out, except OpenAI's nullable keys ([`crate::rules::video::OPENAI_NULLABLE_KEYS`]), which
/// are written `null` when [`VideoTask::openai_nulls`] is set (the documented profile, as
/// OpenAI's `VideoResource` requires them; DECISIONS D-ROUTE-4).
///
/// ```
/// use gatecheck_schemas::types::{VideoStatus, VideoTask};
/// let view: VideoTask<&str> = VideoTask {
///     id: "task_1", task_id: "task_1", object: "video", model: "sora-2",
///     status: VideoStatus::Queued, progress: 0, created_at: 0, completed_at: None,
///     expires_at: None, prompt: Some("a boat"), remixed_from_video_id: None,
///     video_url: None, seconds: Some("4"), size: Some("720x1280"), error: None, metadata: None,
///     openai_nulls: true,
/// };
/// let owned: VideoTask = view.clone().into_owned();
/// assert_eq!(serde_json::to_value(&view).unwrap(), serde_json::to_value(&owned).unwrap());
/// assert!(serde_json::to_value(&view).unwrap()["expires_at"].is_null());
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct VideoTask<S = String> {
    /// Task identifier (DECISIONS.md: `task_` + 32 letters and digits; a deployment may differ).
    pub id: S,
    /// Same as `id` (empty when the response omits it, as new-api may).
    #[serde(default)]
    pub task_id: S,
    /// Always `video`.
    pub object: S,
    /// Model identifier.
    pub model: S,
    /// Lifecycle status.
    pub status: VideoStatus,
    /// 0..=100; 100 exactly when completed.
    pub progress: i64,
    /// Unix seconds (present in the create response; 0 when a poll response omits it).
    #[serde(default)]
    pub created_at: i64,
    /// Unix seconds, when completed.
    #[serde(default)]
    pub completed_at: Option<i64>,
    /// Unix seconds when the downloadable assets expire, if set (OpenAI's `expires_at`).
    #[serde(default)]
    pub expires_at: Option<i64>,
    /// The prompt the task was created with (OpenAI's `prompt`; new-api does not show it).
    #[serde(default)]
    pub prompt: Option<S>,
    /// The source task of a remix (OpenAI's `remixed_from_video_id`).
    #[serde(default)]
    pub remixed_from_video_id: Option<S>,
    /// Result URL, when completed.
    #[serde(default)]
    pub video_url: Option<S>,
    /// Duration in seconds, as a string.
    #[serde(default)]
    pub seconds: Option<S>,
    /// `<w>x<h>`.
    #[serde(default)]
    pub size: Option<S>,
    /// Set on failed and error tasks.
    #[serde(default)]
    pub error: Option<VideoTaskError>,
    /// Extra result fields; `metadata.url` mirrors `video_url`.
    #[serde(default)]
    pub metadata: Option<serde_json::Value>,
    /// Whether OpenAI's nullable keys are written `null` when unset (the documented profile)
    /// rather than left out (new-api's `omitempty`). Not part of the JSON; `false` when read.
    #[serde(skip)]
    pub openai_nulls: bool,
}

impl<S: AsRef<str>> Serialize for VideoTask<S> {
    fn serialize<Se: serde::Serializer>(&self, ser: Se) -> Result<Se::Ok, Se::Error> {
        use serde::ser::SerializeMap;
        let mut m = ser.serialize_map(None)?;
        m.serialize_entry("id", self.id.as_ref())?;
        if !self.task_id.as_ref().is_empty() {
            m.serialize_entry("task_id", self.task_id.as_ref())?;
        }
        m.serialize_entry("object", self.object.as_ref())?;
        m.serialize_entry("model", self.model.as_ref())?;
        m.serialize_entry("status", &self.status)?;
        m.serialize_entry("progress", &self.progress)?;
        m.serialize_entry("created_at", &self.created_at)?;
        let nulls = self.openai_nulls;
        fn text<S: AsRef<str>>(v: &Option<S>) -> Option<&str> {
            v.as_ref().map(AsRef::as_ref)
        }
        // (name, value, written as null when unset) in the order of `write_json`.
        if self.completed_at.is_some() || nulls {
            m.serialize_entry("completed_at", &self.completed_at)?;
        }
        if self.expires_at.is_some() || nulls {
            m.serialize_entry("expires_at", &self.expires_at)?;
        }
        for (name, value, nullable) in [
            ("prompt", text(&self.prompt), true),
            (
                "remixed_from_video_id",
                text(&self.remixed_from_video_id),
                true,
            ),
            ("video_url", text(&self.video_url), false),
            ("seconds", text(&self.seconds), false),
            ("size", text(&self.size), false),
        ] {
            if value.is_some() || (nullable && nulls) {
                m.serialize_entry(name, &value)?;
            }
        }
        if self.error.is_some() || nulls {
            m.serialize_entry("error", &self.error)?;
        }
        if let Some(metadata) = &self.metadata {
            m.serialize_entry("metadata", metadata)?;
        }
        m.end()
    }
}

impl<S: AsRef<str>> VideoTask<S> {
    /// The same task with owned strings.
    pub fn into_owned(self) -> VideoTask {
        let own = |s: S| s.as_ref().to_owned();
        VideoTask {
            id: own(self.id),
            task_id: own(self.task_id),
            object: own(self.object),
            model: own(self.model),
            status: self.status,
            progress: self.progress,
            created_at: self.created_at,
            completed_at: self.completed_at,
            expires_at: self.expires_at,
            prompt: self.prompt.map(own),
            remixed_from_video_id: self.remixed_from_video_id.map(own),
            video_url: self.video_url.map(own),
            seconds: self.seconds.map(own),
            size: self.size.map(own),
            error: self.error,
            metadata: self.metadata,
            openai_nulls: self.openai_nulls,
        }
    }
}

/// `seconds` of a video-create request: a string or an integer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SecondsValue {
    /// `"8"`.
    Text(String),
    /// `8`.
    Number(i64),
}

/// The body of `POST /v1/videos` (JSON form; the form encodings carry the same fields).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VideoCreateRequest {
    /// A video-capable model.
    pub model: String,
    /// Non-empty prompt.
    pub prompt: String,
    /// Duration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<SecondsValue>,
    /// `<w>x<h>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<String>,
}

/// `endpoints` of a model record: both forms occur.
///
/// Read by a visitor of its own rather than serde's `untagged`, which buffers every value
/// before it tries each form: a catalog parses in half the code, and the mock's first start
/// reads one (BENCHMARKS.md, "Ninth session"). A property test compares it with the `untagged`
/// derive.
///
/// ```
/// use gatecheck_schemas::types::Endpoints;
/// let e: Endpoints = serde_json::from_str(r#"["openai"]"#).unwrap();
/// assert_eq!(e, Endpoints::Formats(vec!["openai".into()]));
/// assert!(serde_json::from_str::<Endpoints>("1").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Endpoints {
    /// A JSON-encoded string holding a map from label to `{path, method}`.
    Encoded(String),
    /// An array of format names.
    Formats(Vec<String>),
}

/// One entry of the JSON-encoded `endpoints` map.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndpointRoute {
    /// Route path.
    pub path: String,
    /// HTTP method.
    pub method: String,
}

impl<'de> Deserialize<'de> for Endpoints {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Forms;
        impl<'de> serde::de::Visitor<'de> for Forms {
            type Value = Endpoints;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON-encoded string or an array of format names")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Endpoints, E> {
                Ok(Endpoints::Encoded(s.to_owned()))
            }
            fn visit_string<E: serde::de::Error>(self, s: String) -> Result<Endpoints, E> {
                Ok(Endpoints::Encoded(s))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Endpoints, A::Error> {
                let mut formats = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
                while let Some(format) = seq.next_element::<String>()? {
                    formats.push(format);
                }
                Ok(Endpoints::Formats(formats))
            }
        }
        deserializer.deserialize_any(Forms)
    }
}

impl Endpoints {
    /// Decodes the string form into its map; `None` for the array form or bad JSON.
    pub fn decode(&self) -> Option<std::collections::BTreeMap<String, EndpointRoute>> {
        match self {
            Self::Encoded(s) => serde_json::from_str(s).ok(),
            Self::Formats(_) => None,
        }
    }
}

/// Catalog pricing; each price is a number or null.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pricing {
    /// Currency code, e.g. `USD`.
    pub currency: String,
    /// Price per million input tokens.
    pub input: Option<f64>,
    /// Price per million output tokens.
    pub output: Option<f64>,
    /// Price per request.
    pub per_request: Option<f64>,
    /// Price per second (of video or audio).
    pub per_second: Option<f64>,
}

/// A model record of the catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRecord {
    /// Unix seconds (may be 0).
    pub created: i64,
    /// Model identifier.
    pub id: String,
    /// Equal to `id`.
    pub code: String,
    /// Provider display name.
    pub provider: String,
    /// Provider short code.
    pub provider_code: String,
    /// Display name.
    pub name: String,
    /// `video`, `audio` or `image`.
    pub model_type: String,
    /// Feature tags such as `text-to-video`.
    pub features: Vec<String>,
    /// Endpoints, in either form.
    pub endpoints: Endpoints,
    /// Pricing.
    pub pricing: Pricing,
}

/// The catalog envelope of `GET /api/models`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CatalogEnvelope {
    /// True on success.
    pub success: bool,
    /// 1-based page number.
    pub page: i64,
    /// Page size.
    pub page_size: i64,
    /// Total number of matching records.
    pub total: i64,
    /// The page's records.
    pub data: Vec<ModelRecord>,
}

/// The body of `POST /v1/images/generations`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageRequest {
    /// An image-capable model.
    pub model: String,
    /// The prompt.
    pub prompt: String,
    /// `<w>x<h>`, accepted by the model.
    pub size: String,
    /// Number of images, 1 to 10.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<i64>,
    /// `b64_json` or `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<String>,
    /// Quality hint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<String>,
}

/// One image of a generation result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageItem {
    /// Base64 PNG.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b64_json: Option<String>,
    /// Result URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// Token breakdown of image usage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenDetails {
    /// Image tokens.
    pub image_tokens: i64,
    /// Text tokens.
    pub text_tokens: i64,
}

/// Image generation usage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageUsage {
    /// Input tokens.
    pub input_tokens: i64,
    /// Output tokens.
    pub output_tokens: i64,
    /// Sum of both.
    pub total_tokens: i64,
    /// Input breakdown.
    pub input_tokens_details: TokenDetails,
    /// Output breakdown.
    pub output_tokens_details: TokenDetails,
}

/// The result of `POST /v1/images/generations`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageResult {
    /// Unix seconds.
    pub created: i64,
    /// E.g. `opaque`.
    pub background: String,
    /// The images.
    pub data: Vec<ImageItem>,
    /// E.g. `png`.
    pub output_format: String,
    /// E.g. `low`.
    pub quality: String,
    /// `<w>x<h>`.
    pub size: String,
    /// Token usage.
    pub usage: ImageUsage,
}

/// `response_format` of the translation and transcription routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TranscriptFormat {
    /// `{text}` (the default).
    Json,
    /// `text/plain`.
    Text,
    /// SubRip subtitles.
    Srt,
    /// `{task, language, duration, text, segments}`.
    VerboseJson,
    /// WebVTT subtitles.
    Vtt,
}

impl TranscriptFormat {
    /// All five formats.
    pub const ALL: [Self; 5] = [
        Self::Json,
        Self::Text,
        Self::Srt,
        Self::VerboseJson,
        Self::Vtt,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Json => "json",
            Self::Text => "text",
            Self::Srt => "srt",
            Self::VerboseJson => "verbose_json",
            Self::Vtt => "vtt",
        }
    }
}

/// The audio file extensions the translation route accepts.
pub const AUDIO_EXTENSIONS: [&str; 9] = [
    "flac", "mp3", "mp4", "mpeg", "mpga", "m4a", "ogg", "wav", "webm",
];

/// The form fields of the translation and transcription routes (the `file` part aside).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TranscriptionForm {
    /// A speech model.
    pub model: String,
    /// Style prompt, in English.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// One of the five formats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<TranscriptFormat>,
    /// 0 to 1 inclusive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Source language (transcription only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
}

/// The `json` result of translation and transcription.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TranslationResult {
    /// The text.
    pub text: String,
}

/// One segment of a `verbose_json` result, as OpenAI's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TranscriptSegment {
    /// Index.
    pub id: i64,
    /// Seek offset.
    pub seek: i64,
    /// Start, seconds.
    pub start: f64,
    /// End, seconds.
    pub end: f64,
    /// Segment text.
    pub text: String,
    /// Token ids.
    pub tokens: Vec<i64>,
    /// Temperature used.
    pub temperature: f64,
    /// Average log probability.
    pub avg_logprob: f64,
    /// Compression ratio.
    pub compression_ratio: f64,
    /// Probability of no speech.
    pub no_speech_prob: f64,
}

/// The `verbose_json` result of translation and transcription.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerboseTranscription {
    /// `translate` or `transcribe`.
    pub task: String,
    /// Language of the text.
    pub language: String,
    /// Audio duration, seconds.
    pub duration: f64,
    /// Full text.
    pub text: String,
    /// Segments.
    pub segments: Vec<TranscriptSegment>,
}

/// The body of `POST /v1/audio/speech`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpeechRequest {
    /// A speech model.
    pub model: String,
    /// 1 to 4096 characters.
    pub input: String,
    /// One of the model's voices.
    pub voice: String,
    /// mp3, wav, opus, aac, flac or pcm.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<String>,
    /// Playback speed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<f64>,
}

/// An account of the fixtures (not a wire resource of the spec).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    /// User id.
    pub id: i64,
    /// Login name.
    pub username: String,
    /// Personal access token for `/api/token/`.
    pub access_token: String,
    /// Groups the account may put on its keys.
    pub groups: Vec<String>,
}

/// What one model can do: fixture data read by the mock and by the runner.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelCapabilities {
    /// Image generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageCapability>,
    /// Text to speech.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speech: Option<SpeechCapability>,
    /// Translation and transcription.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcription: Option<TranscriptionCapability>,
    /// Video generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub video: Option<VideoCapability>,
}

/// Image capability of a model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageCapability {
    /// Accepted sizes, `<w>x<h>`.
    pub sizes: Vec<String>,
    /// `b64_json` or `url`.
    pub output: String,
}

/// Speech capability of a model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpeechCapability {
    /// Accepted voices.
    pub voices: Vec<String>,
    /// Accepted response formats.
    pub formats: Vec<String>,
}

/// Transcription capability of a model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TranscriptionCapability {
    /// Serves `/v1/audio/translations`.
    pub translation: bool,
    /// Serves `/v1/audio/transcriptions`.
    pub transcription: bool,
}

/// Video capability of a model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VideoCapability {
    /// Accepted sizes, `<w>x<h>`.
    pub sizes: Vec<String>,
    /// Accepted durations, seconds.
    pub seconds: Vec<i64>,
    /// Size used when the request names none.
    pub default_size: String,
    /// Duration used when the request names none.
    pub default_seconds: i64,
}
