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

/// The answer of `POST /mj/submit/*` (new-api's dto/midjourney.go MidjourneyResponse).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MjSubmitAnswer {
    /// 1: submitted; 4: refused.
    pub code: i64,
    /// What happened.
    pub description: String,
    /// The task id.
    pub result: String,
    /// Free-form details.
    #[serde(default)]
    pub properties: Option<serde_json::Value>,
}

/// The task record of `GET /mj/task/{id}/fetch` (new-api's dto/midjourney.go MidjourneyDto,
/// the fields a client reads).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MjTask {
    /// The task id.
    pub id: String,
    /// IMAGINE, UPSCALE, ...
    pub action: String,
    /// The prompt.
    pub prompt: String,
    /// Unix ms.
    pub submit_time: i64,
    /// Unix ms, 0 until started.
    pub start_time: i64,
    /// Unix ms, 0 until finished.
    pub finish_time: i64,
    /// `/mj/image/{id}` once SUCCESS.
    pub image_url: String,
    /// SUBMITTED, IN_PROGRESS, SUCCESS, FAILURE.
    pub status: String,
    /// `NN%`.
    pub progress: String,
    /// Why it failed.
    pub fail_reason: String,
    /// The next actions (`customId`s for `/mj/submit/action`).
    #[serde(default)]
    pub buttons: Option<Vec<serde_json::Value>>,
}
