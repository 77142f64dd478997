//! One OpenAPI operation per entry of the route table ([`crate::routes::ROUTES`]), by
//! `operationId`. Statuses are the union of both profiles': `documented` and `new-api` (which
//! answers 500 `invalid_request` on audio and image validation and 400 `task_not_exist` for an
//! unknown video task).

use super::bodies::{self, VideoBody};
use super::response::{json_response, request_id_header};
use super::schema_ref;
use crate::rules::catalog::{MAX_PAGE, MAX_PAGE_SIZE};
use crate::rules::media::MAX_IMAGE_SIDE;
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
fn response_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/responses/{name}") })
}

/// `response` with OpenAPI links: `(name, operationId, parameter, runtime expression)`.
fn with_links(mut response: Value, links: &[(&str, &str, &str, &str)]) -> Value {
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
fn binary_response(description: &str, media_types: &[&str]) -> Value {
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
fn with_event_stream(mut response: Value, description: &str, events: &[&str]) -> Value {
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
fn responses(success: Vec<(&str, Value)>, error_statuses: &[u16]) -> Value {
    let mut out: Map<String, Value> = success
        .into_iter()
        .map(|(status, response)| (status.to_owned(), response))
        .collect();
    out.extend(errors(error_statuses));
    Value::Object(out)
}

/// The statuses of a model route that reads a body: validation (400; 500 in new-api), key
/// (401, 403), upload limit (413), rate limit (429), transient (500, 503).
const MODEL_BODY_ERRORS: &[u16] = &[400, 401, 403, 413, 429, 500, 503];
/// The statuses of a model route without a body.
const MODEL_READ_ERRORS: &[u16] = &[401, 403, 429, 500, 503];

/// An operation of the model routes (`bearerAuth`).
/// The description of an operation new-api does not route ([`crate::routes::NOT_IN_NEW_API`]).
const NOT_ROUTED_BY_NEW_API: &str = "A tooling extension of the documented profile: new-api routes no such operation, and its `new-api` profile answers 404 `{\"error\":{\"message\":\"Invalid URL (METHOD PATH)\",\"type\":\"invalid_request_error\",\"param\":\"\",\"code\":\"\"}}` before it looks at the key (DECISIONS D-ROUTE-2, D-ROUTE-3).";

fn model_op(id: &str, summary: &str, tag: &str, responses: Value) -> Value {
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
pub(super) fn key_security() -> Value {
    json!([{ "accessToken": [], "newApiUser": [] }, { "accessToken": [] }])
}

/// An operation of the key-management routes (`accessToken`, `newApiUser`).
fn key_op(id: &str, summary: &str, parameters: Vec<Value>, ok: Value) -> Value {
    json!({
        "operationId": id,
        "summary": summary,
        "tags": ["keys"],
        "security": key_security(),
        "parameters": parameters,
        "responses": { "200": ok, "401": response_ref("ApiFailure") }
    })
}

fn page_param(name: &str, description: &str, maximum: i64) -> Value {
    let schema = json!({ "type": "integer", "minimum": 1, "maximum": maximum });
    json!({ "name": name, "in": "query", "required": false, "description": description, "schema": schema })
}

fn text_param(name: &str, description: &str) -> Value {
    json!({ "name": name, "in": "query", "required": false, "description": description,
            "schema": { "type": "string" } })
}

fn path_param(name: &str, description: &str, schema: Value) -> Value {
    json!({ "name": name, "in": "path", "required": true, "description": description, "schema": schema })
}

fn task_id() -> Value {
    json!({ "$ref": "#/components/parameters/TaskId" })
}

fn key_id() -> Value {
    json!({ "$ref": "#/components/parameters/KeyId" })
}

/// The two audio-to-text operations (translation and transcription).
fn audio_to_text(id: &str, summary: &str, translate: bool) -> Value {
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

fn json_body(schema: Value) -> Value {
    json!({ "required": true, "content": { "application/json": { "schema": schema } } })
}

/// A regular expression of the decimal integers from 1 to `max` (no leading zero), as a group.
fn one_to(max: u32) -> String {
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

/// The operation of `operation_id`, or `None` for an id the table does not know.
pub(super) fn operation(operation_id: &str) -> Option<Value> {
    let not_found = json_response("Wrong path or file name.", schema_ref("ApiFailure"));
    let op = match operation_id {
        "createTranslation" => audio_to_text(
            operation_id,
            "Translate spoken audio into English text.",
            true,
        ),
        "createTranscription" => audio_to_text(
            operation_id,
            "Transcribe spoken audio (text in the original language).",
            false,
        ),
        "createSpeech" => {
            let mut op = model_op(
                operation_id,
                "Convert text to speech.",
                "audio",
                responses(
                    vec![(
                        "200",
                        with_event_stream(
                            binary_response(
                                "Audio in the requested `response_format` (mp3: audio/mpeg); with `stream_format: \"sse\"`, a `text/event-stream` of `speech.audio.delta` events (base64 parts of that file) and one `speech.audio.done` with the usage (DECISIONS D-STREAM-1).",
                                &[
                                    "audio/mpeg",
                                    "audio/wav",
                                    "audio/ogg",
                                    "audio/aac",
                                    "audio/flac",
                                    "audio/pcm",
                                ],
                            ),
                            "The `data` of each event: deltas, then one `speech.audio.done`.",
                            &["SpeechAudioDelta", "SpeechAudioDone"],
                        ),
                    )],
                    MODEL_BODY_ERRORS,
                ),
            );
            op["requestBody"] = json_body(bodies::speech_request());
            op
        }
        "createVideo" => {
            let ok = with_links(
                json_response(
                    "The task (status `queued`, progress 0).",
                    schema_ref("VideoTask"),
                ),
                &[
                    ("PollVideo", "getVideo", "task_id", "$response.body#/id"),
                    (
                        "DownloadVideo",
                        "getVideoContent",
                        "task_id",
                        "$response.body#/id",
                    ),
                ],
            );
            let mut op = model_op(
                operation_id,
                "Create an asynchronous video task.",
                "video",
                responses(vec![("200", ok)], MODEL_BODY_ERRORS),
            );
            op["requestBody"] = json!({
                "required": true,
                "content": {
                    "multipart/form-data": { "schema": bodies::video_request(VideoBody::Multipart) },
                    "application/x-www-form-urlencoded": { "schema": bodies::video_request(VideoBody::Form) },
                    "application/json": { "schema": bodies::video_request(VideoBody::Json) }
                }
            });
            op
        }
        "listVideos" => {
            let mut op = model_op(
                operation_id,
                "The key's video tasks, newest first (at most 100).",
                "video",
                responses(
                    vec![(
                        "200",
                        json_response("A list of tasks.", schema_ref("VideoList")),
                    )],
                    MODEL_READ_ERRORS,
                ),
            );
            op["description"] = json!(NOT_ROUTED_BY_NEW_API);
            op
        }
        "getVideo" => {
            let ok = with_links(
                json_response("The task.", schema_ref("VideoTask")),
                &[(
                    "DownloadVideo",
                    "getVideoContent",
                    "task_id",
                    "$response.body#/id",
                )],
            );
            let mut r = responses(vec![("200", ok)], &[401, 403, 404, 429, 500, 503]);
            r["400"] = response_ref("VideoBadRequest");
            let mut op = model_op(
                operation_id,
                "Poll a video task until it is completed, failed or error.",
                "video",
                r,
            );
            op["parameters"] = json!([task_id()]);
            op
        }
        "deleteVideo" => {
            let ok = json_response("The task was deleted.", schema_ref("VideoDeleted"));
            let mut r = responses(vec![("200", ok)], &[401, 403, 404, 429, 500, 503]);
            r["400"] = response_ref("VideoBadRequest");
            let mut op = model_op(operation_id, "Delete a video task.", "video", r);
            op["parameters"] = json!([task_id()]);
            op["description"] = json!(NOT_ROUTED_BY_NEW_API);
            op
        }
        "getVideoContent" => {
            let ok = binary_response(
                "The MP4 video (`variant=video`, the default) or a PNG still (`thumbnail`, `spritesheet`).",
                &["video/mp4", "image/png"],
            );
            let mut r = responses(vec![("200", ok)], &[401, 403, 404, 429, 500, 503]);
            r["400"] = response_ref("VideoBadRequest");
            let mut op = model_op(
                operation_id,
                "Download the video of a completed task (DECISIONS.md route). A task that is not completed yet is answered 400.",
                "video",
                r,
            );
            op["parameters"] = json!([
                task_id(),
                {
                    "name": "variant", "in": "query", "required": false,
                    "description": "`video` (default): the MP4; `thumbnail` or `spritesheet`: a PNG still.",
                    "schema": { "type": "string", "enum": ["video", "thumbnail", "spritesheet"], "default": "video" }
                }
            ]);
            op
        }
        "createImage" => {
            let mut op = model_op(
                operation_id,
                "Generate images from a text prompt.",
                "images",
                responses(
                    vec![(
                        "200",
                        with_event_stream(
                            json_response(
                                "The image generation result.",
                                schema_ref("ImageResult"),
                            ),
                            "With `stream: true`: the `data` of each event, `partial_images` (0 to 3) `image_generation.partial_image` events, then one `image_generation.completed` (DECISIONS D-STREAM-3).",
                            &["ImageGenerationPartialImage", "ImageGenerationCompleted"],
                        ),
                    )],
                    MODEL_BODY_ERRORS,
                ),
            );
            op["requestBody"] = json_body(bodies::image_request());
            op
        }
        "createImageEdit" => {
            let mut op = model_op(
                operation_id,
                "Edit images: the uploaded PNG, resized to `size` and changed inside the mask (everywhere without one). Named by the spec, its payload not shown: DECISIONS D-EDIT.",
                "images",
                responses(
                    vec![(
                        "200",
                        json_response(
                            "The edited images, as a generation result: `b64_json` or a `url` under /media/edits/.",
                            schema_ref("ImageResult"),
                        ),
                    )],
                    MODEL_BODY_ERRORS,
                ),
            );
            op["requestBody"] = json!({
                "required": true,
                "content": {
                    "multipart/form-data": {
                        "schema": bodies::image_edit_form(),
                        "encoding": {
                            "image": { "contentType": "image/png" },
                            "image[]": { "contentType": "image/png" },
                            "mask": { "contentType": "image/png" }
                        }
                    }
                }
            });
            op
        }
        "listKeyModels" => model_op(
            operation_id,
            "The models the key may use (OpenAI's list shape).",
            "models",
            responses(
                vec![(
                    "200",
                    json_response("The key's models.", schema_ref("KeyModelList")),
                )],
                MODEL_READ_ERRORS,
            ),
        ),
        "getKeyModel" => {
            let mut op = model_op(
                operation_id,
                "One model, if the key may use it.",
                "models",
                responses(
                    vec![("200", json_response("The model.", schema_ref("KeyModel")))],
                    &[401, 403, 404, 429, 500, 503],
                ),
            );
            op["parameters"] = json!([path_param(
                "model",
                "A model identifier.",
                json!({ "type": "string" })
            )]);
            op
        }
        "listModels" => json!({
            "operationId": operation_id,
            "summary": "The model catalog (no authentication, DECISIONS.md).",
            "tags": ["models"],
            "security": [],
            "parameters": [
                page_param("p", "Page number (alias of `page`).", MAX_PAGE),
                page_param("page", "Page number.", MAX_PAGE),
                page_param("page_size", "Records per page.", MAX_PAGE_SIZE),
                text_param("model_type", "Only models of this type (`video`, `audio`, `image`)."),
                text_param("provider_code", "Only models of this provider.")
            ],
            "responses": {
                "200": json_response("The catalog envelope.", schema_ref("CatalogEnvelope")),
                "400": json_response(
                    "A page parameter that is not an integer in range (documented profile; new-api normalises it and answers 200).",
                    schema_ref("ApiFailure"),
                )
            }
        }),
        "getTokenUsage" => json!({
            "operationId": operation_id,
            "summary": "The calling API key's quota (new-api's read-only usage view).",
            "tags": ["keys"],
            "security": [{ "bearerAuth": [] }],
            "responses": {
                "200": json_response(
                    "The key's usage, or a logical failure for a key that does not exist.",
                    json!({ "anyOf": [schema_ref("TokenUsageEnvelope"), schema_ref("ApiFailure")] }),
                ),
                "401": response_ref("ApiFailure")
            }
        }),
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
        "listTokens" => {
            let mut op = key_op(
                operation_id,
                "List the account's keys (DECISIONS.md extension).",
                vec![
                    page_param("p", "Page number.", MAX_PAGE),
                    page_param("size", "Keys per page.", MAX_PAGE_SIZE),
                ],
                json_response("A page of key records.", schema_ref("KeyListEnvelope")),
            );
            op["responses"]["400"] = json_response(
                "A page parameter that is not an integer in range (documented profile; new-api normalises it).",
                schema_ref("ApiFailure"),
            );
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
        "getToken" => key_op(
            operation_id,
            "One key (DECISIONS.md extension).",
            vec![key_id()],
            json_response(
                "The key record, or a logical failure.",
                schema_ref("TokenUpdateEnvelope"),
            ),
        ),
        "deleteToken" => key_op(
            operation_id,
            "Delete a key (DECISIONS.md extension).",
            vec![key_id()],
            json_response("`{success, message}`.", schema_ref("ApiEnvelope")),
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
        id if id.starts_with("mj") => return super::midjourney::operation(id),
        other => return super::tasks::operation(other),
    };
    Some(op)
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
