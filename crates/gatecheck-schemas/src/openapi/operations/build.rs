//! The small builders every operation is made of: responses and their links, parameters,
//! security, request bodies, and the error statuses of each kind of route.

use crate::openapi::bodies;
use crate::openapi::response::{json_response, request_id_header};
use crate::openapi::schema_ref;
use serde_json::{json, Map, Value};

/// `{ "400": {$ref BadRequest}, ... }` for the given statuses.
fn errors(statuses: &[u16]) -> Map<String, Value> {
    statuses
        .iter()
        .map(|status| {
            let name = match status {
                400 => "BadRequest",
                401 => "Unauthorized",
                403 => "Forbidden",
                404 => "NotFound",
                413 => "PayloadTooLarge",
                429 => "TooManyRequests",
                503 => "ServiceUnavailable",
                _ => "ServerError",
            };
            (
                status.to_string(),
                json!({ "$ref": format!("#/components/responses/{name}") }),
            )
        })
        .collect()
}

/// A response reference by component name.
pub(super) fn response_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/responses/{name}") })
}

/// `response` with OpenAPI links: `(name, operationId, parameter, runtime expression)`.
pub(super) fn with_links(mut response: Value, links: &[(&str, &str, &str, &str)]) -> Value {
    let links: Map<String, Value> = links
        .iter()
        .map(|(name, operation, parameter, expression)| {
            (
                (*name).to_owned(),
                json!({ "operationId": operation, "parameters": { *parameter: expression } }),
            )
        })
        .collect();
    response["links"] = Value::Object(links);
    response
}

/// A binary response of the given media types.
pub(super) fn binary_response(description: &str, media_types: &[&str]) -> Value {
    let content: Map<String, Value> = media_types
        .iter()
        .map(|m| {
            (
                (*m).to_owned(),
                json!({ "schema": { "type": "string", "format": "binary", "contentMediaType": m } }),
            )
        })
        .collect();
    json!({ "description": description, "headers": request_id_header(), "content": content })
}

/// `response` with a `text/event-stream` content: one event per `event:`/`data:` block,
/// each `data` JSON one of `events` (components).
///
/// Before OpenAPI 3.2 (`itemSchema`), the `schema` of an event stream describes each event,
/// read as `{event, data, id, retry}` with `data` the text of its `data:` lines (as
/// Schemathesis reads it): `data` is JSON text whose `contentSchema` is one of `events`.
pub(super) fn with_event_stream(mut response: Value, description: &str, events: &[&str]) -> Value {
    let refs: Vec<Value> = events.iter().map(|e| schema_ref(e)).collect();
    response["content"]["text/event-stream"] = json!({
        "schema": {
            "description": description,
            "type": "object",
            "required": ["data"],
            "properties": {
                "event": { "type": "string" },
                "id": { "type": "string" },
                "retry": { "type": "integer" },
                "data": {
                    "type": "string",
                    "contentMediaType": "application/json",
                    "contentSchema": { "oneOf": refs }
                }
            }
        }
    });
    response
}

/// An operation's `responses`: the success entries, then the error references.
pub(super) fn responses(success: Vec<(&str, Value)>, error_statuses: &[u16]) -> Value {
    let mut out: Map<String, Value> = success
        .into_iter()
        .map(|(status, response)| (status.to_owned(), response))
        .collect();
    out.extend(errors(error_statuses));
    Value::Object(out)
}

/// The statuses of a model route that reads a body: validation (400; 500 in new-api), key
/// (401, 403), upload limit (413), rate limit (429), transient (500, 503).
pub(super) const MODEL_BODY_ERRORS: &[u16] = &[400, 401, 403, 413, 429, 500, 503];
/// The statuses of a model route without a body.
pub(super) const MODEL_READ_ERRORS: &[u16] = &[401, 403, 429, 500, 503];

/// The description of an operation new-api does not route ([`crate::routes::NOT_IN_NEW_API`]).
pub(super) const NOT_ROUTED_BY_NEW_API: &str = "A tooling extension of the documented profile: new-api routes no such operation, and its `new-api` profile answers 404 `{\"error\":{\"message\":\"Invalid URL (METHOD PATH)\",\"type\":\"invalid_request_error\",\"param\":\"\",\"code\":\"\"}}` before it looks at the key (DECISIONS D-ROUTE-2, D-ROUTE-3).";

/// An operation of the model routes (`bearerAuth`).
pub(super) fn model_op(id: &str, summary: &str, tag: &str, responses: Value) -> Value {
    json!({
        "operationId": id,
        "summary": summary,
        "tags": [tag],
        "security": [{ "bearerAuth": [] }],
        "responses": responses
    })
}

/// The security of the key-management routes: the access token with the `New-Api-User`
/// header (new-api requires it), or the access token alone (the documented profile).
fn key_security() -> Value {
    json!([{ "accessToken": [], "newApiUser": [] }, { "accessToken": [] }])
}

/// An operation of the key-management routes (`accessToken`, `newApiUser`).
pub(super) fn key_op(id: &str, summary: &str, parameters: Vec<Value>, ok: Value) -> Value {
    json!({
        "operationId": id,
        "summary": summary,
        "tags": ["keys"],
        "security": key_security(),
        "parameters": parameters,
        "responses": { "200": ok, "401": response_ref("ApiFailure") }
    })
}

/// An optional page parameter (`p`, `page`, `size`...) from 1 to `maximum`.
pub(super) fn page_param(name: &str, description: &str, maximum: i64) -> Value {
    let schema = json!({ "type": "integer", "minimum": 1, "maximum": maximum });
    json!({ "name": name, "in": "query", "required": false, "description": description, "schema": schema })
}

/// An optional string query parameter.
pub(super) fn text_param(name: &str, description: &str) -> Value {
    json!({ "name": name, "in": "query", "required": false, "description": description,
            "schema": { "type": "string" } })
}

/// A required path parameter of the given schema.
pub(super) fn path_param(name: &str, description: &str, schema: Value) -> Value {
    json!({ "name": name, "in": "path", "required": true, "description": description, "schema": schema })
}

/// The `task_id` path parameter (a component).
pub(super) fn task_id() -> Value {
    json!({ "$ref": "#/components/parameters/TaskId" })
}

/// The `id` path parameter of a key (a component).
pub(super) fn key_id() -> Value {
    json!({ "$ref": "#/components/parameters/KeyId" })
}

/// The two audio-to-text operations (translation and transcription).
pub(super) fn audio_to_text(id: &str, summary: &str, translate: bool) -> Value {
    let result =
        json!({ "anyOf": [schema_ref("TranslationResult"), schema_ref("VerboseTranscription")] });
    let mut ok = json_response(
        "The text. `json` (default): `{text}`; `verbose_json`: `{task, language, duration, text, segments}`; `text` and `srt`: text/plain; `vtt`: text/vtt.",
        result,
    );
    ok["content"]["text/plain"] = json!({ "schema": { "type": "string" } });
    ok["content"]["text/vtt"] = json!({ "schema": { "type": "string" } });
    if !translate {
        ok = with_event_stream(
            ok,
            "With `stream=true` (not on whisper-1): the `data` of each event, `transcript.text.delta` events, then one `transcript.text.done` whose text is the deltas concatenated (DECISIONS D-STREAM-2).",
            &[
                "TranscriptTextDelta",
                "TranscriptTextSegment",
                "TranscriptTextDone",
            ],
        );
    }
    let mut op = model_op(
        id,
        summary,
        "audio",
        responses(vec![("200", ok)], MODEL_BODY_ERRORS),
    );
    op["requestBody"] = json!({
        "required": true,
        "content": {
            "multipart/form-data": {
                "schema": bodies::transcription_form(translate),
                "encoding": { "file": {
                    "contentType": "application/octet-stream",
                    "headers": { "Content-Disposition": bodies::audio_file_disposition() }
                } }
            }
        }
    });
    op
}

/// A required JSON request body of the given schema.
pub(super) fn json_body(schema: Value) -> Value {
    json!({ "required": true, "content": { "application/json": { "schema": schema } } })
}

/// A regular expression of the decimal integers from 1 to `max` (no leading zero), as a group.
pub(super) fn one_to(max: u32) -> String {
    let digits: Vec<u32> = max
        .to_string()
        .chars()
        .filter_map(|c| c.to_digit(10))
        .collect();
    let len = digits.len();
    let any = |n: usize| match n {
        0 => String::new(),
        n => format!("[0-9]{{{n}}}"),
    };
    let mut alternatives = Vec::new();
    if len > 1 {
        alternatives.push(format!("[1-9][0-9]{{0,{}}}", len - 2));
    }
    for (i, &d) in digits.iter().enumerate() {
        let low = u32::from(i == 0);
        if d > low {
            let prefix: String = digits[..i].iter().map(u32::to_string).collect();
            alternatives.push(format!("{prefix}[{low}-{}]{}", d - 1, any(len - i - 1)));
        }
    }
    alternatives.push(max.to_string());
    format!("({})", alternatives.join("|"))
}

#[cfg(all(test, feature = "validate"))]
mod tests {
    use super::one_to;

    #[test]
    fn one_to_matches_exactly_the_integers_in_range() {
        for max in [1, 7, 10, 99, 100, 4096, 10_000] {
            let pattern = format!("^{}$", one_to(max));
            let schema = serde_json::json!({ "type": "string", "pattern": pattern });
            let validator = jsonschema::validator_for(&schema).unwrap();
            for n in 0..=max + 20 {
                let ok = validator.is_valid(&serde_json::json!(n.to_string()));
                assert_eq!(ok, (1..=max).contains(&n), "{n} against {pattern}");
            }
            assert!(!validator.is_valid(&serde_json::json!("01")));
        }
    }
}
