//! Request bodies made precise with the fixture catalog's capabilities
//! (`fixtures/capabilities.json`): one `oneOf` branch per model, each with the model as a
//! `const` and that model's sizes, seconds, voices and formats as enums. The branches carry an
//! `x-gatecheck-catalog` note: a deployment's catalog can list other models.

use super::{schema_ref, to_component};
use crate::rules::media::{
    IMAGE_COUNT, MAX_PARTIAL_IMAGES, MAX_PROMPT_CHARS, MAX_SPEECH_INPUT_CHARS, SPEECH_SPEED,
    STREAMED_IMAGE_COUNT, TEMPERATURE,
};
use crate::schemas::{self, names};
use crate::types::ModelCapabilities;
use serde_json::{json, Map, Value};
use std::sync::LazyLock;

/// The fixture catalog's capabilities, in file order.
const CAPABILITIES: &str = include_str!("../../fixtures/capabilities.json");

/// The note on every catalog-derived enum.
const CATALOG_NOTE: &str = "Models and their options from the fixture catalog (fixtures/capabilities.json), as the mock serves them. A deployment's catalog can differ: its models are listed by GET /api/models, and a model it does not serve is refused with 400 (500 `invalid_request` on audio and image routes of the new-api profile) or 403 when the key may not use it.";

static MODELS: LazyLock<Vec<(String, ModelCapabilities)>> = LazyLock::new(|| {
    let doc: Value = serde_json::from_str(CAPABILITIES).unwrap_or_default();
    doc.get("models")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(id, caps)| {
            let caps = serde_json::from_value(caps.clone()).ok()?;
            Some((id.clone(), caps))
        })
        .collect()
});

/// The fixture models with a capability, in catalog order.
fn models_with<'a, T: 'a>(
    pick: impl Fn(&'a ModelCapabilities) -> Option<&'a T>,
) -> Vec<(&'a str, &'a T)> {
    MODELS
        .iter()
        .filter_map(|(id, caps)| pick(caps).map(|c| (id.as_str(), c)))
        .collect()
}

/// A resource schema as a component, with `edit` applied to its `properties`.
fn resource_with(resource: &str, edit: impl FnOnce(&mut Map<String, Value>)) -> Value {
    let mut schema = schemas::schema(resource)
        .map(to_component)
        .unwrap_or_else(|| json!({"type": "object"}));
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("examples");
        obj.remove("$comment");
        if let Some(Value::Object(props)) = obj.get_mut("properties") {
            edit(props);
        }
    }
    schema
}

/// Lets every optional property of a JSON body also be `null`: the service reads a `null`
/// field as an absent one (its default), as new-api's Go decoding does.
fn nullable_optionals(mut schema: Value) -> Value {
    let required: Vec<String> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r.as_str().map(str::to_owned))
        .collect();
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        for (name, prop) in props.iter_mut() {
            if !required.contains(name) {
                *prop = or_null(prop.take());
            }
        }
    }
    schema
}

/// `schema` or `null`: `type` gains `"null"` (and an `enum` the `null` value); a schema
/// without a single `type` becomes `anyOf [schema, {type: null}]`.
fn or_null(mut schema: Value) -> Value {
    if let (Some(Value::String(t)), None) = (schema.get("type"), schema.get("const")) {
        let t = t.clone();
        schema["type"] = json!([t, "null"]);
        if let Some(Value::Array(values)) = schema.get_mut("enum") {
            values.push(Value::Null);
        }
        return schema;
    }
    let description = schema.as_object_mut().and_then(|o| o.remove("description"));
    let mut wrapped = json!({ "anyOf": [schema, { "type": "null" }] });
    if let Some(d) = description {
        wrapped["description"] = d;
    }
    wrapped
}

/// `oneOf` of `branches`, with the catalog note.
fn one_of(branches: Vec<Value>) -> Value {
    json!({ "oneOf": branches, "x-gatecheck-catalog": CATALOG_NOTE })
}

/// Text that is not blank (the service trims before checking).
fn non_blank(max: usize) -> Value {
    json!({ "type": "string", "minLength": 1, "maxLength": max, "pattern": "\\S" })
}

/// Text that is not blank, of any length.
pub(super) fn not_blank() -> Value {
    json!({ "type": "string", "minLength": 1, "pattern": "\\S" })
}

/// The model property of a branch: the one model.
fn model_const(id: &str) -> Value {
    json!({ "type": "string", "const": id })
}

/// The body of `POST /v1/audio/speech`.
pub(super) fn speech_request() -> Value {
    let branches = models_with(|c| c.speech.as_ref())
        .into_iter()
        .map(|(id, cap)| {
            resource_with(names::SPEECH_REQUEST, |p| {
                p.insert("model".into(), model_const(id));
                p.insert(
                    "input".into(),
                    json!({ "type": "string", "minLength": 1, "maxLength": MAX_SPEECH_INPUT_CHARS }),
                );
                p.insert(
                    "voice".into(),
                    json!({ "type": "string", "enum": cap.voices }),
                );
                p.insert(
                    "response_format".into(),
                    json!({ "type": "string", "enum": cap.formats, "default": "mp3" }),
                );
                p.insert(
                    "speed".into(),
                    json!({ "type": "number", "minimum": SPEECH_SPEED.start(), "maximum": SPEECH_SPEED.end(), "default": 1 }),
                );
                if !crate::rules::media::speech_sse_supported(id) {
                    p.insert(
                        "stream_format".into(),
                        json!({ "type": "string", "enum": ["audio"], "description": "This model does not stream (D-STREAM-1)." }),
                    );
                }
            })
        })
        .map(nullable_optionals)
        .collect();
    one_of(branches)
}

/// The body of `POST /v1/images/generations`.
pub(super) fn image_request() -> Value {
    let branches = models_with(|c| c.image.as_ref())
        .into_iter()
        .map(|(id, cap)| {
            let mut branch = resource_with(names::IMAGE_REQUEST, |p| {
                p.insert("model".into(), model_const(id));
                p.insert("prompt".into(), non_blank(MAX_PROMPT_CHARS));
                p.insert(
                    "size".into(),
                    json!({ "type": "string", "enum": cap.sizes, "pattern": "^[1-9][0-9]*x[1-9][0-9]*$" }),
                );
                bound(p, "n", IMAGE_COUNT.start(), IMAGE_COUNT.end());
                bound(p, "partial_images", &0, &MAX_PARTIAL_IMAGES);
                p.insert(
                    "quality".into(),
                    json!({ "type": "string", "enum": ["auto", "low", "medium", "high", "standard", "hd"] }),
                );
                p.insert(
                    "background".into(),
                    json!({ "type": "string", "enum": ["auto", "opaque", "transparent"] }),
                );
                p.insert(
                    "output_format".into(),
                    json!({ "type": "string", "enum": ["png"], "description": "The mock draws PNG only." }),
                );
                if cap.output != "b64_json" {
                    // Only a model that answers b64_json streams (D-STREAM-3).
                    p.insert(
                        "stream".into(),
                        json!({ "type": "boolean", "const": false, "description": "This model does not stream (it answers URLs). DECISIONS D-STREAM-3." }),
                    );
                }
            });
            branch = nullable_optionals(branch);
            if cap.output == "b64_json" {
                branch = streamed_image_count(branch);
            }
            branch
        })
        .collect();
    one_of(branches)
}

/// An image body that streams asks for [`STREAMED_IMAGE_COUNT`] images: `if` `stream` is
/// `true`, `then` `n` is that count, `null` or absent (its default, 1).
fn streamed_image_count(mut body: Value) -> Value {
    body["if"] = json!({ "properties": { "stream": { "const": true } }, "required": ["stream"] });
    body["then"] = json!({
        "description": format!("A streamed generation makes {STREAMED_IMAGE_COUNT} image (400 `n must be {STREAMED_IMAGE_COUNT} when streaming`, DECISIONS D-STREAM-3)."),
        "properties": { "n": { "enum": [STREAMED_IMAGE_COUNT, null] } }
    });
    body
}

/// The multipart form of `POST /v1/images/edits` (DECISIONS D-EDIT): the text fields, with
/// `model` one of the fixture models that edit, and the `image` and `mask` file parts.
pub(super) fn image_edit_form() -> Value {
    let branches = models_with(|c| c.image.as_ref())
        .into_iter()
        .filter(|(id, _)| crate::rules::image_edit::edits_supported(id))
        .map(|(id, cap)| image_edit_branch(id, &cap.sizes))
        .collect();
    one_of(branches)
}

/// The edit form of one model: `model` that model, `size` one of its sizes or `auto` (or
/// empty: its first size).
fn image_edit_branch(model: &str, sizes: &[String]) -> Value {
    let png = |description: &str| {
        json!({
            "description": description,
            "type": "string", "format": "binary", "contentMediaType": "image/png",
            "minLength": 1
        })
    };
    let mut size_enum: Vec<&str> = sizes.iter().map(String::as_str).collect();
    size_enum.extend(["auto", ""]);
    let mut form = resource_with(names::IMAGE_EDIT_FORM, |p| {
        p.insert("model".into(), model_const(model));
        p.insert(
            "size".into(),
            json!({ "type": "string", "enum": size_enum, "description": "One of the model's sizes, or `auto` (empty: the model's first size)." }),
        );
        p.insert(
            "image".into(),
            png("The image to edit, a PNG (also sent as `image[]`, repeated for several images)."),
        );
        p.insert(
            "image[]".into(),
            json!({ "type": "array", "maxItems": crate::rules::image_edit::MAX_EDIT_IMAGES - 1,
                    "description": "More images: with `image`, at most 16 in all.",
                    "items": png("One of several images to edit, a PNG.") }),
        );
        p.insert(
            "mask".into(),
            png("Optional PNG: its fully transparent pixels mark where to edit."),
        );
        p.insert("prompt".into(), non_blank(MAX_PROMPT_CHARS));
        p.insert(
            "n".into(),
            json!({ "description": format!("Images to make, {} to {} (default 1, also when empty), as text; surrounding spaces, a `+` and leading zeros are read as a number is.", IMAGE_COUNT.start(), IMAGE_COUNT.end()),
                    "type": "string", "pattern": edit_count_pattern() }),
        );
    });
    // The schema asks for `image`; `image[]` is the other way to send images (D-EDIT-1).
    if let Some(req) = form["required"].as_array_mut() {
        req.push(json!("image"));
    }
    form["propertyNames"] = part_names();
    form
}

/// Sets the `minimum` and `maximum` of integer property `name` (kept from the resource
/// schema otherwise).
fn bound(props: &mut Map<String, Value>, name: &str, lo: &i64, hi: &i64) {
    if let Some(prop) = props.get_mut(name) {
        prop["minimum"] = json!(lo);
        prop["maximum"] = json!(hi);
    }
}

/// The text of an edit's `n`: a number of [`IMAGE_COUNT`] as Go's `strconv.Atoi` reads it
/// after trimming (a `+`, leading zeros), or empty, with ASCII white space around it only: a
/// regex `\s` is wider in some engines (Python's takes `\x1c`), and the mock trims just that.
fn edit_count_pattern() -> String {
    let counts: Vec<String> = IMAGE_COUNT.map(|n| n.to_string()).collect();
    let space = "[ \\t\\n\\f\\r]*";
    format!("^{space}(\\+?0*({}))?{space}$", counts.join("|"))
}

/// The prompt of a provider route: not blank; new-api passes it on without a length limit.
fn provider_prompt() -> Value {
    let mut prompt = not_blank();
    prompt["description"] = json!(
        "Not blank (400 `invalid_request` `prompt is required`); no length limit before the provider."
    );
    prompt
}

/// The catalog's video models whose id starts with `prefix` (the provider's models), with
/// their durations.
fn provider_models(prefix: &str) -> (Vec<&'static str>, Vec<i64>) {
    let mut seconds = Vec::new();
    let models = models_with(|c| c.video.as_ref())
        .into_iter()
        .filter(|(id, _)| id.starts_with(prefix))
        .map(|(id, cap)| {
            seconds.extend(cap.seconds.iter().copied());
            id
        })
        .collect();
    seconds.sort_unstable();
    seconds.dedup();
    (models, seconds)
}

/// The body of the Kling routes (DECISIONS D-TASK-6): `model_name`/`model` one of the
/// catalog's Kling models, `duration` one of their durations (text or number), a prompt that
/// is not blank.
pub(super) fn kling_request() -> Value {
    let (models, seconds) = provider_models(crate::rules::platforms::kling::PLATFORM.name);
    let durations: Vec<Value> = seconds
        .iter()
        .map(|s| json!(s.to_string()))
        .chain(seconds.iter().map(|s| json!(s)))
        .chain([Value::Null])
        .collect();
    let mut body = resource_with(names::KLING_VIDEO_REQUEST, |p| {
        p.insert(
            "model_name".into(),
            json!({ "type": "string", "enum": models, "x-gatecheck-catalog": CATALOG_NOTE }),
        );
        p.insert(
            "model".into(),
            json!({ "description": "The model when `model_name` is absent (then one of `model_name`'s); ignored beside it, whatever its value." }),
        );
        p.insert("prompt".into(), provider_prompt());
        p.insert(
            "duration".into(),
            json!({ "description": "Seconds, one of the model's.", "enum": durations }),
        );
        // Kling's own fields go to Kling as they are: new-api and the mock read only `image`,
        // `image_tail`, `aspect_ratio` and `callback_url`, each as text when it is text.
        for (key, what) in [
            ("negative_prompt", "Forwarded to Kling."),
            (
                "image",
                "A start image (text: a URL or base64): image to video.",
            ),
            ("image_tail", "An end image (text): image to video."),
            (
                "aspect_ratio",
                "`16:9`, `9:16` or `1:1` picks the size; other values the model's default.",
            ),
            ("mode", "`std` or `pro`; forwarded to Kling."),
            ("cfg_scale", "Forwarded to Kling."),
            (
                "callback_url",
                "Kling POSTs the task there when it ends (text; other values: none).",
            ),
            ("external_task_id", "Forwarded to Kling."),
        ] {
            p.insert(key.into(), json!({ "description": what }));
        }
    });
    // `model_name` wins; `model` is read (and must name a model) only without it.
    body["anyOf"] = json!([
        { "required": ["model_name"] },
        { "required": ["model"], "properties": { "model": { "enum": models } } }
    ]);
    body
}

/// The body of the Jimeng route (DECISIONS D-TASK-7): `req_key` one of the catalog's Jimeng
/// models and a prompt that is not blank, which both actions accept (a fetch reads only
/// `task_id`).
pub(super) fn jimeng_request() -> Value {
    let (models, _) = provider_models(crate::rules::platforms::jimeng::PLATFORM.name);
    let mut body = resource_with(names::JIMENG_REQUEST, |p| {
        p.insert(
            "req_key".into(),
            json!({ "description": "The model.", "type": "string", "enum": models, "x-gatecheck-catalog": CATALOG_NOTE }),
        );
        p.insert("prompt".into(), provider_prompt());
        p.insert(
            "image_urls".into(),
            json!({ "description": "Images (a list of URLs): image to video; forwarded as they are." }),
        );
        p.insert(
            "task_id".into(),
            json!({ "description": "Read by `CVSync2AsyncGetResult` only (text, not empty there); a submit ignores it, whatever its value." }),
        );
    });
    body["required"] = json!(["req_key", "prompt"]);
    body
}

/// How the fields of `POST /v1/videos` are sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VideoBody {
    /// `application/json`: `seconds` as a string or an integer.
    Json,
    /// `application/x-www-form-urlencoded`: every field is text.
    Form,
    /// `multipart/form-data`: text fields plus an optional `input_reference` file.
    Multipart,
}

/// The request body of `POST /v1/videos` (and of new-api's unified route): multipart, form or
/// JSON, the same fields.
pub(super) fn video_request_body() -> Value {
    json!({
        "required": true,
        "content": {
            "multipart/form-data": { "schema": video_request(VideoBody::Multipart) },
            "application/x-www-form-urlencoded": { "schema": video_request(VideoBody::Form) },
            "application/json": { "schema": video_request(VideoBody::Json) }
        }
    })
}

/// The fields of `POST /v1/videos`, sent as `body`.
fn video_request(body: VideoBody) -> Value {
    let branches = models_with(|c| c.video.as_ref())
        .into_iter()
        .map(|(id, cap)| {
            let seconds_text: Vec<String> = cap.seconds.iter().map(i64::to_string).collect();
            let text = json!({ "type": "string", "enum": seconds_text });
            let seconds = if body == VideoBody::Json {
                json!({ "anyOf": [text, { "type": "integer", "enum": cap.seconds }] })
            } else {
                text
            };
            resource_with(names::VIDEO_CREATE_REQUEST, |p| {
                p.insert("model".into(), model_const(id));
                p.insert("prompt".into(), non_blank(MAX_PROMPT_CHARS));
                let mut seconds = seconds;
                seconds["description"] =
                    json!(format!("Duration in seconds; default {}.", cap.default_seconds));
                p.insert("seconds".into(), seconds);
                p.insert(
                    "size".into(),
                    json!({
                        "description": format!("`<width>x<height>`; default {}.", cap.default_size),
                        "type": "string", "enum": cap.sizes, "pattern": "^[1-9][0-9]*x[1-9][0-9]*$"
                    }),
                );
                if body == VideoBody::Multipart {
                    p.insert(
                        "input_reference".into(),
                        json!({
                            "description": "Reference image (accepted and ignored by the mock; DECISIONS.md).",
                            "type": "string", "format": "binary", "contentMediaType": "application/octet-stream"
                        }),
                    );
                }
            })
        })
        .map(|mut schema| match body {
            VideoBody::Json => nullable_optionals(schema),
            VideoBody::Multipart => {
                schema["propertyNames"] = part_names();
                schema
            }
            VideoBody::Form => schema,
        })
        .collect();
    one_of(branches)
}

/// The multipart form of the translation (`translate`) or transcription route.
pub(super) fn transcription_form(translate: bool) -> Value {
    let models: Vec<&str> = models_with(|c| c.transcription.as_ref())
        .into_iter()
        .filter(|(_, c)| {
            if translate {
                c.translation
            } else {
                c.transcription
            }
        })
        .map(|(id, _)| id)
        .collect();
    let mut form = resource_with(names::TRANSCRIPTION_FORM, |p| {
        p.insert(
            "model".into(),
            json!({ "type": "string", "enum": models, "x-gatecheck-catalog": CATALOG_NOTE }),
        );
        p.insert(
            "file".into(),
            json!({
                "description": format!(
                    "Audio file, not empty; its file name ends in one of: {}.",
                    crate::types::AUDIO_EXTENSIONS.join(", ")
                ),
                "type": "string", "format": "binary", "contentMediaType": "application/octet-stream",
                "minLength": 1
            }),
        );
        p.insert(
            "temperature".into(),
            json!({
                "description": "0 to 1; blank text (an empty part) is the default, 0.",
                "anyOf": [
                    { "type": "number", "minimum": TEMPERATURE.start(), "maximum": TEMPERATURE.end() },
                    { "type": "string", "pattern": BLANK_TEXT }
                ],
                "default": 0
            }),
        );
        if !translate {
            p.insert(
                "stream".into(),
                json!({
                    "description": "`true` (any letter case): a `text/event-stream` of `transcript.text.delta` events and one `transcript.text.done` (ignored by whisper-1); `false` or blank: one answer. DECISIONS D-STREAM-2.",
                    "type": "string",
                    "pattern": "^[ \\t\\n\\f\\r]*([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])?[ \\t\\n\\f\\r]*$",
                    "examples": ["true", "false"]
                }),
            );
        }
        if translate {
            // The translation route never streams (D-STREAM-2): `stream` is one of the
            // "other fields" it accepts and ignores, whatever its value.
            p.remove("language");
            p.remove("stream");
        }
    });
    if let Some(req) = form["required"].as_array_mut() {
        req.insert(0, json!("file"));
    }
    form["propertyNames"] = part_names();
    form
}

/// The `Content-Disposition` of the audio file part: its file name must end in an audio
/// extension (the service picks the decoder by it).
pub(super) fn audio_file_disposition() -> Value {
    let extensions = crate::types::AUDIO_EXTENSIONS.join("|");
    json!({
        "description": "The file name must end in one of the audio extensions (any letter case).",
        "required": true,
        "schema": {
            "type": "string",
            "pattern": format!("filename=\"[^\"]*\\.({extensions})\""),
            "example": "form-data; name=\"file\"; filename=\"audio.wav\""
        }
    })
}

/// A multipart text field that is blank: ASCII white space only (what the service trims).
const BLANK_TEXT: &str = "^[ \\t\\n\\f\\r]*$";

/// Multipart part names: header parameters, so without control characters.
fn part_names() -> Value {
    json!({ "pattern": "^[^\\u0000-\\u001f\\u007f]*$" })
}

/// The response of `GET /v1/models/{model}` and the items of `GET /v1/models`.
pub(super) fn key_model() -> Value {
    json!({
        "title": "Model (OpenAI's list shape)",
        "type": "object",
        "required": ["id", "object"],
        "properties": {
            "id": { "type": "string" },
            "object": { "const": "model" },
            "created": { "type": "integer" },
            "owned_by": { "type": "string" }
        }
    })
}

/// The response of `GET /v1/models`.
pub(super) fn key_model_list() -> Value {
    json!({
        "title": "The key's models",
        "type": "object",
        "required": ["object", "data"],
        "properties": {
            "object": { "const": "list" },
            "data": { "type": "array", "items": schema_ref("KeyModel") }
        }
    })
}
