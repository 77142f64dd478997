//! Media validators: parsers that check a PNG, MP3, WAV, FLAC, Ogg Opus, ADTS AAC, MP4 or a
//! subtitle file is well formed and report what it holds (size, duration, frame counts).
//!
//! The mock's tests parse every medium it makes with these, and the conformance runner uses the
//! same functions as oracles on a target's responses (a PNG's IHDR must match the requested
//! size, an MP4 must be a box tree with a video track, and so on). Pure functions, no I/O; bad
//! input gives a [`MediaError`], never a panic.

mod audio;
mod container;
mod crc;
mod image;
mod subtitle;

pub use audio::{parse_adts, parse_flac, parse_mp3, parse_ogg_opus, parse_wav, parse_wav_head};
pub use audio::{AdtsInfo, FlacInfo, Mp3Info, OggOpusInfo, WavInfo, ADTS_RATES};
pub use container::{parse_mp4, Mp4Info, Mp4Track};
pub use image::{parse_png, PngInfo};

/// The largest accepted upload (DECISIONS: 25 MiB); larger bodies are answered 413.
pub const MAX_UPLOAD_BYTES: usize = 25 * 1024 * 1024;

/// The longest side of a result image the public media route draws (pixels).
pub const MAX_IMAGE_SIDE: u32 = 4096;

/// The most pixels of a result image the media route draws (bounds the memory of one encode);
/// a larger one is answered 404.
pub const MAX_IMAGE_PIXELS: u64 = MAX_IMAGE_SIDE as u64 * MAX_IMAGE_SIDE as u64;
pub use subtitle::{parse_srt, parse_vtt, Cue};

/// Why a medium failed to parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{format}: {reason}")]
pub struct MediaError {
    /// The format being parsed, e.g. `png`.
    pub format: &'static str,
    /// What is wrong.
    pub reason: String,
}

impl MediaError {
    pub(crate) fn new(format: &'static str, reason: impl Into<String>) -> Self {
        Self {
            format,
            reason: reason.into(),
        }
    }
}

/// Reads a big-endian `u16` at `at`, if the bytes are there.
pub(crate) fn be16(b: &[u8], at: usize) -> Option<u16> {
    let s = b.get(at..at.checked_add(2)?)?;
    Some(u16::from_be_bytes([s[0], s[1]]))
}

/// Reads a big-endian `u32` at `at`, if the bytes are there.
pub(crate) fn be32(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
}

/// Reads a big-endian `u64` at `at`, if the bytes are there.
pub(crate) fn be64(b: &[u8], at: usize) -> Option<u64> {
    let s = b.get(at..at.checked_add(8)?)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(s);
    Some(u64::from_be_bytes(a))
}

/// Reads a little-endian `u16` at `at`, if the bytes are there.
pub(crate) fn le16(b: &[u8], at: usize) -> Option<u16> {
    let s = b.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([s[0], s[1]]))
}

/// Reads a little-endian `u32` at `at`, if the bytes are there.
pub(crate) fn le32(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// Reads a little-endian `u64` at `at`, if the bytes are there.
pub(crate) fn le64(b: &[u8], at: usize) -> Option<u64> {
    let s = b.get(at..at.checked_add(8)?)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(s);
    Some(u64::from_le_bytes(a))
}

pub use crc::{crc16_flac, crc16_flac_update, crc32_ieee, crc32_ogg, crc8_flac};

/// The translation route's `temperature` range, inclusive (spec: "temperature 0 to 1").
pub const TEMPERATURE: std::ops::RangeInclusive<f64> = 0.0..=1.0;

/// The size an image request without `size` gets: none in `documented` (the request is
/// refused); in `new-api`, `1024x1024` for the DALL·E models, whose size new-api fills in
/// before relaying (relay/helper/valid_request.go GetAndValidOpenAIImageRequest, DECISIONS
/// NA9); other models' requests are relayed without one, and the mock refuses them.
///
/// ```
/// use gatecheck_schemas::{rules::media::default_image_size, Profile};
/// assert_eq!(default_image_size(Profile::NewApi, "dall-e-3"), Some("1024x1024"));
/// assert_eq!(default_image_size(Profile::NewApi, "gpt-image-1"), None);
/// assert_eq!(default_image_size(Profile::Documented, "dall-e-3"), None);
/// ```
pub fn default_image_size(profile: crate::Profile, model: &str) -> Option<&'static str> {
    let dall_e = matches!(model, "dall-e" | "dall-e-2" | "dall-e-3");
    (profile == crate::Profile::NewApi && dall_e).then_some("1024x1024")
}

/// The `quality` new-api fills in for an image request without one before relaying it
/// (relay/helper/valid_request.go GetAndValidOpenAIImageRequest): `standard` for dall-e-3,
/// `auto` for gpt-image-1; none in `documented` (the mock's own default, `low`, applies).
/// Seen on 823e263 built and run behind the mock (docs/new-api-live.md): a dall-e-3 image
/// without `quality` is billed as `standard`.
///
/// ```
/// use gatecheck_schemas::{rules::media::default_image_quality, Profile};
/// assert_eq!(default_image_quality(Profile::NewApi, "dall-e-3"), Some("standard"));
/// assert_eq!(default_image_quality(Profile::NewApi, "flux-schnell"), None);
/// assert_eq!(default_image_quality(Profile::Documented, "dall-e-3"), None);
/// ```
pub fn default_image_quality(profile: crate::Profile, model: &str) -> Option<&'static str> {
    match (profile, model) {
        (crate::Profile::NewApi, "dall-e-3") => Some("standard"),
        (crate::Profile::NewApi, "gpt-image-1") => Some("auto"),
        _ => None,
    }
}

/// The model new-api's distributor routes a request without `model` by
/// (middleware/distributor.go getModelRequest, `GetStringIfEmpty`): `dall-e` on image
/// generation, `tts-1` on speech, `whisper-1` on translation and transcription. A deployment
/// without a channel for it answers its 503 `model_not_found` (DECISIONS NA5) before the
/// relay's own `model is required`: a client that forgets `model` is told to retry.
///
/// ```
/// use gatecheck_schemas::rules::media::distributor_model;
/// assert_eq!(distributor_model("/v1/images/generations"), Some("dall-e"));
/// assert_eq!(distributor_model("/v1/videos"), None);
/// ```
pub fn distributor_model(path: &str) -> Option<&'static str> {
    match path {
        "/v1/images/generations" => Some("dall-e"),
        "/v1/audio/speech" => Some("tts-1"),
        "/v1/audio/translations" | "/v1/audio/transcriptions" => Some("whisper-1"),
        _ => None,
    }
}

/// The extensions new-api 823e263 measures an uploaded audio file by before relaying it
/// (common/audio.go GetAudioDuration, called by service/token_counter.go when `CountToken`
/// is on, its default). A file named otherwise (`.mpga`, `.mpeg` among the spec's nine) is
/// refused with [`new_api_unmeasured`]'s message, and so is a file its decoder cannot read
/// (WAV bytes named `.flac`): DECISIONS NA15.
pub const NEW_API_MEASURED_EXTENSIONS: [&str; 13] = [
    "mp3", "wav", "flac", "m4a", "mp4", "ogg", "oga", "opus", "aiff", "aif", "aifc", "webm", "aac",
];

/// new-api's code for an upload it could not measure (500, DECISIONS NA15).
pub const NEW_API_UNMEASURED_CODE: &str = "count_token_failed";
/// The status of new-api's refusal of an upload it could not measure (DECISIONS NA15).
pub const NEW_API_UNMEASURED_STATUS: u16 = 500;

/// new-api's refusal of an audio upload whose extension it cannot measure (the extension
/// compared as given, with Go's `filepath.Ext`: case-sensitive), or `None`.
///
/// ```
/// use gatecheck_schemas::rules::media::new_api_unmeasured;
/// assert_eq!(
///     new_api_unmeasured("speech.mpga").as_deref(),
///     Some("error getting audio duration: unsupported audio format: .mpga")
/// );
/// assert_eq!(new_api_unmeasured("speech.wav"), None);
/// ```
pub fn new_api_unmeasured(filename: &str) -> Option<String> {
    let ext = filename
        .rsplit_once('.')
        .map(|(_, e)| e)
        .unwrap_or_default();
    let dot = if ext.is_empty() {
        String::new()
    } else {
        format!(".{ext}")
    };
    (!NEW_API_MEASURED_EXTENSIONS.contains(&ext))
        .then(|| format!("error getting audio duration: unsupported audio format: {dot}"))
}

/// An image or video `size`, `<w>x<h>`, as numbers: `None` unless both are positive integers.
///
/// ```
/// use gatecheck_schemas::rules::media::parse_size;
/// assert_eq!(parse_size("1024x768"), Some((1024, 768)));
/// assert_eq!(parse_size("0x768"), None);
/// assert_eq!(parse_size("1024"), None);
/// ```
pub fn parse_size(s: &str) -> Option<(u32, u32)> {
    let (w, h) = s.split_once('x')?;
    let (w, h) = (w.parse().ok()?, h.parse().ok()?);
    (w > 0 && h > 0).then_some((w, h))
}

/// Most `partial_images` of a streamed image generation (0 to 3).
pub const MAX_PARTIAL_IMAGES: i64 = 3;

/// `n` of an image generation or edit: 1 to 10 (OpenAI's bounds; DECISIONS.md: default 1).
pub const IMAGE_COUNT: std::ops::RangeInclusive<i64> = 1..=10;

/// `speed` of a speech request: 0.25 to 4 (OpenAI's bounds; default 1).
pub const SPEECH_SPEED: std::ops::RangeInclusive<f64> = 0.25..=4.0;

/// `n` of a streamed image generation: a stream carries one image, so `"stream": true` with
/// another `n` is refused (400 `n must be 1 when streaming`; OpenAI's streamed image events
/// carry no image index, DECISIONS D-STREAM-3). The OpenAPI document says it with `if`/`then`.
pub const STREAMED_IMAGE_COUNT: i64 = 1;

/// Whether `model` may stream speech (`stream_format: "sse"`): every speech model but
/// `tts-1` and `tts-1-hd` (OpenAI's API reference; DECISIONS D-STREAM-1).
///
/// ```
/// use gatecheck_schemas::rules::media::speech_sse_supported;
/// assert!(speech_sse_supported("gpt-4o-mini-tts"));
/// assert!(!speech_sse_supported("tts-1-hd"));
/// ```
pub fn speech_sse_supported(model: &str) -> bool {
    !matches!(model, "tts-1" | "tts-1-hd")
}

/// Whether a transcription with `stream=true` on `model` is streamed: not on `whisper-1`,
/// whose `stream` is ignored (OpenAI's API reference; DECISIONS D-STREAM-2).
///
/// ```
/// use gatecheck_schemas::rules::media::transcription_streams;
/// assert!(transcription_streams("gpt-4o-mini-transcribe"));
/// assert!(!transcription_streams("whisper-1"));
/// ```
pub fn transcription_streams(model: &str) -> bool {
    model != "whisper-1"
}

/// The transcription `response_format` whose stream carries `transcript.text.segment` events
/// (OpenAI's `AudioResponseFormat`; DECISIONS D-STREAM-5).
pub const DIARIZED_JSON: &str = "diarized_json";

/// Whether `model` is a diarization model (`gpt-4o-transcribe-diarize`): the only models that
/// take `response_format` `diarized_json` and stream `transcript.text.segment` events with
/// it (OpenAI's OpenAPI document, `AudioResponseFormat` and `TranscriptTextSegmentEvent`;
/// DECISIONS D-STREAM-5).
///
/// ```
/// use gatecheck_schemas::rules::media::transcription_diarizes;
/// assert!(transcription_diarizes("gpt-4o-transcribe-diarize"));
/// assert!(!transcription_diarizes("gpt-4o-mini-transcribe"));
/// ```
pub fn transcription_diarizes(model: &str) -> bool {
    model.ends_with("-diarize")
}

/// The id of diarized segment `index` (0-based) of a transcription stream: `seg_001`, ….
///
/// ```
/// assert_eq!(gatecheck_schemas::rules::media::segment_id(0), "seg_001");
/// ```
pub fn segment_id(index: usize) -> String {
    format!("seg_{:03}", index + 1)
}

/// Whether `t` is an accepted `temperature` (within [`TEMPERATURE`]).
pub fn temperature_ok(t: f64) -> bool {
    TEMPERATURE.contains(&t)
}

/// 64-bit FNV-1a hash (stable across runs and platforms): the one copy, used by the mock's
/// media seeds and the runner's shards and per-check seeds.
pub fn fnv1a(data: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

/// A 44-byte canonical WAV header for `data_len` bytes of mono s16le at `rate`: the one WAV
/// writer, used by the mock's speech and the runner's upload files (`parse_wav` reads it).
pub fn wav_header(data_len: u32, rate: u32) -> [u8; 44] {
    let mut h = [0u8; 44];
    h[0..4].copy_from_slice(b"RIFF");
    h[4..8].copy_from_slice(&(36 + data_len).to_le_bytes());
    h[8..12].copy_from_slice(b"WAVE");
    h[12..16].copy_from_slice(b"fmt ");
    h[16..20].copy_from_slice(&16u32.to_le_bytes());
    h[20..22].copy_from_slice(&1u16.to_le_bytes()); // PCM
    h[22..24].copy_from_slice(&1u16.to_le_bytes()); // mono
    h[24..28].copy_from_slice(&rate.to_le_bytes());
    h[28..32].copy_from_slice(&(rate * 2).to_le_bytes()); // byte rate
    h[32..34].copy_from_slice(&2u16.to_le_bytes()); // block align
    h[34..36].copy_from_slice(&16u16.to_le_bytes()); // bits
    h[36..40].copy_from_slice(b"data");
    h[40..44].copy_from_slice(&data_len.to_le_bytes());
    h
}

/// The longest image or video prompt the service takes, in characters (`prompt` of
/// `POST /v1/videos`, `/v1/images/generations` and `/v1/images/edits`).
pub const MAX_PROMPT_CHARS: usize = 32_000;

/// The longest `input` of `POST /v1/audio/speech`, in characters (the shortest is 1).
pub const MAX_SPEECH_INPUT_CHARS: usize = 4096;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The parsers are oracles on untrusted answers: any bytes give Ok or Err, never a
        /// panic, also behind each format's magic number.
        #[test]
        fn parsers_never_panic(
            magic in 0usize..9,
            body in proptest::collection::vec(any::<u8>(), 0..600),
        ) {
            let prefixes: [&[u8]; 9] = [
                b"", b"\x89PNG\r\n\x1a\n", b"ID3\x03\0\0\0\0\0\x10", b"RIFF\0\0\0\0WAVEfmt ",
                b"fLaC\x80\0\0\x22", b"OggS\0\x02", b"\xFF\xF1", b"\0\0\0\x10ftypisom", b"WEBVTT\n\n",
            ];
            let mut b = prefixes[magic].to_vec();
            b.extend_from_slice(&body);
            let _ = parse_png(&b);
            let _ = parse_mp3(&b);
            let _ = parse_wav(&b);
            let _ = parse_flac(&b);
            let _ = parse_ogg_opus(&b);
            let _ = parse_adts(&b);
            let _ = parse_mp4(&b);
            let s = String::from_utf8_lossy(&b);
            let _ = parse_srt(&s);
            let _ = parse_vtt(&s);
        }
    }
}
