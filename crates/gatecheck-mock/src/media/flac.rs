//! FLAC: a STREAMINFO block, then frames of 4096 samples with VERBATIM subframes (16-bit mono),
//! each with its header CRC-8 and frame CRC-16. Lossless, so the samples are exactly the input.

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
    stream_info(samples.len(), rate, &mut out);
    for (i, block) in samples.chunks(BLOCK).enumerate() {
        frame(i, block, &mut out);
    }
    Bytes::from(out)
}

/// The samples of one frame.
pub(crate) const FRAME_SAMPLES: usize = BLOCK;

/// The `fLaC` marker and STREAMINFO of `n` samples at `rate` (42 bytes).
pub(crate) fn stream_info(n: usize, rate: u32, out: &mut Vec<u8>) {
    out.extend_from_slice(b"fLaC");
    out.extend_from_slice(&[0x80, 0, 0, 34]); // last block, STREAMINFO, 34 bytes
    let min_block = if n <= BLOCK { n.max(16) } else { BLOCK };
    out.extend_from_slice(&(min_block as u16).to_be_bytes());
    out.extend_from_slice(&(BLOCK as u16).to_be_bytes());
    out.extend_from_slice(&[0; 6]); // min and max frame size unknown
    let packed: u64 = (u64::from(rate) << 44) | (15u64 << 36) | (n as u64 & 0xF_FFFF_FFFF);
    out.extend_from_slice(&packed.to_be_bytes());
    out.extend_from_slice(&[0; 16]); // MD5 unknown
}

/// The bytes of frame `i` besides its samples: sync, codes, its coded number, the short
/// block's size, CRC-8, the subframe header and CRC-16.
pub(crate) fn frame_overhead(i: usize, short: bool) -> usize {
    let mut number = Vec::new();
    coded_number(i as u32, &mut number);
    2 + 1 + 1 + number.len() + if short { 2 } else { 0 } + 1 + 1 + 2
}

/// Frame `i`, of the samples `block` (at most [`FRAME_SAMPLES`]).
pub(crate) fn frame(i: usize, block: &[i16], out: &mut Vec<u8>) {
    {
        let start = out.len();
        out.extend_from_slice(&[0xFF, 0xF8]); // sync, fixed block size
        let short = block.len() != BLOCK;
        let bs_code = if short { 0x7 } else { 0xC }; // 16-bit size at end, or 4096
        out.push(bs_code << 4); // sample rate code 0: from STREAMINFO
        out.push(0x08); // mono, 16 bits per sample
        coded_number(i as u32, out);
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
}

#[cfg(test)]
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
