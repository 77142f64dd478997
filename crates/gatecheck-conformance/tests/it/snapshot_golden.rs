//! Golden snapshots of the mock's normalized responses, for every route and error case, in both
//! profiles: `snapshots/documented/` and `snapshots/new-api/` at the workspace root. They are
//! the contract's executable examples: a change in the mock's wire behaviour shows up here.
//!
//! On a mismatch the test writes `<step>.snap.new` beside the file and fails; accept with
//! `cargo insta review`, or re-record with `INSTA_UPDATE=always cargo test -p
//! gatecheck-conformance --test it snapshot_golden`.

use gatecheck_conformance::diff::Style;
use gatecheck_conformance::normalize::Normalizer;
use gatecheck_conformance::sequence::{
    mock_target, PollSettings, Sequence, SequenceOptions, SideRunner, Step, StepCtx,
};
use gatecheck_conformance::snapshot::{self, UpdateMode};
use gatecheck_conformance::{Auth, Body, Client, ClientConfig, Part, RequestSpec, Secret};
use gatecheck_mock::{ClockMode, Fixtures, MockServer};
use gatecheck_schemas::Profile;
use serde_json::{json, Value};
use std::path::PathBuf;

/// The upload limit of the golden mock (small, so the 413 case is cheap).
const MAX_BODY: usize = 256 * 1024;

fn fixture_key(id: i64) -> String {
    let fixtures = Fixtures::embedded();
    let key = fixtures
        .keys
        .iter()
        .find(|k| k.id == id)
        .expect("fixture key");
    format!("sk-{}", key.key)
}

fn key(id: i64) -> Auth {
    Auth::Key(Secret::new(fixture_key(id)))
}

fn demo(ctx: &StepCtx<'_>) -> Result<Auth, String> {
    ctx.target
        .api_key
        .as_ref()
        .map(|_| Auth::ApiKey)
        .ok_or_else(|| "no key".to_owned())
}

fn token(ctx: &StepCtx<'_>) -> Result<Auth, String> {
    ctx.target
        .access_token
        .as_ref()
        .map(|_| Auth::AccessToken)
        .ok_or_else(|| "no token".to_owned())
}

fn get(id: &str, path: &'static str, auth: fn(&StepCtx<'_>) -> Result<Auth, String>) -> Step {
    Step::new(id, path, move |ctx| {
        Ok(RequestSpec::get(path).auth(auth(ctx)?))
    })
}

fn none(_: &StepCtx<'_>) -> Result<Auth, String> {
    Ok(Auth::None)
}

fn with_key(id: &str, title: &str, key_id: i64, spec: fn() -> RequestSpec) -> Step {
    Step::new(id, title, move |_| Ok(spec().auth(key(key_id))))
}

fn speech(voice: &str, format: &str) -> Value {
    json!({"model": "tts-1", "input": "golden path", "voice": voice, "response_format": format})
}

fn post_json(id: &str, title: &str, path: &'static str, body: Value) -> Step {
    Step::new(id, title, move |ctx| {
        Ok(RequestSpec::post(path).auth(demo(ctx)?).json(body.clone()))
    })
}

fn put_token(id: &str, title: &str, query: &'static str, body: Value) -> Step {
    Step::new(id, title, move |ctx| {
        Ok(RequestSpec::put(format!("/api/token/{query}"))
            .auth(token(ctx)?)
            .json(body.clone()))
    })
}

fn key1_with(overrides: Value) -> impl Fn(&StepCtx<'_>) -> Result<RequestSpec, String> {
    move |ctx| {
        let mut record = ctx.var("key_before")?.clone();
        for (k, v) in overrides.as_object().into_iter().flatten() {
            record[k] = v.clone();
        }
        Ok(RequestSpec::put("/api/token/")
            .auth(token(ctx)?)
            .json(record))
    }
}

fn multipart(
    path: &'static str,
    parts: Vec<Part>,
) -> impl Fn(&StepCtx<'_>) -> Result<RequestSpec, String> {
    move |ctx| {
        Ok(RequestSpec::post(path)
            .auth(demo(ctx)?)
            .multipart(parts.clone()))
    }
}

/// Cases only a mock can show (fixture keys, the control API), after the standard sequence.
fn extras() -> Vec<Step> {
    let wav = gatecheck_conformance::internals::wav(300);
    let wav_part = |name: &str| Part::file("file", name, "audio/wav", wav.clone());
    let image =
        |model: &str| json!({"model": model, "prompt": "a lighthouse", "size": "1024x1024"});
    vec![
        // Catalog.
        get(
            "golden.catalog.page-2",
            "/api/models?page=2&page_size=4",
            none,
        ),
        get(
            "golden.catalog.provider",
            "/api/models?provider_code=google",
            none,
        ),
        // Keys on /v1.
        get("golden.v1.models", "/v1/models", demo),
        get("golden.v1.models.one", "/v1/models/tts-1", demo),
        get("golden.v1.unknown-route", "/v1/nothing-here", demo),
        get("golden.unknown-route", "/nothing-here", none),
        Step::new("golden.auth.key-without-sk", "the key without sk-", |_| {
            let bare = fixture_key(1).trim_start_matches("sk-").to_owned();
            Ok(RequestSpec::get("/v1/models").auth(Auth::Key(Secret::new(bare))))
        }),
        Step::new(
            "golden.auth.bearer-lowercase",
            "`bearer` in lower case",
            |_| {
                let raw = format!("bearer {}", fixture_key(1));
                Ok(RequestSpec::get("/v1/models").auth(Auth::Raw(Secret::new(raw))))
            },
        ),
        with_key("golden.key.disabled", "disabled key", 2, || {
            RequestSpec::get("/v1/models")
        }),
        with_key("golden.key.expired", "expired key", 3, || {
            RequestSpec::get("/v1/models")
        }),
        with_key("golden.key.exhausted", "exhausted key", 4, || {
            RequestSpec::get("/v1/models")
        }),
        with_key(
            "golden.key.ip-restricted",
            "client IP not allowed",
            5,
            || RequestSpec::get("/v1/models"),
        ),
        with_key(
            "golden.key.model-restricted",
            "model not in model_limits",
            6,
            || {
                RequestSpec::post("/v1/images/generations")
                    .json(json!({"model": "gpt-image-1", "prompt": "x", "size": "1024x1024"}))
            },
        ),
        with_key(
            "golden.key.model-allowed",
            "model in model_limits",
            6,
            || RequestSpec::post("/v1/audio/speech").json(speech("alloy", "mp3")),
        ),
        with_key(
            "golden.key.unlimited",
            "unlimited quota, zero balance",
            7,
            || RequestSpec::post("/v1/audio/speech").json(speech("nova", "wav")),
        ),
        Step::new(
            "golden.control.tiny-key",
            "a key with quota 1 (control API)",
            |_| {
                Ok(RequestSpec::post("/__mock/keys")
                    .json(json!({"name": "tiny", "remain_quota": 1})))
            },
        )
        .capture("tiny_key", "/key"),
        Step::new(
            "golden.quota.insufficient",
            "price above the remaining quota",
            |ctx| {
                let bare = ctx.str_var("tiny_key")?;
                Ok(RequestSpec::post("/v1/images/generations")
                    .auth(Auth::Key(Secret::new(format!("sk-{bare}"))))
                    .json(json!({"model": "gpt-image-1", "prompt": "x", "size": "1024x1024"})))
            },
        )
        .needs("tiny_key"),
        // The key's usage view (by API key).
        get("golden.usage.token", "/api/usage/token", demo),
        get("golden.usage.no-key", "/api/usage/token", none),
        with_key(
            "golden.usage.exhausted-key",
            "usage of an exhausted key",
            4,
            || RequestSpec::get("/api/usage/token"),
        ),
        Step::new(
            "golden.usage.unknown-key",
            "usage of an unknown key",
            |_| {
                let unknown = format!("sk-{}", "0".repeat(48));
                Ok(RequestSpec::get("/api/usage/token").auth(Auth::Key(Secret::new(unknown))))
            },
        ),
        // Key management.
        get("golden.token.list", "/api/token/?p=1&size=3", token),
        get("golden.token.get-unknown", "/api/token/9999", token),
        get("golden.token.missing-token", "/api/token/1", none),
        Step::new(
            "golden.token.bearer-token",
            "Bearer before the access token",
            |ctx| {
                let t = ctx.target.access_token.as_ref().ok_or("no token")?;
                Ok(RequestSpec::get("/api/token/1")
                    .auth(Auth::Raw(Secret::new(format!("Bearer {}", t.expose())))))
            },
        ),
        Step::new("golden.token.create", "create a key", |ctx| {
            Ok(RequestSpec::post("/api/token/")
                .auth(token(ctx)?)
                .json(json!({"name": "golden", "remain_quota": 1000, "expired_time": -1})))
        })
        .capture("created_id", "/data/id"),
        Step::new("golden.token.delete", "delete it", |ctx| {
            let id = ctx.var("created_id")?;
            Ok(RequestSpec::delete(format!("/api/token/{id}")).auth(token(ctx)?))
        })
        .needs("created_id"),
        put_token(
            "golden.token.other-user",
            "another user's key",
            "",
            json!({"id": 8, "name": "x"}),
        ),
        put_token(
            "golden.token.unknown-id",
            "unknown id",
            "",
            json!({"id": 9999, "name": "x"}),
        ),
        put_token(
            "golden.token.negative-quota",
            "negative remain_quota",
            "",
            json!({"id": 1, "name": "x", "remain_quota": -5}),
        ),
        put_token(
            "golden.token.enable-expired",
            "enable an expired key",
            "?status_only=1",
            json!({"id": 3, "status": 1}),
        ),
        put_token(
            "golden.token.enable-exhausted",
            "enable an exhausted key",
            "?status_only=1",
            json!({"id": 4, "status": 1}),
        ),
        Step::new(
            "golden.token.group-allowed",
            "group vip",
            key1_with(json!({"group": "vip"})),
        )
        .needs("key_before"),
        Step::new(
            "golden.token.group-denied",
            "group not allowed",
            key1_with(json!({"group": "staff"})),
        )
        .needs("key_before"),
        Step::new(
            "golden.token.restore",
            "restore the key",
            key1_with(json!({})),
        )
        .needs("key_before"),
        // Audio.
        Step::new(
            "golden.audio.transcription",
            "transcription",
            multipart(
                "/v1/audio/transcriptions",
                vec![wav_part("a.wav"), Part::text("model", "whisper-1")],
            ),
        ),
        Step::new(
            "golden.audio.translation.model-without-translation",
            "a transcription-only model",
            multipart(
                "/v1/audio/translations",
                vec![
                    wav_part("a.wav"),
                    Part::text("model", "gpt-4o-mini-transcribe"),
                ],
            ),
        ),
        Step::new(
            "golden.audio.translation.empty-file",
            "empty file",
            multipart(
                "/v1/audio/translations",
                vec![
                    Part::file("file", "a.wav", "audio/wav", Vec::new()),
                    Part::text("model", "whisper-1"),
                ],
            ),
        ),
        Step::new(
            "golden.audio.translation.missing-model",
            "no model",
            multipart("/v1/audio/translations", vec![wav_part("a.wav")]),
        ),
        Step::new(
            "golden.audio.upload-too-large",
            "body above the upload limit",
            |ctx| {
                Ok(RequestSpec::post("/v1/audio/translations")
                    .auth(demo(ctx)?)
                    .multipart(vec![
                        Part::file("file", "big.wav", "audio/wav", vec![0u8; MAX_BODY + 1024]),
                        Part::text("model", "whisper-1"),
                    ]))
            },
        ),
        post_json(
            "golden.audio.speech.opus",
            "opus",
            "/v1/audio/speech",
            speech("echo", "opus"),
        ),
        post_json(
            "golden.audio.speech.aac",
            "aac",
            "/v1/audio/speech",
            speech("echo", "aac"),
        ),
        post_json(
            "golden.audio.speech.flac",
            "flac",
            "/v1/audio/speech",
            speech("echo", "flac"),
        ),
        post_json(
            "golden.audio.speech.pcm",
            "pcm",
            "/v1/audio/speech",
            speech("echo", "pcm"),
        ),
        post_json(
            "golden.audio.speech.input-too-long",
            "4097 characters",
            "/v1/audio/speech",
            json!({"model": "tts-1", "input": "a".repeat(4097), "voice": "alloy"}),
        ),
        Step::new(
            "golden.audio.speech.not-json",
            "a body that is not JSON",
            |ctx| {
                let mut spec = RequestSpec::post("/v1/audio/speech").auth(demo(ctx)?);
                spec.body = Body::Raw {
                    content_type: "application/json".into(),
                    bytes: bytes::Bytes::from_static(b"{not json"),
                };
                Ok(spec)
            },
        ),
        // Images.
        post_json(
            "golden.images.unknown-model",
            "unknown model",
            "/v1/images/generations",
            image("no-such-model"),
        ),
        post_json(
            "golden.images.n-2",
            "two images",
            "/v1/images/generations",
            json!({"model": "gpt-image-1", "prompt": "two", "size": "1024x1024", "n": 2}),
        ),
        post_json(
            "golden.images.missing-prompt",
            "no prompt",
            "/v1/images/generations",
            json!({"model": "gpt-image-1", "size": "1024x1024"}),
        ),
        post_json(
            "golden.images.url-model",
            "flux (url)",
            "/v1/images/generations",
            image("flux-schnell"),
        ),
        // Image edits (DECISIONS D-EDIT).
        Step::new("golden.images.edit", "an edit with a mask", |ctx| {
            let source =
                gatecheck_mock::internals::media::png(5, 32, 32).map_err(|e| e.to_string())?;
            Ok(RequestSpec::post("/v1/images/edits")
                .auth(demo(ctx)?)
                .multipart(vec![
                    Part::file("image", "in.png", "image/png", source.clone()),
                    Part::file("mask", "mask.png", "image/png", source),
                    Part::text("prompt", "a hat"),
                    Part::text("model", "gpt-image-1"),
                    Part::text("size", "1024x1024"),
                ]))
        }),
        Step::new(
            "golden.images.edit.url",
            "an edit of two images (url)",
            |ctx| {
                let source =
                    gatecheck_mock::internals::media::png(6, 16, 16).map_err(|e| e.to_string())?;
                Ok(RequestSpec::post("/v1/images/edits")
                    .auth(demo(ctx)?)
                    .multipart(vec![
                        Part::file("image[]", "a.png", "image/png", source.clone()),
                        Part::file("image[]", "b.png", "image/png", source),
                        Part::text("prompt", "blue"),
                        Part::text("model", "flux-schnell"),
                        Part::text("size", "512x512"),
                    ]))
            },
        ),
        Step::new(
            "golden.images.edit.no-image",
            "an edit without an image",
            |ctx| {
                Ok(RequestSpec::post("/v1/images/edits")
                    .auth(demo(ctx)?)
                    .multipart(vec![
                        Part::text("prompt", "a hat"),
                        Part::text("model", "gpt-image-1"),
                    ]))
            },
        ),
        // Video.
        Step::new("golden.video.create.form", "urlencoded create", |ctx| {
            Ok(RequestSpec::post("/v1/videos").auth(demo(ctx)?).form(vec![
                ("model".into(), "veo-3.1-fast".into()),
                ("prompt".into(), "a quiet harbor".into()),
                ("seconds".into(), "6".into()),
            ]))
        }),
        post_json(
            "golden.video.empty-prompt",
            "empty prompt",
            "/v1/videos",
            json!({"model": "sora-2", "prompt": ""}),
        ),
        post_json(
            "golden.video.not-video-model",
            "not a video model",
            "/v1/videos",
            json!({"model": "tts-1", "prompt": "x"}),
        ),
        post_json(
            "golden.video.create.error",
            "a task that ends in error",
            "/v1/videos",
            json!({"model": "sora-2", "prompt": "storm [error]", "seconds": 4}),
        )
        .capture("error_id", "/id"),
        Step::new("golden.video.poll.error", "poll it to the end", |ctx| {
            Ok(
                RequestSpec::get(format!("/v1/videos/{}", ctx.str_var("error_id")?))
                    .auth(demo(ctx)?),
            )
        })
        .needs("error_id")
        .poll(),
        get(
            "golden.video.content-unknown",
            "/v1/videos/task_00000000000000000000000000000000/content",
            demo,
        ),
        // Midjourney (DECISIONS D-MJ).
        post_json(
            "golden.mj.imagine",
            "imagine",
            "/mj/submit/imagine",
            json!({"prompt": "a red fox"}),
        )
        .capture("mj_id", "/result"),
        Step::new("golden.mj.fetch", "fetch it (submitted)", |ctx| {
            Ok(
                RequestSpec::get(format!("/mj/task/{}/fetch", ctx.str_var("mj_id")?))
                    .auth(demo(ctx)?),
            )
        })
        .needs("mj_id"),
        post_json(
            "golden.mj.imagine.no-prompt",
            "imagine without a prompt",
            "/mj/submit/imagine",
            json!({"prompt": ""}),
        ),
        get(
            "golden.mj.fetch.unknown",
            "/mj/task/1234567890123456/fetch",
            demo,
        ),
        get(
            "golden.mj.image.unknown",
            "/mj/image/1234567890123456",
            none,
        ),
    ]
}

/// The standard sequence with its streamed steps (compared event by event).
fn golden_options() -> SequenceOptions {
    SequenceOptions {
        streams: true,
        ..SequenceOptions::default()
    }
}

fn golden_dir(profile: Profile) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../snapshots")
        .join(profile.as_str())
}

async fn golden(profile: Profile) {
    let server = MockServer::builder()
        .profile(profile)
        // The Go-adaptor era's expectations (new-api-adaptors).
        .era(gatecheck_schemas::Era::Adaptors)
        .seed(1)
        .clock(ClockMode::virtual_default())
        .max_body_bytes(MAX_BODY)
        .start()
        .await;
    let mut config = ClientConfig::new(mock_target(&server).unwrap());
    config.use_env_proxy = false;
    let mut runner = SideRunner::new(Client::new(config).unwrap(), PollSettings::default())
        .with_mock_control(true);
    let mut sequence = Sequence::standard(1, &golden_options());
    sequence.steps.extend(extras());
    let recorded = snapshot::run_sequence(&sequence, &mut runner, &Normalizer::builtin()).await;
    let dir = golden_dir(profile);
    let mode = UpdateMode::from_env();
    if mode == UpdateMode::Always {
        snapshot::record(&dir, 1, &recorded).unwrap();
        return;
    }
    let report = snapshot::verify(&dir, &recorded, mode).unwrap();
    assert!(
        report.passed() && report.stale.is_empty(),
        "the mock's wire behaviour changed ({profile}):\n{}\naccept with `cargo insta review`, \
         or re-record with INSTA_UPDATE=always",
        report.render(Style::default())
    );
}

#[tokio::test]
async fn golden_snapshots_documented() {
    golden(Profile::Documented).await;
}

#[tokio::test]
async fn golden_snapshots_new_api() {
    golden(Profile::NewApi).await;
}

#[test]
fn golden_steps_have_unique_ids() {
    let mut sequence = Sequence::standard(1, &golden_options());
    sequence.steps.extend(extras());
    let mut ids: Vec<&str> = sequence.steps.iter().map(|s| s.id.as_str()).collect();
    ids.sort_unstable();
    let before = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), before);
}
