//! Proptest strategies for the typed resources (feature `arbitrary`).
//!
//! Every value these strategies make, serialized, validates against the schema of the same name
//! (the crate's property tests hold them to it), so the conformance runner can use them to make
//! well-formed requests and expected shapes. Numbers are kept to values that survive a JSON round
//! trip exactly.

use crate::types::{
    ApiEnvelope, ApiFailure, CatalogEnvelope, EndpointRoute, Endpoints, ImageItem, ImageRequest,
    ImageResult, ImageUsage, KeyRecord, ModelRecord, Pricing, SecondsValue, SpeechRequest,
    TokenDetails, TokenUpdateRequest, TranscriptFormat, TranscriptSegment, TranscriptionForm,
    TranslationResult, V1Error, V1ErrorDetail, VerboseTranscription, VideoCreateRequest,
    VideoStatus, VideoTask, VideoTaskError,
};
use proptest::collection::{btree_map, vec};
use proptest::option;
use proptest::prelude::*;

/// Any string of up to `max` Unicode scalar values (any plane, controls included).
pub fn text(max: usize) -> impl Strategy<Value = String> {
    vec(any::<char>(), 0..=max).prop_map(String::from_iter)
}

/// A non-empty string of 1 to `max` Unicode scalar values.
pub fn nonempty_text(max: usize) -> impl Strategy<Value = String> {
    vec(any::<char>(), 1..=max.max(1)).prop_map(String::from_iter)
}

/// A model-identifier-like string: ASCII letters, digits, `.`, `-` and `_`.
pub fn model_id() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9._-]{0,30}"
}

/// A Unix timestamp in seconds (2000-01-01 to 2100-01-01, or 0).
pub fn unix_seconds() -> impl Strategy<Value = i64> {
    prop_oneof![Just(0i64), 946_684_800i64..4_102_444_800i64]
}

/// A size `<w>x<h>` with both sides 1 to 8192.
pub fn size() -> impl Strategy<Value = String> {
    (1u32..=8192, 1u32..=8192).prop_map(|(w, h)| format!("{w}x{h}"))
}

/// A key status, 1 to 4.
pub fn key_status() -> impl Strategy<Value = i64> {
    1i64..=4
}

/// A key name of at most 50 Unicode characters.
pub fn key_name() -> impl Strategy<Value = String> {
    text(50)
}

/// `expired_time`: -1 (never) or a timestamp.
pub fn expired_time() -> impl Strategy<Value = i64> {
    prop_oneof![Just(-1i64), unix_seconds()]
}

/// `allow_ips`: null, empty, or a newline-separated list of addresses and CIDRs.
pub fn allow_ips() -> impl Strategy<Value = Option<String>> {
    let entry = prop_oneof![
        (any::<[u8; 4]>()).prop_map(|o| std::net::Ipv4Addr::from(o).to_string()),
        (any::<[u8; 4]>(), 0u8..=32)
            .prop_map(|(o, p)| format!("{}/{p}", std::net::Ipv4Addr::from(o))),
        (any::<[u16; 8]>()).prop_map(|s| std::net::Ipv6Addr::from(s).to_string()),
        (any::<[u16; 8]>(), 0u8..=128)
            .prop_map(|(s, p)| format!("{}/{p}", std::net::Ipv6Addr::from(s))),
    ];
    prop_oneof![
        Just(None),
        Just(Some(String::new())),
        vec(entry, 1..4).prop_map(|v| Some(v.join("\n"))),
    ]
}

/// A comma-separated list of model identifiers (possibly empty).
pub fn model_limits() -> impl Strategy<Value = String> {
    vec(model_id(), 0..4).prop_map(|v| v.join(","))
}

/// An API key record.
pub fn key_record() -> impl Strategy<Value = KeyRecord> {
    (
        (
            1i64..1_000_000,
            1i64..1_000_000,
            "[A-Za-z0-9]{48}",
            key_status(),
        ),
        (key_name(), unix_seconds(), unix_seconds(), expired_time()),
        (
            0i64..10_000_000_000,
            any::<bool>(),
            any::<bool>(),
            model_limits(),
        ),
        (
            allow_ips(),
            0i64..10_000_000_000,
            "[a-z]{0,10}",
            any::<bool>(),
        ),
    )
        .prop_map(
            |(
                (id, user_id, key, status),
                (name, created_time, accessed_time, expired_time),
                (remain_quota, unlimited_quota, model_limits_enabled, model_limits),
                (allow_ips, used_quota, group, cross_group_retry),
            )| KeyRecord {
                id,
                user_id,
                key,
                status,
                name,
                created_time,
                accessed_time,
                expired_time,
                remain_quota,
                unlimited_quota,
                model_limits_enabled,
                model_limits,
                allow_ips,
                used_quota,
                group,
                cross_group_retry,
            },
        )
}

/// A body of `PUT /api/token/` (any subset of the optional fields).
pub fn token_update_request() -> impl Strategy<Value = TokenUpdateRequest> {
    (
        (
            1i64..1_000_000,
            option::of(key_name()),
            option::of(key_status()),
        ),
        (
            option::of(expired_time()),
            option::of(0i64..10_000_000_000),
            option::of(any::<bool>()),
        ),
        (option::of(any::<bool>()), option::of(model_limits())),
        (
            option::of(allow_ips()),
            option::of("[a-z]{0,10}"),
            option::of(any::<bool>()),
        ),
    )
        .prop_map(
            |(
                (id, name, status),
                (expired_time, remain_quota, unlimited_quota),
                (model_limits_enabled, model_limits),
                (allow_ips, group, cross_group_retry),
            )| TokenUpdateRequest {
                id,
                name,
                status,
                expired_time,
                remain_quota,
                unlimited_quota,
                model_limits_enabled,
                model_limits,
                allow_ips,
                group,
                cross_group_retry,
            },
        )
}

/// A response of `PUT /api/token/`: success with a key record, or a logical failure.
pub fn token_update_envelope() -> impl Strategy<Value = ApiEnvelope<KeyRecord>> {
    prop_oneof![
        key_record().prop_map(|k| ApiEnvelope {
            success: true,
            message: String::new(),
            data: Some(k),
        }),
        text(80).prop_map(|message| ApiEnvelope {
            success: false,
            message,
            data: None,
        }),
    ]
}

/// The `/api/*` logical failure.
pub fn api_failure() -> impl Strategy<Value = ApiFailure> {
    text(80).prop_map(|message| ApiFailure {
        success: false,
        message,
    })
}

/// The `/v1/*` error body.
pub fn v1_error() -> impl Strategy<Value = V1Error> {
    (
        text(80),
        prop_oneof![Just("new_api_error".to_owned()), "[a-z_]{1,20}"],
        option::of("[a-z_]{1,20}"),
        option::of("[a-z_]{1,30}"),
    )
        .prop_map(|(message, kind, param, code)| V1Error {
            error: V1ErrorDetail {
                message,
                kind,
                param,
                code,
            },
        })
}

/// A video status.
pub fn video_status() -> impl Strategy<Value = VideoStatus> {
    prop_oneof![
        Just(VideoStatus::Queued),
        Just(VideoStatus::InProgress),
        Just(VideoStatus::Completed),
        Just(VideoStatus::Failed),
        Just(VideoStatus::Error),
    ]
}

/// A video task whose fields agree with its status (progress 0 when queued, 100 when
/// completed; `completed_at` and `video_url` on completed tasks, `error` on failed ones).
pub fn video_task() -> impl Strategy<Value = VideoTask> {
    (
        video_status(),
        "task_[A-Za-z0-9]{32}",
        model_id(),
        0i64..=100,
        unix_seconds(),
        0i64..100_000,
        option::of((1u32..=60).prop_map(|s| s.to_string())),
        option::of(size()),
    )
        .prop_map(
            |(status, id, model, progress, created_at, elapsed, seconds, size)| {
                let progress = match status {
                    VideoStatus::Queued => 0,
                    VideoStatus::InProgress => progress.min(99),
                    VideoStatus::Completed => 100,
                    VideoStatus::Failed | VideoStatus::Error => progress,
                };
                let done = status == VideoStatus::Completed;
                let url = format!("https://example.test/v1/videos/{id}/content");
                VideoTask {
                    task_id: id.clone(),
                    object: "video".to_owned(),
                    model,
                    status,
                    progress,
                    created_at,
                    completed_at: done.then_some(created_at + elapsed),
                    video_url: done.then(|| url.clone()),
                    seconds,
                    size,
                    error: matches!(status, VideoStatus::Failed | VideoStatus::Error).then(|| {
                        VideoTaskError {
                            code: "generation_failed".to_owned(),
                            message: "the video could not be generated".to_owned(),
                        }
                    }),
                    metadata: done.then(|| serde_json::json!({ "url": url })),
                    expires_at: None,
                    prompt: None,
                    remixed_from_video_id: None,
                    openai_nulls: false,
                    id,
                }
            },
        )
}

/// A body of `POST /v1/videos`.
pub fn video_create_request() -> impl Strategy<Value = VideoCreateRequest> {
    (
        model_id(),
        nonempty_text(200),
        option::of(prop_oneof![
            (1u32..=60).prop_map(|s| SecondsValue::Text(s.to_string())),
            (1i64..=60).prop_map(SecondsValue::Number),
        ]),
        option::of(size()),
    )
        .prop_map(|(model, prompt, seconds, size)| VideoCreateRequest {
            model,
            prompt,
            seconds,
            size,
        })
}

/// `endpoints` in either form.
pub fn endpoints() -> impl Strategy<Value = Endpoints> {
    let route =
        ("/v1/[a-z/]{1,20}", prop_oneof![Just("POST"), Just("GET")]).prop_map(|(path, method)| {
            EndpointRoute {
                path,
                method: method.to_owned(),
            }
        });
    prop_oneof![
        btree_map("[a-z-]{1,12}", route, 0..3).prop_map(|map| {
            Endpoints::Encoded(serde_json::to_string(&map).unwrap_or_else(|_| "{}".to_owned()))
        }),
        vec("[a-z-]{1,12}", 0..3).prop_map(Endpoints::Formats),
    ]
}

/// A price: null or a number with at most four decimals.
pub fn price() -> impl Strategy<Value = Option<f64>> {
    option::of((0u32..10_000_000).prop_map(|n| f64::from(n) / 10_000.0))
}

/// Catalog pricing.
pub fn pricing() -> impl Strategy<Value = Pricing> {
    ("[A-Z]{3}", price(), price(), price(), price()).prop_map(
        |(currency, input, output, per_request, per_second)| Pricing {
            currency,
            input,
            output,
            per_request,
            per_second,
        },
    )
}

/// A model record.
pub fn model_record() -> impl Strategy<Value = ModelRecord> {
    (
        (unix_seconds(), model_id(), "[A-Za-z ]{1,20}", "[a-z]{1,10}"),
        (
            "[A-Za-z0-9 .-]{1,30}",
            prop_oneof![Just("video"), Just("audio"), Just("image"), Just("text")],
            vec("[a-z-]{1,20}", 0..4),
        ),
        (endpoints(), pricing()),
    )
        .prop_map(
            |(
                (created, id, provider, provider_code),
                (name, model_type, features),
                (endpoints, pricing),
            )| ModelRecord {
                created,
                code: id.clone(),
                id,
                provider,
                provider_code,
                name,
                model_type: model_type.to_owned(),
                features,
                endpoints,
                pricing,
            },
        )
}

/// A catalog envelope whose `total` and paging agree with its page of records.
pub fn catalog_envelope() -> impl Strategy<Value = CatalogEnvelope> {
    (vec(model_record(), 0..4), 1i64..5, 0i64..20).prop_map(|(data, page, extra)| {
        let len = i64::try_from(data.len()).unwrap_or(0);
        CatalogEnvelope {
            success: true,
            page,
            page_size: len.max(1),
            total: len * page + extra,
            data,
        }
    })
}

/// A body of `POST /v1/images/generations`.
pub fn image_request() -> impl Strategy<Value = ImageRequest> {
    (
        model_id(),
        text(200),
        size(),
        option::of(1i64..=10),
        option::of(prop_oneof![
            Just("b64_json".to_owned()),
            Just("url".to_owned())
        ]),
        option::of(prop_oneof![
            Just("low".to_owned()),
            Just("medium".to_owned()),
            Just("high".to_owned())
        ]),
    )
        .prop_map(
            |(model, prompt, size, n, response_format, quality)| ImageRequest {
                model,
                prompt,
                size,
                n,
                response_format,
                quality,
            },
        )
}

/// Token details of image usage.
pub fn token_details() -> impl Strategy<Value = TokenDetails> {
    (0i64..100_000, 0i64..100_000).prop_map(|(image_tokens, text_tokens)| TokenDetails {
        image_tokens,
        text_tokens,
    })
}

/// An image item: `b64_json`, `url`, or both.
pub fn image_item() -> impl Strategy<Value = ImageItem> {
    let b64 = "[A-Za-z0-9+/]{0,40}";
    let url = "https://example\\.test/[a-z0-9]{1,12}\\.png";
    prop_oneof![
        b64.prop_map(|b| ImageItem {
            b64_json: Some(b),
            url: None
        }),
        url.prop_map(|u| ImageItem {
            b64_json: None,
            url: Some(u)
        }),
        (b64, url).prop_map(|(b, u)| ImageItem {
            b64_json: Some(b),
            url: Some(u)
        }),
    ]
}

/// An image generation result.
pub fn image_result() -> impl Strategy<Value = ImageResult> {
    (
        (unix_seconds(), "[a-z]{1,12}", vec(image_item(), 1..4)),
        ("[a-z]{1,5}", "[a-z]{1,8}", size()),
        (
            0i64..100_000,
            0i64..100_000,
            token_details(),
            token_details(),
        ),
    )
        .prop_map(
            |(
                (created, background, data),
                (output_format, quality, size),
                (input_tokens, output_tokens, input_details, output_details),
            )| ImageResult {
                created,
                background,
                data,
                output_format,
                quality,
                size,
                usage: ImageUsage {
                    input_tokens,
                    output_tokens,
                    total_tokens: input_tokens + output_tokens,
                    input_tokens_details: input_details,
                    output_tokens_details: output_details,
                },
            },
        )
}

/// A transcript response format.
pub fn transcript_format() -> impl Strategy<Value = TranscriptFormat> {
    proptest::sample::select(TranscriptFormat::ALL.to_vec())
}

/// A temperature in [0, 1] (hundredths).
pub fn temperature() -> impl Strategy<Value = f64> {
    (0u32..=100).prop_map(|n| f64::from(n) / 100.0)
}

/// The form fields of a translation or transcription request.
pub fn transcription_form() -> impl Strategy<Value = TranscriptionForm> {
    (
        model_id(),
        option::of(text(100)),
        option::of(transcript_format()),
        option::of(temperature()),
        option::of("[a-z]{2}"),
    )
        .prop_map(|(model, prompt, response_format, temperature, language)| {
            TranscriptionForm {
                model,
                prompt,
                response_format,
                temperature,
                language,
            }
        })
}

/// A `json` translation result.
pub fn translation_result() -> impl Strategy<Value = TranslationResult> {
    text(200).prop_map(|text| TranslationResult { text })
}

/// A number with at most three decimals, in `[lo, hi)` thousandths.
fn decimal(lo: i32, hi: i32) -> impl Strategy<Value = f64> {
    (lo..hi).prop_map(|n| f64::from(n) / 1000.0)
}

/// One `verbose_json` segment.
pub fn transcript_segment() -> impl Strategy<Value = TranscriptSegment> {
    (
        (
            0i64..100,
            0i64..100_000,
            decimal(0, 100_000),
            decimal(0, 100_000),
        ),
        (text(60), vec(0i64..100_000, 0..8), temperature()),
        (decimal(-5000, 0), decimal(0, 5000), decimal(0, 1000)),
    )
        .prop_map(
            |(
                (id, seek, start, length),
                (text, tokens, temperature),
                (avg_logprob, compression_ratio, no_speech_prob),
            )| TranscriptSegment {
                id,
                seek,
                start,
                end: start + length,
                text,
                tokens,
                temperature,
                avg_logprob,
                compression_ratio,
                no_speech_prob,
            },
        )
}

/// A `verbose_json` result.
pub fn verbose_transcription() -> impl Strategy<Value = VerboseTranscription> {
    (
        prop_oneof![Just("translate"), Just("transcribe")],
        prop_oneof![Just("english"), Just("french"), Just("en")],
        decimal(0, 1_000_000),
        text(200),
        vec(transcript_segment(), 0..4),
    )
        .prop_map(
            |(task, language, duration, text, segments)| VerboseTranscription {
                task: task.to_owned(),
                language: language.to_owned(),
                duration,
                text,
                segments,
            },
        )
}

/// A body of `POST /v1/audio/speech`.
pub fn speech_request() -> impl Strategy<Value = SpeechRequest> {
    (
        model_id(),
        nonempty_text(300),
        "[a-z]{1,10}",
        option::of(proptest::sample::select(vec![
            "mp3", "wav", "opus", "aac", "flac", "pcm",
        ])),
        option::of((25u32..=400).prop_map(|n| f64::from(n) / 100.0)),
    )
        .prop_map(
            |(model, input, voice, response_format, speed)| SpeechRequest {
                model,
                input,
                voice,
                response_format: response_format.map(str::to_owned),
                speed,
            },
        )
}
