//! Summaries of binary payloads: media type, dimensions and size class.

use base64::Engine as _;

/// The size class of `len` bytes: the nearest power of two, as `~16KiB`.
///
/// ```
/// use gatecheck_conformance::normalize::size_class;
/// assert_eq!(size_class(1000), "~1KiB");
/// assert_eq!(size_class(1_100_000), "~1MiB");
/// assert_eq!(size_class(0), "0B");
/// ```
pub fn size_class(len: usize) -> String {
    if len == 0 {
        return "0B".to_owned();
    }
    // Nearest power of two in log scale: 2^k with k = round(log2(len)).
    let k = (len as f64).log2().round() as u32;
    let (value, unit) = match k {
        0..=9 => (1u64 << k, "B"),
        10..=19 => (1u64 << (k - 10), "KiB"),
        20..=29 => (1u64 << (k - 20), "MiB"),
        _ => (1u64 << k.saturating_sub(30).min(40), "GiB"),
    };
    format!("~{value}{unit}")
}

/// What the bytes are, sniffed from their first bytes, with the dimensions of an image.
pub fn sniff(bytes: &[u8]) -> String {
    if bytes.len() >= 24 && bytes.starts_with(b"\x89PNG\r\n\x1a\n") && &bytes[12..16] == b"IHDR" {
        let w = u32::from_be_bytes([bytes[16], bytes[17], bytes[18], bytes[19]]);
        let h = u32::from_be_bytes([bytes[20], bytes[21], bytes[22], bytes[23]]);
        return format!("png {w}x{h}");
    }
    if bytes.starts_with(b"\x89PNG") {
        return "png".to_owned();
    }
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return "jpeg".to_owned();
    }
    if bytes.len() >= 12 && &bytes[0..4] == b"RIFF" && &bytes[8..12] == b"WAVE" {
        return "wav".to_owned();
    }
    if bytes.len() >= 12 && &bytes[0..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        return "webp".to_owned();
    }
    if bytes.len() >= 8 && &bytes[4..8] == b"ftyp" {
        return "mp4".to_owned();
    }
    if bytes.starts_with(b"OggS") {
        return "ogg".to_owned();
    }
    if bytes.starts_with(b"fLaC") {
        return "flac".to_owned();
    }
    if bytes.starts_with(b"ID3") {
        return "mp3".to_owned();
    }
    if bytes.len() >= 2 && bytes[0] == 0xFF && bytes[1] & 0xF6 == 0xF0 {
        return "aac".to_owned();
    }
    if bytes.len() >= 2 && bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0 {
        return "mp3".to_owned();
    }
    if bytes.starts_with(&[0x1A, 0x45, 0xDF, 0xA3]) {
        return "webm".to_owned();
    }
    "data".to_owned()
}

/// The summary of a binary body: `[png 1024x1024 ~1MiB]`.
pub fn summarize_bytes(bytes: &[u8]) -> String {
    format!("[{} {}]", sniff(bytes), size_class(bytes.len()))
}

/// The summary of a base64 string, or `None` when it is not base64.
pub fn summarize_base64(text: &str) -> Option<String> {
    let trimmed = text.trim();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(trimmed)
        .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD.decode(trimmed))
        .ok()?;
    Some(summarize_bytes(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(size_class(1), "~1B");
        assert_eq!(size_class(700), "~512B");
        assert_eq!(size_class(800), "~1KiB");
        assert_eq!(size_class(3 << 20), "~4MiB");
    }

    #[test]
    fn png_header() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&1024u32.to_be_bytes());
        png.extend_from_slice(&512u32.to_be_bytes());
        assert_eq!(sniff(&png), "png 1024x512");
        let b64 = base64::engine::general_purpose::STANDARD.encode(&png);
        assert_eq!(summarize_base64(&b64).unwrap(), "[png 1024x512 ~32B]");
        assert_eq!(summarize_base64("not base64!"), None);
    }
}
