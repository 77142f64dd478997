//! The planted bugs of the image routes (`images.*`): generations, their PNGs and image
//! edits.

use super::planted::{Bug, Planted};
use gatecheck_conformance::Status;

/// This surface's rows of [`planted`](super::planted::planted): (bug, the check that
/// catches it, its verdict, the rule it breaks).
pub(crate) fn rows() -> Vec<Planted> {
    vec![
        (
            Bug::ImageSizeUnchecked,
            "images.size-must-match-model",
            Status::Failed,
            "media image sizes (capabilities)",
        ),
        (
            Bug::B64NotPng,
            "images.png-matches-size",
            Status::Failed,
            "media::parse_png",
        ),
        (
            Bug::PngOffByOne,
            "images.png-matches-size",
            Status::Deviation,
            "media::parse_png (size, D-MEDIA)",
        ),
        (
            Bug::ImageAs201,
            "images.result",
            Status::Failed,
            "rejection::ACCEPTED",
        ),
        (
            Bug::EditNotPng,
            "images.edits.result",
            Status::Failed,
            "media::parse_png on edited images (D-EDIT-3)",
        ),
        (
            Bug::EditMissingImageAccepted,
            "images.edits.missing-image",
            Status::Deviation,
            "image_edit::missing_image (D-EDIT-2)",
        ),
        (
            Bug::EditIgnoresMask,
            "images.edits.result",
            Status::Failed,
            "D-EDIT-6 (MASK_PART: only the mask's transparent area changes)",
        ),
    ]
}
