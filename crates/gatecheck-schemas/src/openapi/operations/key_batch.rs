//! The operations of new-api's key search and batch routes (`/api/token/search`,
//! `/api/token/batch`, `/api/token/batch/keys`; DECISIONS D-TOKEN-6 to D-TOKEN-8) and of the
//! Gemini model list (`/v1beta/models`, D-MODELS-3).

use super::build::MODEL_READ_ERRORS;
use super::build::{json_body, key_op, model_op, page_param, responses, text_param};
use crate::openapi::response::json_response;
use crate::openapi::schema_ref;
use crate::rules::catalog::MAX_PAGE;
use crate::rules::token_batch::{BATCH_KEYS_MAX, SEARCH_HARD_LIMIT};
use serde_json::{json, Value};

/// The body of both batch routes: `{ids:[int,...]}`, at least one.
fn batch_body(max: Option<usize>) -> Value {
    let mut ids = json!({ "type": "array", "minItems": 1, "items": { "type": "integer" } });
    if let Some(max) = max {
        ids["maxItems"] = json!(max);
    }
    json_body(json!({
        "type": "object",
        "required": ["ids"],
        "properties": { "ids": ids }
    }))
}

/// The search and batch routes of the keys.
pub(super) fn keys(operation_id: &str) -> Option<Value> {
    let op = match operation_id {
        "searchTokens" => {
            let mut op = key_op(
            operation_id,
            "Search the account's keys by name (`keyword`) and key (`token`): each an exact match, or a pattern with at most two `%` (new-api).",
            vec![
                text_param("keyword", "The name, or a pattern with `%`."),
                text_param("token", "The key (with or without `sk-`), or a pattern with `%`."),
                page_param("p", "Page number.", MAX_PAGE),
                page_param("page_size", "Keys per page.", SEARCH_HARD_LIMIT as i64),
            ],
            json_response(
                "A page of masked key records, or a refused pattern (`success` false).",
                schema_ref("TokenSearchEnvelope"),
            ),
            );
            // The bound of `page_size` (and of `p`) as `GET /api/token/` states it.
            op["responses"]["400"] = json_response(
                "A page parameter that is not an integer in range (documented profile; new-api normalises it).",
                schema_ref("ApiFailure"),
            );
            op
        }
        "deleteTokenBatch" => {
            let mut op = key_op(
                operation_id,
                "Delete several of the account's keys; `data` counts those deleted (new-api).",
                vec![],
                json_response(
                    "The count, or a logical failure.",
                    schema_ref("TokenBatchEnvelope"),
                ),
            );
            op["requestBody"] = batch_body(None);
            op
        }
        "getTokenKeysBatch" => {
            let mut op = key_op(
                operation_id,
                "The full keys of several of the account's keys, at most 100 ids (new-api).",
                vec![],
                json_response(
                    "The keys by id, or a logical failure.",
                    schema_ref("TokenKeysEnvelope"),
                ),
            );
            op["requestBody"] = batch_body(Some(BATCH_KEYS_MAX));
            op
        }
        _ => return None,
    };
    Some(op)
}

/// `GET /v1beta/models`: the key's models in Gemini's list shape.
pub(super) fn gemini(operation_id: &str) -> Option<Value> {
    (operation_id == "listGeminiModels").then(|| {
        model_op(
            operation_id,
            "The models the key may use, in Gemini's list shape (new-api; the key also as `x-goog-api-key` or `?key=`).",
            "models",
            responses(
                vec![(
                    "200",
                    json_response("The key's models.", schema_ref("GeminiModelList")),
                )],
                MODEL_READ_ERRORS,
            ),
        )
    })
}
