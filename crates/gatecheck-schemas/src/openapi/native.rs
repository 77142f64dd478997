//! The operations of the native vendor routes the platforms' plugins declare
//! (`rules::platforms::native`, DECISIONS D-ERA-15): each from its declaration, its answer the
//! plugin's renderer and its refusals the plugin's `native.error`. Served by the `new-api`
//! profile's plugin era only.

use super::response::json_response;
use crate::routes::NativeOp;
use crate::rules::platforms::native::NativeOperation;
use serde_json::{json, Value};

/// The `/v1` refusals of the key, the limits and the faults, before the plugin is asked.
const KEY_ERRORS: [(&str, &str); 3] = [
    ("401", "Unauthorized"),
    ("429", "TooManyRequests"),
    ("503", "ServiceUnavailable"),
];

/// The operation of the declared route `op` (`None`: no such declaration).
pub(super) fn operation(op: NativeOp) -> Option<Value> {
    let (p, route) = op.route()?;
    let ok = json_response(
        &format!(
            "The plugin's `native.{}`: {}'s own body, the public task id at `{}` (DECISIONS D-ERA-15).",
            route.renderer, p.title, route.id_pointer
        ),
        (route.schema)(),
    );
    let refusal = json_response(
        &format!(
            "The plugin's `native.error` of the host's sanitized error (`invalid_request`, `permission_denied`, `task_not_found`, `server_error`, ...), {}'s error shape.",
            p.title
        ),
        (p.plugins.native.error_schema)(),
    );
    let mut responses = json!({ "200": ok });
    for (status, name) in KEY_ERRORS {
        responses[status] = json!({ "$ref": format!("#/components/responses/{name}") });
    }
    let statuses: &[&str] = match route.operation {
        NativeOperation::Submit => &["400", "403", "500"],
        NativeOperation::Query => &["404", "500"],
    };
    for status in statuses {
        responses[*status] = refusal.clone();
    }
    let summary = match route.operation {
        NativeOperation::Submit => format!("Submit a {} task with the vendor's own body.", p.title),
        NativeOperation::Query => format!("Fetch a {} task in the vendor's own body.", p.title),
    };
    let mut v = json!({
        "operationId": route.operation_id,
        "summary": summary,
        "description": format!("Declared by `{}` (`meta.routes`); the plugin era of the `new-api` profile only.", p.plugins.source),
        "tags": ["video"],
        "security": [{ "bearerAuth": [] }],
        "responses": responses
    });
    match route.operation {
        NativeOperation::Submit => {
            v["requestBody"] = json!({ "required": true, "content": { "application/json": {
                "schema": { "type": "object" } } } });
        }
        NativeOperation::Query => {
            v["parameters"] = json!([{ "$ref": "#/components/parameters/TaskId" }]);
        }
    }
    Some(v)
}
