//! The operations of the Midjourney task routes (`/mj/*`, `/{mode}/mj/*`; DECISIONS D-MJ):
//! every `mj*` operation id of the route table.

use super::response::json_response;
use super::schema_ref;
use serde_json::{json, Value};

/// The refusal body of the Midjourney routes (controller/relay.go RelayMidjourney).
pub(super) fn mj_error() -> Value {
    json!({
        "title": "Midjourney refusal",
        "description": "`{description, type, code}`: `description` is new-api's reason followed by a space (`task_no_found `, `prompt_is_required `, `quota_not_enough `), `type` `upstream_error`, `code` 4 (DECISIONS D-MJ-3).",
        "type": "object",
        "required": ["description", "type", "code"],
        "properties": {
            "description": { "type": "string" },
            "type": { "type": "string" },
            "code": { "type": "integer" }
        }
    })
}

/// The key of the Midjourney routes: a Bearer key, or `mj-api-secret` (DECISIONS D-MJ-1).
fn security() -> Value {
    json!([{ "bearerAuth": [] }, { "mjApiSecret": [] }])
}

/// The `{mode}` path parameter, when the template has it.
fn parameters(with_mode: bool, with_id: bool) -> Value {
    let mut out = Vec::new();
    if with_mode {
        out.push(json!({ "name": "mode", "in": "path", "required": true,
            "description": "Any speed segment (`mj-fast`, `mj-relax`, `mj-turbo`): new-api routes `/{mode}/mj/*` as `/mj/*`.",
            "schema": { "type": "string" } }));
    }
    if with_id {
        out.push(json!({ "name": "id", "in": "path", "required": true,
            "description": "The task id, `result` of the submit answer.", "schema": { "type": "string" } }));
    }
    Value::Array(out)
}

fn refusal(description: &str) -> Value {
    json_response(description, schema_ref("MjError"))
}

/// The operation of a Midjourney operation id (`mjSubmitImagine`, `mjModeFetchTask`...).
pub(super) fn operation(operation_id: &str) -> Option<Value> {
    let (with_mode, rest) = match operation_id.strip_prefix("mjMode") {
        Some(rest) => (true, rest),
        None => (false, operation_id.strip_prefix("mj")?),
    };
    let unauthorized = json!({ "$ref": "#/components/responses/Unauthorized" });
    let op = match rest {
        "Image" => json!({
            "operationId": operation_id,
            "summary": "The PNG of a SUCCESS task (no authentication; DECISIONS D-MJ-5).",
            "tags": ["midjourney"],
            "security": [],
            "parameters": parameters(with_mode, true),
            "responses": {
                "200": { "description": "The PNG.", "content": { "image/png": { "schema": { "type": "string", "format": "binary" } } } },
                "400": json_response("Unknown task: `{error: midjourney_task_not_found}`.", json!({ "type": "object", "required": ["error"], "properties": { "error": { "type": "string" } } })),
                "404": json_response("The task has no image yet.", json!({ "type": "object", "required": ["error"], "properties": { "error": { "type": "string" } } }))
            }
        }),
        "FetchTask" => json!({
            "operationId": operation_id,
            "summary": "The task record (DECISIONS D-MJ-4).",
            "tags": ["midjourney"],
            "security": security(),
            "parameters": parameters(with_mode, true),
            "responses": {
                "200": json_response("The record.", schema_ref("MjTask")),
                "400": refusal("Unknown task (or another user's): `task_no_found`."),
                "401": unauthorized
            }
        }),
        submit => {
            let action = submit.strip_prefix("Submit")?;
            json!({
                "operationId": operation_id,
                "summary": format!("Submit a Midjourney task ({action}; DECISIONS D-MJ-2). Charged after an accepted submit."),
                "tags": ["midjourney"],
                "security": security(),
                "parameters": parameters(with_mode, false),
                "requestBody": { "required": true, "content": { "application/json": { "schema": {
                    "type": "object",
                    "description": "new-api's MidjourneyRequest: `prompt` (imagine), `taskId`, `action` and `index` (change), `customId` and `taskId` (action), `content` (simple-change: `<task id> U1`), `base64Array` (blend, describe)...",
                    "properties": {
                        "prompt": { "type": "string" },
                        "taskId": { "type": "string" },
                        "action": { "type": "string" },
                        "index": { "type": "integer" },
                        "customId": { "type": "string" },
                        "content": { "type": "string" },
                        "base64Array": { "type": "array", "items": { "type": "string" } },
                        "notifyHook": { "type": "string" }
                    }
                } } } },
                "responses": {
                    "200": json_response("Submitted: `code` 1, the task id in `result`.", schema_ref("MjSubmitAnswer")),
                    "400": refusal("Refused: `code` 4 with new-api's reason."),
                    "401": unauthorized,
                    "403": { "$ref": "#/components/responses/Forbidden" },
                    "503": { "$ref": "#/components/responses/ServiceUnavailable" }
                }
            })
        }
    };
    Some(op)
}
