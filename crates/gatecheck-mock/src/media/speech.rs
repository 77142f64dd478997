//! Text to speech: the audio of `POST /v1/audio/speech` in each response format.

use bytes::Bytes;

use super::wav::{tone, SPEECH_RATE};
use super::{aac, flac, fnv1a, mp3, opus, wav};

/// A speech output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpeechFormat {
    /// MPEG-1 Layer III frames (silent), `audio/mpeg`.
    Mp3,
    /// RIFF/WAVE PCM s16le 24 kHz mono (a voice-like tone), `audio/wav`.
    Wav,
    /// Ogg Opus (silent frames), `audio/ogg`.
    Opus,
    /// ADTS AAC-LC (silent frames), `audio/aac`.
    Aac,
    /// FLAC, 16-bit 24 kHz mono (the same tone as WAV), `audio/flac`.
    Flac,
    /// Raw PCM s16le 24 kHz mono (the same tone), `audio/pcm`.
    Pcm,
}

impl SpeechFormat {
    /// Every format, in the order of the wire names.
    pub const ALL: [Self; 6] = [
        Self::Mp3,
        Self::Wav,
        Self::Opus,
        Self::Aac,
        Self::Flac,
        Self::Pcm,
    ];

    /// Parses a wire name: `mp3`, `wav`, `opus`, `aac`, `flac` or `pcm`.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.as_str() == s)
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Mp3 => "mp3",
            Self::Wav => "wav",
            Self::Opus => "opus",
            Self::Aac => "aac",
            Self::Flac => "flac",
            Self::Pcm => "pcm",
        }
    }

    /// The `Content-Type` of the response.
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Mp3 => "audio/mpeg",
            Self::Wav => "audio/wav",
            Self::Opus => "audio/ogg",
            Self::Aac => "audio/aac",
            Self::Flac => "audio/flac",
            Self::Pcm => "audio/pcm",
        }
    }
}

/// The spoken duration of `input` at `speed` (1.0 normal): 400 ms plus 60 ms a character.
pub fn speech_duration_ms(input: &str, speed: f64) -> u64 {
    let speed = if speed.is_finite() && speed > 0.0 {
        speed.clamp(0.25, 4.0)
    } else {
        1.0
    };
    let chars = input.chars().count() as f64;
    ((400.0 + 60.0 * chars) / speed).round() as u64
}

/// The audio for `input` spoken by `voice` at `speed`, in `format`.
pub fn speech(format: SpeechFormat, input: &str, voice: &str, speed: f64) -> Bytes {
    let ms = speech_duration_ms(input, speed);
    let seed = fnv1a(voice.as_bytes());
    match format {
        SpeechFormat::Mp3 => mp3::mp3(ms),
        SpeechFormat::Opus => opus::opus(ms, SPEECH_RATE),
        SpeechFormat::Aac => aac::aac(ms, SPEECH_RATE),
        SpeechFormat::Wav => wav::wav(&tone(ms, SPEECH_RATE, seed), SPEECH_RATE),
        SpeechFormat::Flac => flac::flac(&tone(ms, SPEECH_RATE, seed), SPEECH_RATE),
        SpeechFormat::Pcm => wav::pcm(&tone(ms, SPEECH_RATE, seed)),
    }
}
