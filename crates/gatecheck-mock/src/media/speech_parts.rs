//! Speech made as it is sent: the bytes of [`super::speech()`]'s file, produced part by part,
//! so that a streamed answer (`stream_format: "sse"`) holds one part, not the whole audio,
//! however slowly its client reads. Each format is a sequence of units (an MP3 or ADTS
//! frame, an Ogg page, a FLAC frame, a block of WAV samples) made when the parts reach them;
//! the file's length is known up front (the stream's part size depends on it).

use super::speech::SpeechFormat;
use super::wav::{Tone, SPEECH_RATE};
use super::{aac, flac, fnv1a, mp3, opus, speech_duration_ms};
use gatecheck_schemas::rules::media::wav_header;

/// Samples per unit of WAV and PCM.
const SAMPLE_BLOCK: usize = 4096;

/// The speech file of one request, made in parts of the caller's size.
#[derive(Debug)]
pub struct SpeechParts {
    kind: Kind,
    /// The units made so far.
    next_unit: usize,
    /// Bytes made and not yet handed out (less than one part and one unit).
    carry: Vec<u8>,
    len: usize,
}

#[derive(Debug)]
enum Kind {
    Mp3 { frames: usize },
    Aac { frames: usize, frame: [u8; 11] },
    Opus { layout: opus::Layout },
    Flac { tone: Tone },
    Wav { tone: Tone, header: bool },
}

impl SpeechParts {
    /// The audio of `input` spoken by `voice` at `speed`, in `format`: the same bytes as
    /// [`super::speech()`].
    pub fn new(format: SpeechFormat, input: &str, voice: &str, speed: f64) -> Self {
        let ms = speech_duration_ms(input, speed);
        let tone = || Tone::new(ms, SPEECH_RATE, fnv1a(voice.as_bytes()));
        let kind = match format {
            SpeechFormat::Mp3 => Kind::Mp3 {
                frames: mp3::frames(ms),
            },
            SpeechFormat::Aac => {
                let (frames, frame) = aac::frames(ms, SPEECH_RATE);
                Kind::Aac { frames, frame }
            }
            SpeechFormat::Opus => Kind::Opus {
                layout: opus::Layout::new(ms),
            },
            SpeechFormat::Flac => Kind::Flac { tone: tone() },
            SpeechFormat::Wav => Kind::Wav {
                tone: tone(),
                header: true,
            },
            SpeechFormat::Pcm => Kind::Wav {
                tone: tone(),
                header: false,
            },
        };
        let mut me = Self {
            kind,
            next_unit: 0,
            carry: Vec::new(),
            len: 0,
        };
        me.len = me.count_len();
        me
    }

    /// The length of the whole file.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the file is empty (never: every format has at least a header or a frame).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The next `n` bytes of the file (fewer at its end; empty after it).
    pub fn take(&mut self, n: usize) -> Vec<u8> {
        while self.carry.len() < n && self.unit(self.next_unit) {
            self.next_unit += 1;
        }
        let rest = self.carry.split_off(n.min(self.carry.len()));
        std::mem::replace(&mut self.carry, rest)
    }

    /// Appends unit `i` to the carry; false after the last.
    fn unit(&mut self, i: usize) -> bool {
        let out = &mut self.carry;
        match &self.kind {
            Kind::Mp3 { frames } => (i < *frames)
                .then(|| out.extend_from_slice(&mp3::frame()))
                .is_some(),
            Kind::Aac { frames, frame } => (i < *frames)
                .then(|| out.extend_from_slice(frame))
                .is_some(),
            Kind::Opus { layout } => match i {
                0 => {
                    opus::head_pages(SPEECH_RATE, out);
                    true
                }
                i if i <= layout.pages() => {
                    layout.data_page(i - 1, out);
                    true
                }
                _ => false,
            },
            Kind::Flac { tone } => {
                if i == 0 {
                    flac::stream_info(tone.len, SPEECH_RATE, out);
                    return true;
                }
                let start = (i - 1) * flac::FRAME_SAMPLES;
                if start >= tone.len {
                    return false;
                }
                let end = (start + flac::FRAME_SAMPLES).min(tone.len);
                let block: Vec<i16> = (start..end).map(|s| tone.sample(s)).collect();
                flac::frame(i - 1, &block, out);
                true
            }
            Kind::Wav { tone, header } => {
                let i = if *header {
                    if i == 0 {
                        out.extend_from_slice(&wav_header((tone.len * 2) as u32, SPEECH_RATE));
                        return true;
                    }
                    i - 1
                } else {
                    i
                };
                let start = i * SAMPLE_BLOCK;
                if start >= tone.len {
                    return false;
                }
                for s in start..(start + SAMPLE_BLOCK).min(tone.len) {
                    out.extend_from_slice(&tone.sample(s).to_le_bytes());
                }
                true
            }
        }
    }

    /// The file's length, from the units' sizes (nothing is made).
    fn count_len(&self) -> usize {
        match &self.kind {
            Kind::Mp3 { frames } => frames * mp3::FRAME_LEN,
            Kind::Aac { frames, frame } => frames * frame.len(),
            Kind::Opus { layout } => {
                let mut head = Vec::new();
                opus::head_pages(SPEECH_RATE, &mut head);
                head.len() + layout.data_len()
            }
            Kind::Flac { tone } => {
                let frames = tone.len.div_ceil(flac::FRAME_SAMPLES);
                let headers: usize = (0..frames)
                    .map(|k| {
                        let short = (k + 1) * flac::FRAME_SAMPLES > tone.len;
                        flac::frame_overhead(k, short)
                    })
                    .sum();
                42 + tone.len * 2 + headers
            }
            Kind::Wav { tone, header } => tone.len * 2 + if *header { 44 } else { 0 },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::speech;
    use super::*;

    fn parts_of(format: SpeechFormat, input: &str, voice: &str, part: usize) -> Vec<u8> {
        let mut p = SpeechParts::new(format, input, voice, 1.0);
        let len = p.len();
        let mut all = Vec::new();
        loop {
            let chunk = p.take(part);
            if chunk.is_empty() {
                break;
            }
            assert!(chunk.len() == part || all.len() + chunk.len() == len);
            all.extend(chunk);
        }
        assert_eq!(all.len(), len, "{format:?} length");
        all
    }

    #[test]
    fn the_parts_make_the_same_file_in_every_format() {
        for format in SpeechFormat::ALL {
            for input in ["a", "hello there", &"x".repeat(333), &"long ".repeat(800)] {
                for part in [1, 7, 4096, 16 * 1024] {
                    if part == 1 && input.len() > 20 {
                        continue;
                    }
                    let whole = speech(format, input, "alloy", 1.0);
                    let parts = parts_of(format, input, "alloy", part);
                    assert!(
                        parts == whole[..],
                        "{format:?} {} chars, parts of {part}",
                        input.len()
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod pinned {
    use super::super::speech;
    use super::*;

    /// The FNV-1a 64 of each format's file for one input, as HEAD's encoders made them
    /// (c81e53b, checked against them byte for byte in 177f017): a change of bytes is seen.
    const PINNED: [(SpeechFormat, u64); 6] = [
        (SpeechFormat::Mp3, 0x6693_c8b0_4ad4_e121),
        (SpeechFormat::Wav, 0x7035_2e7b_29e1_a924),
        (SpeechFormat::Opus, 0xd733_c4ef_e2f2_7a97),
        (SpeechFormat::Aac, 0xc83c_fe8d_fd5d_a6ff),
        (SpeechFormat::Flac, 0x56f8_f3ac_2fd7_0d01),
        (SpeechFormat::Pcm, 0x01e2_1136_379d_08a1),
    ];

    #[test]
    fn the_files_are_the_bytes_they_were() {
        let input = "The quick brown fox jumped over the lazy dog. ".repeat(9);
        let got: Vec<(SpeechFormat, u64)> = PINNED
            .iter()
            .map(|(format, _)| {
                let file = speech(*format, &input, "nova", 1.25);
                (*format, gatecheck_schemas::rules::media::fnv1a(&file))
            })
            .collect();
        assert_eq!(got, PINNED);
    }
}
