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

pub use audio::{parse_adts, parse_flac, parse_mp3, parse_ogg_opus, parse_wav};
pub use audio::{AdtsInfo, FlacInfo, Mp3Info, OggOpusInfo, WavInfo};
pub use container::{parse_mp4, Mp4Info, Mp4Track};
pub use image::{parse_png, PngInfo};
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
