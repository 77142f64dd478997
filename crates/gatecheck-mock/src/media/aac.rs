//! AAC in ADTS: AAC-LC frames (1024 samples each) holding one silent single-channel element
//! (`max_sfb` 0: no spectral data), each behind a 7-byte ADTS header.

use bytes::Bytes;
use gatecheck_schemas::rules::media::ADTS_RATES as RATES;

/// The raw data block: SCE (tag 0), global_gain 0, long window, max_sfb 0, no pulse/TNS/gain
/// control, then END.
const SILENT_BLOCK: [u8; 4] = [0x00, 0x00, 0x00, 0x07];

/// An ADTS AAC-LC stream of at least `duration_ms` of silence, mono, at `rate` (one of the
/// ADTS rates; 24000 otherwise).
pub fn aac(duration_ms: u64, rate: u32) -> Bytes {
    let (frames, frame) = frames(duration_ms, rate);
    let mut out = Vec::with_capacity(frames * frame.len());
    for _ in 0..frames {
        out.extend_from_slice(&frame);
    }
    Bytes::from(out)
}

/// How many frames an ADTS stream of `duration_ms` at `rate` has, and the frame (every frame
/// is the same: header and silent block).
pub(crate) fn frames(duration_ms: u64, rate: u32) -> (usize, [u8; 11]) {
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
    let mut frame = [0u8; 11];
    frame[..7].copy_from_slice(&header);
    frame[7..].copy_from_slice(&SILENT_BLOCK);
    (frames, frame)
}
