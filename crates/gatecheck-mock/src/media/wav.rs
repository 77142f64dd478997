//! WAV (RIFF/WAVE, PCM s16le) and raw PCM, with a deterministic voice-like test signal.

use bytes::Bytes;

/// Sample rate of generated speech, Hz (as OpenAI's `pcm` and `wav` outputs).
pub const SPEECH_RATE: u32 = 24_000;

/// `duration_ms` of a mono voice-like signal at `rate`: a triangle wave whose pitch comes from
/// `seed`, shaped into 250 ms "syllables". Integer arithmetic only; deterministic.
pub fn tone(duration_ms: u64, rate: u32, seed: u64) -> Vec<i16> {
    let tone = Tone::new(duration_ms, rate, seed);
    (0..tone.len).map(|i| tone.sample(i)).collect()
}

/// The signal of [`tone`], one sample at a time (a stream makes its samples as it sends
/// them).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tone {
    /// How many samples.
    pub(crate) len: usize,
    period: usize,
    syllable: usize,
    ramp: usize,
}

impl Tone {
    pub(crate) fn new(duration_ms: u64, rate: u32, seed: u64) -> Self {
        let syllable = (rate / 4) as usize;
        Self {
            len: (duration_ms * u64::from(rate) / 1000) as usize,
            period: 100 + (seed % 61) as usize, // 150 to 240 Hz at 24 kHz
            syllable,
            ramp: syllable / 5,
        }
    }

    /// Sample `i`.
    pub(crate) fn sample(&self, i: usize) -> i16 {
        let Self {
            period,
            syllable,
            ramp,
            ..
        } = *self;
        let phase = (i % period) as i64;
        let half = (period / 2) as i64;
        let tri = if phase < half {
            phase * 2 * 8000 / half - 8000
        } else {
            8000 - (phase - half) * 2 * 8000 / half
        };
        let pos = i % syllable;
        // The gain envelope rises, holds, falls, and leaves a short gap between syllables.
        let env = if pos < ramp {
            pos * 256 / ramp
        } else if pos < syllable - 2 * ramp {
            256
        } else if pos < syllable - ramp {
            (syllable - ramp - pos) * 256 / ramp
        } else {
            0
        } as i64;
        (tri * env / 256) as i16
    }
}

/// Raw PCM: signed 16-bit little-endian mono samples.
pub fn pcm(samples: &[i16]) -> Bytes {
    let mut out = Vec::with_capacity(samples.len() * 2);
    for s in samples {
        out.extend_from_slice(&s.to_le_bytes());
    }
    Bytes::from(out)
}

pub use gatecheck_schemas::rules::media::wav_header;

/// A WAV file of `samples` (mono s16le at `rate`).
pub fn wav(samples: &[i16], rate: u32) -> Bytes {
    let data = pcm(samples);
    let mut out = Vec::with_capacity(44 + data.len());
    out.extend_from_slice(&wav_header(data.len() as u32, rate));
    out.extend_from_slice(&data);
    Bytes::from(out)
}
