//! Hand-made invalid bodies: each is rejected, at exactly the expected instance paths and rules.

use gatecheck_schemas::validate;
use serde_json::{json, Value};
use std::collections::BTreeSet;

fn key() -> Value {
    json!({
        "id": 1, "user_id": 1, "key": "k", "status": 1, "name": "n",
        "created_time": 1, "accessed_time": 1, "expired_time": -1, "remain_quota": 0,
        "unlimited_quota": false, "model_limits_enabled": false, "model_limits": "",
        "allow_ips": null, "used_quota": 0, "group": "", "cross_group_retry": false
    })
}

fn task() -> Value {
    json!({"id": "task_1", "task_id": "task_1", "object": "video", "model": "sora-2",
           "status": "in_progress", "progress": 50, "created_at": 1})
}

fn model() -> Value {
    json!({"created": 0, "id": "m", "code": "m", "provider": "P", "provider_code": "p",
           "name": "M", "model_type": "audio", "features": [], "endpoints": [],
           "pricing": {"currency": "USD", "input": null, "output": null,
                       "per_request": 0.5, "per_second": null}})
}

fn image_result() -> Value {
    json!({"created": 1, "background": "opaque", "data": [{"url": "u"}],
           "output_format": "png", "quality": "low", "size": "1x1",
           "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
                     "input_tokens_details": {"image_tokens": 0, "text_tokens": 1},
                     "output_tokens_details": {"image_tokens": 1, "text_tokens": 0}}})
}

/// `base` with the JSON pointer `pointer` set to `value` (or removed, for `None`).
fn with(mut base: Value, pointer: &str, value: Option<Value>) -> Value {
    let (parent, last) = pointer.rsplit_once('/').unwrap();
    let target = base.pointer_mut(parent).unwrap();
    match value {
        Some(v) => {
            if let Some(index) = last.parse::<usize>().ok().filter(|_| target.is_array()) {
                target[index] = v;
            } else {
                target[last] = v;
            }
        }
        None => {
            target.as_object_mut().unwrap().remove(last);
        }
    }
    base
}

/// Asserts `body` is rejected as `name` with exactly the `(instance_path, keyword)` pairs.
#[track_caller]
fn rejects(name: &str, body: Value, expected: &[(&str, &str)]) {
    let err = match validate(name, &body) {
        Ok(()) => panic!("{name} accepted an invalid body:\n{body:#}"),
        Err(e) => e,
    };
    let got: BTreeSet<(String, String)> = err
        .violations()
        .iter()
        .map(|v| (v.instance_path.clone(), v.keyword.clone()))
        .collect();
    let want: BTreeSet<(String, String)> = expected
        .iter()
        .map(|(p, k)| (p.to_string(), k.to_string()))
        .collect();
    assert_eq!(got, want, "{name}: {err}");
}

#[test]
fn the_valid_bases_are_valid() {
    for (name, body) in [
        ("key-record", key()),
        ("video-task", task()),
        ("model-record", model()),
        ("image-result", image_result()),
    ] {
        crate::assert_valid(name, &body);
    }
}

#[test]
fn invalid_key_records() {
    rejects(
        "key-record",
        with(key(), "/status", Some(json!(5))),
        &[("/status", "enum")],
    );
    rejects(
        "key-record",
        with(key(), "/status", Some(json!(0))),
        &[("/status", "enum")],
    );
    rejects(
        "key-record",
        with(key(), "/status", Some(json!("1"))),
        &[("/status", "type"), ("/status", "enum")],
    );
    rejects(
        "key-record",
        with(key(), "/name", Some(json!("x".repeat(51)))),
        &[("/name", "maxLength")],
    );
    // 51 Unicode characters of 2 bytes each: too long; 50 of them are fine.
    rejects(
        "key-record",
        with(key(), "/name", Some(json!("é".repeat(51)))),
        &[("/name", "maxLength")],
    );
    crate::assert_valid(
        "key-record",
        &with(key(), "/name", Some(json!("é".repeat(50)))),
    );
    crate::assert_valid(
        "key-record",
        &with(key(), "/name", Some(json!("🦀".repeat(50)))),
    );
    rejects(
        "key-record",
        with(key(), "/expired_time", Some(json!(-2))),
        &[("/expired_time", "minimum")],
    );
    rejects(
        "key-record",
        with(key(), "/expired_time", Some(json!(1.5))),
        &[("/expired_time", "type")],
    );
    rejects(
        "key-record",
        with(key(), "/allow_ips", Some(json!(["1.2.3.4"]))),
        &[("/allow_ips", "type")],
    );
    rejects(
        "key-record",
        with(key(), "/allow_ips", None),
        &[("", "required")],
    );
    rejects(
        "key-record",
        with(key(), "/cross_group_retry", None),
        &[("", "required")],
    );
    rejects(
        "key-record",
        with(key(), "/unlimited_quota", Some(json!(1))),
        &[("/unlimited_quota", "type")],
    );
    rejects(
        "key-record",
        with(key(), "/key", Some(json!(null))),
        &[("/key", "type")],
    );
}

#[test]
fn invalid_key_update_requests() {
    rejects(
        "token-update-request",
        json!({"name": "x"}),
        &[("", "required")],
    );
    rejects(
        "token-update-request",
        json!({"id": "1"}),
        &[("/id", "type")],
    );
    rejects(
        "token-update-request",
        json!({"id": 1, "name": "n".repeat(51)}),
        &[("/name", "maxLength")],
    );
    rejects(
        "token-update-request",
        json!({"id": 1, "status": 9}),
        &[("/status", "enum")],
    );
    rejects(
        "token-update-request",
        json!({"id": 1, "expired_time": -5}),
        &[("/expired_time", "minimum")],
    );
    rejects(
        "token-update-request",
        json!({"id": 1, "allow_ips": 3}),
        &[("/allow_ips", "type")],
    );
    rejects(
        "token-update-request",
        json!({"id": 1, "group": null}),
        &[("/group", "type")],
    );
}

#[test]
fn invalid_key_update_envelopes() {
    let ok = json!({"success": true, "message": "", "data": key()});
    rejects(
        "token-update-envelope",
        with(ok.clone(), "/message", Some(json!("done"))),
        &[("/message", "const")],
    );
    rejects(
        "token-update-envelope",
        with(ok.clone(), "/data", None),
        &[("", "required")],
    );
    rejects(
        "token-update-envelope",
        with(ok.clone(), "/data/status", Some(json!(7))),
        &[("/data/status", "enum")],
    );
    rejects(
        "token-update-envelope",
        with(ok.clone(), "/data/name", Some(json!("n".repeat(60)))),
        &[("/data/name", "maxLength")],
    );
    rejects(
        "token-update-envelope",
        with(ok, "/success", Some(json!("true"))),
        &[("/success", "type")],
    );
    rejects(
        "token-update-envelope",
        json!({"success": false}),
        &[("", "required")],
    );
    rejects(
        "api-failure",
        json!({"success": true, "message": ""}),
        &[("/success", "const")],
    );
    rejects(
        "api-failure",
        json!({"success": false}),
        &[("", "required")],
    );
}

#[test]
fn invalid_video_tasks() {
    rejects(
        "video-task",
        with(task(), "/progress", Some(json!(101))),
        &[("/progress", "maximum")],
    );
    rejects(
        "video-task",
        with(task(), "/progress", Some(json!(-1))),
        &[("/progress", "minimum")],
    );
    rejects(
        "video-task",
        with(task(), "/progress", Some(json!(50.5))),
        &[("/progress", "type")],
    );
    rejects(
        "video-task",
        with(task(), "/status", Some(json!("running"))),
        &[("/status", "enum")],
    );
    rejects(
        "video-task",
        with(
            with(task(), "/status", Some(json!("running"))),
            "/progress",
            Some(json!(101)),
        ),
        &[("/status", "enum"), ("/progress", "maximum")],
    );
    rejects(
        "video-task",
        with(task(), "/status", Some(json!("queued"))),
        &[("/progress", "const")],
    );
    rejects(
        "video-task",
        with(task(), "/status", Some(json!("completed"))),
        &[("/progress", "const")],
    );
    rejects(
        "video-task",
        with(task(), "/object", Some(json!("task"))),
        &[("/object", "const")],
    );
    rejects("video-task", with(task(), "/id", None), &[("", "required")]);
    rejects(
        "video-task",
        with(task(), "/id", Some(json!(12))),
        &[("/id", "type")],
    );
    rejects(
        "video-task",
        with(task(), "/created_at", Some(json!("now"))),
        &[("/created_at", "type")],
    );
    rejects(
        "video-task",
        with(task(), "/size", Some(json!("1280*720"))),
        &[("/size", "pattern")],
    );
    rejects(
        "video-task",
        with(task(), "/error", Some(json!({"code": "x"}))),
        &[("/error", "required")],
    );
    rejects(
        "video-create-request",
        json!({"model": "sora-2"}),
        &[("", "required")],
    );
    rejects(
        "video-create-request",
        json!({"model": "sora-2", "prompt": ""}),
        &[("/prompt", "minLength")],
    );
    rejects(
        "video-create-request",
        json!({"model": "m", "prompt": "p", "seconds": "eight"}),
        &[("/seconds", "anyOf")],
    );
    rejects(
        "video-create-request",
        json!({"model": "m", "prompt": "p", "size": "big"}),
        &[("/size", "pattern")],
    );
}

#[test]
fn invalid_model_records_and_catalogs() {
    rejects(
        "model-record",
        with(model(), "/endpoints", Some(json!({"a": 1}))),
        &[("/endpoints", "anyOf")],
    );
    rejects(
        "model-record",
        with(model(), "/endpoints", Some(json!([1]))),
        &[("/endpoints", "anyOf")],
    );
    rejects(
        "model-record",
        with(model(), "/pricing/input", Some(json!("0.1"))),
        &[("/pricing/input", "type")],
    );
    rejects(
        "model-record",
        with(model(), "/pricing/per_second", None),
        &[("/pricing", "required")],
    );
    rejects(
        "model-record",
        with(model(), "/features", Some(json!(["a", 2]))),
        &[("/features/1", "type")],
    );
    rejects(
        "model-record",
        with(model(), "/created", Some(json!(null))),
        &[("/created", "type")],
    );
    let catalog = json!({"success": true, "page": 1, "page_size": 10, "total": 2,
                         "data": [model(), with(model(), "/pricing/currency", None)]});
    rejects(
        "catalog-envelope",
        catalog,
        &[("/data/1/pricing", "required")],
    );
    rejects(
        "catalog-envelope",
        json!({"success": true, "page": 1, "page_size": 10, "data": []}),
        &[("", "required")],
    );
    rejects(
        "catalog-envelope",
        json!({"success": true, "page": "1", "page_size": 10, "total": 0, "data": []}),
        &[("/page", "type")],
    );
}

#[test]
fn invalid_image_bodies() {
    rejects(
        "image-request",
        json!({"model": "m", "prompt": "p", "size": "1024*1024"}),
        &[("/size", "pattern")],
    );
    rejects(
        "image-request",
        json!({"model": "m", "prompt": "p", "size": "x1024"}),
        &[("/size", "pattern")],
    );
    rejects(
        "image-request",
        json!({"model": "m", "size": "1x1"}),
        &[("", "required")],
    );
    rejects(
        "image-request",
        json!({"model": "m", "prompt": "p", "size": "1x1", "n": 0}),
        &[("/n", "minimum")],
    );
    rejects(
        "image-result",
        with(image_result(), "/data/0", Some(json!({}))),
        &[("/data/0", "anyOf")],
    );
    rejects(
        "image-result",
        with(image_result(), "/size", Some(json!("auto"))),
        &[("/size", "pattern")],
    );
    rejects(
        "image-result",
        with(
            image_result(),
            "/usage/output_tokens_details/image_tokens",
            Some(json!(1.5)),
        ),
        &[("/usage/output_tokens_details/image_tokens", "type")],
    );
    rejects(
        "image-result",
        with(image_result(), "/usage/total_tokens", None),
        &[("/usage", "required")],
    );
}

#[test]
fn invalid_audio_bodies() {
    rejects(
        "transcription-form",
        json!({"model": "w", "temperature": 1.5}),
        &[("/temperature", "maximum")],
    );
    rejects(
        "transcription-form",
        json!({"model": "w", "temperature": -0.1}),
        &[("/temperature", "minimum")],
    );
    rejects(
        "transcription-form",
        json!({"model": "w", "response_format": "xml"}),
        &[("/response_format", "enum")],
    );
    rejects(
        "transcription-form",
        json!({"temperature": 0}),
        &[("", "required")],
    );
    rejects("translation-result", json!({}), &[("", "required")]);
    rejects(
        "translation-result",
        json!({"text": 5}),
        &[("/text", "type")],
    );
    rejects(
        "verbose-transcription",
        json!({"task": "translate", "language": "en", "duration": 1, "text": "t",
                                            "segments": [{"id": 0}]}),
        &[("/segments/0", "required")],
    );
    rejects(
        "speech-request",
        json!({"model": "tts-1", "input": "hi"}),
        &[("", "required")],
    );
    rejects(
        "speech-request",
        json!({"model": "tts-1", "input": "", "voice": "alloy"}),
        &[("/input", "minLength")],
    );
    rejects(
        "speech-request",
        json!({"model": "tts-1", "input": "x".repeat(4097), "voice": "alloy"}),
        &[("/input", "maxLength")],
    );
    rejects(
        "speech-request",
        json!({"model": "tts-1", "input": "hi", "voice": "alloy", "response_format": "ogg"}),
        &[("/response_format", "enum")],
    );
}

#[test]
fn invalid_error_bodies() {
    rejects("v1-error", json!({"message": "m"}), &[("", "required")]);
    rejects(
        "v1-error",
        json!({"error": {"type": "new_api_error"}}),
        &[("/error", "required")],
    );
    rejects(
        "v1-error",
        json!({"error": {"message": "m", "type": "t", "code": 401}}),
        &[("/error/code", "type")],
    );
    rejects("v1-error", json!({"error": "boom"}), &[("/error", "type")]);
}

#[test]
fn the_encoded_endpoints_must_decode_to_a_map_of_routes() {
    let encoded = |text: &str| with(model(), "/endpoints", Some(json!(text)));
    crate::assert_valid(
        "model-record",
        &encoded(r#"{"a":{"path":"/v1/videos","method":"POST"}}"#),
    );
    crate::assert_valid("model-record", &encoded("{}"));
    rejects(
        "model-record",
        encoded("not json"),
        &[("/endpoints", "contentMediaType")],
    );
    rejects(
        "model-record",
        encoded(r#"{"a":{"path":"/v1/x"}"#),
        &[("/endpoints", "contentMediaType")],
    );
    rejects(
        "model-record",
        encoded(r#"{"a":{"path":"/v1/x"}}"#),
        &[("/endpoints", "contentSchema")],
    );
    rejects(
        "model-record",
        encoded(r#"["openai"]"#),
        &[("/endpoints", "contentSchema")],
    );
    rejects(
        "model-record",
        encoded(r#"{"a":{"path":1,"method":"GET"}}"#),
        &[("/endpoints", "contentSchema")],
    );
    let catalog = json!({"success": true, "page": 1, "page_size": 10, "total": 2,
                         "data": [model(), encoded(r#"{"a":1}"#)]});
    rejects(
        "catalog-envelope",
        catalog,
        &[("/data/1/endpoints", "contentSchema")],
    );
    let err = gatecheck_schemas::validate("model-record", &encoded(r#"{"a":{"path":"/v1/x"}}"#))
        .unwrap_err();
    let v = &err.violations()[0];
    assert_eq!(
        v.schema_path,
        "/properties/endpoints/anyOf/0/contentSchema/additionalProperties/required"
    );
    assert!(
        v.message
            .starts_with("the decoded JSON at /a: \"method\" is a required property"),
        "{}",
        v.message
    );
}

#[test]
fn violations_are_bounded() {
    let many: Vec<Value> = (0..500).map(|_| json!("x")).collect();
    let body = json!({"created": 0, "id": "m", "code": "m", "provider": "P", "provider_code": "p",
                      "name": "M", "model_type": "audio", "features": many, "endpoints": [],
                      "pricing": {"currency": "USD", "input": null, "output": null,
                                  "per_request": null, "per_second": null}});
    crate::assert_valid("model-record", &body);
    let bad: Vec<Value> = (0..500).map(|i| json!(i)).collect();
    let err =
        gatecheck_schemas::validate("model-record", &with(body, "/features", Some(json!(bad))))
            .unwrap_err();
    match err {
        gatecheck_schemas::ValidationError::Invalid {
            violations,
            omitted,
            ..
        } => {
            assert_eq!(violations.len(), gatecheck_schemas::MAX_VIOLATIONS);
            assert_eq!(violations.len() + omitted, 500);
        }
        other => panic!("{other}"),
    }
}
