//! PNG images: exactly the requested size, with a pattern and colours derived from a seed (the
//! prompt's hash), so the same prompt and size always give the same bytes.

use bytes::Bytes;

use super::{splitmix, Cache};

/// Largest accepted pixel count (bounds the memory of one encode).
pub const MAX_PIXELS: u64 = gatecheck_schemas::rules::media::MAX_IMAGE_PIXELS;

/// Why an image could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PngError {
    /// Zero or too many pixels.
    #[error("image size {0}x{1} is out of range")]
    Size(u32, u32),
    /// The encoder failed.
    #[error("png encoding failed")]
    Encode(#[from] png::EncodingError),
}

static CACHE: Cache<(u64, u32, u32)> = Cache::new(16);

/// A `width` × `height` RGB PNG whose colours and stripes come from `seed`. Encoded images are
/// kept in a small bounded cache.
pub fn png(seed: u64, width: u32, height: u32) -> Result<Bytes, PngError> {
    if width == 0 || height == 0 || u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(PngError::Size(width, height));
    }
    if let Some(b) = CACHE.get(&(seed, width, height)) {
        return Ok(b);
    }
    let bytes = encode(seed, width, height)?;
    CACHE.put((seed, width, height), bytes.clone());
    Ok(bytes)
}

fn encode(seed: u64, width: u32, height: u32) -> Result<Bytes, PngError> {
    let mut s = seed;
    let mut rand = || splitmix(&mut s);
    let c0 = rand().to_le_bytes();
    let c1 = rand().to_le_bytes();
    let stripe = 8 + (rand() % 56) as u32;
    let (w, h) = (width as usize, height as usize);
    // One row template: a horizontal gradient from c0 to c1.
    let mut template = vec![0u8; w * 3];
    for x in 0..w {
        // Steps of 16 pixels keep the filtered rows mostly zero, so the PNG stays small.
        let step = x / 16 * 16;
        for ch in 0..3 {
            let a = i64::from(c0[ch]);
            let b = i64::from(c1[ch]);
            template[x * 3 + ch] = (a + (b - a) * step as i64 / w.max(2) as i64) as u8;
        }
    }
    let mut data = Vec::with_capacity(w * h * 3);
    for y in 0..h {
        // Rows darken slowly downwards, with a lighter stripe every `stripe` rows.
        let shade = (y / 16 * 16 * 96 / h) as u8;
        let lift = if (y as u32 / stripe).is_multiple_of(2) {
            0
        } else {
            24
        };
        data.extend(
            template
                .iter()
                .map(|&v| v.saturating_sub(shade).saturating_add(lift)),
        );
    }
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, width, height);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        enc.set_filter(png::Filter::Paeth);
        let mut writer = enc.write_header()?;
        writer.write_image_data(&data)?;
        writer.finish()?;
    }
    Ok(Bytes::from(out))
}
