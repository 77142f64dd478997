//! The parts every operation's answers share: the request-id header and a JSON response.

use serde_json::{json, Value};

/// The request-id header every answer carries.
pub(super) fn request_id_header() -> Value {
    json!({ "X-Oneapi-Request-Id": { "$ref": "#/components/headers/RequestId" } })
}

/// A response with a JSON body and the request-id header.
pub(super) fn json_response(description: &str, schema: Value) -> Value {
    json!({
        "description": description,
        "headers": request_id_header(),
        "content": { "application/json": { "schema": schema } }
    })
}
