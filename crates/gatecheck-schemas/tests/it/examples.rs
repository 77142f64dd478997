//! The example bodies of the spec (and of DECISIONS.md where the spec says "not shown"),
//! transcribed into JSON: each validates against its schema and deserializes into its type.

use crate::assert_valid;
use gatecheck_schemas::types::*;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

/// Validates `body` as `name` and deserializes it into `T`.
#[track_caller]
fn example<T: DeserializeOwned>(name: &str, body: Value) -> T {
    assert_valid(name, &body);
    match serde_json::from_value(body.clone()) {
        Ok(typed) => typed,
        Err(e) => panic!("{name} example does not deserialize: {e}\n{body:#}"),
    }
}

/// The key record of the spec's table, with the key shown as `<API_KEY>`.
fn spec_key_record() -> Value {
    json!({
        "id": 1,
        "user_id": 1,
        "key": "<API_KEY>",
        "status": 1,
        "name": "my key",
        "created_time": 1_760_000_000,
        "accessed_time": 1_760_000_100,
        "expired_time": -1,
        "remain_quota": 500_000,
        "unlimited_quota": false,
        "model_limits_enabled": false,
        "model_limits": "",
        "allow_ips": null,
        "used_quota": 0,
        "group": "",
        "cross_group_retry": false
    })
}

#[test]
fn key_record_of_the_spec() {
    let key: KeyRecord = example("key-record", spec_key_record());
    assert_eq!(key.expired_time, -1);
    // Every documented status, a 50-character name, an allowlist of each entry kind.
    for status in 1..=4 {
        let mut k = spec_key_record();
        k["status"] = json!(status);
        k["name"] = json!("é".repeat(50));
        k["allow_ips"] = json!("203.0.113.7\n2001:db8::1\n198.51.100.0/24\n2001:db8::/32");
        k["expired_time"] = json!(1_900_000_000);
        k["model_limits_enabled"] = json!(true);
        k["model_limits"] = json!("sora-2,whisper-1");
        let _: KeyRecord = example("key-record", k);
    }
}

#[test]
fn key_update_requests_of_the_spec() {
    let full = json!({
        "id": 1,
        "name": "renamed",
        "status": 2,
        "expired_time": -1,
        "remain_quota": 1000,
        "unlimited_quota": false,
        "model_limits_enabled": true,
        "model_limits": "sora-2,whisper-1",
        "allow_ips": "203.0.113.7\n2001:db8::/32",
        "group": "vip",
        "cross_group_retry": true
    });
    let typed: TokenUpdateRequest = example("token-update-request", full);
    assert_eq!(
        typed.allow_ips,
        Some(Some("203.0.113.7\n2001:db8::/32".into()))
    );
    let _: TokenUpdateRequest = example("token-update-request", json!({"id": 7}));
    let typed: TokenUpdateRequest =
        example("token-update-request", json!({"id": 7, "allow_ips": null}));
    assert_eq!(
        typed.allow_ips,
        Some(None),
        "explicit null is kept apart from absent"
    );
    let _: TokenUpdateRequest = example(
        "token-update-request",
        json!({"id": 7, "allow_ips": "", "model_limits": "", "group": ""}),
    );
}

#[test]
fn key_update_envelopes_of_the_spec() {
    let ok: ApiEnvelope<KeyRecord> = example(
        "token-update-envelope",
        json!({"success": true, "message": "", "data": spec_key_record()}),
    );
    assert!(ok.success && ok.data.is_some());
    for message in ["token name is too long", "user has no access to group vip"] {
        let failure = json!({"success": false, "message": message});
        let typed: ApiEnvelope<KeyRecord> = example("token-update-envelope", failure.clone());
        assert!(!typed.success);
        let _: ApiFailure = example("api-failure", failure);
    }
}

#[test]
fn video_tasks_of_the_spec() {
    let created = json!({
        "id": "task_abc123",
        "task_id": "task_abc123",
        "object": "video",
        "model": "sora-2",
        "status": "queued",
        "progress": 0,
        "created_at": 1_760_000_000
    });
    let task: VideoTask = example("video-task", created);
    assert_eq!(task.status, VideoStatus::Queued);

    let completed = json!({
        "id": "task_abc123",
        "task_id": "task_abc123",
        "object": "video",
        "model": "sora-2",
        "status": "completed",
        "progress": 100,
        "created_at": 1_760_000_000,
        "completed_at": 1_760_000_090,
        "video_url": "https://example.test/v1/videos/task_abc123/content"
    });
    let task: VideoTask = example("video-task", completed);
    assert!(task.status.is_terminal());

    // A poll response with only the fields the spec requires (no task_id, no created_at).
    let minimal = json!({"id": "vid_1", "object": "video", "model": "veo-3.1-fast",
                         "status": "completed", "progress": 100});
    let _: VideoTask = example("video-task", minimal);

    // DECISIONS.md: in_progress, and failed/error tasks carrying `error`.
    let running = json!({"id": "task_x", "task_id": "task_x", "object": "video", "model": "sora-2",
                         "status": "in_progress", "progress": 42, "created_at": 1_760_000_000,
                         "seconds": "8", "size": "1280x720"});
    let _: VideoTask = example("video-task", running);
    for status in ["failed", "error"] {
        let failed = json!({"id": "task_x", "task_id": "task_x", "object": "video",
                            "model": "sora-2", "status": status, "progress": 30,
                            "created_at": 1_760_000_000,
                            "error": {"code": "generation_failed", "message": "failed"}});
        let _: VideoTask = example("video-task", failed);
    }
    // A deployment may add fields.
    let extra = json!({"id": "t", "object": "video", "model": "m", "status": "queued",
                       "progress": 0, "expires_at": 1_760_086_400, "usage": {"total_tokens": 3}});
    let _: VideoTask = example("video-task", extra);
}

#[test]
fn video_create_requests_of_the_spec() {
    let _: VideoCreateRequest = example(
        "video-create-request",
        json!({"model": "sora-2", "prompt": "A calico cat playing a piano on stage"}),
    );
    let typed: VideoCreateRequest = example(
        "video-create-request",
        json!({"model": "sora-2", "prompt": "p", "seconds": "8", "size": "1280x720"}),
    );
    assert_eq!(typed.seconds, Some(SecondsValue::Text("8".into())));
    let typed: VideoCreateRequest = example(
        "video-create-request",
        json!({"model": "sora-2", "prompt": "p", "seconds": 4}),
    );
    assert_eq!(typed.seconds, Some(SecondsValue::Number(4)));
}

fn model(endpoints: Value) -> Value {
    json!({
        "created": 0,
        "id": "sora-2",
        "code": "sora-2",
        "provider": "OpenAI",
        "provider_code": "openai",
        "name": "Sora 2",
        "model_type": "video",
        "features": ["text-to-video"],
        "endpoints": endpoints,
        "pricing": {"currency": "USD", "input": null, "output": null,
                    "per_request": null, "per_second": 0.1}
    })
}

#[test]
fn model_records_of_the_spec_in_both_endpoint_forms() {
    let encoded = json!("{\"openai-video\":{\"path\":\"/v1/videos\",\"method\":\"POST\"}}");
    let typed: ModelRecord = example("model-record", model(encoded.clone()));
    let map = typed.endpoints.decode().unwrap();
    assert_eq!(map["openai-video"].path, "/v1/videos");
    let typed: ModelRecord = example("model-record", model(json!(["openai-video"])));
    assert_eq!(
        typed.endpoints,
        Endpoints::Formats(vec!["openai-video".into()])
    );

    let envelope = json!({"success": true, "page": 1, "page_size": 20, "total": 2,
                          "data": [model(encoded), model(json!(["openai-video", "kling"]))]});
    let typed: CatalogEnvelope = example("catalog-envelope", envelope);
    assert_eq!(typed.data.len(), 2);
    let empty = json!({"success": true, "page": 3, "page_size": 20, "total": 2, "data": []});
    let _: CatalogEnvelope = example("catalog-envelope", empty);
}

#[test]
fn image_requests_and_results_of_the_spec() {
    let _: ImageRequest = example(
        "image-request",
        json!({"model": "gpt-image-1", "prompt": "A red fox", "size": "1024x1024"}),
    );
    let result = |item: Value| {
        json!({
            "created": 1_760_000_000,
            "background": "opaque",
            "data": [item],
            "output_format": "png",
            "quality": "low",
            "size": "1024x1024",
            "usage": {
                "input_tokens": 50, "output_tokens": 272, "total_tokens": 322,
                "input_tokens_details": {"image_tokens": 0, "text_tokens": 50},
                "output_tokens_details": {"image_tokens": 272, "text_tokens": 0}
            }
        })
    };
    let typed: ImageResult = example("image-result", result(json!({"b64_json": "iVBORw0KGgo="})));
    assert!(typed.data[0].b64_json.is_some());
    let typed: ImageResult = example(
        "image-result",
        result(json!({"url": "https://example.test/i/1.png"})),
    );
    assert!(typed.data[0].url.is_some());
}

#[test]
fn translation_bodies_of_the_spec() {
    let _: TranscriptionForm = example("transcription-form", json!({"model": "whisper-1"}));
    let typed: TranscriptionForm = example(
        "transcription-form",
        json!({"model": "whisper-1", "prompt": "A talk about cats.",
               "response_format": "verbose_json", "temperature": 1}),
    );
    assert_eq!(typed.response_format, Some(TranscriptFormat::VerboseJson));
    for format in ["json", "text", "srt", "verbose_json", "vtt"] {
        let _: TranscriptionForm = example(
            "transcription-form",
            json!({"model": "whisper-1", "response_format": format, "temperature": 0}),
        );
    }
    let _: TranslationResult = example(
        "translation-result",
        json!({"text": "Hello, my name is Wolfgang and I come from Germany."}),
    );
    let verbose = json!({
        "task": "translate",
        "language": "english",
        "duration": 8.47,
        "text": "Hello.",
        "segments": [{
            "id": 0, "seek": 0, "start": 0.0, "end": 3.32, "text": "Hello.",
            "tokens": [50364, 2425, 13], "temperature": 0.0, "avg_logprob": -0.29,
            "compression_ratio": 0.77, "no_speech_prob": 0.01
        }]
    });
    let _: VerboseTranscription = example("verbose-transcription", verbose.clone());
    // A verbose body also carries the required `text` of the json result.
    assert_valid("translation-result", &verbose);
}

#[test]
fn speech_requests_of_the_spec() {
    let _: SpeechRequest = example(
        "speech-request",
        json!({"model": "tts-1", "input": "The quick brown fox.", "voice": "alloy",
               "response_format": "mp3"}),
    );
    let _: SpeechRequest = example(
        "speech-request",
        json!({"model": "tts-1", "input": "x".repeat(4096), "voice": "alloy"}),
    );
}

#[test]
fn error_bodies_of_decisions() {
    let typed: V1Error = example(
        "v1-error",
        json!({"error": {"message": "Invalid token", "type": "new_api_error",
                         "param": null, "code": null}}),
    );
    assert_eq!(typed.error.kind, "new_api_error");
    let _: V1Error = example(
        "v1-error",
        json!({"error": {"message": "access denied", "type": "new_api_error",
                         "param": "", "code": "access_denied"}}),
    );
    let _: V1Error = example("v1-error", json!({"error": {"message": "m", "type": "t"}}));
    let _: ApiFailure = example(
        "api-failure",
        json!({"success": false, "message": "record not found", "data": null}),
    );
}

/// Deserializes `body` into the type of resource `name`.
fn deserializes_as(name: &str, body: &Value) -> Result<(), serde_json::Error> {
    fn de<T: DeserializeOwned>(body: &Value) -> Result<(), serde_json::Error> {
        serde_json::from_value::<T>(body.clone()).map(drop)
    }
    match name {
        "key-record" => de::<KeyRecord>(body),
        "token-update-request" => de::<TokenUpdateRequest>(body),
        "token-update-envelope" => de::<ApiEnvelope<KeyRecord>>(body),
        "video-task" => de::<VideoTask>(body),
        "video-create-request" => de::<VideoCreateRequest>(body),
        "model-record" => de::<ModelRecord>(body),
        "catalog-envelope" => de::<CatalogEnvelope>(body),
        "image-request" => de::<ImageRequest>(body),
        "image-result" => de::<ImageResult>(body),
        "transcription-form" => de::<TranscriptionForm>(body),
        "translation-result" => de::<TranslationResult>(body),
        "verbose-transcription" => de::<VerboseTranscription>(body),
        "speech-request" => de::<SpeechRequest>(body),
        "v1-error" => de::<V1Error>(body),
        "api-failure" => de::<ApiFailure>(body),
        "image-edit-form" => de::<gatecheck_schemas::types::ImageEditForm>(body),
        "mj-submit-answer" => de::<gatecheck_schemas::types::MjSubmitAnswer>(body),
        "mj-task" => de::<gatecheck_schemas::types::MjTask>(body),
        "task-envelope" => de::<gatecheck_schemas::rules::task::TaskEnvelope>(body),
        "task-error" => de::<gatecheck_schemas::rules::task::TaskErrorBody>(body),
        "video-remix-request" => de::<gatecheck_schemas::rules::task::RemixRequest>(body),
        "kling-video-request"
        | "jimeng-request"
        | "token-search-envelope"
        | "token-batch-envelope"
        | "token-keys-envelope"
        | "anthropic-model-list"
        | "gemini-model-list"
        | "vidu-task-data"
        | "hailuo-task-data"
        | "doubao-task-data"
        | "ali-task-data"
        | "gemini-operation"
        | "vertex-operation"
        | "task-realtime-envelope"
        | "pricing-answer"
        | "status-answer" => de::<serde_json::Map<String, Value>>(body),
        event if stream_event_schema(body["type"].as_str().unwrap_or("")) == Some(event) => {
            de::<StreamEvent>(body)
        }
        other => panic!("no type for {other}"),
    }
}

#[test]
fn every_example_in_the_schema_files_validates_and_deserializes() {
    for name in gatecheck_schemas::schema_names() {
        let schema = gatecheck_schemas::schema(name).unwrap();
        let examples = schema["examples"]
            .as_array()
            .unwrap_or_else(|| panic!("{name} has examples"));
        assert!(!examples.is_empty(), "{name}");
        for body in examples {
            assert_valid(name, body);
            if let Err(e) = deserializes_as(name, body) {
                panic!("{name} example does not deserialize: {e}");
            }
        }
    }
}
