//! `POST /v1/images/edits`: which multipart parts carry the images, what a missing image is
//! answered, which models edit, and what an edit is charged (DECISIONS `D-EDIT`).
//!
//! The route is named by the spec ("an image edit route ... exists; its paths and payloads:
//! not shown"), so every rule here is a decision: the documented profile follows OpenAI's
//! published images/edits contract, the `new-api` profile new-api's code
//! (relay/channel/openai/adaptor.go ConvertImageRequest, relay/image_handler.go).
//!
//! ```
//! use gatecheck_schemas::rules::image_edit::{is_image_part, missing_image};
//! use gatecheck_schemas::Profile;
//! assert!(is_image_part("image") && is_image_part("image[]") && is_image_part("image[2]"));
//! assert!(!is_image_part("mask") && !is_image_part("images"));
//! assert_eq!(missing_image(Profile::NewApi), (500, "convert_request_failed"));
//! assert_eq!(missing_image(Profile::Documented).0, 400);
//! ```

use crate::Profile;

/// The route.
pub const EDITS_PATH: &str = "/v1/images/edits";

/// The part of the optional mask.
pub const MASK_PART: &str = "mask";

/// Most images one edit takes (OpenAI: up to 16 for gpt-image-1).
pub const MAX_EDIT_IMAGES: usize = 16;

/// The message of a request without an image, as new-api's OpenAI adaptor words it.
pub const MSG_IMAGE_REQUIRED: &str = "image is required";

/// The models of the catalog that cannot edit (OpenAI: dall-e-3 generates only).
pub const NON_EDITING_MODELS: [&str; 1] = ["dall-e-3"];

/// Whether a multipart part named `name` is an input image: `image`, `image[]` or
/// `image[<anything>]`, as new-api's OpenAI adaptor collects them (D-EDIT-1).
pub fn is_image_part(name: &str) -> bool {
    name == "image" || (name.starts_with("image[") && name.ends_with(']'))
}

/// The status and error code of a request without an image part: 400 `invalid_request`
/// (documented: a validation failure, as OpenAI refuses it), 500 `convert_request_failed`
/// (new-api: the adaptor's conversion fails after the price is reserved, and it is given back;
/// D-EDIT-2).
pub fn missing_image(profile: Profile) -> (u16, &'static str) {
    match profile {
        Profile::Documented => (400, "invalid_request"),
        Profile::NewApi => (500, "convert_request_failed"),
    }
}

/// Whether `model` (a catalog model with an image capability) may edit (D-EDIT-3).
///
/// ```
/// use gatecheck_schemas::rules::image_edit::edits_supported;
/// assert!(edits_supported("gpt-image-1"));
/// assert!(!edits_supported("dall-e-3"));
/// ```
pub fn edits_supported(model: &str) -> bool {
    !NON_EDITING_MODELS.contains(&model)
}

/// Output tokens of one image of `w` × `h` at the low quality every edit is drawn at: 272 per
/// 1024 × 1024, scaled by area (the generation route's count at quality `low`).
///
/// ```
/// assert_eq!(gatecheck_schemas::rules::image_edit::image_tokens(1024, 1024), 272);
/// assert_eq!(gatecheck_schemas::rules::image_edit::image_tokens(512, 512), 68);
/// ```
pub fn image_tokens(w: u32, h: u32) -> i64 {
    (272 * i64::from(w) * i64::from(h)).div_euclid(1024 * 1024)
}

/// The usage an edit is charged for, as a generation is (D-EDIT-4): one request per output
/// image, the prompt's text tokens (a token per 4 characters, at least 1) plus
/// [`image_tokens`] per input image at its own size as input, [`image_tokens`] per output
/// image as output.
///
/// ```
/// use gatecheck_schemas::rules::image_edit::edit_usage;
/// let u = edit_usage(8, &[(1024, 1024)], 2, (512, 512));
/// assert_eq!((u.requests, u.input_tokens, u.output_tokens), (2, 2 + 272, 136));
/// ```
pub fn edit_usage(
    prompt_chars: usize,
    inputs: &[(u32, u32)],
    n: i64,
    size: (u32, u32),
) -> super::quota::Usage {
    let text = (prompt_chars as i64 + 3).div_euclid(4).max(1);
    let images: i64 = inputs.iter().map(|&(w, h)| image_tokens(w, h)).sum();
    super::quota::Usage {
        requests: n,
        seconds: 0.0,
        input_tokens: text + images,
        output_tokens: n * image_tokens(size.0, size.1),
    }
}
