//! MP3: MPEG-1 Layer III frames of digital silence (48 kHz, 64 kbit/s, mono).
//!
//! Each frame is a valid 4-byte header, 17 bytes of zero side information (no coded
//! granules: the decoder outputs silence) and zero padding to the frame length. Encoding real
//! audio would need a full psychoacoustic encoder; silent frames are what a real encoder emits
//! for silence, and every decoder plays them.

use bytes::Bytes;

/// Frame header: sync, MPEG-1, Layer III, no CRC, 64 kbit/s, 48 kHz, no padding, mono.
pub const FRAME_HEADER: [u8; 4] = [0xFF, 0xFB, 0x54, 0xC4];
/// Bytes per frame: 144 × 64000 / 48000.
pub const FRAME_LEN: usize = 192;
/// Duration of one frame: 1152 samples at 48 kHz.
pub const FRAME_MS: f64 = 24.0;

/// An MP3 of at least `duration_ms` (rounded up to whole 24 ms frames, at least one).
pub fn mp3(duration_ms: u64) -> Bytes {
    let frames = frames(duration_ms);
    let frame = frame();
    let mut out = Vec::with_capacity(frames * FRAME_LEN);
    for _ in 0..frames {
        out.extend_from_slice(&frame);
    }
    Bytes::from(out)
}

/// How many frames an MP3 of `duration_ms` has.
pub(crate) fn frames(duration_ms: u64) -> usize {
    ((duration_ms as f64 / FRAME_MS).ceil() as usize).max(1)
}

/// One frame (every frame is the same).
pub(crate) fn frame() -> [u8; FRAME_LEN] {
    let mut frame = [0u8; FRAME_LEN];
    frame[..4].copy_from_slice(&FRAME_HEADER);
    frame
}
