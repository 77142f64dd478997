//! The standard sequence: every route, its main error cases, and the places where the two
//! profiles of DECISIONS.md differ, with request values drawn from a seed.

use super::{Effect, Sequence, Step, StepCtx};
use crate::generators::strategies;
use crate::http::client::{Auth, Part, RequestSpec};
use crate::redact::Secret;
use gatecheck_codecs::draw::Draw;
use gatecheck_schemas::rules::token::MAX_NAME_LEN;
use gatecheck_schemas::types::{VideoStatus, KEY_STATUS_DISABLED, KEY_STATUS_ENABLED};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use serde_json::{json, Value};

/// Which models the sequence uses (defaults: the fixture catalog's).
#[derive(Debug, Clone)]
pub struct SequenceOptions {
    /// An image model answering `b64_json`, and its sizes.
    pub image_b64_model: (String, Vec<String>),
    /// An image model answering `url`, and its sizes.
    pub image_url_model: (String, Vec<String>),
    /// A translation model.
    pub translation_model: String,
    /// A speech model and its voices.
    pub speech_model: (String, Vec<String>),
    /// A video model and its durations.
    pub video_model: (String, Vec<i64>),
    /// Whether to include the key-management steps (they edit the target's key, and restore it).
    pub key_steps: bool,
    /// Whether to include the streamed answers (SSE speech, transcription, image generation;
    /// DECISIONS D-STREAM), compared event by event. Off by default: snapshot directories
    /// recorded without them keep verifying.
    pub streams: bool,
    /// A speech model that may stream (`stream_format: "sse"`).
    pub stream_speech_model: String,
    /// A transcription model that streams (`stream=true`).
    pub stream_transcription_model: String,
}

impl Default for SequenceOptions {
    fn default() -> Self {
        let strings = |xs: &[&str]| xs.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        Self {
            image_b64_model: (
                "gpt-image-1".into(),
                strings(&["1024x1024", "1024x1536", "1536x1024"]),
            ),
            image_url_model: ("dall-e-3".into(), strings(&["1024x1024", "1792x1024"])),
            translation_model: "whisper-1".into(),
            speech_model: (
                "tts-1".into(),
                strings(&["alloy", "ash", "coral", "echo", "fable", "nova", "onyx"]),
            ),
            video_model: ("sora-2".into(), vec![4, 8]),
            key_steps: true,
            streams: false,
            stream_speech_model: "gpt-4o-mini-tts".into(),
            stream_transcription_model: "gpt-4o-mini-transcribe".into(),
        }
    }
}

const WORDS: [&str; 12] = [
    "harbor", "lantern", "meadow", "copper", "falcon", "river", "orchid", "summit", "velvet",
    "glacier", "ember", "willow",
];

fn words(rng: &mut Draw, n: usize) -> String {
    (0..n)
        .map(|_| *rng.choose(&WORDS).unwrap_or(&"word"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn alnum(rng: &mut Draw, n: usize) -> String {
    const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    (0..n)
        .map(|_| CHARS[rng.below(CHARS.len())] as char)
        .collect()
}

/// One value of a strategy of the runner's generators (the ones `gatecheck check` uses).
fn draw<S: Strategy>(runner: &mut TestRunner, strategy: S, fallback: S::Value) -> S::Value {
    strategy
        .new_tree(runner)
        .map(|tree| tree.current())
        .unwrap_or(fallback)
}

fn pick<T: Clone>(rng: &mut Draw, xs: &[T], fallback: T) -> T {
    rng.choose(xs).cloned().unwrap_or(fallback)
}

fn api_key(ctx: &StepCtx<'_>) -> Result<Auth, String> {
    ctx.target
        .api_key
        .as_ref()
        .map(|_| Auth::ApiKey)
        .ok_or_else(|| "needs an API key (--api-key)".to_owned())
}

fn access_token(ctx: &StepCtx<'_>) -> Result<Auth, String> {
    ctx.target
        .access_token
        .as_ref()
        .map(|_| Auth::AccessToken)
        .ok_or_else(|| "needs an access token (--access-token)".to_owned())
}

/// The key record captured before the run, with `overrides` applied: every field is sent, as
/// the route resets omitted ones.
fn full_record(ctx: &StepCtx<'_>, overrides: Value) -> Result<Value, String> {
    let mut record = ctx.var("key_before")?.clone();
    let obj = record
        .as_object_mut()
        .ok_or_else(|| "`key_before` is not an object".to_owned())?;
    for field in [
        "key",
        "user_id",
        "created_time",
        "accessed_time",
        "used_quota",
    ] {
        obj.remove(field);
    }
    if let Some(o) = overrides.as_object() {
        for (k, v) in o {
            obj.insert(k.clone(), v.clone());
        }
    }
    Ok(record)
}

fn translation(model: &str, wav: &[u8], filename: &str, extra: &[(&str, &str)]) -> Vec<Part> {
    let mut parts = vec![
        Part::file("file", filename, "audio/wav", wav.to_vec()),
        Part::text("model", model),
    ];
    parts.extend(extra.iter().map(|(k, v)| Part::text(k, *v)));
    parts
}

impl Sequence {
    /// The standard sequence for `seed`.
    ///
    /// It runs the model routes first and the key-management steps last, and leaves the
    /// target's key as it found it (the last steps restore it). It sends `New-Api-User`
    /// wherever it sends the access token, except in the one step that checks that header.
    pub fn standard(seed: u64, options: &SequenceOptions) -> Self {
        let mut rng = Draw::seeded(seed);
        let mut draws = crate::generators::test_runner(seed, 1);
        let mut steps = Vec::new();
        catalog_steps(&mut rng, &mut steps);
        image_steps(&mut rng, options, &mut steps);
        translation_steps(&mut rng, &mut draws, options, &mut steps);
        speech_steps(&mut rng, options, &mut steps);
        video_steps(&mut rng, options, &mut steps);

        if options.streams {
            // Their own draws: the other steps' values do not depend on whether they run.
            stream_steps(&mut Draw::seeded(seed ^ 0x5353_4531), options, &mut steps);
        }
        if options.key_steps {
            key_steps(&mut rng, &mut draws, &mut steps);
        }
        for step in &mut steps {
            step.check = check_of(&step.id).to_owned();
        }
        Sequence { seed, steps }
    }
}

/// The catalog: a first page of a drawn size, and a filter by type.
fn catalog_steps(rng: &mut Draw, steps: &mut Vec<Step>) {
    let page_size = rng.between(3, 6);
    steps.push(Step::new(
        "catalog.list.page",
        "first catalog page",
        move |_| {
            Ok(RequestSpec::get(format!(
                "/api/models?p=1&page_size={page_size}"
            )))
        },
    ));
    steps.push(Step::new(
        "catalog.list.video",
        "catalog filtered by type",
        |_| Ok(RequestSpec::get("/api/models?model_type=video")),
    ));
}

/// Images: the auth refusals on the generation route, both answer formats, the image behind
/// a url, and a size the model refuses.
fn image_steps(rng: &mut Draw, o: &SequenceOptions, steps: &mut Vec<Step>) {
    let (b64_model, b64_sizes) = o.image_b64_model.clone();
    let b64_size = pick(rng, &b64_sizes, "1024x1024".into());
    let prompt = words(rng, 4);
    let image_body = json!({"model": b64_model, "prompt": prompt, "size": b64_size});
    let body = image_body.clone();
    steps.push(Step::new(
        "auth.v1.missing-key-401",
        "no Authorization",
        move |_| Ok(RequestSpec::post("/v1/images/generations").json(body.clone())),
    ));
    let body = image_body.clone();
    let basic = format!("Basic {}", alnum(rng, 24));
    steps.push(Step::new(
        "auth.v1.wrong-scheme-401",
        "Basic scheme",
        move |_| {
            Ok(RequestSpec::post("/v1/images/generations")
                .auth(Auth::Raw(Secret::new(basic.clone())))
                .json(body.clone()))
        },
    ));
    let body = image_body.clone();
    let unknown = format!("sk-{}", alnum(rng, 48));
    steps.push(Step::new(
        "auth.v1.unknown-key-401",
        "unknown key",
        move |_| {
            Ok(RequestSpec::post("/v1/images/generations")
                .auth(Auth::Key(Secret::new(unknown.clone())))
                .json(body.clone()))
        },
    ));
    let body = image_body.clone();
    steps.push(Step::new(
        "image.generate.b64",
        "image as b64_json",
        move |ctx| {
            Ok(RequestSpec::post("/v1/images/generations")
                .auth(api_key(ctx)?)
                .json(body.clone()))
        },
    ));
    let (url_model, url_sizes) = o.image_url_model.clone();
    let url_size = pick(rng, &url_sizes, "1024x1024".into());
    let body = json!({"model": url_model, "prompt": words(rng, 3), "size": url_size});
    steps.push(
        Step::new("image.generate.url", "image as url", move |ctx| {
            Ok(RequestSpec::post("/v1/images/generations")
                .auth(api_key(ctx)?)
                .json(body.clone()))
        })
        .capture("image_url", "/data/0/url"),
    );
    steps.push(
        Step::new("image.url.fetch", "the image behind the url", |ctx| {
            let url = ctx.str_var("image_url")?;
            let base = ctx.target.base_url.as_str().trim_end_matches('/');
            if !url.starts_with(base) {
                return Err("the image URL is not on the target's host".to_owned());
            }
            Ok(RequestSpec::get(url.to_owned()))
        })
        .needs("image_url"),
    );
    let body = json!({"model": o.image_b64_model.0, "prompt": words(rng, 2),
                      "size": format!("{}x{}", rng.between(3, 98), rng.between(3, 98))});
    steps.push(Step::new(
        "image.generate.bad-size-400",
        "size the model refuses",
        move |ctx| {
            Ok(RequestSpec::post("/v1/images/generations")
                .auth(api_key(ctx)?)
                .json(body.clone()))
        },
    ));
}

/// Audio translation, each response format; then validation errors.
fn translation_steps(
    rng: &mut Draw,
    draws: &mut TestRunner,
    o: &SequenceOptions,
    steps: &mut Vec<Step>,
) {
    let wav = crate::generators::media::wav(rng.between(200, 899));
    let model = o.translation_model.clone();
    for format in ["json", "text", "srt", "verbose_json", "vtt"] {
        let (wav, model) = (wav.clone(), model.clone());
        let id = format!("audio.translation.{}", format.replace('_', "-"));
        steps.push(Step::new(&id, "translation", move |ctx| {
            Ok(RequestSpec::post("/v1/audio/translations")
                .auth(api_key(ctx)?)
                .multipart(translation(
                    &model,
                    &wav,
                    "speech.wav",
                    &[("response_format", format)],
                )))
        }));
    }
    let (w, m) = (wav.clone(), model.clone());
    let temperature = draw(draws, strategies::invalid_temperature(), 2.0).to_string();
    steps.push(Step::new(
        "audio.translation.temperature-400",
        "temperature outside [0, 1]",
        move |ctx| {
            Ok(RequestSpec::post("/v1/audio/translations")
                .auth(api_key(ctx)?)
                .multipart(translation(
                    &m,
                    &w,
                    "speech.wav",
                    &[("temperature", &temperature)],
                )))
        },
    ));
    let (w, m) = (wav.clone(), model.clone());
    steps.push(Step::new(
        "audio.translation.extension-400",
        "file extension not allowed",
        move |ctx| {
            Ok(RequestSpec::post("/v1/audio/translations")
                .auth(api_key(ctx)?)
                .multipart(translation(&m, &w, "speech.txt", &[])))
        },
    ));
}

/// Speech, in two formats; then an unknown voice.
fn speech_steps(rng: &mut Draw, o: &SequenceOptions, steps: &mut Vec<Step>) {
    let (speech_model, voices) = o.speech_model.clone();
    for format in ["mp3", "wav"] {
        let voice = pick(rng, &voices, "alloy".into());
        let body = json!({"model": speech_model, "input": words(rng, 6),
                          "voice": voice, "response_format": format});
        steps.push(Step::new(
            &format!("audio.speech.{format}"),
            "speech",
            move |ctx| {
                Ok(RequestSpec::post("/v1/audio/speech")
                    .auth(api_key(ctx)?)
                    .json(body.clone()))
            },
        ));
    }
    let body = json!({"model": speech_model, "input": words(rng, 2),
                      "voice": format!("voice-{}", alnum(rng, 6))});
    steps.push(Step::new(
        "audio.speech.voice-400",
        "unknown voice",
        move |ctx| {
            Ok(RequestSpec::post("/v1/audio/speech")
                .auth(api_key(ctx)?)
                .json(body.clone()))
        },
    ));
}

/// Video: create, poll, complete, content; a failing task; an unknown id.
fn video_steps(rng: &mut Draw, o: &SequenceOptions, steps: &mut Vec<Step>) {
    let (video_model, seconds) = o.video_model.clone();
    let secs = pick(rng, &seconds, 4).to_string();
    let (vm, prompt) = (video_model.clone(), words(rng, 5));
    steps.push(
        Step::new(
            "video.create",
            "create a video task (multipart)",
            move |ctx| {
                Ok(RequestSpec::post("/v1/videos")
                    .auth(api_key(ctx)?)
                    .multipart(vec![
                        Part::text("model", vm.clone()),
                        Part::text("prompt", prompt.clone()),
                        Part::text("seconds", secs.clone()),
                    ]))
            },
        )
        .capture("video_id", "/id"),
    );
    steps.push(
        Step::new("video.poll.first", "poll right after create", |ctx| {
            Ok(
                RequestSpec::get(format!("/v1/videos/{}", ctx.str_var("video_id")?))
                    .auth(api_key(ctx)?),
            )
        })
        .needs("video_id"),
    );
    steps.push(
        Step::new("video.poll.terminal", "poll until terminal", |ctx| {
            Ok(
                RequestSpec::get(format!("/v1/videos/{}", ctx.str_var("video_id")?))
                    .auth(api_key(ctx)?),
            )
        })
        .needs("video_id")
        .poll()
        .effect(Effect::in_response(
            "complete the task",
            "/status",
            json!(VideoStatus::Completed.as_str()),
        )),
    );
    steps.push(
        Step::new("video.content", "the video's bytes", |ctx| {
            Ok(
                RequestSpec::get(format!("/v1/videos/{}/content", ctx.str_var("video_id")?))
                    .auth(api_key(ctx)?),
            )
        })
        .needs("video_id")
        .after("video.poll.terminal"),
    );
    let body = json!({"model": video_model, "prompt": format!("{} [fail]", words(rng, 3))});
    steps.push(
        Step::new(
            "video.create.json-failing",
            "a task that fails (JSON body)",
            move |ctx| {
                Ok(RequestSpec::post("/v1/videos")
                    .auth(api_key(ctx)?)
                    .json(body.clone()))
            },
        )
        .capture("failing_id", "/id"),
    );
    steps.push(
        Step::new(
            "video.content.not-completed-400",
            "content of a queued task",
            |ctx| {
                Ok(
                    RequestSpec::get(format!("/v1/videos/{}/content", ctx.str_var("failing_id")?))
                        .auth(api_key(ctx)?),
                )
            },
        )
        .needs("failing_id"),
    );
    steps.push(
        Step::new("video.poll.failed", "poll the failing task", |ctx| {
            Ok(
                RequestSpec::get(format!("/v1/videos/{}", ctx.str_var("failing_id")?))
                    .auth(api_key(ctx)?),
            )
        })
        .needs("failing_id")
        .poll(),
    );
    let unknown_task = format!("task_{}", alnum(rng, 32));
    steps.push(Step::new(
        "video.poll.unknown-id-404",
        "unknown task id",
        move |ctx| Ok(RequestSpec::get(format!("/v1/videos/{unknown_task}")).auth(api_key(ctx)?)),
    ));
}

/// Streamed answers (D-STREAM): speech as SSE, a model that may not stream speech, a streamed
/// transcription, an image generation with two partial images.
fn stream_steps(rng: &mut Draw, o: &SequenceOptions, steps: &mut Vec<Step>) {
    let voice = pick(rng, &o.speech_model.1, "alloy".into());
    let speech = |model: &str, input: String| {
        json!({"model": model, "input": input, "voice": voice, "response_format": "mp3",
               "stream_format": "sse"})
    };
    for (id, title, body) in [
        (
            "stream.speech.sse",
            "speech as server-sent events",
            speech(&o.stream_speech_model, words(rng, 6)),
        ),
        (
            "stream.speech.unsupported-model",
            "sse speech on a model that may not stream",
            speech(&o.speech_model.0, words(rng, 2)),
        ),
    ] {
        steps.push(Step::new(id, title, move |ctx| {
            Ok(RequestSpec::post("/v1/audio/speech")
                .auth(api_key(ctx)?)
                .json(body.clone()))
        }));
    }
    let wav = crate::generators::media::wav(rng.between(300, 899));
    let model = o.stream_transcription_model.clone();
    steps.push(Step::new(
        "stream.transcription",
        "transcription as server-sent events",
        move |ctx| {
            Ok(RequestSpec::post("/v1/audio/transcriptions")
                .auth(api_key(ctx)?)
                .multipart(translation(
                    &model,
                    &wav,
                    "speech.wav",
                    &[("stream", "true")],
                )))
        },
    ));
    let (model, sizes) = o.image_b64_model.clone();
    let body = json!({"model": model, "prompt": words(rng, 3),
                      "size": pick(rng, &sizes, "1024x1024".into()),
                      "stream": true, "partial_images": 2});
    steps.push(Step::new(
        "stream.images.partials",
        "image generation with two partial images",
        move |ctx| {
            Ok(RequestSpec::post("/v1/images/generations")
                .auth(api_key(ctx)?)
                .json(body.clone()))
        },
    ));
}

/// Key management: read, update (valid, too long, multi-byte), status without `status_only`,
/// a disabled key, a wrong access token, a missing `New-Api-User`; then restore.
fn key_steps(rng: &mut Draw, draws: &mut TestRunner, steps: &mut Vec<Step>) {
    steps.push(
        Step::new("token.get", "the key before the run", |ctx| {
            Ok(RequestSpec::get(format!("/api/token/{}", ctx.key_id()?)).auth(access_token(ctx)?))
        })
        .capture("key_before", "/data"),
    );
    key_update_steps(draws, steps);
    key_status_steps(rng, steps);
    key_access_steps(rng, steps);
    key_restore_steps(steps);
}

/// A full update of the key: its record as read before the run, with `overrides`.
fn put(ctx: &StepCtx<'_>, overrides: Value) -> Result<RequestSpec, String> {
    Ok(RequestSpec::put("/api/token/")
        .auth(access_token(ctx)?)
        .json(full_record(ctx, overrides)?))
}

/// A `?status_only=1` update of the key to `status`.
fn status_only(status: i64) -> impl Fn(&StepCtx<'_>) -> Result<RequestSpec, String> {
    move |ctx: &StepCtx<'_>| -> Result<RequestSpec, String> {
        Ok(RequestSpec::put("/api/token/?status_only=1")
            .auth(access_token(ctx)?)
            .json(json!({"id": ctx.key_id()?, "status": status})))
    }
}

/// Updates: a valid name, names too long in characters and in bytes, a status without
/// `status_only`.
fn key_update_steps(draws: &mut TestRunner, steps: &mut Vec<Step>) {
    let name = format!(
        "gc-{}",
        draw(draws, strategies::ascii_name(), String::new())
    );
    steps.push(
        Step::new("token.update.valid", "rename the key", move |ctx| {
            put(ctx, json!({"name": name}))
        })
        .needs("key_before"),
    );
    let long = draw(draws, strategies::long_name(), "n".repeat(MAX_NAME_LEN + 1));
    steps.push(
        Step::new(
            "token.update.name-51-chars",
            "name of 51 to 60 characters",
            move |ctx| put(ctx, json!({"name": long})),
        )
        .needs("key_before"),
    );
    // 20 characters of 1 to 4 bytes, more than 50 bytes in all: within the spec's limit,
    // over new-api's byte count.
    let wide_name =
        strategies::name_of_len(20).prop_filter("over the byte limit", |n| n.len() > MAX_NAME_LEN);
    let wide = draw(draws, wide_name, "名".repeat(20));
    steps.push(
        Step::new(
            "token.update.name-20-multibyte",
            "name of 20 characters, over 50 UTF-8 bytes",
            move |ctx| put(ctx, json!({"name": wide})),
        )
        .needs("key_before"),
    );
    let name = format!(
        "gc-{}",
        draw(draws, strategies::ascii_name(), String::new())
    );
    steps.push(
        Step::new(
            "token.update.status-without-status-only",
            "status 2 in the body, no status_only",
            move |ctx| put(ctx, json!({"name": name, "status": KEY_STATUS_DISABLED})),
        )
        .needs("key_before"),
    );
}

/// `status_only` updates: enable, disable (read back), a request with the disabled key, enable
/// again.
fn key_status_steps(rng: &mut Draw, steps: &mut Vec<Step>) {
    steps.push(Step::new(
        "token.update.status-only-enable",
        "enable",
        status_only(KEY_STATUS_ENABLED),
    ));
    // The disabled-key request below runs only after this step disabled the key, as read back
    // with `GET /api/token/{id}`; a target that acknowledges the write and does not apply it is
    // a finding on this step.
    steps.push(
        Step::new(
            "token.update.status-only-disable",
            "disable",
            status_only(KEY_STATUS_DISABLED),
        )
        .effect(Effect::read_back(
            "disable the key",
            |ctx| {
                Ok(RequestSpec::get(format!("/api/token/{}", ctx.key_id()?))
                    .auth(access_token(ctx)?))
            },
            "/data/status",
            json!(KEY_STATUS_DISABLED),
        )),
    );
    let prompt = words(rng, 3);
    steps.push(
        Step::new(
            "auth.v1.disabled-key-401",
            "request with the disabled key",
            move |ctx| {
                Ok(RequestSpec::post("/v1/images/generations")
                    .auth(api_key(ctx)?)
                    .json(json!({"model": "gpt-image-1", "prompt": prompt, "size": "1024x1024"})))
            },
        )
        .after("token.update.status-only-disable"),
    );
    steps.push(Step::new(
        "token.update.status-only-reenable",
        "enable again",
        status_only(KEY_STATUS_ENABLED),
    ));
}

/// Access-token refusals: an unknown access token, and the token without `New-Api-User`.
fn key_access_steps(rng: &mut Draw, steps: &mut Vec<Step>) {
    let wrong = alnum(rng, 32);
    steps.push(
        Step::new(
            "token.update.wrong-access-token",
            "unknown access token",
            move |ctx| {
                Ok(RequestSpec::put("/api/token/")
                    .auth(Auth::Raw(Secret::new(wrong.clone())))
                    .json(full_record(ctx, json!({}))?))
            },
        )
        .needs("key_before"),
    );
    steps.push(
        Step::new(
            "token.update.missing-new-api-user",
            "access token without New-Api-User",
            |ctx| {
                let token = ctx
                    .target
                    .access_token
                    .as_ref()
                    .ok_or_else(|| "needs an access token (--access-token)".to_owned())?;
                Ok(RequestSpec::put("/api/token/")
                    .header("Authorization", token.expose())
                    .json(full_record(ctx, json!({}))?))
            },
        )
        .needs("key_before"),
    );
}

/// Restore: every field as it was, then the status.
fn key_restore_steps(steps: &mut Vec<Step>) {
    steps.push(
        Step::new("token.restore", "the key as it was", |ctx| {
            put(ctx, json!({}))
        })
        .needs("key_before"),
    );
    steps.push(
        Step::new(
            "token.restore.status",
            "the key's status as it was",
            |ctx| {
                let status = ctx
                    .var("key_before")?
                    .get("status")
                    .cloned()
                    .unwrap_or(json!(KEY_STATUS_ENABLED));
                Ok(RequestSpec::put("/api/token/?status_only=1")
                    .auth(access_token(ctx)?)
                    .json(json!({"id": ctx.key_id()?, "status": status})))
            },
        )
        .needs("key_before"),
    );
}

/// The check of the runner's catalog each step exercises (steps that only set up or restore
/// state have `sequence.*` ids).
pub fn check_of(step: &str) -> &str {
    match step {
        "catalog.list.page" => "catalog.paging",
        "catalog.list.video" => "catalog.filter",
        "auth.v1.unknown-key-401" => "auth.v1.invalid-key-401",
        "image.generate.b64" | "image.generate.url" => "images.result",
        "image.url.fetch" => "images.png-matches-size",
        "image.generate.bad-size-400" => "images.size-must-match-model",
        "audio.translation.json" => "audio.translation.json-text",
        "audio.translation.text"
        | "audio.translation.srt"
        | "audio.translation.verbose-json"
        | "audio.translation.vtt" => "audio.translation.format-bodies",
        "audio.translation.temperature-400" => "audio.translation.temperature-range",
        "audio.translation.extension-400" => "audio.translation.file-formats",
        "audio.speech.wav" => "audio.speech.formats",
        "audio.speech.voice-400" => "audio.speech.bad-request-rejected",
        "video.create" => "video.create.queued",
        "video.poll.first" => "video.poll.id-matches",
        "video.poll.terminal" | "video.poll.failed" => "video.reaches-terminal",
        "video.content" => "video.content.mp4",
        "video.create.json-failing" => "video.create.encodings",
        "video.content.not-completed-400" => "video.content.not-ready-400",
        "token.get" => "sequence.setup",
        "token.update.valid" => "token.update.given-fields-applied",
        "token.update.name-51-chars" => "token.update.name-51-chars-rejected",
        "token.update.name-20-multibyte" => "token.update.name-50-chars",
        "token.update.status-without-status-only" => "token.update.status-applied",
        "token.update.status-only-enable"
        | "token.update.status-only-disable"
        | "token.update.status-only-reenable" => "token.update.status-only",
        "auth.v1.disabled-key-401" => "key.disabled-rejected",
        "token.update.wrong-access-token" => "auth.token.wrong-token-rejected",
        "token.update.missing-new-api-user" => "auth.token.new-api-user-optional",
        "token.restore" | "token.restore.status" => "sequence.restore",
        "stream.speech.sse" => "stream.speech",
        "stream.images.partials" => "stream.images",
        other => other,
    }
}
