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
                "401": unauthorized,
                "403": { "$ref": "#/components/responses/Forbidden" }
            }
        }),
        "ListByCondition" => json!({
            "operationId": operation_id,
            "summary": "The records of the key's user among `ids`, each once, oldest first; `[]` when none (DECISIONS D-MJ-8).",
            "tags": ["midjourney"],
            "security": security(),
            "parameters": parameters(with_mode, false),
            "requestBody": { "required": true, "content": { "application/json": { "schema": {
                "type": ["object", "null"],
                "description": "`null` reads as `{}` (Go).",
                "properties": { "ids": { "type": ["array", "null"], "items": { "type": "string" } } }
            } } } },
            "responses": {
                "200": json_response("The records.", json!({ "type": "array", "items": schema_ref("MjTask") })),
                "400": refusal("A body that is not `{ids: [string]}`: `do_request_failed`."),
                "401": unauthorized
            }
        }),
        "ImageSeed" => json!({
            "operationId": operation_id,
            "summary": "The seed of a SUCCESS task (DECISIONS D-MJ-8).",
            "tags": ["midjourney"],
            "security": security(),
            "parameters": parameters(with_mode, true),
            "responses": {
                "200": json_response("`{code:1, result:<seed>}`; `code` 4 while the task is not SUCCESS.", seed_answer()),
                "400": refusal("Unknown task (or another user's): `task_no_found`."),
                "401": unauthorized
            }
        }),
        "InsightFaceSwap" => submit_op(
            operation_id,
            "a face swap (`SWAP_FACE`, charged as `swap_face`; DECISIONS D-MJ-8)",
            with_mode,
            body_of("InsightFaceSwap"),
        ),
        "SubmitUploadDiscordImages" => {
            let mut op = submit_op(
                operation_id,
                "an upload of images (charged as `mj_upload`; DECISIONS D-MJ-8)",
                with_mode,
                body_of("SubmitUploadDiscordImages"),
            );
            op["responses"]["200"] = json_response(
                "`{code:1, description, result:[url...]}`, one URL per image; no image, or one that is not a base64 data URL: the upstream's `{code:4, description}`, charged nothing.",
                upload_answer(),
            );
            op
        }
        submit => {
            let action = submit.strip_prefix("Submit")?;
            submit_op(
                operation_id,
                &format!("a Midjourney task ({action}; DECISIONS D-MJ-2)"),
                with_mode,
                body_of(submit),
            )
        }
    };
    Some(op)
}

/// A submit operation: `what` it submits, its request body schema.
fn submit_op(operation_id: &str, what: &str, with_mode: bool, body: Value) -> Value {
    json!({
        "operationId": operation_id,
        "summary": format!("Submit {what}. Charged after an accepted submit."),
        "tags": ["midjourney"],
        "security": security(),
        "parameters": parameters(with_mode, false),
        "requestBody": { "required": true, "content": { "application/json": { "schema": body } } },
        "responses": {
            "200": json_response("Submitted: `code` 1, the task id in `result`.", schema_ref("MjSubmitAnswer")),
            "400": refusal("Refused: `code` 4 with new-api's reason."),
            "401": { "$ref": "#/components/responses/Unauthorized" },
            "403": { "$ref": "#/components/responses/Forbidden" },
            "503": { "$ref": "#/components/responses/ServiceUnavailable" }
        }
    })
}

/// The request body of a submit route (`rest`: the operation id without `mj`/`mjMode`): new-api's
/// MidjourneyRequest, with the fields each route requires (relay/mjproxy_handler.go
/// RelayMidjourneySubmit, service/midjourney.go). Every field has its Go type: a value of
/// another type is refused (`bind_request_body_failed`); other fields are accepted.
fn body_of(rest: &str) -> Value {
    let mut props = serde_json::Map::new();
    // Go reads `null` for any field, and for an item of a list, as the zero value.
    for key in [
        "prompt",
        "taskId",
        "action",
        "customId",
        "content",
        "notifyHook",
        "state",
        "botType",
        "maskBase64",
    ] {
        props.insert(key.into(), json!({ "type": ["string", "null"] }));
    }
    props.insert(
        "index".into(),
        json!({ "type": ["integer", "null"], "minimum": i64::MIN, "maximum": i64::MAX,
                "description": "A Go `int`: a number past 64 bits is refused." }),
    );
    props.insert(
        "base64Array".into(),
        json!({ "type": ["array", "null"], "items": { "type": ["string", "null"] } }),
    );
    let required: &[&str] = match rest {
        "SubmitImagine" => {
            props.insert("prompt".into(), super::bodies::not_blank());
            &["prompt"]
        }
        "SubmitChange" => {
            props.insert("taskId".into(), super::bodies::not_blank());
            props.insert(
                "action".into(),
                json!({ "type": "string", "enum": ["UPSCALE", "VARIATION"] }),
            );
            props.insert(
                "index".into(),
                json!({ "type": "integer", "minimum": 1, "maximum": 4 }),
            );
            &["taskId", "action", "index"]
        }
        "SubmitSimpleChange" => {
            props.insert(
                "content".into(),
                json!({ "type": "string", "pattern": "^[0-9A-Za-z]+ ([UV][1-4]|R)$",
                "description": "`<task id> U1`..`U4`, `V1`..`V4` or `R`." }),
            );
            &["content"]
        }
        "SubmitAction" => {
            props.insert("taskId".into(), super::bodies::not_blank());
            props.insert("customId".into(), json!({ "type": "string",
                "pattern": "^MJ::JOB::(upsample|variation)::[1-4]::[0-9a-f]+$",
                "description": "A button's `customId` from the task record (`MJ::JOB::upsample::2::<hash>`)." }));
            &["taskId", "customId"]
        }
        "SubmitModal" | "SubmitVideo" => {
            props.insert("taskId".into(), super::bodies::not_blank());
            &["taskId"]
        }
        "SubmitUploadDiscordImages" => {
            props.insert(
                "base64Array".into(),
                json!({ "type": ["array", "null"],
                    "description": "Data URLs (`data:image/png;base64,...`). None, or an entry of another form, is answered HTTP 200 with the upstream's `code` 4 and charged nothing.",
                    "items": { "type": ["string", "null"] } }),
            );
            &[]
        }
        "InsightFaceSwap" => {
            let image = json!({ "type": "string", "minLength": 1, "description": "An image, base64 or a data URL." });
            props.insert("sourceBase64".into(), image.clone());
            props.insert("targetBase64".into(), image);
            &["sourceBase64", "targetBase64"]
        }
        _ => &[],
    };
    json!({
        "type": "object",
        "description": "new-api's MidjourneyRequest: `prompt` (imagine), `taskId`, `action` and `index` (change), `customId` and `taskId` (action), `content` (simple-change: `<task id> U1`), `base64Array` (blend, describe, upload), `sourceBase64` and `targetBase64` (face swap)...",
        "required": required,
        "properties": props
    })
}

/// The answer of `upload-discord-images`.
fn upload_answer() -> Value {
    json!({
        "type": "object",
        "required": ["code", "description"],
        "properties": {
            "code": { "type": "integer" },
            "description": { "type": "string" },
            "result": { "type": ["array", "null"], "items": { "type": "string", "format": "uri" } }
        }
    })
}

/// The answer of `image-seed`.
fn seed_answer() -> Value {
    json!({
        "type": "object",
        "required": ["code", "description", "result"],
        "properties": {
            "code": { "type": "integer" },
            "description": { "type": "string" },
            "properties": {},
            "result": { "type": "string" }
        }
    })
}
