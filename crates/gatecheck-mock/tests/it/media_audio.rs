//! `/v1/audio/translations`, `/v1/audio/transcriptions` and `/v1/audio/speech` over HTTP.

use crate::media_util::*;
use crate::support::*;
use gatecheck_mock::MockServer;
use gatecheck_schemas::rules::media::{
    parse_adts, parse_flac, parse_mp3, parse_ogg_opus, parse_srt, parse_vtt, parse_wav, Cue,
    MediaError,
};
use gatecheck_schemas::Profile;
use std::io::{Read, Write};

const TRANSLATIONS: &str = "/v1/audio/translations";
const TRANSCRIPTIONS: &str = "/v1/audio/transcriptions";
const SPEECH: &str = "/v1/audio/speech";

async fn translate(server: &MockServer, wav: &[u8], format: &str) -> Resp {
    post_multipart(
        server,
        TRANSLATIONS,
        KEY_ENABLED,
        &[
            ("file", Some("clip.wav"), wav),
            ("model", None, b"whisper-1"),
            ("response_format", None, format.as_bytes()),
            ("temperature", None, b"0.2"),
            ("prompt", None, b"A calm narrator."),
        ],
    )
    .await
}

#[tokio::test]
async fn translation_in_all_five_formats_is_consistent_with_the_wav_duration() {
    let server = MockServer::start().await;
    let wav = wav_of(7_250);
    let json = translate(&server, &wav, "json").await;
    assert_eq!(json.status, 200, "{}", json.text());
    let text = json.json()["text"].as_str().expect("text").to_owned();
    assert!(!text.is_empty());

    let plain = translate(&server, &wav, "text").await;
    assert_eq!(plain.status, 200);
    assert!(plain
        .header("content-type")
        .unwrap_or("")
        .starts_with("text/plain"));
    assert_eq!(plain.text().trim(), text);

    let verbose = translate(&server, &wav, "verbose_json").await.json();
    assert_eq!(verbose["task"], "translate");
    assert_eq!(verbose["language"], "english");
    assert_eq!(verbose["duration"].as_f64(), Some(7.25));
    assert_eq!(verbose["text"], text.as_str());
    let segs = verbose["segments"].as_array().expect("segments");
    assert_eq!(segs[0]["start"].as_f64(), Some(0.0));
    assert_eq!(segs.last().and_then(|s| s["end"].as_f64()), Some(7.25));
    for s in segs {
        for k in [
            "id",
            "seek",
            "tokens",
            "temperature",
            "avg_logprob",
            "compression_ratio",
            "no_speech_prob",
        ] {
            assert!(s.get(k).is_some(), "segment field {k}");
        }
    }

    type Parser = fn(&str) -> Result<Vec<Cue>, MediaError>;
    for (format, parse) in [("srt", parse_srt as Parser), ("vtt", parse_vtt as Parser)] {
        let resp = translate(&server, &wav, format).await;
        assert_eq!(resp.status, 200);
        let cues = parse(&resp.text()).unwrap_or_else(|e| panic!("{format}: {e}"));
        let total: u64 = cues.iter().map(|c| c.end_ms - c.start_ms).sum();
        assert_eq!(total, 7_250, "{format} cues add up to the duration");
        assert_eq!(cues.len(), segs.len());
    }
    // Deterministic: the same bytes give the same text.
    assert_eq!(
        translate(&server, &wav, "json").await.json()["text"],
        text.as_str()
    );
}

#[tokio::test]
async fn transcription_uses_the_language_and_other_formats_estimate_duration() {
    let server = MockServer::start().await;
    let resp = post_multipart(
        &server,
        TRANSCRIPTIONS,
        KEY_ENABLED,
        &[
            ("file", Some("talk.MP3"), &[1u8; 32_000][..]),
            ("model", None, b"gpt-4o-mini-transcribe"),
            ("language", None, b"fr"),
            ("response_format", None, b"verbose_json"),
        ],
    )
    .await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    let v = resp.json();
    assert_eq!(v["task"], "transcribe");
    assert_eq!(v["language"], "fr");
    assert_eq!(v["duration"].as_f64(), Some(2.0)); // 32000 bytes at 128 kbit/s
}

#[tokio::test]
async fn transcription_rules_are_enforced() {
    let server = MockServer::start().await;
    let wav = wav_of(500);
    let cases: Vec<(&str, &str, Vec<Part<'_>>)> = vec![
        (
            "missing file",
            TRANSLATIONS,
            vec![("model", None, b"whisper-1")],
        ),
        (
            "missing model",
            TRANSLATIONS,
            vec![("file", Some("a.wav"), &wav)],
        ),
        (
            "bad extension",
            TRANSLATIONS,
            vec![("file", Some("a.txt"), &wav), ("model", None, b"whisper-1")],
        ),
        (
            "no extension",
            TRANSLATIONS,
            vec![("file", Some("audio"), &wav), ("model", None, b"whisper-1")],
        ),
        (
            "empty file",
            TRANSLATIONS,
            vec![("file", Some("a.wav"), b""), ("model", None, b"whisper-1")],
        ),
        (
            "not a speech model",
            TRANSLATIONS,
            vec![("file", Some("a.wav"), &wav), ("model", None, b"tts-1")],
        ),
        (
            "unknown model",
            TRANSLATIONS,
            vec![("file", Some("a.wav"), &wav), ("model", None, b"nope")],
        ),
        (
            "no translation",
            TRANSLATIONS,
            vec![
                ("file", Some("a.wav"), &wav),
                ("model", None, b"gpt-4o-mini-transcribe"),
            ],
        ),
        (
            "temperature > 1",
            TRANSLATIONS,
            vec![
                ("file", Some("a.wav"), &wav),
                ("model", None, b"whisper-1"),
                ("temperature", None, b"1.5"),
            ],
        ),
        (
            "temperature < 0",
            TRANSCRIPTIONS,
            vec![
                ("file", Some("a.wav"), &wav),
                ("model", None, b"whisper-1"),
                ("temperature", None, b"-0.1"),
            ],
        ),
        (
            "temperature nan",
            TRANSCRIPTIONS,
            vec![
                ("file", Some("a.wav"), &wav),
                ("model", None, b"whisper-1"),
                ("temperature", None, b"warm"),
            ],
        ),
        (
            "bad format",
            TRANSCRIPTIONS,
            vec![
                ("file", Some("a.wav"), &wav),
                ("model", None, b"whisper-1"),
                ("response_format", None, b"xml"),
            ],
        ),
    ];
    for (what, path, parts) in &cases {
        assert_400(
            &post_multipart(&server, path, KEY_ENABLED, parts).await,
            what,
        );
    }
    // Every accepted extension, upper case included.
    for ext in [
        "flac", "mp3", "mp4", "mpeg", "mpga", "m4a", "ogg", "wav", "webm", "WAV",
    ] {
        let name = format!("a.{ext}");
        let resp = post_multipart(
            &server,
            TRANSLATIONS,
            KEY_ENABLED,
            &[("file", Some(&name), &wav), ("model", None, b"whisper-1")],
        )
        .await;
        assert_eq!(resp.status, 200, "{ext}: {}", resp.text());
    }
    // Temperature bounds are inclusive.
    for t in ["0", "1"] {
        let resp = post_multipart(
            &server,
            TRANSLATIONS,
            KEY_ENABLED,
            &[
                ("file", Some("a.wav"), &wav),
                ("model", None, b"whisper-1"),
                ("temperature", None, t.as_bytes()),
            ],
        )
        .await;
        assert_eq!(resp.status, 200);
    }
    // A JSON body is not multipart.
    let resp = post_json(
        &server,
        TRANSLATIONS,
        KEY_ENABLED,
        serde_json::json!({"model": "whisper-1"}),
    )
    .await;
    assert_400(&resp, "json body");
}

#[tokio::test]
async fn new_api_profile_answers_500_invalid_request_on_audio_validation() {
    let server = MockServer::builder().profile(Profile::NewApi).start().await;
    let resp = post_multipart(
        &server,
        TRANSLATIONS,
        KEY_ENABLED,
        &[("model", None, b"whisper-1")],
    )
    .await;
    // No file: the conversion's code, as 823e263 answers it (DECISIONS NA15).
    assert_eq!(resp.status, 500);
    assert_eq!(v1_error(&resp).2.as_deref(), Some("convert_request_failed"));
    let resp = post_json(
        &server,
        SPEECH,
        KEY_ENABLED,
        serde_json::json!({"model": "tts-1", "input": "", "voice": "alloy"}),
    )
    .await;
    assert_eq!(resp.status, 500);
}

#[tokio::test]
async fn oversize_upload_is_413_before_the_body_is_read() {
    let server = MockServer::builder()
        .max_body_bytes(64 * 1024)
        .start()
        .await;
    // Declare 50 MB and send none of it: the answer must come anyway.
    let addr = server.address();
    let answer = tokio::task::spawn_blocking(move || {
        let mut s = std::net::TcpStream::connect(addr).expect("connect");
        s.set_read_timeout(Some(std::time::Duration::from_secs(5)))
            .ok();
        let req = format!(
            "POST {TRANSLATIONS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk-{KEY_ENABLED}\r\n\
             Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 52428800\r\n\r\n"
        );
        s.write_all(req.as_bytes()).expect("write");
        let mut buf = [0u8; 512];
        let n = s.read(&mut buf).expect("an answer before the body");
        String::from_utf8_lossy(&buf[..n]).into_owned()
    })
    .await
    .expect("join");
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    // A streamed body that passes the limit (no Content-Length known up front) is 413 too.
    let big = vec![7u8; 100 * 1024];
    let resp = post_multipart(
        &server,
        TRANSLATIONS,
        KEY_ENABLED,
        &[("file", Some("a.wav"), &big), ("model", None, b"whisper-1")],
    )
    .await;
    assert_eq!(resp.status, 413);
}

#[tokio::test]
async fn translation_charges_its_catalog_price() {
    let server = MockServer::start().await;
    let before = remain(&server);
    let resp = translate(&server, &wav_of(1000), "json").await;
    assert_eq!(resp.status, 200);
    // whisper-1: per_request 0.006 USD × 500000 = 3000 units.
    assert_eq!(before - remain(&server), 3000);
    let journal = server.received_requests();
    assert!(journal
        .iter()
        .any(|e| e.path == TRANSLATIONS && e.status == 200));
}

async fn speak(server: &MockServer, body: serde_json::Value) -> Resp {
    post_json(server, SPEECH, KEY_ENABLED, body).await
}

#[tokio::test]
async fn speech_mp3_is_audio_mpeg_with_valid_frames() {
    let server = MockServer::start().await;
    let resp = speak(
        &server,
        serde_json::json!({"model": "tts-1", "input": "Hello world", "voice": "alloy"}),
    )
    .await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    assert_eq!(resp.header("content-type"), Some("audio/mpeg"));
    let info = parse_mp3(&resp.body).expect("mp3 frames");
    assert!(info.frames > 10);
    assert_eq!(&resp.body[..2], &[0xFF, 0xFB]);
}

#[tokio::test]
async fn speech_every_format_parses_and_grows_with_the_input() {
    let server = MockServer::start().await;
    for format in ["mp3", "wav", "opus", "aac", "flac", "pcm"] {
        let mut durations = Vec::new();
        for input in [
            "Hi.",
            "A much longer sentence that takes a while to say out loud.",
        ] {
            let resp = speak(&server, serde_json::json!({"model": "gpt-4o-mini-tts", "input": input, "voice": "verse", "response_format": format})).await;
            assert_eq!(resp.status, 200, "{format}: {}", resp.text());
            let b = &resp.body;
            let (ct, secs) = match format {
                "mp3" => ("audio/mpeg", parse_mp3(b).expect("mp3").duration_secs),
                "wav" => {
                    let w = parse_wav(b).expect("wav");
                    assert!(w.riff_size_matches && w.data_size_matches && w.rates_consistent);
                    ("audio/wav", w.duration_secs)
                }
                "opus" => ("audio/ogg", parse_ogg_opus(b).expect("opus").duration_secs),
                "aac" => ("audio/aac", parse_adts(b).expect("aac").duration_secs),
                "flac" => ("audio/flac", parse_flac(b).expect("flac").duration_secs),
                _ => ("audio/pcm", b.len() as f64 / 48_000.0),
            };
            assert_eq!(resp.header("content-type"), Some(ct), "{format}");
            durations.push(secs);
        }
        assert!(durations[1] > durations[0] + 1.0, "{format}: {durations:?}");
    }
}

#[tokio::test]
async fn speech_rules_are_enforced() {
    let server = MockServer::start().await;
    let long = "x".repeat(4097);
    let max = "y".repeat(4096);
    let cases = [
        (
            "empty input",
            serde_json::json!({"model": "tts-1", "input": "", "voice": "alloy"}),
        ),
        (
            "4097 chars",
            serde_json::json!({"model": "tts-1", "input": long, "voice": "alloy"}),
        ),
        (
            "missing input",
            serde_json::json!({"model": "tts-1", "voice": "alloy"}),
        ),
        (
            "bad voice",
            serde_json::json!({"model": "tts-1", "input": "hi", "voice": "verse"}),
        ),
        (
            "missing voice",
            serde_json::json!({"model": "tts-1", "input": "hi"}),
        ),
        (
            "bad format",
            serde_json::json!({"model": "tts-1", "input": "hi", "voice": "alloy", "response_format": "ogg"}),
        ),
        (
            "not tts",
            serde_json::json!({"model": "whisper-1", "input": "hi", "voice": "alloy"}),
        ),
        (
            "missing model",
            serde_json::json!({"input": "hi", "voice": "alloy"}),
        ),
        (
            "bad speed",
            serde_json::json!({"model": "tts-1", "input": "hi", "voice": "alloy", "speed": 9}),
        ),
    ];
    for (what, body) in cases {
        assert_400(&speak(&server, body).await, what);
    }
    let bad_json = Http::new(server.uri())
        .send(
            "POST",
            SPEECH,
            &[("authorization", bearer(KEY_ENABLED).as_str())],
            "{not json",
        )
        .await;
    assert_400(&bad_json, "bad json");
    // 4096 characters (multi-byte ones count once) are accepted.
    let resp = speak(&server, serde_json::json!({"model": "tts-1", "input": max, "voice": "alloy", "response_format": "pcm"})).await;
    assert_eq!(resp.status, 200);
    let resp = speak(&server, serde_json::json!({"model": "tts-1", "input": "é".repeat(4096), "voice": "alloy", "response_format": "aac"})).await;
    assert_eq!(resp.status, 200);
}

#[tokio::test]
async fn speech_charges_per_input_character() {
    let server = MockServer::start().await;
    let before = remain(&server);
    let resp = speak(
        &server,
        serde_json::json!({"model": "tts-1", "input": "a".repeat(1000), "voice": "alloy"}),
    )
    .await;
    assert_eq!(resp.status, 200);
    // tts-1: 15 USD per million input characters: 1000 chars = 0.015 USD = 7500 units.
    assert_eq!(before - remain(&server), 7500);
}

#[tokio::test]
async fn model_restricted_key_is_403_on_other_models_and_auth_runs_first() {
    let server = MockServer::start().await;
    let resp = post_json(
        &server,
        SPEECH,
        KEY_MODEL_RESTRICTED,
        serde_json::json!({"model": "gpt-4o-mini-tts", "input": "hi", "voice": "alloy"}),
    )
    .await;
    assert_eq!(resp.status, 403);
    let resp = post_json(
        &server,
        SPEECH,
        KEY_MODEL_RESTRICTED,
        serde_json::json!({"model": "tts-1", "input": "hi", "voice": "alloy"}),
    )
    .await;
    assert_eq!(resp.status, 200);
    let resp = post_json(
        &server,
        SPEECH,
        KEY_DISABLED,
        serde_json::json!({"model": "tts-1", "input": "hi", "voice": "alloy"}),
    )
    .await;
    assert_eq!(resp.status, 401);
    let resp = Http::new(server.uri())
        .send("POST", TRANSLATIONS, &[], "")
        .await;
    assert_eq!(resp.status, 401);
}
