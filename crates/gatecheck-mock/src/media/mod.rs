//! Media generated in code: PNG images (and edits of uploaded ones), speech audio (MP3, WAV, FLAC, Ogg Opus, AAC, PCM), MP4
//! video with an H.264 track, subtitles and deterministic transcripts.
//!
//! Everything is deterministic: the same input gives the same bytes. Each format is parsed
//! back by [`gatecheck_schemas::rules::media`] in the tests; `docs/media.md` says which formats
//! carry real signal and which carry silence.

mod aac;
mod bits;
mod flac;
mod h264;
mod mp3;
mod mp4;
mod opus;
mod speech;
mod speech_parts;
mod subtitles;
mod transcript;
mod wav;

use std::collections::VecDeque;
use std::hash::Hash;

use bytes::Bytes;
use parking_lot::Mutex;

pub use aac::aac;
pub use flac::flac;
pub use mp3::{mp3, FRAME_HEADER as MP3_FRAME_HEADER};
pub use mp4::{mp4, FPS as MP4_FPS};
pub use opus::opus;
pub use speech::{speech, speech_duration_ms, SpeechFormat};
pub use speech_parts::SpeechParts;
pub use subtitles::{srt, vtt};
pub use transcript::{
    audio_duration_ms, audio_duration_ms_of, audio_seed, transcribe, transcribe_of, Segment,
    Transcript,
};
pub use wav::{pcm, tone, wav, wav_header, SPEECH_RATE};

pub use gatecheck_codecs::draw::splitmix;
pub use gatecheck_codecs::png::{decode_png, edit_png, EditError, PngError, Rgba};
pub use gatecheck_schemas::rules::media::fnv1a;
/// Largest accepted pixel count of an image (bounds the memory of one encode or decode).
pub use gatecheck_schemas::rules::media::MAX_IMAGE_PIXELS as MAX_PIXELS;
// The PNG codec holds exactly the images the contract allows.
const _: () = assert!(MAX_PIXELS == gatecheck_codecs::png::MAX_PIXELS);
// The PNG codec holds exactly the images the contract allows.
const _: () = assert!(MAX_PIXELS == gatecheck_codecs::png::MAX_PIXELS);

/// A small bounded cache of encoded media (first in, first out).
pub(crate) struct Cache<K> {
    cap: usize,
    items: Mutex<VecDeque<(K, Bytes)>>,
}

impl<K: Eq + Hash + Clone> Cache<K> {
    /// A cache holding at most `cap` items.
    pub(crate) const fn new(cap: usize) -> Self {
        Self {
            cap,
            items: Mutex::new(VecDeque::new()),
        }
    }

    /// The cached bytes for `key`.
    pub(crate) fn get(&self, key: &K) -> Option<Bytes> {
        self.items
            .lock()
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    }

    /// Caches `value` under `key`, evicting the oldest item when full.
    pub(crate) fn put(&self, key: K, value: Bytes) {
        let mut items = self.items.lock();
        if items.iter().any(|(k, _)| *k == key) {
            return;
        }
        if items.len() >= self.cap {
            items.pop_front();
        }
        items.push_back((key, value));
    }
}

/// A `width` × `height` RGB PNG whose colours and stripes come from `seed`
/// ([`gatecheck_codecs::png::generate`]), from a small cache.
pub fn png(seed: u64, width: u32, height: u32) -> Result<Bytes, PngError> {
    static PNGS: Cache<(u64, u32, u32)> = Cache::new(16);
    let key = (seed, width, height);
    if let Some(b) = PNGS.get(&key) {
        return Ok(b);
    }
    let b = gatecheck_codecs::png::generate(seed, width, height)?;
    PNGS.put(key, b.clone());
    Ok(b)
}

/// An MP4 of `seconds` at `width` × `height`, from a small cache.
pub fn cached_mp4(width: u32, height: u32, seconds: u32) -> Bytes {
    static MP4S: Cache<(u32, u32, u32)> = Cache::new(8);
    let key = (width, height, seconds);
    if let Some(b) = MP4S.get(&key) {
        return b;
    }
    let b = mp4(width, height, seconds);
    MP4S.put(key, b.clone());
    b
}
