//! The embedded schemas: names, lookup, compilation, metaschema validity, and agreement of the
//! enums with the typed resources.

use gatecheck_schemas::types::{TranscriptFormat, VideoStatus};
use gatecheck_schemas::{names, schema, schema_names, validate, ValidationError};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::Path;

const EXPECTED: [&str; 44] = [
    "key-record",
    "token-update-request",
    "token-update-envelope",
    "video-task",
    "video-create-request",
    "model-record",
    "catalog-envelope",
    "image-request",
    "image-result",
    "transcription-form",
    "translation-result",
    "verbose-transcription",
    "speech-request",
    "v1-error",
    "api-failure",
    "speech-audio-delta",
    "speech-audio-done",
    "transcript-text-delta",
    "transcript-text-segment",
    "transcript-text-done",
    "image-generation-partial-image",
    "image-generation-completed",
    "image-edit-form",
    "mj-submit-answer",
    "mj-task",
    "task-envelope",
    "task-error",
    "video-remix-request",
    "kling-video-request",
    "jimeng-request",
    "pricing-answer",
    "status-answer",
    "token-search-envelope",
    "token-batch-envelope",
    "token-keys-envelope",
    "anthropic-model-list",
    "gemini-model-list",
    "vidu-task-data",
    "hailuo-task-data",
    "doubao-task-data",
    "ali-task-data",
    "gemini-operation",
    "vertex-operation",
    "task-realtime-envelope",
];

fn schemas_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/schemas"))
}

#[test]
fn names_are_the_resources() {
    assert_eq!(schema_names(), EXPECTED);
    assert_eq!(names::VIDEO_TASK, "video-task");
    assert_eq!(names::API_FAILURE, "api-failure");
}

#[test]
fn every_schema_file_is_embedded_and_identical() {
    let mut on_disk = BTreeSet::new();
    for entry in std::fs::read_dir(schemas_dir()).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_str().unwrap().to_owned();
        if stem == "openapi" || stem == "report.schema" {
            // report.schema.json is the conformance runner's report format, not a resource.
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value["$id"],
            format!("https://gatecheck.dev/schemas/{stem}.json"),
            "$id of {stem}"
        );
        assert_eq!(
            value["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        if stem != "common" {
            assert_eq!(schema(&stem), Some(&value), "{stem} is embedded as on disk");
        }
        on_disk.insert(stem);
    }
    let mut expected: BTreeSet<String> = EXPECTED.iter().map(|s| s.to_string()).collect();
    expected.insert("common".into());
    assert_eq!(on_disk, expected);
}

#[test]
fn every_schema_is_valid_against_the_2020_12_metaschema() {
    for name in schema_names().iter().copied().chain(["common"]) {
        let text = std::fs::read_to_string(schemas_dir().join(format!("{name}.json"))).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        if let Err(e) = jsonschema::meta::validate(&value) {
            panic!("{name}: {e}");
        }
    }
}

#[test]
fn every_schema_compiles_and_rejects_a_non_object() {
    for name in schema_names() {
        let err = validate(name, &json!(42)).unwrap_err();
        let v = &err.violations()[0];
        assert_eq!(
            (v.instance_path.as_str(), v.keyword.as_str()),
            ("", "type"),
            "{name}"
        );
    }
}

#[test]
fn unknown_names_are_a_clear_error() {
    assert!(schema("nope").is_none());
    assert!(schema("common").is_none(), "common is not a resource");
    let err = validate("nope", &json!({})).unwrap_err();
    assert_eq!(
        err,
        ValidationError::UnknownSchema {
            name: "nope".into()
        }
    );
    let text = err.to_string();
    assert!(text.contains("unknown schema \"nope\""), "{text}");
    assert!(text.contains("video-task"), "{text}");
    assert!(validate("common", &json!({})).is_err());
}

#[test]
fn errors_display_each_path_and_rule() {
    let err = validate("key-record", &json!({"id": "x"})).unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("not a valid key-record: 16 violations"),
        "{text}"
    );
    assert!(text.contains("at (root): "), "{text}");
    assert!(
        text.contains("at (root): \"user_id\" is a required property [required]"),
        "{text}"
    );
    assert!(
        text.contains("at /id: \"x\" is not of type \"integer\" [type]"),
        "{text}"
    );
}

fn enum_of(name: &str, pointer: &str) -> Vec<Value> {
    let doc: Value = if name == "common" {
        let text = std::fs::read_to_string(schemas_dir().join("common.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    } else {
        schema(name).unwrap().clone()
    };
    doc.pointer(pointer).unwrap().as_array().unwrap().clone()
}

#[test]
fn video_status_enum_agrees_with_the_type() {
    let statuses = [
        VideoStatus::Queued,
        VideoStatus::InProgress,
        VideoStatus::Completed,
        VideoStatus::Failed,
        VideoStatus::Error,
    ];
    let wire: Vec<Value> = statuses.iter().map(|s| json!(s.as_str())).collect();
    assert_eq!(enum_of("common", "/$defs/video_status/enum"), wire);
    for s in statuses {
        assert_eq!(serde_json::to_value(s).unwrap(), json!(s.as_str()));
    }
}

#[test]
fn transcript_format_enum_agrees_with_the_type() {
    let wire: Vec<Value> = TranscriptFormat::ALL
        .iter()
        .map(|f| serde_json::to_value(f).unwrap())
        .collect();
    assert_eq!(enum_of("common", "/$defs/transcript_format/enum"), wire);
}

#[test]
fn key_status_enum_agrees_with_the_constants() {
    use gatecheck_schemas::types::*;
    assert_eq!(
        enum_of("common", "/$defs/key_status/enum"),
        vec![
            json!(KEY_STATUS_ENABLED),
            json!(KEY_STATUS_DISABLED),
            json!(KEY_STATUS_EXPIRED),
            json!(KEY_STATUS_EXHAUSTED)
        ]
    );
}

#[test]
fn validators_are_shared_across_threads() {
    let handles: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || {
                let task = json!({"id": format!("t{i}"), "object": "video", "model": "m",
                                  "status": "queued", "progress": 0});
                validate("video-task", &task).is_ok()
            })
        })
        .collect();
    for h in handles {
        assert!(h.join().unwrap());
    }
}

#[test]
fn violations_locate_the_rule_through_refs_and_absolutely() {
    let task =
        json!({"id": "t", "object": "video", "model": "m", "status": "running", "progress": 1});
    let err = validate("video-task", &task).unwrap_err();
    let v = &err.violations()[0];
    assert_eq!(v.instance_path, "/status");
    assert_eq!(v.keyword, "enum");
    assert_eq!(v.schema_path, "/properties/status/$ref/enum");
    assert_eq!(
        v.keyword_location.as_deref(),
        Some("https://gatecheck.dev/schemas/common.json#/$defs/video_status/enum")
    );
}

/// Adds `"x_gatecheck_extra": true` to every object inside `value`.
fn add_unknown_fields(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.values_mut().for_each(add_unknown_fields);
            map.insert("x_gatecheck_extra".into(), json!(true));
        }
        Value::Array(items) => items.iter_mut().for_each(add_unknown_fields),
        _ => {}
    }
}

#[test]
fn every_schema_accepts_unknown_extra_fields_at_every_level() {
    for name in schema_names() {
        for example in schema(name).unwrap()["examples"].as_array().unwrap() {
            let mut extended = example.clone();
            add_unknown_fields(&mut extended);
            if let Err(e) = validate(name, &extended) {
                panic!("{e}");
            }
        }
    }
}

#[test]
fn bundled_schemas_stand_alone_and_judge_as_validate_does() {
    let bodies = [
        json!({"id": "t", "object": "video", "model": "m", "status": "running", "progress": 101}),
        json!({"id": 1, "name": "n".repeat(51), "status": 3}),
        json!({"model": "w", "temperature": 0.5, "response_format": "srt"}),
        json!({"success": false, "message": "no"}),
        json!({"text": "hi"}),
        json!({}),
    ];
    for name in schema_names() {
        let bundled = gatecheck_schemas::bundled(name).unwrap();
        let text = serde_json::to_string(&bundled).unwrap();
        // No registry: every $ref must resolve inside the document itself.
        let validator = jsonschema::options()
            .offline()
            .build(&bundled)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let examples = schema(name).unwrap()["examples"]
            .as_array()
            .unwrap()
            .clone();
        for body in examples.iter().chain(bodies.iter()) {
            assert_eq!(
                validator.is_valid(body),
                gatecheck_schemas::is_valid(name, body),
                "{name}: {body}"
            );
        }
        assert!(text.contains(&format!(
            "\"$id\":\"https://gatecheck.dev/schemas/{name}.json\""
        )));
    }
    assert!(matches!(
        gatecheck_schemas::bundled("nope"),
        Err(ValidationError::UnknownSchema { .. })
    ));
}
