//! Audio: MP3 (MPEG audio frames), WAV (RIFF), FLAC, Ogg Opus and ADTS AAC.

use super::{
    be16, be32, crc16_flac, crc16_flac_update, crc32_ogg, crc8_flac, le16, le32, le64, MediaError,
};

/// What a well-formed MPEG audio stream holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Mp3Info {
    /// Number of frames.
    pub frames: usize,
    /// Sample rate of the first frame, Hz.
    pub sample_rate: u32,
    /// Bit rate of the first frame, kbit/s.
    pub bitrate_kbps: u32,
    /// MPEG audio layer (1, 2 or 3) of the first frame.
    pub layer: u8,
    /// 1 (mono) or 2.
    pub channels: u8,
    /// Sum of the frames' durations, seconds.
    pub duration_secs: f64,
    /// Whether the stream starts with an ID3v2 tag.
    pub id3v2: bool,
}

const MPEG1_BITRATES: [[u32; 15]; 3] = [
    [
        0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448,
    ],
    [
        0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384,
    ],
    [
        0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320,
    ],
];
const MPEG2_BITRATES: [[u32; 15]; 2] = [
    [
        0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256,
    ],
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
];

/// One decoded MPEG audio frame header: (frame length, samples, sample rate, kbps, layer, channels).
fn mp3_header(h: &[u8]) -> Option<(usize, u32, u32, u32, u8, u8)> {
    if h.len() < 4 || h[0] != 0xFF || h[1] & 0xE0 != 0xE0 {
        return None;
    }
    let version = (h[1] >> 3) & 3; // 3 MPEG1, 2 MPEG2, 0 MPEG2.5
    let layer = match (h[1] >> 1) & 3 {
        3 => 1u8,
        2 => 2,
        1 => 3,
        _ => return None,
    };
    if version == 1 {
        return None;
    }
    let br_idx = (h[2] >> 4) as usize;
    let sr_idx = ((h[2] >> 2) & 3) as usize;
    if br_idx == 0 || br_idx == 15 || sr_idx == 3 {
        return None;
    }
    let pad = u32::from((h[2] >> 1) & 1);
    let kbps = if version == 3 {
        MPEG1_BITRATES[(layer - 1) as usize][br_idx]
    } else {
        MPEG2_BITRATES[usize::from(layer != 1)][br_idx]
    };
    let sr = match version {
        3 => [44100, 48000, 32000][sr_idx],
        2 => [22050, 24000, 16000][sr_idx],
        _ => [11025, 12000, 8000][sr_idx],
    };
    let bps = kbps * 1000;
    let (len, samples) = match (layer, version) {
        (1, _) => ((12 * bps / sr + pad) * 4, 384),
        (2, _) | (3, 3) => (144 * bps / sr + pad, 1152),
        _ => (72 * bps / sr + pad, 576),
    };
    let channels = if h[3] >> 6 == 3 { 1 } else { 2 };
    Some((len as usize, samples, sr, kbps, layer, channels))
}

/// Parses an MPEG audio stream (MP3): an optional ID3v2 tag, then valid frames that tile the
/// data up to the end (an ID3v1 tag at the very end is allowed).
pub fn parse_mp3(b: &[u8]) -> Result<Mp3Info, MediaError> {
    let err = |r: String| MediaError::new("mp3", r);
    let mut at = 0usize;
    let mut id3v2 = false;
    if b.starts_with(b"ID3") && b.len() >= 10 {
        let size = b[6..10]
            .iter()
            .fold(0usize, |acc, &x| (acc << 7) | usize::from(x & 0x7F));
        let footer = if b[5] & 0x10 != 0 { 10 } else { 0 };
        at = 10 + size + footer;
        id3v2 = true;
    }
    let mut end = b.len();
    if end >= at + 128 && &b[end - 128..end - 125] == b"TAG" {
        end -= 128;
    }
    let mut info: Option<Mp3Info> = None;
    let mut frames = 0usize;
    let mut duration = 0f64;
    while at < end {
        let (len, samples, sr, kbps, layer, ch) = mp3_header(&b[at..end])
            .ok_or_else(|| err(format!("no valid frame header at byte {at}")))?;
        if len < 4 || at + len > end {
            return Err(err(format!("frame at byte {at} runs past the end")));
        }
        if info.is_none() {
            info = Some(Mp3Info {
                frames: 0,
                sample_rate: sr,
                bitrate_kbps: kbps,
                layer,
                channels: ch,
                duration_secs: 0.0,
                id3v2,
            });
        }
        frames += 1;
        duration += f64::from(samples) / f64::from(sr);
        at += len;
    }
    let mut info = info.ok_or_else(|| err("no frames".into()))?;
    info.frames = frames;
    info.duration_secs = duration;
    Ok(info)
}

/// What a RIFF/WAVE file holds, with its consistency checks.
#[derive(Debug, Clone, PartialEq)]
pub struct WavInfo {
    /// Format tag: 1 PCM, 3 IEEE float, 0xFFFE extensible.
    pub format_tag: u16,
    /// Channel count.
    pub channels: u16,
    /// Samples per second.
    pub sample_rate: u32,
    /// Bits per sample.
    pub bits_per_sample: u16,
    /// Bytes of sample data present (the declared size, or what is there if less).
    pub data_len: usize,
    /// `data_len` / byte rate, seconds.
    pub duration_secs: f64,
    /// The RIFF size equals the file length minus 8.
    pub riff_size_matches: bool,
    /// The `data` chunk's declared size equals the bytes present.
    pub data_size_matches: bool,
    /// `byte_rate` and `block_align` agree with channels, rate and bits.
    pub rates_consistent: bool,
}

/// Parses a RIFF/WAVE header: the `fmt ` and `data` chunks. Streaming headers (sizes of
/// 0xFFFFFFFF) parse; the `*_matches` fields tell whether the sizes are exact.
pub fn parse_wav(b: &[u8]) -> Result<WavInfo, MediaError> {
    parse_wav_head(b, b.len())
}

/// [`parse_wav`] of a file of `total` bytes from its first bytes `b` (at least up to its
/// `data` chunk's header): the same answer when it is `Ok`. An upload read in pieces is
/// measured without joining them; an `Err` may only mean `b` stops too early.
pub fn parse_wav_head(b: &[u8], total: usize) -> Result<WavInfo, MediaError> {
    let err = |r: &str| MediaError::new("wav", r);
    let total = total.max(b.len());
    if b.len() < 12 || &b[0..4] != b"RIFF" || &b[8..12] != b"WAVE" {
        return Err(err("not RIFF/WAVE"));
    }
    let riff_size = le32(b, 4).unwrap_or(0) as usize;
    let mut at = 12usize;
    let mut fmt: Option<(u16, u16, u32, u32, u16, u16)> = None;
    while at + 8 <= b.len() {
        let id = &b[at..at + 4];
        let size = le32(b, at + 4).unwrap_or(0) as usize;
        let body = at + 8;
        if id == b"fmt " {
            if size < 16 || body + 16 > b.len() {
                return Err(err("short fmt chunk"));
            }
            fmt = Some((
                le16(b, body).unwrap_or(0),
                le16(b, body + 2).unwrap_or(0),
                le32(b, body + 4).unwrap_or(0),
                le32(b, body + 8).unwrap_or(0),
                le16(b, body + 12).unwrap_or(0),
                le16(b, body + 14).unwrap_or(0),
            ));
        } else if id == b"data" {
            let (tag, channels, rate, byte_rate, align, bits) =
                fmt.ok_or_else(|| err("data chunk before fmt chunk"))?;
            if channels == 0 || rate == 0 || bits == 0 {
                return Err(err("zero channels, rate or bits"));
            }
            let present = total - body;
            let data_len = size.min(present);
            let expect_align = u32::from(channels) * u32::from(bits).div_ceil(8);
            let real_rate = if byte_rate > 0 {
                byte_rate
            } else {
                rate * expect_align
            };
            return Ok(WavInfo {
                format_tag: tag,
                channels,
                sample_rate: rate,
                bits_per_sample: bits,
                data_len,
                duration_secs: data_len as f64 / f64::from(real_rate),
                riff_size_matches: riff_size.checked_add(8) == Some(total),
                data_size_matches: size == present,
                rates_consistent: u32::from(align) == expect_align
                    && byte_rate == rate * expect_align,
            });
        }
        at = body.saturating_add(size).saturating_add(size & 1);
    }
    Err(err("no data chunk"))
}

/// What a well-formed FLAC stream holds.
#[derive(Debug, Clone, PartialEq)]
pub struct FlacInfo {
    /// STREAMINFO sample rate.
    pub sample_rate: u32,
    /// STREAMINFO channels.
    pub channels: u8,
    /// STREAMINFO bits per sample.
    pub bits_per_sample: u8,
    /// STREAMINFO total samples (0 = unknown).
    pub total_samples: u64,
    /// Number of audio frames found (each with valid CRC-8 and CRC-16).
    pub frames: usize,
    /// Samples counted over the frames.
    pub frame_samples: u64,
    /// `total_samples` (or counted samples) / rate, seconds.
    pub duration_secs: f64,
}

/// The length of a FLAC frame header at `h` and its block size, when it is valid (CRC-8 too).
fn flac_frame_header(h: &[u8]) -> Option<(usize, u64)> {
    if h.len() < 6 || h[0] != 0xFF || h[1] & 0xFE != 0xF8 {
        return None;
    }
    let bs_code = h[2] >> 4;
    let sr_code = h[2] & 0xF;
    if bs_code == 0 || sr_code == 15 || h[3] & 1 != 0 || (h[3] >> 4) > 10 {
        return None;
    }
    // The UTF-8-like coded frame or sample number.
    let first = h[4];
    let extra = match first {
        0x00..=0x7F => 0,
        0xC0..=0xDF => 1,
        0xE0..=0xEF => 2,
        0xF0..=0xF7 => 3,
        0xF8..=0xFB => 4,
        0xFC..=0xFD => 5,
        0xFE => 6,
        _ => return None,
    };
    let mut at = 5 + extra;
    if h.len() < at || h[5..at].iter().any(|&x| x & 0xC0 != 0x80) {
        return None;
    }
    let block = match bs_code {
        1 => 192,
        2..=5 => 576u64 << (bs_code - 2),
        6 => {
            at += 1;
            u64::from(*h.get(at - 1)?) + 1
        }
        7 => {
            at += 2;
            u64::from(be16(h, at - 2)?) + 1
        }
        _ => 256u64 << (bs_code - 8),
    };
    at += match sr_code {
        12 => 1,
        13 | 14 => 2,
        _ => 0,
    };
    let crc = *h.get(at)?;
    (crc8_flac(&h[..at]) == crc).then_some((at + 1, block))
}

/// Parses a FLAC stream: `fLaC`, STREAMINFO first, the metadata blocks, then frames whose
/// header CRC-8 and frame CRC-16 are valid, tiling the data to the end.
pub fn parse_flac(b: &[u8]) -> Result<FlacInfo, MediaError> {
    let err = |r: &str| MediaError::new("flac", r);
    if !b.starts_with(b"fLaC") {
        return Err(err("no fLaC marker"));
    }
    let mut at = 4usize;
    let mut info: Option<FlacInfo> = None;
    loop {
        let head = be32(b, at).ok_or_else(|| err("truncated metadata block"))?;
        let last = head & 0x8000_0000 != 0;
        let kind = (head >> 24) & 0x7F;
        let len = (head & 0x00FF_FFFF) as usize;
        let body = at + 4;
        if body + len > b.len() {
            return Err(err("metadata block runs past the end"));
        }
        if info.is_none() {
            if kind != 0 || len != 34 {
                return Err(err("STREAMINFO must come first with 34 bytes"));
            }
            let x = super::be64(b, body + 10).unwrap_or(0);
            info = Some(FlacInfo {
                sample_rate: (x >> 44) as u32,
                channels: ((x >> 41) & 7) as u8 + 1,
                bits_per_sample: ((x >> 36) & 31) as u8 + 1,
                total_samples: x & 0xF_FFFF_FFFF,
                frames: 0,
                frame_samples: 0,
                duration_secs: 0.0,
            });
        }
        at = body + len;
        if last {
            break;
        }
    }
    let mut info = info.ok_or_else(|| err("no STREAMINFO"))?;
    if info.sample_rate == 0 {
        return Err(err("zero sample rate"));
    }
    while at < b.len() {
        let (hlen, block) = flac_frame_header(&b[at..]).ok_or_else(|| err("bad frame header"))?;
        // The frame ends where its CRC-16 (over the whole frame, CRC included) is zero and
        // either the data ends or the next valid frame header starts.
        let mut crc = crc16_flac(&b[at..at + hlen]);
        let mut end = None;
        for (i, &x) in b.iter().enumerate().skip(at + hlen) {
            crc = crc16_flac_update(crc, &[x]);
            let pos = i + 1;
            if crc == 0 && (pos == b.len() || flac_frame_header(&b[pos..]).is_some()) {
                end = Some(pos);
                break;
            }
        }
        at = end.ok_or_else(|| err("frame with no valid CRC-16"))?;
        info.frames += 1;
        info.frame_samples += block;
    }
    if info.frames == 0 {
        return Err(err("no audio frames"));
    }
    let samples = if info.total_samples > 0 {
        info.total_samples
    } else {
        info.frame_samples
    };
    info.duration_secs = samples as f64 / f64::from(info.sample_rate);
    Ok(info)
}

/// What a well-formed Ogg Opus stream holds.
#[derive(Debug, Clone, PartialEq)]
pub struct OggOpusInfo {
    /// Ogg pages (each with a valid CRC).
    pub pages: usize,
    /// Audio packets (the two header packets excluded).
    pub audio_packets: usize,
    /// OpusHead channel count.
    pub channels: u8,
    /// OpusHead pre-skip, 48 kHz samples.
    pub pre_skip: u16,
    /// Granule position of the last page.
    pub final_granule: u64,
    /// (final granule - pre-skip) / 48000, seconds.
    pub duration_secs: f64,
}

/// Parses an Ogg Opus stream: pages with valid CRCs and sequence numbers, BOS first and EOS
/// last, an `OpusHead` packet then an `OpusTags` packet, then audio packets.
pub fn parse_ogg_opus(b: &[u8]) -> Result<OggOpusInfo, MediaError> {
    let err = |r: String| MediaError::new("ogg", r);
    let mut at = 0usize;
    let mut pages = 0usize;
    let mut packets: Vec<Vec<u8>> = Vec::new();
    let mut partial: Vec<u8> = Vec::new();
    let mut granule = 0u64;
    let mut serial = None;
    let mut eos = false;
    let mut audio_packets = 0usize;
    while at < b.len() {
        if eos {
            return Err(err("data after the EOS page".into()));
        }
        if b.get(at..at + 4) != Some(b"OggS") || b.get(at + 4) != Some(&0) {
            return Err(err(format!("no page at byte {at}")));
        }
        let nsegs = usize::from(*b.get(at + 26).ok_or_else(|| err("short page".into()))?);
        let table = b
            .get(at + 27..at + 27 + nsegs)
            .ok_or_else(|| err("short segment table".into()))?;
        let body_len: usize = table.iter().map(|&x| usize::from(x)).sum();
        let end = at + 27 + nsegs + body_len;
        if end > b.len() {
            return Err(err("page runs past the end".into()));
        }
        let mut page = b[at..end].to_vec();
        page[22..26].fill(0);
        if crc32_ogg(&page) != le32(b, at + 22).unwrap_or(0) {
            return Err(err(format!("bad CRC in page {pages}")));
        }
        let flags = b[at + 5];
        if (pages == 0) != (flags & 2 != 0) {
            return Err(err("BOS flag must be on the first page only".into()));
        }
        eos = flags & 4 != 0;
        let page_serial = le32(b, at + 14).unwrap_or(0);
        if *serial.get_or_insert(page_serial) != page_serial {
            return Err(err("serial number changes".into()));
        }
        if le32(b, at + 18) != Some(pages as u32) {
            return Err(err("page sequence numbers are not consecutive".into()));
        }
        let g = le64(b, at + 6).unwrap_or(0);
        if g != u64::MAX {
            if g < granule {
                return Err(err("granule position decreases".into()));
            }
            granule = g;
        }
        let mut pos = at + 27 + nsegs;
        for &seg in table {
            partial.extend_from_slice(&b[pos..pos + usize::from(seg)]);
            pos += usize::from(seg);
            if seg < 255 {
                let packet = std::mem::take(&mut partial);
                if packets.len() < 2 {
                    packets.push(packet);
                } else {
                    audio_packets += 1;
                }
            }
        }
        pages += 1;
        at = end;
    }
    if !eos {
        return Err(err("no EOS page".into()));
    }
    let head = packets
        .first()
        .filter(|p| p.starts_with(b"OpusHead") && p.len() >= 19)
        .ok_or_else(|| err("first packet is not OpusHead".into()))?;
    if !packets.get(1).is_some_and(|p| p.starts_with(b"OpusTags")) {
        return Err(err("second packet is not OpusTags".into()));
    }
    let pre_skip = le16(head, 10).unwrap_or(0);
    Ok(OggOpusInfo {
        pages,
        audio_packets,
        channels: head[9],
        pre_skip,
        final_granule: granule,
        duration_secs: granule.saturating_sub(u64::from(pre_skip)) as f64 / 48000.0,
    })
}

/// What a well-formed ADTS (AAC) stream holds.
#[derive(Debug, Clone, PartialEq)]
pub struct AdtsInfo {
    /// Number of ADTS frames.
    pub frames: usize,
    /// Sample rate, Hz.
    pub sample_rate: u32,
    /// Channel configuration.
    pub channels: u8,
    /// Audio object type (2 = AAC LC).
    pub object_type: u8,
    /// frames × 1024 / rate, seconds.
    pub duration_secs: f64,
}

/// The ADTS sampling-frequency table: a header's 4-bit index into it is the sample rate
/// (indices 13 to 15 are reserved).
pub const ADTS_RATES: [u32; 13] = [
    96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350,
];

/// Parses an ADTS stream: frames with a valid sync word and header tiling the data.
pub fn parse_adts(b: &[u8]) -> Result<AdtsInfo, MediaError> {
    let err = |r: String| MediaError::new("aac", r);
    let mut at = 0usize;
    let mut info: Option<AdtsInfo> = None;
    let mut samples = 0u64;
    while at < b.len() {
        let h = b
            .get(at..at + 7)
            .ok_or_else(|| err(format!("short header at byte {at}")))?;
        if h[0] != 0xFF || h[1] & 0xF6 != 0xF0 {
            return Err(err(format!("no ADTS sync at byte {at}")));
        }
        let sf = usize::from((h[2] >> 2) & 0xF);
        let rate = *ADTS_RATES
            .get(sf)
            .ok_or_else(|| err("bad sampling frequency index".into()))?;
        let channels = ((h[2] & 1) << 2) | (h[3] >> 6);
        let len = (usize::from(h[3] & 3) << 11) | (usize::from(h[4]) << 3) | usize::from(h[5] >> 5);
        let header_len = if h[1] & 1 == 1 { 7 } else { 9 };
        if len <= header_len || at + len > b.len() {
            return Err(err(format!("bad frame length at byte {at}")));
        }
        let info = info.get_or_insert(AdtsInfo {
            frames: 0,
            sample_rate: rate,
            channels,
            object_type: (h[2] >> 6) + 1,
            duration_secs: 0.0,
        });
        info.frames += 1;
        samples += 1024 * (u64::from(h[6] & 3) + 1);
        at += len;
    }
    let mut info = info.ok_or_else(|| err("no frames".into()))?;
    info.duration_secs = samples as f64 / f64::from(info.sample_rate);
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for junk in [
            &b""[..],
            b"\xFF\xFB",
            b"RIFF\0\0\0\0WAVE",
            b"fLaC",
            b"OggS",
            b"\xFF\xF1",
        ] {
            assert!(parse_mp3(junk).is_err());
            assert!(parse_wav(junk).is_err());
            assert!(parse_flac(junk).is_err());
            assert!(parse_ogg_opus(junk).is_err());
            assert!(parse_adts(junk).is_err());
        }
    }

    #[test]
    fn one_silent_mpeg1_frame() {
        let mut f = vec![0u8; 384];
        f[..4].copy_from_slice(&[0xFF, 0xFB, 0x94, 0xC4]);
        let info = parse_mp3(&f).expect("valid frame");
        assert_eq!(info.frames, 1);
        assert_eq!(info.sample_rate, 48000);
        assert_eq!(info.bitrate_kbps, 128);
        assert!((info.duration_secs - 0.024).abs() < 1e-9);
    }
}
