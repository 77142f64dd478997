//! The planted bugs of the audio routes (`audio.*`): speech formats, translations and
//! uploads.

use super::planted::{Bug, Planted};
use gatecheck_conformance::Status;

/// This surface's rows of [`planted`](super::planted::planted): (bug, the check that
/// catches it, its verdict, the rule it breaks).
pub(crate) fn rows() -> Vec<Planted> {
    vec![
        (
            Bug::WrongSpeechContentType,
            "audio.speech.mp3",
            Status::Failed,
            "types::SpeechFormat content type",
        ),
        (
            Bug::MissingText,
            "audio.translation.json-text",
            Status::Failed,
            "schemas translation-result",
        ),
        (
            Bug::UncheckedTemperature,
            "audio.translation.temperature-range",
            Status::Failed,
            "media::temperature_ok (TEMPERATURE)",
        ),
        (
            Bug::TextIsJson,
            "audio.translation.format-bodies",
            Status::Failed,
            "TranscriptFormat (json vs text)",
        ),
        (
            Bug::BrokenSrtCue,
            "audio.translation.format-bodies",
            Status::Failed,
            "media::parse_srt",
        ),
        (
            Bug::NoVttHeader,
            "audio.translation.format-bodies",
            Status::Failed,
            "media::parse_vtt",
        ),
        (
            Bug::Mp3Garbage,
            "audio.speech.mp3",
            Status::Failed,
            "media::parse_mp3",
        ),
        (
            Bug::UploadLimit400,
            "audio.upload.too-large-413",
            Status::Deviation,
            "Rejection::BodyTooLarge / media::MAX_UPLOAD_BYTES",
        ),
        (
            Bug::WavGarbage,
            "audio.speech.formats",
            Status::Deviation,
            "media::parse_wav / wav_header",
        ),
    ]
}
