//! The operations of new-api's task routes that the spec names without describing
//! (DECISIONS D-TASK): the unified video routes and remix.

use super::bodies;
use super::response::json_response;
use super::schema_ref;
use crate::rules::platforms::{self, Platform};
use serde_json::{json, Value};

/// `{ "400": ..., "401": ... }`: references to the shared error responses, and the task
/// error body for the statuses new-api answers with it.
fn task_responses(ok: Value, task_errors: &[u16], v1_errors: &[&str]) -> Value {
    let mut out = json!({ "200": ok });
    for status in task_errors {
        out[status.to_string()] = json_response(
            "new-api's task error `{code, message, data:null}` (DECISIONS D-TASK-3).",
            schema_ref("TaskError"),
        );
    }
    for (status, name) in v1_errors.iter().filter_map(|s| s.split_once(':')) {
        out[status] = json!({ "$ref": format!("#/components/responses/{name}") });
    }
    out
}

/// The `/v1` errors every task route can answer before its handler (key, limits, faults).
const KEY_ERRORS: [&str; 4] = [
    "401:Unauthorized",
    "403:Forbidden",
    "429:TooManyRequests",
    "503:ServiceUnavailable",
];

fn task_op(id: &str, summary: &str, responses: Value) -> Value {
    json!({
        "operationId": id,
        "summary": summary,
        "tags": ["video"],
        "security": [{ "bearerAuth": [] }],
        "responses": responses
    })
}

/// The operation of `operation_id` among the task routes, `None` for any other id.
pub(super) fn operation(operation_id: &str) -> Option<Value> {
    unified(operation_id).or_else(|| provider(operation_id))
}

/// [`KEY_ERRORS`] and `extra`.
fn key_errors_and(extra: &[&'static str]) -> Vec<&'static str> {
    KEY_ERRORS.iter().chain(extra).copied().collect()
}

/// A required JSON request body of the given schema.
fn json_body(schema: Value) -> Value {
    json!({ "required": true, "content": { "application/json": { "schema": schema } } })
}

/// A 400 that is either the `/v1` error or new-api's task error.
fn v1_or_task_error(description: &str) -> Value {
    json_response(
        description,
        json!({ "anyOf": [schema_ref("V1Error"), schema_ref("TaskError")] }),
    )
}

/// `Vidu `52`, MiniMax/Hailuo `35`` of the registered platforms that `keep` keeps.
fn platform_list(keep: fn(&Platform) -> bool, item: fn(&Platform) -> String) -> String {
    let items: Vec<String> = platforms::unified().filter(|p| keep(p)).map(item).collect();
    items.join(", ")
}

/// The create answer's description, naming every registered platform (DECISIONS D-PLAT-1).
fn created_description() -> String {
    let types = platform_list(|_| true, |p| format!("{} `{}`", p.title, p.channel_type));
    let rows = platform_list(|_| true, |p| p.decision.as_str().to_owned());
    format!(
        "The OpenAI-style video object of the new task (status `queued`, progress 0), as `POST /v1/videos` answers it (DECISIONS D-TASK-1). The channel that serves the model picks the platform by its type (DECISIONS D-PLAT-1): OpenAI/Sora `{}`, {types} (DECISIONS {rows}); a platform's task answers new-api's create object with `X-New-Api-Other-Ratios`, and a channel of a type no adaptor serves is 400 `invalid_api_platform`.",
        platforms::OPENAI_VIDEO.channel_type
    )
}

/// The record's description, naming the platforms asked in real time (DECISIONS D-PLAT-22).
fn record_description() -> String {
    let types = platform_list(platforms::is_realtime, |p| {
        format!("{} (`{}`)", p.title, p.channel_type)
    });
    let schemas = platform_list(platforms::is_realtime, |p| {
        format!("`{}`", super::pascal_case(p.data_schema))
    });
    format!(
        "The task record in new-api's envelope: upper-case status, progress `NN%`, `result_url` once `SUCCESS` (DECISIONS D-TASK-2). A task of {types} is asked in real time and answered `{{code, message, data:{{error, format, metadata, status, task_id, url}}}}` instead while its upstream answers (DECISIONS D-PLAT-22); its record's `data` is the platform's operation ({schemas})."
    )
}

/// new-api's unified video routes and remix (DECISIONS D-TASK-1 to D-TASK-4).
fn unified(operation_id: &str) -> Option<Value> {
    let op = match operation_id {
        "createVideoGeneration" => {
            let ok = json_response(&created_description(), schema_ref("VideoTask"));
            let errors =
                key_errors_and(&["400:BadRequest", "413:PayloadTooLarge", "500:ServerError"]);
            let mut op = task_op(
                operation_id,
                "Create a video task on new-api's unified route.",
                task_responses(ok, &[], &errors),
            );
            op["requestBody"] = bodies::video_request_body();
            op
        }
        "getVideoGeneration" => {
            let ok = json_response(
                &record_description(),
                json!({ "anyOf": [schema_ref("TaskEnvelope"), schema_ref("TaskRealtimeEnvelope")] }),
            );
            let errors = key_errors_and(&["500:ServerError"]);
            let mut op = task_op(
                operation_id,
                "Fetch a task as new-api's task record.",
                task_responses(ok, &[400], &errors),
            );
            op["parameters"] = json!([{ "$ref": "#/components/parameters/TaskId" }]);
            op
        }
        "remixVideo" => {
            let ok = json_response(
                "The new task, from a completed one: the video object with `remixed_from_video_id` (DECISIONS D-TASK-4).",
                schema_ref("VideoTask"),
            );
            let errors = key_errors_and(&["413:PayloadTooLarge", "500:ServerError"]);
            let mut op = task_op(
                operation_id,
                "Remix a completed video task.",
                task_responses(ok, &[400], &errors),
            );
            op["parameters"] = json!([{
                "name": "video_id", "in": "path", "required": true,
                "description": "The `id` of a completed task of the key's user.",
                "schema": { "type": "string" }
            }]);
            op["requestBody"] = json_body(schema_ref("VideoRemixRequest"));
            op
        }
        _ => return None,
    };
    Some(op)
}

/// The provider routes new-api relays: Kling and Jimeng (DECISIONS D-TASK-6, D-TASK-7).
fn provider(operation_id: &str) -> Option<Value> {
    let op = match operation_id {
        "createKlingText2Video" | "createKlingImage2Video" => {
            let ok = json_response(
                "new-api's create object (not Kling's `{code, data:{task_id}}`): the public `task_` id as `id` and `task_id`, `object:video`, the model, `queued`, progress 0, `created_at` (DECISIONS D-TASK-6).",
                schema_ref("VideoTask"),
            );
            let errors = key_errors_and(&["413:PayloadTooLarge", "500:ServerError"]);
            let mut responses = task_responses(ok, &[], &errors);
            responses["400"] = v1_or_task_error(
                "A body that is not a JSON object, no model or an unknown one (the `/v1` error), or new-api's task error (a blank prompt, a duration the model lacks).",
            );
            let mut op = task_op(
                operation_id,
                "Create a Kling video task through new-api (the body is Kling's; an `image` makes it image to video).",
                responses,
            );
            op["requestBody"] = json_body(bodies::kling_request());
            op
        }
        "getKlingText2Video" | "getKlingImage2Video" => {
            let ok = json_response(
                "The task record in new-api's envelope; `data.data` is Kling's own task (`task_status` submitted, processing, succeed, failed) (DECISIONS D-TASK-6).",
                schema_ref("TaskEnvelope"),
            );
            let errors = key_errors_and(&["500:ServerError"]);
            let mut op = task_op(
                operation_id,
                "Fetch a Kling task as new-api's task record (either path reads any task of the key's user).",
                task_responses(ok, &[400], &errors),
            );
            op["parameters"] = json!([{ "$ref": "#/components/parameters/TaskId" }]);
            op
        }
        "jimengAction" => {
            let ok = json_response(
                "`CVSync2AsyncSubmitTask`: new-api's create object; `CVSync2AsyncGetResult`: the task record in new-api's envelope (DECISIONS D-TASK-7).",
                json!({ "anyOf": [schema_ref("VideoTask"), schema_ref("TaskEnvelope")] }),
            );
            let errors = key_errors_and(&["413:PayloadTooLarge", "500:ServerError"]);
            let mut responses = task_responses(ok, &[], &errors);
            responses["400"] = v1_or_task_error(
                "No `Action`, a body that is not JSON, a fetch without `task_id` (the `/v1` error, before the key is read), or new-api's task error.",
            );
            let mut op = task_op(
                operation_id,
                "Jimeng (Volcengine) through new-api: submit or fetch a video task.",
                responses,
            );
            op["parameters"] = json!([
                { "name": "Action", "in": "query", "required": true,
                  "description": "`CVSync2AsyncSubmitTask` or `CVSync2AsyncGetResult` (any other value submits).",
                  "schema": { "type": "string", "minLength": 1 } },
                { "name": "Version", "in": "query", "required": false,
                  "description": "Volcengine's API version (`2022-08-31`); new-api does not read it.",
                  "schema": { "type": "string" } }
            ]);
            op["requestBody"] = json_body(bodies::jimeng_request());
            op
        }
        _ => return None,
    };
    Some(op)
}
