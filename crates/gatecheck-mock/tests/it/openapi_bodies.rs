//! The OpenAPI document is as strict as the mock: bodies drawn from `schemas/openapi.json`
//! itself (every JSON, multipart and form operation, valid by the document's own schema) sent
//! to the mock are never refused, except for a reason of a D-OAS row
//! (`gatecheck_schemas::openapi::exceptions`, matched by the refusal's text). A refusal rule of
//! the mock that the document does not carry (`n` other than 1 while streaming, before the
//! document's `if`/`then`) fails here with the request and the answer.

use crate::openapi_gen::{Draw, PNG_NAME};
use crate::support::{bearer, Http, DEMO, KEY_UNLIMITED};
use gatecheck_mock::internals::media::png;
use gatecheck_mock::MockServer;
use gatecheck_schemas::openapi::exceptions::known_refusal;
use serde_json::{Map, Value};

/// Bodies drawn per operation and content type (per `oneOf` branch).
const CASES: usize = 24;
/// Bodies drawn per branch of an image route: an accepted one renders its images (up to 10
/// PNGs of a million pixels in a debug build), which is most of this test's time.
const IMAGE_CASES: usize = 8;
/// The boundary of the multipart bodies.
const BOUNDARY: &str = "gatecheck-openapi-bodies";

/// One operation with a request body, in one content type.
struct Operation {
    method: String,
    path: String,
    id: String,
    content_type: String,
    schema: Value,
    encoding: Value,
    parameters: Vec<Value>,
}

/// Every operation of the document with a JSON, multipart or form body, but the plugins'
/// native routes: their bodies are the vendors' own, documented as an object and not field by
/// field (DECISIONS D-ERA-15), so a drawn object tests nothing of the document (the plugin
/// era's mock refuses most in the plugin's `native.error`; `native_routes.rs` tests them).
fn operations(doc: &Value) -> Vec<Operation> {
    let mut out = Vec::new();
    let native = |path: &str| {
        gatecheck_schemas::rules::platforms::native::declared().any(|(_, _, r)| r.path == path)
    };
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        if native(path) {
            continue;
        }
        for (method, op) in item.as_object().into_iter().flatten() {
            let content = op["requestBody"]["content"].as_object();
            for (content_type, media) in content.into_iter().flatten() {
                out.push(Operation {
                    method: method.to_uppercase(),
                    path: path.clone(),
                    id: op["operationId"].as_str().unwrap_or_default().to_owned(),
                    content_type: content_type.clone(),
                    schema: media["schema"].clone(),
                    encoding: media["encoding"].clone(),
                    parameters: op["parameters"].as_array().cloned().unwrap_or_default(),
                });
            }
        }
    }
    out
}

/// A refusal the document does not explain.
#[derive(Debug)]
struct Finding {
    operation: String,
    request: String,
    status: u16,
    answer: String,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schema_valid_bodies_are_refused_only_for_a_d_oas_reason() {
    let doc = gatecheck_schemas::openapi();
    let ops = operations(&doc);
    let kinds = [
        "application/json",
        "multipart/form-data",
        "application/x-www-form-urlencoded",
    ];
    assert!(
        ops.iter()
            .all(|op| kinds.contains(&op.content_type.as_str())),
        "a request content type this test does not draw: {:?}",
        ops.iter().map(|o| &o.content_type).collect::<Vec<_>>()
    );
    assert!(ops.len() >= 40, "only {} operations with a body", ops.len());
    let mut findings = Vec::new();
    let mut known = 0usize;
    for (index, op) in ops.iter().enumerate() {
        let started = std::time::Instant::now();
        let (sent, explained, found) = exercise(&doc, op, index as u64).await;
        eprintln!(
            "{} {} ({}): {sent} bodies, {explained} refused for a D-OAS reason, {:?}",
            op.method,
            op.path,
            op.content_type,
            started.elapsed()
        );
        known += explained;
        findings.extend(found);
    }
    assert!(
        findings.is_empty(),
        "{} schema-valid request(s) refused for a reason outside the D-OAS rows \
         ({known} refusals of a D-OAS reason):\n{}",
        findings.len(),
        findings
            .iter()
            .map(|f| format!(
                "- {}\n  request: {}\n  answer:  {} {}",
                f.operation, f.request, f.status, f.answer
            ))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Sends `CASES` schema-valid bodies of `op` to a fresh mock (so that no key update of an
/// earlier operation is in the way): how many were sent, how many refused for a D-OAS reason,
/// and the other refusals.
async fn exercise(doc: &Value, op: &Operation, seed: u64) -> (usize, usize, Vec<Finding>) {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let mut draw = Draw::new(doc, seed);
    let validator = draw.validator(&op.schema);
    let auth = bearer(KEY_UNLIMITED);
    let headers: Vec<(&str, &str)> = if op.path.starts_with("/api/") {
        DEMO.to_vec()
    } else {
        vec![("authorization", auth.as_str())]
    };
    let (mut sent, mut explained, mut found) = (0, 0, Vec::new());
    // Each `oneOf` branch (a model of the catalog) gets its own share of the cases.
    let branches = match op.schema["oneOf"].as_array() {
        Some(branches) if !branches.is_empty() => branches.clone(),
        _ => vec![op.schema.clone()],
    };
    let per_branch = if op.path.starts_with("/v1/images/") {
        IMAGE_CASES
    } else {
        CASES
    };
    let wanted = per_branch * branches.len();
    for _ in 0..wanted * 8 {
        if sent == wanted {
            break;
        }
        let body = draw.value(&branches[sent % branches.len()]);
        if !validator.is_valid(&body) {
            continue;
        }
        sent += 1;
        let path = draw.path(&op.path, &op.parameters);
        let (content_type, bytes) = encode(op, &body, seed);
        let mut all = headers.clone();
        all.push(("content-type", content_type.as_str()));
        let resp = http.send(&op.method, &path, &all, bytes).await;
        if resp.status < 400 {
            continue;
        }
        let answer = resp.text();
        if known_refusal(&answer).is_some() {
            explained += 1;
            continue;
        }
        found.push(Finding {
            operation: format!("{} {} ({}, {})", op.method, path, op.id, op.content_type),
            request: truncate(&body.to_string(), 400),
            status: resp.status,
            answer: truncate(&answer, 300),
        });
    }
    assert_eq!(
        sent, wanted,
        "{} {} ({}): the drawer made too few schema-valid bodies",
        op.method, op.path, op.content_type
    );
    (sent, explained, found)
}

/// The first `max` characters of `s`.
fn truncate(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}

/// The body `value` as `op`'s content type: its `Content-Type` and bytes.
fn encode(op: &Operation, value: &Value, seed: u64) -> (String, Vec<u8>) {
    let fields = value.as_object().cloned().unwrap_or_default();
    match op.content_type.as_str() {
        "multipart/form-data" => (
            format!("multipart/form-data; boundary={BOUNDARY}"),
            multipart(op, &fields, seed),
        ),
        "application/x-www-form-urlencoded" => {
            let mut form = url::form_urlencoded::Serializer::new(String::new());
            for (name, v) in &fields {
                if let Some(text) = as_text(v) {
                    form.append_pair(name, &text);
                }
            }
            (op.content_type.clone(), form.finish().into_bytes())
        }
        _ => (op.content_type.clone(), value.to_string().into_bytes()),
    }
}

/// A field's text on the wire (`null`: not sent; an object or array: its JSON text).
fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// The multipart body of `fields`: a `format: binary` property is a file (a PNG when its
/// `contentMediaType` says so, else bytes named as the part's `encoding` asks); an array of
/// them is one part per item.
fn multipart(op: &Operation, fields: &Map<String, Value>, seed: u64) -> Vec<u8> {
    let image = png(seed, 8, 8).map(|b| b.to_vec()).unwrap_or_default();
    let mut out = Vec::new();
    for (name, v) in fields {
        let schema = property_schema(&op.schema, name);
        let items = match v {
            Value::Array(items) if schema["items"]["format"] == "binary" => items.clone(),
            other => vec![other.clone()],
        };
        let item_schema = if schema["items"].is_object() {
            &schema["items"]
        } else {
            &schema
        };
        for item in items {
            let head = format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"");
            if item_schema["format"] == "binary" {
                let (file, bytes) = if item_schema["contentMediaType"] == "image/png" {
                    (PNG_NAME.to_owned(), image.clone())
                } else {
                    let text = as_text(&item).unwrap_or_default();
                    (file_name(&op.encoding, name), text.into_bytes())
                };
                out.extend_from_slice(
                    format!("{head}; filename=\"{file}\"\r\nContent-Type: application/octet-stream\r\n\r\n")
                        .as_bytes(),
                );
                out.extend_from_slice(&bytes);
            } else if let Some(text) = as_text(&item) {
                out.extend_from_slice(format!("{head}\r\n\r\n").as_bytes());
                out.extend_from_slice(text.as_bytes());
            } else {
                continue;
            }
            out.extend_from_slice(b"\r\n");
        }
    }
    out.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    out
}

/// The file name the `encoding` of part `name` shows (`audio.wav`), else `file.bin`.
fn file_name(encoding: &Value, name: &str) -> String {
    let example = encoding[name]["headers"]["Content-Disposition"]["schema"]["example"]
        .as_str()
        .unwrap_or_default();
    example
        .split("filename=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or("file.bin")
        .to_owned()
}

/// The schema of property `name` in `schema` or any of its `oneOf` branches.
fn property_schema(schema: &Value, name: &str) -> Value {
    if let Some(p) = schema["properties"].get(name) {
        return p.clone();
    }
    schema["oneOf"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|b| b["properties"].get(name).cloned())
        .unwrap_or(Value::Null)
}

/// The blank text the document allows in a transcription's `temperature` and `stream` (ASCII
/// white space, `[ \t\n\f\r]`) is what the mock trims; other white space is refused, as the
/// document refuses it (Schemathesis' negative cases send such text).
#[tokio::test]
async fn transcription_text_fields_are_trimmed_as_the_document_says() {
    use crate::media_util::{post_multipart, wav_of};
    let server = MockServer::start().await;
    let wav = wav_of(500);
    let form = |name: &'static str, value: &'static str| {
        vec![
            ("file", Some("a.wav"), wav.as_slice()),
            ("model", None, b"gpt-4o-mini-transcribe".as_slice()),
            (name, None, value.as_bytes()),
        ]
    };
    let path = "/v1/audio/transcriptions";
    for (name, value, want) in [
        ("temperature", "", 200),
        ("temperature", " \t\r\n\x0c", 200),
        ("temperature", " 0.5 ", 200),
        ("temperature", "\u{2003}", 400),
        ("stream", "", 200),
        ("stream", " FALSE\n", 200),
        ("stream", "\u{2003}false", 400),
    ] {
        let resp = post_multipart(&server, path, KEY_UNLIMITED, &form(name, value)).await;
        assert_eq!(resp.status, want, "{name}={value:?}: {}", resp.text());
    }
}
