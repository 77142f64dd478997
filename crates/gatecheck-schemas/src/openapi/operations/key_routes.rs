//! The operations of the key-management routes (`/api/token/*`, access token) and of the
//! key's own usage view (`/api/usage/token`).

use super::build::{json_body, key_id, key_op, page_param, response_ref, with_links};
use crate::openapi::response::json_response;
use crate::openapi::schema_ref;
use crate::rules::catalog::{MAX_PAGE, MAX_PAGE_SIZE};
use serde_json::{json, Value};

/// The id of the first key of a `GET /api/token/` page (a runtime expression of a link).
const LISTED_KEY_ID: &str = "$response.body#/data/items/0/id";

/// The reads: the key's own usage, the account's keys listed, one key, its secret.
pub(super) fn key_reads(operation_id: &str) -> Option<Value> {
    let op = match operation_id {
        "getTokenUsage" => json!({
            "operationId": operation_id,
            "summary": "The calling API key's quota (new-api's read-only usage view).",
            "tags": ["keys"],
            "security": [{ "bearerAuth": [] }],
            "responses": {
                "200": json_response(
                    "The key's usage, or a logical failure when the key is read with a suffix the route does not cut.",
                    json!({ "anyOf": [schema_ref("TokenUsageEnvelope"), schema_ref("ApiFailure")] }),
                ),
                "401": response_ref("ApiFailure")
            }
        }),
        "listTokens" => {
            let mut op = key_op(
                operation_id,
                "List the account's keys (DECISIONS.md extension).",
                vec![
                    page_param("p", "Page number.", MAX_PAGE),
                    page_param("size", "Keys per page.", MAX_PAGE_SIZE),
                ],
                // The links follow the page shape (`data.items`) the mock and newer new-api
                // answer: the stateful phase of a peer tool reads, reveals and deletes a
                // listed key.
                with_links(
                    json_response("A page of key records.", schema_ref("KeyListEnvelope")),
                    &[
                        ("GetToken", "getToken", "id", LISTED_KEY_ID),
                        ("GetTokenKey", "getTokenKey", "id", LISTED_KEY_ID),
                        ("DeleteToken", "deleteToken", "id", LISTED_KEY_ID),
                    ],
                ),
            );
            op["responses"]["400"] = json_response(
                "A page parameter that is not an integer in range (documented profile; new-api normalises it).",
                schema_ref("ApiFailure"),
            );
            op
        }
        "getToken" => key_op(
            operation_id,
            "One key (DECISIONS.md extension).",
            vec![key_id()],
            json_response(
                "The key record, or a logical failure.",
                schema_ref("TokenUpdateEnvelope"),
            ),
        ),
        "getTokenKey" => key_op(
            operation_id,
            "The full secret of a key (new-api).",
            vec![key_id()],
            json_response(
                "`{success, message, data: {key}}`, or a logical failure.",
                json!({ "anyOf": [schema_ref("TokenKeyEnvelope"), schema_ref("ApiFailure")] }),
            ),
        ),
        _ => return None,
    };
    Some(op)
}

/// The writes: update, create and delete a key.
pub(super) fn key_writes(operation_id: &str) -> Option<Value> {
    let op = match operation_id {
        "updateToken" => {
            let ok = with_links(
                json_response(
                    "Success with the key record, or a logical failure (`success` false).",
                    schema_ref("TokenUpdateEnvelope"),
                ),
                &[("GetToken", "getToken", "id", "$request.body#/id")],
            );
            let status_only = json!({
                "name": "status_only", "in": "query", "required": false,
                "description": "Any non-empty value (`1` by convention): change `status` alone (DECISIONS.md).",
                "schema": { "type": "string", "minLength": 1 }, "example": "1"
            });
            let mut op = key_op(
                operation_id,
                "Update an API key. Omitted fields can be reset: send every field to keep.",
                vec![status_only],
                ok,
            );
            op["requestBody"] = json_body(schema_ref("TokenUpdateRequest"));
            op["responses"]["413"] = response_ref("PayloadTooLarge");
            op
        }
        "createToken" => {
            let mut op = key_op(
                operation_id,
                "Create a key (DECISIONS.md extension).",
                vec![],
                json_response(
                    "`{success, message}`; some deployments add `data`.",
                    schema_ref("ApiEnvelope"),
                ),
            );
            op["requestBody"] = json_body(schema_ref("TokenCreateRequest"));
            op["responses"]["413"] = response_ref("PayloadTooLarge");
            op
        }
        "deleteToken" => key_op(
            operation_id,
            "Delete a key (DECISIONS.md extension).",
            vec![key_id()],
            json_response("`{success, message}`.", schema_ref("ApiEnvelope")),
        ),
        _ => return None,
    };
    Some(op)
}
