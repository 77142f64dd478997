//! The events of streamed answers (`text/event-stream`, DECISIONS D-STREAM): one serde type
//! per event `type`, their usage blocks, and the schema of each.

use serde::{Deserialize, Serialize};

/// The token counts of a stream's terminal event (speech, image generation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamUsage {
    /// Input tokens.
    pub input_tokens: i64,
    /// Output tokens.
    pub output_tokens: i64,
    /// Sum of both.
    pub total_tokens: i64,
}

/// The usage of a transcription stream's `transcript.text.done`: tokens, or seconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TranscriptStreamUsage {
    /// `tokens` or `duration`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Input tokens (`tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<i64>,
    /// Output tokens (`tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<i64>,
    /// Sum of both (`tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<i64>,
    /// Seconds of audio (`duration`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
}

/// One event of a streamed answer (the `data:` JSON), by its `type` (DECISIONS D-STREAM).
///
/// ```
/// use gatecheck_schemas::types::StreamEvent;
/// let e: StreamEvent =
///     serde_json::from_str(r#"{"type":"transcript.text.delta","delta":" river"}"#).unwrap();
/// assert_eq!(e.schema_name(), "transcript-text-delta");
/// assert!(!e.is_terminal());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum StreamEvent {
    /// `speech.audio.delta`: a base64 part of the audio file.
    #[serde(rename = "speech.audio.delta")]
    SpeechAudioDelta {
        /// Base64 audio bytes.
        audio: String,
    },
    /// `speech.audio.done`: the end of a speech stream.
    #[serde(rename = "speech.audio.done")]
    SpeechAudioDone {
        /// Usage of the request.
        usage: StreamUsage,
    },
    /// `transcript.text.delta`: the next piece of text.
    #[serde(rename = "transcript.text.delta")]
    TranscriptTextDelta {
        /// The piece of text.
        delta: String,
        /// The diarized segment it belongs to (diarization models, `diarized_json`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        segment_id: Option<String>,
    },
    /// `transcript.text.segment`: a finished segment (diarization models).
    #[serde(rename = "transcript.text.segment")]
    TranscriptTextSegment {
        /// Segment id.
        id: String,
        /// Start, seconds.
        start: f64,
        /// End, seconds.
        end: f64,
        /// Text of the segment.
        text: String,
        /// Speaker label.
        speaker: String,
    },
    /// `transcript.text.done`: the whole text.
    #[serde(rename = "transcript.text.done")]
    TranscriptTextDone {
        /// The whole text (the deltas concatenated).
        text: String,
        /// Usage of the request.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<TranscriptStreamUsage>,
    },
    /// `image_generation.partial_image`: a partial rendering.
    #[serde(rename = "image_generation.partial_image")]
    ImagePartial {
        /// The PNG, base64.
        b64_json: String,
        /// Unix seconds.
        created_at: i64,
        /// `<w>x<h>`.
        size: String,
        /// 0-based index.
        partial_image_index: i64,
    },
    /// `image_generation.completed`: the final image.
    #[serde(rename = "image_generation.completed")]
    ImageCompleted {
        /// The PNG, base64.
        b64_json: String,
        /// Unix seconds.
        created_at: i64,
        /// `<w>x<h>`.
        size: String,
        /// Usage of the request.
        usage: StreamUsage,
    },
}

/// The schema of each streamed event type: `(type, schema name)`.
pub const STREAM_EVENT_SCHEMAS: [(&str, &str); 7] = [
    ("speech.audio.delta", "speech-audio-delta"),
    ("speech.audio.done", "speech-audio-done"),
    ("transcript.text.delta", "transcript-text-delta"),
    ("transcript.text.segment", "transcript-text-segment"),
    ("transcript.text.done", "transcript-text-done"),
    (
        "image_generation.partial_image",
        "image-generation-partial-image",
    ),
    ("image_generation.completed", "image-generation-completed"),
];

/// The schema name of a streamed event's `type`, if it is one.
///
/// ```
/// use gatecheck_schemas::types::stream_event_schema;
/// assert_eq!(stream_event_schema("speech.audio.done"), Some("speech-audio-done"));
/// assert_eq!(stream_event_schema("response.done"), None);
/// ```
pub fn stream_event_schema(event_type: &str) -> Option<&'static str> {
    STREAM_EVENT_SCHEMAS
        .iter()
        .find(|(t, _)| *t == event_type)
        .map(|(_, s)| *s)
}

impl StreamEvent {
    /// Its `type`.
    ///
    /// ```
    /// let e = gatecheck_schemas::types::StreamEvent::SpeechAudioDelta { audio: String::new() };
    /// assert_eq!(e.event_type(), "speech.audio.delta");
    /// ```
    pub fn event_type(&self) -> &'static str {
        let i = match self {
            Self::SpeechAudioDelta { .. } => 0,
            Self::SpeechAudioDone { .. } => 1,
            Self::TranscriptTextDelta { .. } => 2,
            Self::TranscriptTextSegment { .. } => 3,
            Self::TranscriptTextDone { .. } => 4,
            Self::ImagePartial { .. } => 5,
            Self::ImageCompleted { .. } => 6,
        };
        STREAM_EVENT_SCHEMAS[i].0
    }

    /// The name of its JSON Schema.
    ///
    /// ```
    /// let e = gatecheck_schemas::types::StreamEvent::SpeechAudioDelta { audio: String::new() };
    /// assert_eq!(e.schema_name(), "speech-audio-delta");
    /// ```
    pub fn schema_name(&self) -> &'static str {
        stream_event_schema(self.event_type()).unwrap_or_default()
    }

    /// Whether it ends its stream (`*.done`, `*.completed`).
    ///
    /// ```
    /// use gatecheck_schemas::types::{StreamEvent, StreamUsage};
    /// assert!(StreamEvent::SpeechAudioDone { usage: StreamUsage::default() }.is_terminal());
    /// ```
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            Self::SpeechAudioDone { .. }
                | Self::TranscriptTextDone { .. }
                | Self::ImageCompleted { .. }
        )
    }
}
