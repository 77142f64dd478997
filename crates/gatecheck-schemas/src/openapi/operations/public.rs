//! The operations without authentication: result media and liveness.

use super::build::{binary_response, one_to, path_param};
use crate::openapi::response::{json_response, request_id_header};
use crate::openapi::schema_ref;
use crate::rules::media::MAX_IMAGE_SIDE;
use serde_json::{json, Value};

/// Result images (`/media/*`) and liveness (`/`, `/health`).
pub(super) fn media_and_health(operation_id: &str) -> Option<Value> {
    let not_found = json_response("Wrong path or file name.", schema_ref("ApiFailure"));
    let op = match operation_id {
        "getMediaImage" | "headMediaImage" => {
            let mut busy = json_response(
                "Too many images being rendered at once; retry after `Retry-After` seconds.",
                schema_ref("ApiFailure"),
            );
            busy["headers"]["Retry-After"] = json!({ "$ref": "#/components/headers/RetryAfter" });
            let mut ok = binary_response("The PNG.", &["image/png"]);
            if operation_id == "headMediaImage" {
                ok = json!({ "description": "The PNG's headers, no body.", "headers": request_id_header() });
            }
            json!({
                "operationId": operation_id,
                "summary": "An image of a `url` result of image generation (no authentication).",
                "tags": ["images"],
                "security": [],
                "parameters": [path_param(
                    "file",
                    "`<seed in hex>_<width>x<height>`, as in a result URL.",
                    {
                        let side = one_to(MAX_IMAGE_SIDE);
                        json!({ "type": "string", "pattern": format!("^[0-9a-fA-F]{{1,16}}_{side}x{side}$") })
                    },
                )],
                "responses": {
                    "200": ok,
                    "404": not_found,
                    "503": busy
                }
            })
        }
        "getMediaEdit" => json!({
            "operationId": operation_id,
            "summary": "An edited image of a `url` result of an image edit (no authentication; the mock keeps the latest edits).",
            "tags": ["images"],
            "security": [],
            "parameters": [path_param(
                "file",
                "The edit's id, as in a result URL.",
                json!({ "type": "string", "pattern": "^[0-9a-f]{16}$" }),
            )],
            "responses": {
                "200": binary_response("The PNG.", &["image/png"]),
                "404": not_found
            }
        }),
        "getHealth" | "getRoot" => json!({
            "operationId": operation_id,
            "summary": "Liveness.",
            "tags": ["health"],
            "security": [],
            "responses": {
                "200": json_response("The service is up.", json!({
                    "type": "object", "required": ["status"],
                    "properties": { "status": { "const": "ok" } }
                }))
            }
        }),
        _ => return None,
    };
    Some(op)
}
