//! PNG: signature, chunk list, CRCs and the IHDR.

use super::{be32, crc32_ieee, MediaError};

/// What a well-formed PNG holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PngInfo {
    /// IHDR width, pixels.
    pub width: u32,
    /// IHDR height, pixels.
    pub height: u32,
    /// IHDR bit depth.
    pub bit_depth: u8,
    /// IHDR colour type (2 = RGB, 6 = RGBA, 3 = indexed...).
    pub color_type: u8,
    /// Number of chunks, IHDR and IEND included.
    pub chunks: usize,
    /// Total bytes of IDAT data.
    pub idat_bytes: usize,
}

const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];

/// Parses a PNG: the signature, IHDR first with a valid size, every chunk's CRC, at least one
/// IDAT, and IEND as the last chunk at the end of the data.
pub fn parse_png(b: &[u8]) -> Result<PngInfo, MediaError> {
    let err = |r: &str| MediaError::new("png", r);
    if b.get(..8) != Some(&SIGNATURE[..]) {
        return Err(err("bad signature"));
    }
    let mut at = 8usize;
    let mut info: Option<PngInfo> = None;
    let mut chunks = 0usize;
    let mut idat = 0usize;
    let mut ended = false;
    while at < b.len() {
        if ended {
            return Err(err("data after IEND"));
        }
        let len = be32(b, at).ok_or_else(|| err("truncated chunk header"))? as usize;
        let kind = b
            .get(at + 4..at + 8)
            .ok_or_else(|| err("truncated chunk type"))?;
        let end = at
            .checked_add(12)
            .and_then(|x| x.checked_add(len))
            .filter(|&e| e <= b.len())
            .ok_or_else(|| err("chunk runs past the end"))?;
        let crc = be32(b, end - 4).ok_or_else(|| err("truncated CRC"))?;
        if crc32_ieee(&b[at + 4..end - 4]) != crc {
            return Err(MediaError::new(
                "png",
                format!("bad CRC in {} chunk", String::from_utf8_lossy(kind)),
            ));
        }
        let data = &b[at + 8..end - 4];
        match kind {
            b"IHDR" => {
                if chunks != 0 || len != 13 {
                    return Err(err("IHDR must come first with 13 bytes"));
                }
                let width = be32(data, 0).unwrap_or(0);
                let height = be32(data, 4).unwrap_or(0);
                if width == 0 || height == 0 {
                    return Err(err("zero width or height"));
                }
                info = Some(PngInfo {
                    width,
                    height,
                    bit_depth: data[8],
                    color_type: data[9],
                    chunks: 0,
                    idat_bytes: 0,
                });
            }
            b"IDAT" => idat += len,
            b"IEND" => ended = true,
            _ if chunks == 0 => return Err(err("first chunk is not IHDR")),
            _ => {}
        }
        chunks += 1;
        at = end;
    }
    let mut info = info.ok_or_else(|| err("no IHDR"))?;
    if !ended {
        return Err(err("no IEND"));
    }
    if idat == 0 {
        return Err(err("no IDAT data"));
    }
    info.chunks = chunks;
    info.idat_bytes = idat;
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_garbage_without_panicking() {
        assert!(parse_png(b"").is_err());
        assert!(parse_png(&SIGNATURE).is_err());
        let mut b = SIGNATURE.to_vec();
        b.extend_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF, b'I', b'H', b'D', b'R']);
        assert!(parse_png(&b).is_err());
    }
}
