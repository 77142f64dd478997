//! Images as pixels, for the checks that judge them: every PNG an answer carries is decoded
//! whole (a valid header over a truncated or corrupt image data stream is not a PNG), and an
//! edit with a mask is compared with its source, pixel by pixel, inside and outside the mask
//! (DECISIONS D-EDIT-6). A mask marks where to edit by its fully transparent pixels (OpenAI's
//! images/edits); an image without alpha marks nothing.

use gatecheck_codecs::png::{decode_png, Rgba};
use gatecheck_schemas::rules::media::parse_png;

/// A PNG decoded whole: its chunks and CRCs ([`parse_png`]), then every pixel of its image
/// data. `Err` says what is wrong, as people read it.
pub(crate) fn decoded_png(bytes: &[u8]) -> Result<Rgba, String> {
    parse_png(bytes).map_err(|e| e.to_string())?;
    decode_png(bytes, "image").map_err(|e| e.to_string())
}

/// Largest per-channel difference (of 255) at which a pixel outside the mask still counts as
/// kept: room for a gateway or model that re-encodes or resamples the image, far below what a
/// repaint changes.
pub(crate) const KEPT_TOLERANCE: u8 = 24;

/// Least share of the pixels outside the mask (away from its edge) that an edit keeps.
pub(crate) const KEPT_SHARE: f64 = 0.9;

/// A `w` × `h` RGBA mask whose left half is fully transparent (the area to edit, as OpenAI's
/// images/edits and new-api's relay read a mask) and whose right half is opaque (kept).
pub(crate) fn half_mask(w: u32, h: u32) -> Vec<u8> {
    let mut data = Vec::with_capacity(w as usize * h as usize * 4);
    for _ in 0..h {
        for x in 0..w {
            let alpha = if x < w / 2 { 0 } else { 255 };
            data.extend_from_slice(&[0, 0, 0, alpha]);
        }
    }
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, w, h);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let written = enc
        .write_header()
        .and_then(|mut writer| writer.write_image_data(&data));
    match written {
        Ok(()) => out,
        Err(_) => Vec::new(),
    }
}

/// How an edit treated the area a [`half_mask`] keeps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MaskJudgement {
    /// Pixels compared outside the mask (the opaque half, away from its edge).
    pub outside: usize,
    /// Of them, those within [`KEPT_TOLERANCE`] of the source.
    pub kept: usize,
    /// Pixels compared inside the mask (the transparent half, away from its edge).
    pub inside: usize,
    /// Of them, those that changed beyond [`KEPT_TOLERANCE`].
    pub changed: usize,
}

impl MaskJudgement {
    /// Whether the edit kept the area outside the mask ([`KEPT_SHARE`] of it).
    pub fn kept_outside(&self) -> bool {
        self.outside == 0 || self.kept as f64 >= KEPT_SHARE * self.outside as f64
    }
}

/// The pixel at (`x`, `y`) of `img` scaled to `w` × `h` (nearest neighbour).
fn sample(img: &Rgba, x: u32, y: u32, w: u32, h: u32) -> [u8; 4] {
    let sx = (u64::from(x) * u64::from(img.width) / u64::from(w.max(1))) as usize;
    let sy = (u64::from(y) * u64::from(img.height) / u64::from(h.max(1))) as usize;
    let i = (sy * img.width as usize + sx) * 4;
    let mut p = [0u8; 4];
    if let Some(px) = img.pixels.get(i..i + 4) {
        p.copy_from_slice(px);
    }
    p
}

/// Where a mask puts the pixel at (`x`, `y`) of a `w` × `h` answer: `Some(true)` inside (fully
/// transparent: editable), `Some(false)` outside (opaque: kept), `None` on partial alpha or
/// within `band` pixels of the mask's edge (a model may blend across it).
fn side(mask: &Rgba, x: u32, y: u32, (w, h): (u32, u32), band: u32) -> Option<bool> {
    let class = |x: u32, y: u32| match sample(mask, x, y, w, h)[3] {
        0 => Some(true),
        255 => Some(false),
        _ => None,
    };
    let here = class(x, y)?;
    let near = [
        (x.saturating_sub(band), y),
        ((x + band).min(w - 1), y),
        (x, y.saturating_sub(band)),
        (x, (y + band).min(h - 1)),
    ];
    near.iter()
        .all(|&(nx, ny)| class(nx, ny) == Some(here))
        .then_some(here)
}

/// Compares `edited` with `source` scaled to the edited size, inside and outside `mask`
/// (scaled the same way; an image without alpha is opaque, all kept), leaving out a band of
/// an eighth of the width along the mask's edges; a large answer is sampled on a grid.
pub(crate) fn judge_mask(source: &Rgba, mask: &Rgba, edited: &Rgba) -> MaskJudgement {
    let (w, h) = (edited.width, edited.height);
    let band = (w / 8).max(1);
    let mut j = MaskJudgement {
        outside: 0,
        kept: 0,
        inside: 0,
        changed: 0,
    };
    // About 128 × 128 samples of a large answer: enough to see a repaint, cheap to compare.
    let step = (w.max(h) / 128).max(1) as usize;
    for y in (0..h).step_by(step) {
        for x in (0..w).step_by(step) {
            let Some(inside) = side(mask, x, y, (w, h), band) else {
                continue;
            };
            let a = sample(source, x, y, w, h);
            let b = sample(edited, x, y, w, h);
            let same = (0..3).all(|c| a[c].abs_diff(b[c]) <= KEPT_TOLERANCE);
            if inside {
                j.inside += 1;
                j.changed += usize::from(!same);
            } else {
                j.outside += 1;
                j.kept += usize::from(same);
            }
        }
    }
    j
}

#[cfg(test)]
mod tests {
    use super::*;
    use gatecheck_codecs::png::{edit_png, generate as png};

    fn source() -> Rgba {
        decoded_png(&png(3, 24, 16).unwrap()).unwrap()
    }

    #[test]
    fn the_mask_is_transparent_on_the_left_only() {
        let mask = decoded_png(&half_mask(8, 2)).unwrap();
        assert_eq!(mask.pixels[3], 0);
        assert_eq!(mask.pixels[7 * 4 + 3], 255);
    }

    #[test]
    fn an_edit_inside_the_mask_keeps_the_outside() {
        let src = source();
        let mask = decoded_png(&half_mask(24, 16)).unwrap();
        let out = edit_png(&src, Some(&mask), 5, 64, 64).unwrap();
        let j = judge_mask(&src, &mask, &decoded_png(&out).unwrap());
        assert!(j.kept_outside(), "{j:?}");
        assert_eq!(j.kept, j.outside, "{j:?}");
        assert!(j.outside > 0 && j.changed > 0, "{j:?}");
    }

    #[test]
    fn an_edit_that_repaints_everything_is_seen() {
        let src = source();
        let out = decoded_png(&edit_png(&src, None, 5, 64, 64).unwrap()).unwrap();
        let half = decoded_png(&half_mask(24, 16)).unwrap();
        assert!(!judge_mask(&src, &half, &out).kept_outside());
        // An image without alpha is an opaque mask: everything is kept.
        let opaque = decoded_png(&png(7, 24, 16).unwrap()).unwrap();
        let j = judge_mask(&src, &opaque, &out);
        assert!(!j.kept_outside() && j.inside == 0, "{j:?}");
        let kept = decoded_png(&edit_png(&src, Some(&opaque), 5, 64, 64).unwrap()).unwrap();
        assert_eq!(judge_mask(&src, &opaque, &kept).kept, j.outside);
    }

    #[test]
    fn a_truncated_png_does_not_decode() {
        let good = png(3, 24, 16).unwrap();
        assert!(decoded_png(&good).is_ok());
        assert!(decoded_png(&good[..good.len() / 2]).is_err());
        assert!(decoded_png(b"GIF89a").is_err());
    }
}
