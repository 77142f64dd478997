//! Deterministic "transcripts": English text chosen by a generator seeded from the audio
//! bytes, spread over segments whose times tile the audio's duration.
//!
//! The duration is exact for WAV (from the header), FLAC (STREAMINFO), clean MP3 streams (from
//! the frames), MP4/M4A (the movie header) and Ogg Opus (the last granule), and estimated from
//! the file size at a typical bit rate otherwise.

use gatecheck_codecs::multipart::Rope;
use gatecheck_schemas::rules::media::{
    parse_mp3, parse_mp4, parse_ogg_opus, parse_wav, parse_wav_head,
};

use super::splitmix;

/// One timed piece of a transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// Start, milliseconds.
    pub start_ms: u64,
    /// End, milliseconds.
    pub end_ms: u64,
    /// Text of the segment.
    pub text: String,
    /// Token ids of the text (one per word, deterministic).
    pub tokens: Vec<i64>,
}

/// A transcript of one audio file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transcript {
    /// Audio duration, milliseconds.
    pub duration_ms: u64,
    /// The segments: contiguous, from 0 to `duration_ms`.
    pub segments: Vec<Segment>,
    /// All segment texts joined by spaces.
    pub text: String,
}

const WORDS: [&str; 64] = [
    "the", "quick", "river", "morning", "light", "falls", "across", "quiet", "fields", "and", "we",
    "walk", "toward", "old", "harbor", "where", "boats", "rest", "under", "grey", "clouds", "a",
    "small", "bird", "sings", "near", "window", "while", "children", "laugh", "in", "garden",
    "every", "story", "begins", "with", "simple", "question", "about", "time", "people", "gather",
    "market", "to", "share", "bread", "news", "from", "distant", "towns", "music", "drifts",
    "through", "warm", "evening", "air", "as", "lamps", "glow", "along", "street", "then", "night",
    "comes",
];

/// Average speaking rate used to size the text: words per second.
const WORDS_PER_SECOND: f64 = 2.5;
/// Target segment length, milliseconds.
const SEGMENT_MS: u64 = 5_000;
/// Most segments in one transcript (long files get longer segments).
const MAX_SEGMENTS: u64 = 200;

/// The duration of an audio file, milliseconds (at least 100).
pub fn audio_duration_ms(bytes: &[u8], ext: &str) -> u64 {
    let exact = match ext {
        "wav" => parse_wav(bytes).ok().map(|w| w.duration_secs),
        "mp3" | "mpeg" | "mpga" => parse_mp3(bytes).ok().map(|m| m.duration_secs),
        "mp4" | "m4a" => parse_mp4(bytes).ok().map(|m| m.duration_secs),
        "ogg" => parse_ogg_opus(bytes).ok().map(|o| o.duration_secs),
        "flac" => flac_secs(bytes),
        _ => None,
    };
    duration_ms(exact, bytes.len(), ext)
}

/// [`audio_duration_ms`] of an upload still in the pieces it came in: WAV and FLAC from their
/// headers and the length (no copy), the formats whose duration walks the file from the
/// pieces joined. The same answer as [`audio_duration_ms`] of the joined bytes.
pub fn audio_duration_ms_of(audio: &Rope, ext: &str) -> u64 {
    /// Enough of a WAV file for its `fmt ` and `data` chunk headers, past any usual metadata.
    const WAV_HEAD: usize = 64 << 10;
    let exact = match ext {
        "wav" => match parse_wav_head(&audio.prefix(WAV_HEAD), audio.len()) {
            Ok(w) => Some(w.duration_secs),
            // Longer metadata, or no WAV: the whole file decides.
            Err(_) => return audio_duration_ms(&audio.to_bytes(), ext),
        },
        "flac" => flac_secs(&audio.prefix(26)),
        "mp3" | "mpeg" | "mpga" | "mp4" | "m4a" | "ogg" => {
            return audio_duration_ms(&audio.to_bytes(), ext)
        }
        _ => None,
    };
    duration_ms(exact, audio.len(), ext)
}

/// FLAC's STREAMINFO duration, from the file's first 26 bytes.
fn flac_secs(bytes: &[u8]) -> Option<f64> {
    if !bytes.starts_with(b"fLaC") || bytes.len() < 26 {
        return None;
    }
    let mut b = [0u8; 8];
    b.copy_from_slice(&bytes[18..26]);
    let x = u64::from_be_bytes(b);
    let rate = x >> 44;
    (rate > 0).then(|| (x & 0xF_FFFF_FFFF) as f64 / rate as f64)
}

/// The exact duration, else one estimated from the file's length at a typical bit rate.
fn duration_ms(exact: Option<f64>, len: usize, ext: &str) -> u64 {
    let secs = exact.unwrap_or_else(|| {
        let bits_per_second = match ext {
            "flac" => 700_000.0,
            "wav" => 384_000.0,
            "ogg" | "webm" => 96_000.0,
            _ => 128_000.0,
        };
        len as f64 * 8.0 / bits_per_second
    });
    ((secs * 1000.0).round() as u64).max(100)
}

/// How much of each end of the audio seeds its transcript.
const SEED_SPAN: usize = 8 << 10;

/// A deterministic seed from the audio bytes: its length, first and last 8 KiB.
///
/// Sampling keeps the cost flat: hashing the first and last MiB byte by byte took a third of
/// the server's time on a 1 MiB upload (BENCHMARKS.md, "translation upload").
pub fn audio_seed(bytes: &[u8]) -> u64 {
    let head = &bytes[..bytes.len().min(SEED_SPAN)];
    let tail = &bytes[bytes.len().saturating_sub(SEED_SPAN)..];
    seed_of(head, tail, bytes.len())
}

fn seed_of(head: &[u8], tail: &[u8], len: usize) -> u64 {
    let (h, t) = fnv1a_pair(head, tail);
    h ^ t.rotate_left(17) ^ (len as u64).wrapping_mul(0x9E37_79B9)
}

/// `(fnv1a(a), fnv1a(b))`, the two hashes computed side by side: each byte of FNV-1a waits
/// for the multiplication before it, and two independent chains run in the time of one
/// (a 1 MiB upload's 16 KiB took 20 µs one after the other).
fn fnv1a_pair(a: &[u8], b: &[u8]) -> (u64, u64) {
    const PRIME: u64 = 0x0000_0100_0000_01B3;
    let n = a.len().min(b.len());
    let (mut ha, mut hb) = (0xcbf2_9ce4_8422_2325u64, 0xcbf2_9ce4_8422_2325u64);
    for (&x, &y) in a[..n].iter().zip(&b[..n]) {
        ha = (ha ^ u64::from(x)).wrapping_mul(PRIME);
        hb = (hb ^ u64::from(y)).wrapping_mul(PRIME);
    }
    for &x in &a[n..] {
        ha = (ha ^ u64::from(x)).wrapping_mul(PRIME);
    }
    for &y in &b[n..] {
        hb = (hb ^ u64::from(y)).wrapping_mul(PRIME);
    }
    (ha, hb)
}

/// [`transcribe`] of an upload still in the pieces it came in (the same transcript as of
/// the joined bytes; the pieces are joined only for a format whose duration walks the file).
pub fn transcribe_of(audio: &Rope, ext: &str) -> Transcript {
    let seed = seed_of(
        &audio.prefix(SEED_SPAN),
        &audio.suffix(SEED_SPAN),
        audio.len(),
    );
    transcript(audio_duration_ms_of(audio, ext), seed)
}

/// The transcript of `bytes` (an audio file with extension `ext`).
pub fn transcribe(bytes: &[u8], ext: &str) -> Transcript {
    transcript(audio_duration_ms(bytes, ext), audio_seed(bytes))
}

/// The transcript of audio lasting `duration_ms`, its words drawn from `seed`.
fn transcript(duration_ms: u64, mut seed: u64) -> Transcript {
    let count = duration_ms.div_ceil(SEGMENT_MS).clamp(1, MAX_SEGMENTS);
    let mut segments = Vec::with_capacity(count as usize);
    for i in 0..count {
        let start_ms = duration_ms * i / count;
        let end_ms = duration_ms * (i + 1) / count;
        let n = (((end_ms - start_ms) as f64 / 1000.0 * WORDS_PER_SECOND).round() as usize).max(1);
        let mut words = Vec::with_capacity(n);
        let mut tokens = Vec::with_capacity(n);
        for _ in 0..n {
            let k = (splitmix(&mut seed) % WORDS.len() as u64) as usize;
            words.push(WORDS[k]);
            tokens.push(1000 + k as i64);
        }
        let mut text = words.join(" ");
        if let Some(first) = text.get_mut(0..1) {
            first.make_ascii_uppercase();
        }
        text.push('.');
        segments.push(Segment {
            start_ms,
            end_ms,
            text,
            tokens,
        });
    }
    let text = segments
        .iter()
        .map(|s| s.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    Transcript {
        duration_ms,
        segments,
        text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paired_hash_is_fnv1a_of_each() {
        let data: Vec<u8> = (0..3000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        for (a, b) in [(0, 0), (0, 10), (10, 0), (100, 2999), (3000, 1), (8, 8)] {
            let (x, y) = (&data[..a], &data[data.len() - b..]);
            assert_eq!(
                fnv1a_pair(x, y),
                (super::super::fnv1a(x), super::super::fnv1a(y))
            );
        }
    }
}
