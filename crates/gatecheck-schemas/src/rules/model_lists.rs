//! The model lists in the shapes of other clients, as new-api's `ListModels` answers them
//! (`router/relay-router.go` SetRelayRouter, `controller/model.go` ListModels, `dto/pricing.go`,
//! `middleware/auth.go` TokenAuth; DECISIONS D-MODELS).
//!
//! `GET /v1/models` picks its shape from the client's headers ([`list_shape`]);
//! `GET /v1beta/models` is Gemini's list. The models are those of the OpenAI list for the same
//! key, in its order.

use serde_json::{json, Value};

/// Anthropic's key header; on `/v1/models` it stands for `Authorization: Bearer`.
pub const X_API_KEY: &str = "x-api-key";
/// Anthropic's version header: with [`X_API_KEY`], the Anthropic list.
pub const ANTHROPIC_VERSION: &str = "anthropic-version";
/// Gemini's key header, on `/v1/models` and `/v1beta/models`.
pub const X_GOOG_API_KEY: &str = "x-goog-api-key";
/// Gemini's key query parameter, on the same paths.
pub const KEY_QUERY: &str = "key";
/// The Gemini list.
pub const GEMINI_MODELS_PATH: &str = "/v1beta/models";

/// The answer `GET /v1/models` gives, by the client's headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListShape {
    /// `{object:"list", data:[...]}` (and new-api's `success:true`).
    OpenAi,
    /// `x-api-key` and `anthropic-version` both non-empty: `{data, first_id, has_more, last_id}`.
    Anthropic,
    /// `x-goog-api-key` or `?key=` non-empty: new-api answers `RetrieveModel` of the empty
    /// model id, HTTP 200 with a `model_not_found` error ([`empty_model_error`]).
    GeminiRetrieve,
}

/// The shape of `GET /v1/models` for these non-empty credentials (the switch's order).
///
/// ```
/// use gatecheck_schemas::rules::model_lists::{list_shape, ListShape};
/// assert_eq!(list_shape(true, true, true, false), ListShape::Anthropic);
/// assert_eq!(list_shape(true, false, false, false), ListShape::OpenAi);
/// assert_eq!(list_shape(false, false, false, true), ListShape::GeminiRetrieve);
/// ```
pub fn list_shape(x_api_key: bool, anthropic_version: bool, goog: bool, key: bool) -> ListShape {
    if x_api_key && anthropic_version {
        ListShape::Anthropic
    } else if goog || key {
        ListShape::GeminiRetrieve
    } else {
        ListShape::OpenAi
    }
}

/// The key TokenAuth reads on the model-list paths: `x-goog-api-key`, else `?key=`, else
/// `x-api-key` (on `/v1/models`), else the `Authorization` value; each only when non-empty.
/// The result is an `Authorization` value.
///
/// ```
/// use gatecheck_schemas::rules::model_lists::list_credential;
/// assert_eq!(list_credential(Some("Bearer a"), Some("b"), None, None, true), "Bearer b");
/// assert_eq!(list_credential(Some("Bearer a"), Some("b"), Some("c"), None, true), "Bearer c");
/// assert_eq!(list_credential(None, Some("b"), None, None, false), "");
/// ```
pub fn list_credential(
    authorization: Option<&str>,
    x_api_key: Option<&str>,
    x_goog_api_key: Option<&str>,
    query_key: Option<&str>,
    v1_models: bool,
) -> String {
    fn given(v: Option<&str>) -> Option<&str> {
        v.filter(|s| !s.is_empty())
    }
    if let Some(k) = given(x_goog_api_key).or(given(query_key)) {
        return format!("Bearer {k}");
    }
    match given(x_api_key) {
        Some(k) if v1_models => format!("Bearer {k}"),
        _ => authorization.unwrap_or("").to_owned(),
    }
}

/// Unix seconds as RFC 3339 UTC (`time.Unix(created, 0).UTC().Format(time.RFC3339)`).
///
/// ```
/// use gatecheck_schemas::rules::model_lists::rfc3339;
/// assert_eq!(rfc3339(1_626_777_600), "2021-07-20T10:40:00Z");
/// ```
pub fn rfc3339(secs: i64) -> String {
    let (y, mo, d, h, mi, s) = crate::rules::time::utc_parts(secs);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

/// The Anthropic list of `(id, created)` models: each `{id, created_at, display_name: id,
/// type: "model"}`, `has_more` false, `first_id`/`last_id` the ends (`""` for an empty list,
/// as new-api's guarded versions answer; DECISIONS D-MODELS-2).
pub fn anthropic_list<'a>(models: impl IntoIterator<Item = (&'a str, i64)>) -> Value {
    let data: Vec<Value> = models
        .into_iter()
        .map(|(id, created)| {
            json!({"id": id, "created_at": rfc3339(created), "display_name": id, "type": "model"})
        })
        .collect();
    let end = |i: Option<&Value>| i.and_then(|m| m.get("id")).cloned().unwrap_or(json!(""));
    json!({
        "data": data,
        "first_id": end(data.first()),
        "has_more": false,
        "last_id": end(data.last()),
    })
}

/// The Gemini list of model ids: each `dto.GeminiModel` with `name` and `displayName` the bare
/// id (no `models/`) and its other fields null; `nextPageToken` null.
pub fn gemini_list<'a>(ids: impl IntoIterator<Item = &'a str>) -> Value {
    let models: Vec<Value> = ids
        .into_iter()
        .map(|id| {
            json!({
                "name": id, "baseModelId": null, "version": null, "displayName": id,
                "description": null, "inputTokenLimit": null, "outputTokenLimit": null,
                "supportedGenerationMethods": null, "thinking": null, "temperature": null,
                "maxTemperature": null, "topP": null, "topK": null,
            })
        })
        .collect();
    json!({"models": models, "nextPageToken": null})
}

/// new-api's answer to `RetrieveModel` of an unknown id (HTTP 200): `{error:{message, type,
/// param, code}}`; the Gemini credentials on `/v1/models` ask for the empty id.
pub fn empty_model_error(id: &str) -> Value {
    json!({"error": {
        "message": format!("The model '{id}' does not exist"),
        "type": "invalid_request_error",
        "param": "model",
        "code": "model_not_found",
    }})
}
