//! The operations of the model routes (`bearerAuth`): audio, video tasks, images and the
//! key's models.

use super::build::{
    audio_to_text, binary_response, json_body, model_op, page_param, path_param, response_ref,
    responses, task_id, text_param, with_event_stream, with_links, MODEL_BODY_ERRORS,
    MODEL_READ_ERRORS, NOT_ROUTED_BY_NEW_API,
};
use crate::openapi::bodies;
use crate::openapi::response::{json_response, request_id_header};
use crate::openapi::schema_ref;
use crate::rules::catalog::{MAX_PAGE, MAX_PAGE_SIZE};
use serde_json::{json, Value};

/// Translation, transcription and speech.
pub(super) fn audio(operation_id: &str) -> Option<Value> {
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
        _ => return None,
    };
    Some(op)
}

/// The video routes without a task id: create and list.
pub(super) fn video(operation_id: &str) -> Option<Value> {
    let op = match operation_id {
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
            op["requestBody"] = bodies::video_request_body();
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
        _ => return None,
    };
    Some(op)
}

/// The routes of one video task: poll, delete and download. An unknown task is 404
/// (`documented`) or 400 `task_not_exist` (`new-api`).
pub(super) fn video_task(operation_id: &str) -> Option<Value> {
    let op = match operation_id {
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
            let r = task_responses(ok);
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
            let r = task_responses(ok);
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
            let mut r = task_responses(ok);
            // new-api's content route when the upstream keeps it from the video (Gemini and
            // Vertex Veo: DECISIONS D-PLAT-20, D-PLAT-21); its 500s are the `500` above.
            r["502"] = json_response(
                "The upstream failed the content route (new-api: `Failed to resolve Gemini video URL`, `Failed to resolve Vertex video URL`, `Failed to fetch video content`, `Upstream service returned status N`; type `server_error`).",
                schema_ref("V1Error"),
            );
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
        "headVideoContent" => {
            let ok = json!({
                "description": "The headers the GET would answer (`Content-Type`, `Content-Length`), no body.",
                "headers": request_id_header(),
            });
            let mut r = task_responses(ok);
            r["410"] = json_response(
                "The task has no artifact to serve (new-api's plugin era, DECISIONS D-ERA-6).",
                schema_ref("V1Error"),
            );
            let mut op = model_op(
                operation_id,
                "The headers of a completed task's video, without its body: new-api's plugin era only (its `openai_video` protocol, pkg/jsplugin/routing.go@2f6bf06b); the documented profile and new-api's Go-adaptor era do not route it (DECISIONS D-ERA-6).",
                "video",
                r,
            );
            op["parameters"] = json!([task_id()]);
            op
        }
        _ => return None,
    };
    Some(op)
}

/// Image generation and edits.
pub(super) fn images(operation_id: &str) -> Option<Value> {
    let op = match operation_id {
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
        _ => return None,
    };
    Some(op)
}

/// The key's models (`/v1/models`) and the public catalog (`/api/models`).
pub(super) fn models(operation_id: &str) -> Option<Value> {
    let op = match operation_id {
        "listKeyModels" => model_op(
            operation_id,
            "The models the key may use (OpenAI's list shape; Anthropic's for a client sending `x-api-key` and `anthropic-version`, new-api's ListModels).",
            "models",
            responses(
                vec![(
                    "200",
                    json_response(
                        "The key's models.",
                        json!({ "anyOf": [schema_ref("KeyModelList"), schema_ref("AnthropicModelList")] }),
                    ),
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
        _ => return None,
    };
    Some(op)
}

/// The responses of a route of one video task: `ok`, the errors, and its own 400.
fn task_responses(ok: Value) -> Value {
    let mut r = responses(vec![("200", ok)], &[401, 403, 404, 429, 500, 503]);
    r["400"] = response_ref("VideoBadRequest");
    r
}
