//! Types of the routes the spec names without describing (DECISIONS D-EDIT, D-MJ).

use serde::{Deserialize, Serialize};

/// The text fields of `POST /v1/images/edits` (the `image` and `mask` parts aside), as the
/// `image-edit-form` schema reads them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageEditForm {
    /// An image model that edits.
    pub model: String,
    /// What to change.
    pub prompt: String,
    /// Images to make, 1 to 10, as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<String>,
    /// `<w>x<h>` or `auto`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<String>,
    /// `b64_json` or `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<String>,
}
