//! Image edits: a PNG derived from an uploaded PNG, resized to the requested size and changed
//! inside a mask (its fully transparent pixels), or everywhere without one (DECISIONS D-EDIT).
//!
//! The change is a colour inversion blended with a tint drawn from a seed (the prompt's hash
//! and the image's index), so the same upload, mask, prompt and size always give the same
//! bytes, and each of `n` images differs.

use bytes::Bytes;

use super::{size_in_range, write, MAX_PIXELS};
use crate::draw::splitmix;

/// Why an edit could not be made.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    /// The upload (or the mask) is not a PNG that decodes.
    #[error("the {0} is not a valid PNG file: {1}")]
    Decode(&'static str, String),
    /// Zero or too many pixels (the upload's or the requested size).
    #[error("image size {0}x{1} is out of range")]
    Size(u32, u32),
    /// The encoder failed.
    #[error("png encoding failed: {0}")]
    Encode(#[from] ::png::EncodingError),
}

/// A decoded image: RGBA, 8 bits per channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rgba {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes, row by row.
    pub pixels: Vec<u8>,
}

impl Rgba {
    /// The byte offset, within a row, of the source pixel of each of the `w` columns of this
    /// image scaled to width `w` (nearest neighbour).
    fn columns(&self, w: u32) -> Vec<usize> {
        (0..w)
            .map(|x| (u64::from(x) * u64::from(self.width) / u64::from(w.max(1))) as usize * 4)
            .collect()
    }

    /// The source row of row `y` of this image scaled to height `h` (nearest neighbour).
    fn row(&self, y: u32, h: u32) -> &[u8] {
        let sy = (u64::from(y) * u64::from(self.height) / u64::from(h.max(1))) as usize;
        let len = self.width as usize * 4;
        &self.pixels[sy * len..(sy + 1) * len]
    }
}

/// Decodes a PNG of at most [`MAX_PIXELS`](super::MAX_PIXELS) pixels into RGBA; `what` names it in the error
/// (`image`, `mask`).
///
/// ```
/// let png = gatecheck_codecs::png::generate(7, 8, 4).unwrap();
/// let img = gatecheck_codecs::png::decode_png(&png, "image").unwrap();
/// assert_eq!((img.width, img.height, img.pixels.len()), (8, 4, 8 * 4 * 4));
/// assert!(gatecheck_codecs::png::decode_png(b"not a png", "image").is_err());
/// ```
pub fn decode_png(bytes: &[u8], what: &'static str) -> Result<Rgba, EditError> {
    let bad = |e: &dyn std::fmt::Display| EditError::Decode(what, e.to_string());
    let mut decoder = ::png::Decoder::new_with_limits(
        std::io::Cursor::new(bytes),
        ::png::Limits {
            bytes: (MAX_PIXELS * 8) as usize,
        },
    );
    decoder.set_transformations(::png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(|e| bad(&e))?;
    let (width, height) = (reader.info().width, reader.info().height);
    if !size_in_range(width, height) {
        return Err(EditError::Size(width, height));
    }
    let size = reader
        .output_buffer_size()
        .ok_or(EditError::Size(width, height))?;
    let mut buf = vec![0; size];
    let frame = reader.next_frame(&mut buf).map_err(|e| bad(&e))?;
    let data = &buf[..frame.buffer_size()];
    let pixels: Vec<u8> = match frame.color_type {
        ::png::ColorType::Rgba => data.to_vec(),
        // Slice copies rather than a `flat_map` of arrays: the tests run this on every image of
        // a run, built without optimization (BENCHMARKS.md, "CI time").
        ::png::ColorType::Rgb => {
            let mut out = vec![255; data.len() / 3 * 4];
            for (o, p) in out.chunks_exact_mut(4).zip(data.chunks_exact(3)) {
                o[..3].copy_from_slice(p);
            }
            out
        }
        ::png::ColorType::GrayscaleAlpha => data
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        ::png::ColorType::Grayscale => data.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        ::png::ColorType::Indexed => return Err(bad(&"palette left unexpanded")),
    };
    if pixels.len() != width as usize * height as usize * 4 {
        return Err(bad(&"truncated image data"));
    }
    Ok(Rgba {
        width,
        height,
        pixels,
    })
}

/// The edited PNG: `image` scaled to `w` × `h`, each pixel where the scaled `mask` is fully
/// transparent (every pixel when there is no mask) inverted and tinted with a colour drawn
/// from `seed`; the others kept. RGBA, 8 bits.
///
/// ```
/// use gatecheck_codecs::png::{decode_png, edit_png, generate};
/// let src = decode_png(&generate(1, 16, 16).unwrap(), "image").unwrap();
/// let out = decode_png(&edit_png(&src, None, 42, 32, 8).unwrap(), "image").unwrap();
/// assert_eq!((out.width, out.height), (32, 8));
/// assert_ne!(out.pixels[..4], src.pixels[..4], "edited everywhere without a mask");
/// ```
pub fn edit_png(
    image: &Rgba,
    mask: Option<&Rgba>,
    seed: u64,
    w: u32,
    h: u32,
) -> Result<Bytes, EditError> {
    if !size_in_range(w, h) {
        return Err(EditError::Size(w, h));
    }
    let mut s = seed;
    let tint = splitmix(&mut s).to_le_bytes();
    // The edited value of each channel value, per channel: (255 - v + tint) / 2.
    let edited: [[u8; 256]; 3] = std::array::from_fn(|ch| {
        std::array::from_fn(|v| ((255 - v as u16 + u16::from(tint[ch])) / 2) as u8)
    });
    let (columns, mask_columns) = (image.columns(w), mask.map(|m| m.columns(w)));
    let mut data = vec![0u8; w as usize * h as usize * 4];
    for (y, out_row) in (0..h).zip(data.chunks_exact_mut(w as usize * 4)) {
        let row = image.row(y, h);
        let mask_row = mask
            .zip(mask_columns.as_deref())
            .map(|(m, c)| (m.row(y, h), c));
        for (x, out) in out_row.chunks_exact_mut(4).enumerate() {
            let p = &row[columns[x]..columns[x] + 4];
            let edit = mask_row.is_none_or(|(m, c)| m[c[x] + 3] == 0);
            if edit {
                out[0] = edited[0][usize::from(p[0])];
                out[1] = edited[1][usize::from(p[1])];
                out[2] = edited[2][usize::from(p[2])];
                out[3] = 255;
            } else {
                out.copy_from_slice(p);
            }
        }
    }
    // The one filter for every row (png 0.18's `Fast` picks another): the same bytes as every
    // earlier release for the same input.
    Ok(write(
        w,
        h,
        ::png::ColorType::Rgba,
        ::png::Filter::Sub,
        &data,
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rgba(width: u32, height: u32, px: [u8; 4]) -> Rgba {
        Rgba {
            width,
            height,
            pixels: px.repeat((width * height) as usize),
        }
    }

    #[test]
    fn only_the_transparent_part_of_the_mask_changes() {
        let src = rgba(4, 4, [10, 20, 30, 255]);
        let mut mask = rgba(4, 4, [0, 0, 0, 255]);
        // The left half of the mask is transparent: edit there only.
        for y in 0..4 {
            for x in 0..2 {
                mask.pixels[(y * 4 + x) * 4 + 3] = 0;
            }
        }
        let out = decode_png(&edit_png(&src, Some(&mask), 9, 8, 8).unwrap(), "image").unwrap();
        let at = |x: usize, y: usize| &out.pixels[(y * 8 + x) * 4..(y * 8 + x) * 4 + 4];
        assert_eq!(at(7, 7), [10, 20, 30, 255], "kept outside the mask");
        assert_ne!(at(0, 0), [10, 20, 30, 255], "edited inside the mask");
    }

    #[test]
    fn grey_and_rgb_uploads_decode_to_rgba() {
        let mut out = Vec::new();
        {
            let mut enc = ::png::Encoder::new(&mut out, 2, 1);
            enc.set_color(::png::ColorType::Grayscale);
            enc.set_depth(::png::BitDepth::Eight);
            let mut w = enc.write_header().unwrap();
            w.write_image_data(&[7, 9]).unwrap();
        }
        let img = decode_png(&out, "mask").unwrap();
        assert_eq!(img.pixels, [7, 7, 7, 255, 9, 9, 9, 255]);
    }

    #[test]
    fn a_size_out_of_range_is_refused() {
        let src = rgba(1, 1, [0; 4]);
        assert!(matches!(
            edit_png(&src, None, 0, 0, 5),
            Err(EditError::Size(0, 5))
        ));
    }
}
