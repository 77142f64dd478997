//! TEMPORARY: the encoders as of HEAD, to prove the refactor byte-exact.
pub mod mp3 {

    use bytes::Bytes;

    /// Frame header: sync, MPEG-1, Layer III, no CRC, 64 kbit/s, 48 kHz, no padding, mono.
    pub const FRAME_HEADER: [u8; 4] = [0xFF, 0xFB, 0x54, 0xC4];
    /// Bytes per frame: 144 × 64000 / 48000.
    pub const FRAME_LEN: usize = 192;
    /// Duration of one frame: 1152 samples at 48 kHz.
    pub const FRAME_MS: f64 = 24.0;

    /// An MP3 of at least `duration_ms` (rounded up to whole 24 ms frames, at least one).
    pub fn mp3(duration_ms: u64) -> Bytes {
        let frames = ((duration_ms as f64 / FRAME_MS).ceil() as usize).max(1);
        let mut frame = [0u8; FRAME_LEN];
        frame[..4].copy_from_slice(&FRAME_HEADER);
        let mut out = Vec::with_capacity(frames * FRAME_LEN);
        for _ in 0..frames {
            out.extend_from_slice(&frame);
        }
        Bytes::from(out)
    }
}
pub mod aac {

    use bytes::Bytes;
    use gatecheck_schemas::rules::media::ADTS_RATES as RATES;

    /// The raw data block: SCE (tag 0), global_gain 0, long window, max_sfb 0, no pulse/TNS/gain
    /// control, then END.
    const SILENT_BLOCK: [u8; 4] = [0x00, 0x00, 0x00, 0x07];

    /// An ADTS AAC-LC stream of at least `duration_ms` of silence, mono, at `rate` (one of the
    /// ADTS rates; 24000 otherwise).
    pub fn aac(duration_ms: u64, rate: u32) -> Bytes {
        let idx = RATES.iter().position(|&r| r == rate).unwrap_or(6);
        let rate = u64::from(RATES[idx]);
        let frames = (duration_ms * rate).div_ceil(1000 * 1024).max(1) as usize;
        let len = 7 + SILENT_BLOCK.len();
        let header = [
            0xFF,
            0xF1,                                 // MPEG-4, layer 0, no CRC
            (1 << 6) | ((idx as u8) << 2),        // AAC LC, rate index, channel config high bit 0
            (1 << 6) | ((len >> 11) as u8 & 0x3), // channel config 1 (mono)
            ((len >> 3) & 0xFF) as u8,
            (((len & 7) as u8) << 5) | 0x1F, // buffer fullness 0x7FF (VBR)
            0xFC,                            // ... and one raw data block
        ];
        let mut out = Vec::with_capacity(frames * len);
        for _ in 0..frames {
            out.extend_from_slice(&header);
            out.extend_from_slice(&SILENT_BLOCK);
        }
        Bytes::from(out)
    }
}
pub mod wav {

    use bytes::Bytes;

    /// Sample rate of generated speech, Hz (as OpenAI's `pcm` and `wav` outputs).
    pub const SPEECH_RATE: u32 = 24_000;

    /// `duration_ms` of a mono voice-like signal at `rate`: a triangle wave whose pitch comes from
    /// `seed`, shaped into 250 ms "syllables". Integer arithmetic only; deterministic.
    pub fn tone(duration_ms: u64, rate: u32, seed: u64) -> Vec<i16> {
        let n = (duration_ms * u64::from(rate) / 1000) as usize;
        let period = 100 + (seed % 61) as usize; // 150 to 240 Hz at 24 kHz
        let syllable = (rate / 4) as usize;
        let ramp = syllable / 5;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
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
            out.push((tri * env / 256) as i16);
        }
        out
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
}
pub mod flac {

    use bytes::Bytes;
    use gatecheck_schemas::rules::media::{crc16_flac, crc8_flac};

    const BLOCK: usize = 4096;

    /// The UTF-8-style coding of a frame number (up to 31 bits).
    fn coded_number(n: u32, out: &mut Vec<u8>) {
        if n < 0x80 {
            out.push(n as u8);
            return;
        }
        // Continuation bytes carry 6 bits each; the lead byte holds what is left.
        let extra = match n {
            0..=0x7FF => 1,
            0x800..=0xFFFF => 2,
            0x1_0000..=0x1F_FFFF => 3,
            0x20_0000..=0x3FF_FFFF => 4,
            _ => 5,
        };
        let lead_mark = (0xFF00u16 >> (extra + 1)) as u8;
        out.push(lead_mark | (n >> (6 * extra)) as u8);
        for k in (0..extra).rev() {
            out.push(0x80 | ((n >> (6 * k)) & 0x3F) as u8);
        }
    }

    /// A FLAC file of `samples` (mono, 16-bit, `rate` Hz; `rate` must fit in 20 bits).
    pub fn flac(samples: &[i16], rate: u32) -> Bytes {
        let mut out = Vec::with_capacity(42 + samples.len() * 2 + samples.len() / BLOCK * 20);
        out.extend_from_slice(b"fLaC");
        out.extend_from_slice(&[0x80, 0, 0, 34]); // last block, STREAMINFO, 34 bytes
        let min_block = if samples.len() <= BLOCK {
            samples.len().max(16)
        } else {
            BLOCK
        };
        out.extend_from_slice(&(min_block as u16).to_be_bytes());
        out.extend_from_slice(&(BLOCK as u16).to_be_bytes());
        out.extend_from_slice(&[0; 6]); // min and max frame size unknown
        let packed: u64 =
            (u64::from(rate) << 44) | (15u64 << 36) | (samples.len() as u64 & 0xF_FFFF_FFFF);
        out.extend_from_slice(&packed.to_be_bytes());
        out.extend_from_slice(&[0; 16]); // MD5 unknown
        for (i, block) in samples.chunks(BLOCK).enumerate() {
            let start = out.len();
            out.extend_from_slice(&[0xFF, 0xF8]); // sync, fixed block size
            let short = block.len() != BLOCK;
            let bs_code = if short { 0x7 } else { 0xC }; // 16-bit size at end, or 4096
            out.push(bs_code << 4); // sample rate code 0: from STREAMINFO
            out.push(0x08); // mono, 16 bits per sample
            coded_number(i as u32, &mut out);
            if short {
                out.extend_from_slice(&((block.len() - 1) as u16).to_be_bytes());
            }
            let crc8 = crc8_flac(&out[start..]);
            out.push(crc8);
            out.push(0x02); // VERBATIM subframe, no wasted bits
            for s in block {
                out.extend_from_slice(&s.to_be_bytes());
            }
            let crc16 = crc16_flac(&out[start..]);
            out.extend_from_slice(&crc16.to_be_bytes());
        }
        Bytes::from(out)
    }

    #[cfg(any())]
    mod tests {
        use super::*;

        #[test]
        fn frame_numbers_are_utf8_coded() {
            let code = |n| {
                let mut v = Vec::new();
                coded_number(n, &mut v);
                v
            };
            assert_eq!(code(5), vec![5]);
            assert_eq!(code(0x80), vec![0xC2, 0x80]);
            assert_eq!(code(0x7FF), vec![0xDF, 0xBF]);
            assert_eq!(code(0x800), vec![0xE0, 0xA0, 0x80]);
            assert_eq!(code(0xFFFF), vec![0xEF, 0xBF, 0xBF]);
        }
    }
}
pub mod opus {

    use bytes::Bytes;
    use gatecheck_schemas::rules::media::crc32_ogg;

    const PRE_SKIP: u16 = 312;
    const SILENCE: [u8; 3] = [0xF8, 0xFF, 0xFE];
    const SAMPLES_PER_PACKET: u64 = 960; // 20 ms at 48 kHz
    const PACKETS_PER_PAGE: usize = 50;
    const SERIAL: u32 = 0x6761_7465; // "gate"

    fn page(out: &mut Vec<u8>, flags: u8, granule: u64, seq: u32, packets: &[&[u8]]) {
        let start = out.len();
        out.extend_from_slice(b"OggS");
        out.push(0);
        out.push(flags);
        out.extend_from_slice(&granule.to_le_bytes());
        out.extend_from_slice(&SERIAL.to_le_bytes());
        out.extend_from_slice(&seq.to_le_bytes());
        out.extend_from_slice(&[0; 4]); // CRC, patched below
        let mut lacing = Vec::new();
        for p in packets {
            lacing.extend(std::iter::repeat_n(255u8, p.len() / 255));
            lacing.push((p.len() % 255) as u8);
        }
        out.push(lacing.len() as u8);
        out.extend_from_slice(&lacing);
        for p in packets {
            out.extend_from_slice(p);
        }
        let crc = crc32_ogg(&out[start..]);
        out[start + 22..start + 26].copy_from_slice(&crc.to_le_bytes());
    }

    /// An Ogg Opus stream of `duration_ms` of silence (mono; the final granule trims it exactly).
    pub fn opus(duration_ms: u64, input_rate: u32) -> Bytes {
        let samples = (duration_ms * 48).max(1);
        let packets = samples.div_ceil(SAMPLES_PER_PACKET) as usize;
        let mut out = Vec::with_capacity(packets * 4 + packets / PACKETS_PER_PAGE * 80 + 200);
        let mut head = b"OpusHead".to_vec();
        head.push(1); // version
        head.push(1); // channels
        head.extend_from_slice(&PRE_SKIP.to_le_bytes());
        head.extend_from_slice(&input_rate.to_le_bytes());
        head.extend_from_slice(&0i16.to_le_bytes()); // output gain
        head.push(0); // mapping family
        page(&mut out, 0x02, 0, 0, &[&head]);
        let vendor = b"gatecheck";
        let mut tags = b"OpusTags".to_vec();
        tags.extend_from_slice(&(vendor.len() as u32).to_le_bytes());
        tags.extend_from_slice(vendor);
        tags.extend_from_slice(&0u32.to_le_bytes());
        page(&mut out, 0, 0, 1, &[&tags]);
        let mut seq = 2;
        let mut done = 0usize;
        while done < packets {
            let n = PACKETS_PER_PAGE.min(packets - done);
            done += n;
            let last = done == packets;
            let granule = if last {
                u64::from(PRE_SKIP) + samples
            } else {
                u64::from(PRE_SKIP) + done as u64 * SAMPLES_PER_PACKET
            };
            let list: Vec<&[u8]> = vec![&SILENCE[..]; n];
            page(&mut out, if last { 0x04 } else { 0 }, granule, seq, &list);
            seq += 1;
        }
        Bytes::from(out)
    }
}
