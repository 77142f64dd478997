//! The PNG codec the mock and the runner share (feature `png`): seeded images exactly the
//! requested size ([`generate`]: a pattern and colours derived from a seed, the prompt's hash
//! in the mock, so the same prompt and size always give the same bytes), and decoding and
//! editing uploads ([`decode_png`], [`edit_png`]: the mock answers `/v1/images/edits` with
//! them, the runner predicts the edited pixels with them).
//!
//! ```
//! let png = gatecheck_codecs::png::generate(7, 8, 4).unwrap();
//! let img = gatecheck_codecs::png::decode_png(&png, "image").unwrap();
//! assert_eq!((img.width, img.height), (8, 4));
//! ```

mod edit;

use bytes::Bytes;

use crate::draw::splitmix;

pub use edit::{decode_png, edit_png, EditError, Rgba};

/// The most pixels one encode or decode holds (4096 × 4096), which bounds its memory. The
/// contract's bound of a result image, `gatecheck_schemas::rules::media::MAX_IMAGE_PIXELS`, is
/// held equal to it where the two meet (the mock's media).
pub const MAX_PIXELS: u64 = 4096 * 4096;

/// Why an image could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PngError {
    /// Zero or too many pixels.
    #[error("image size {0}x{1} is out of range")]
    Size(u32, u32),
    /// The encoder failed.
    #[error("png encoding failed")]
    Encode(#[from] ::png::EncodingError),
}

/// Whether `width` × `height` is an image size one encode accepts: at least one pixel, at most
/// [`MAX_PIXELS`].
pub fn size_in_range(width: u32, height: u32) -> bool {
    width != 0 && height != 0 && u64::from(width) * u64::from(height) <= MAX_PIXELS
}

/// A `width` × `height` RGB PNG whose colours and stripes come from `seed` (the same seed and
/// size, the same bytes). The mock keeps recent ones in a small cache.
pub fn generate(seed: u64, width: u32, height: u32) -> Result<Bytes, PngError> {
    if !size_in_range(width, height) {
        return Err(PngError::Size(width, height));
    }
    encode(seed, width, height)
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
    Ok(write(
        width,
        height,
        ::png::ColorType::Rgb,
        ::png::Filter::Paeth,
        &data,
    )?)
}

/// `data` (rows of 8-bit `color` pixels) as a PNG, fast compression, one `filter` for every
/// row: the same bytes for the same input in every release.
fn write(
    width: u32,
    height: u32,
    color: ::png::ColorType,
    filter: ::png::Filter,
    data: &[u8],
) -> Result<Bytes, ::png::EncodingError> {
    let mut out = Vec::new();
    {
        let mut enc = ::png::Encoder::new(&mut out, width, height);
        enc.set_color(color);
        enc.set_depth(::png::BitDepth::Eight);
        enc.set_compression(::png::Compression::Fast);
        enc.set_filter(filter);
        let mut writer = enc.write_header()?;
        writer.write_image_data(data)?;
        writer.finish()?;
    }
    Ok(Bytes::from(out))
}
