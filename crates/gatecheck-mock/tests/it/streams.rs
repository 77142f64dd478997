//! Streamed answers (DECISIONS D-STREAM): speech, transcription and image generation, read
//! event by event; every event validated against its schema; order, content, charging and
//! the stream faults.

use crate::media_util::*;
use crate::support::*;
use base64::Engine as _;
use bytes::Bytes;
use gatecheck_mock::{Fault, MockServer};
use gatecheck_schemas::rules::media::{parse_mp3, parse_png};
use gatecheck_schemas::types::stream_event_schema;
use gatecheck_schemas::Profile;
use http_body_util::{BodyExt as _, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// One event as read: its `event:` name (if any), its `data`, and when it arrived (from the
/// sending of the request).
#[derive(Debug)]
pub(crate) struct Sse {
    pub(crate) name: Option<String>,
    pub(crate) data: String,
    pub(crate) at: Duration,
}

/// A stream as read: the events, the frames it came in, its head, and how it ended.
#[derive(Debug)]
pub(crate) struct Read {
    pub(crate) status: u16,
    pub(crate) headers: http::HeaderMap,
    pub(crate) events: Vec<Sse>,
    pub(crate) frames: usize,
    /// The body ended with an error (a cut).
    pub(crate) cut: bool,
    /// Bytes after the last complete event.
    pub(crate) rest: String,
}

/// Parses the complete events of `buf` (blocks ended by a blank line), leaving the rest.
pub(crate) fn take_events(buf: &mut String, out: &mut Vec<Sse>, at: Duration) {
    while let Some(end) = buf.find("\n\n") {
        let block: String = buf.drain(..end + 2).collect();
        let (mut name, mut data) = (None, String::new());
        for line in block.lines() {
            if let Some(n) = line.strip_prefix("event: ") {
                name = Some(n.to_owned());
            } else if let Some(d) = line.strip_prefix("data: ") {
                data.push_str(d);
            }
        }
        out.push(Sse { name, data, at });
    }
}

/// Sends `body` to `path` with the demo key and reads the answer frame by frame.
pub(crate) async fn read_stream(server: &MockServer, path: &str, ct: &str, body: Vec<u8>) -> Read {
    let start = Instant::now();
    let client = Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
    let req = http::Request::post(format!("{}{path}", server.uri()))
        .header("authorization", bearer(KEY_ENABLED))
        .header("content-type", ct)
        .body(Full::new(Bytes::from(body)))
        .expect("request");
    let resp = client.request(req).await.expect("answer");
    let (parts, mut body) = resp.into_parts();
    let (mut buf, mut events, mut frames, mut cut) = (String::new(), Vec::new(), 0, false);
    while let Some(frame) = body.frame().await {
        match frame {
            Ok(f) => {
                if let Some(d) = f.data_ref() {
                    frames += 1;
                    buf.push_str(std::str::from_utf8(d).expect("utf-8"));
                    take_events(&mut buf, &mut events, start.elapsed());
                }
            }
            Err(_) => {
                cut = true;
                break;
            }
        }
    }
    Read {
        status: parts.status.as_u16(),
        headers: parts.headers,
        events,
        frames,
        cut,
        rest: buf,
    }
}

pub(crate) async fn post_stream(server: &MockServer, path: &str, body: Value) -> Read {
    let bytes = serde_json::to_vec(&body).expect("json");
    read_stream(server, path, "application/json", bytes).await
}

/// Checks every event against its schema and the order: deltas, then exactly one terminal
/// event, last (then `[DONE]` when `done_marker`). Returns the events' JSON.
pub(crate) fn check_events(
    read: &Read,
    terminal: &str,
    done_marker: bool,
    named: bool,
) -> Vec<Value> {
    assert_eq!(read.status, 200, "{read:?}");
    assert_eq!(
        read.headers
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("text/event-stream")
    );
    assert!(!read.cut && read.rest.is_empty(), "{read:?}");
    let mut events: Vec<&Sse> = read.events.iter().collect();
    if done_marker {
        let last = events.pop().expect("events");
        assert_eq!((last.name.as_deref(), last.data.as_str()), (None, "[DONE]"));
    }
    let values: Vec<Value> = events
        .iter()
        .map(|e| {
            let v: Value = serde_json::from_str(&e.data).expect("data is JSON");
            let ty = v["type"].as_str().expect("type").to_owned();
            let schema = stream_event_schema(&ty).expect("a known event type");
            if let Err(err) = gatecheck_schemas::validate(schema, &v) {
                panic!("{ty}: {err}");
            }
            let want = named.then_some(ty.as_str());
            assert_eq!(e.name.as_deref(), want, "event: line of {ty}");
            v
        })
        .collect();
    let terminals = values.iter().filter(|v| v["type"] == terminal).count();
    assert_eq!(terminals, 1, "exactly one {terminal}");
    assert_eq!(values.last().expect("events")["type"], terminal);
    values
}

async fn server(profile: Profile) -> MockServer {
    MockServer::builder()
        .profile(profile)
        .stream_event_gap(Duration::from_millis(2))
        .start()
        .await
}

pub(crate) fn speech_body(model: &str) -> Value {
    json!({"model": model, "input": "The quick brown fox jumped over the lazy dog. ".repeat(4), "voice": "alloy"})
}

#[tokio::test]
async fn speech_streams_the_file_of_the_plain_answer_in_both_profiles() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = server(profile).await;
        let before = remain(&server);
        let plain = post_json(
            &server,
            "/v1/audio/speech",
            KEY_ENABLED,
            speech_body("gpt-4o-mini-tts"),
        )
        .await;
        let price = before - remain(&server);
        let mut body = speech_body("gpt-4o-mini-tts");
        body["stream_format"] = json!("sse");
        let read = post_stream(&server, "/v1/audio/speech", body).await;
        assert_eq!(
            before - remain(&server),
            2 * price,
            "charged once, as the plain answer"
        );
        let named = profile == Profile::Documented;
        let events = check_events(&read, "speech.audio.done", false, named);
        assert!(events.len() >= 5, "several deltas: {}", events.len());
        assert!(read.frames >= events.len(), "event by event");
        let mut audio = Vec::new();
        for e in &events[..events.len() - 1] {
            assert_eq!(e["type"], "speech.audio.delta");
            let part = e["audio"].as_str().expect("audio");
            audio.extend(
                base64::engine::general_purpose::STANDARD
                    .decode(part)
                    .expect("base64"),
            );
        }
        assert_eq!(audio, plain.body.to_vec(), "{profile:?}");
        parse_mp3(&audio).expect("decodable mp3");
        let usage = &events.last().expect("done")["usage"];
        assert_eq!(
            usage["total_tokens"],
            usage["input_tokens"].as_i64().unwrap() + usage["output_tokens"].as_i64().unwrap()
        );
    }
}

#[tokio::test]
async fn speech_sse_is_refused_for_tts_1_and_unknown_stream_formats() {
    let server = server(Profile::Documented).await;
    let before = remain(&server);
    for (model, format) in [
        ("tts-1", "sse"),
        ("tts-1-hd", "sse"),
        ("gpt-4o-mini-tts", "chunks"),
    ] {
        let mut body = speech_body(model);
        body["stream_format"] = json!(format);
        let resp = post_json(&server, "/v1/audio/speech", KEY_ENABLED, body).await;
        assert_400(&resp, &format!("{model} {format}"));
    }
    assert_eq!(remain(&server), before, "nothing charged");
    let server = server_newapi().await;
    let mut body = speech_body("tts-1");
    body["stream_format"] = json!("sse");
    let resp = post_json(&server, "/v1/audio/speech", KEY_ENABLED, body).await;
    assert_eq!(resp.status, 500, "{}", resp.text());
}

async fn server_newapi() -> MockServer {
    server(Profile::NewApi).await
}

pub(crate) fn transcription_form(model: &str, stream: Option<&str>) -> Vec<u8> {
    let wav = wav_of(4000);
    let mut parts: Vec<Part<'_>> = vec![
        ("model", None, model.as_bytes()),
        ("file", Some("a.wav"), &wav),
    ];
    if let Some(s) = stream {
        parts.push(("stream", None, s.as_bytes()));
    }
    multipart(&parts)
}

#[tokio::test]
async fn transcriptions_stream_deltas_that_make_the_done_text() {
    let ct = format!("multipart/form-data; boundary={BOUNDARY}");
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = server(profile).await;
        let path = "/v1/audio/transcriptions";
        let plain = read_stream(
            &server,
            path,
            &ct,
            transcription_form("gpt-4o-mini-transcribe", None),
        )
        .await;
        assert!(plain.events.is_empty());
        let read = read_stream(
            &server,
            path,
            &ct,
            transcription_form("gpt-4o-mini-transcribe", Some("true")),
        )
        .await;
        let events = check_events(&read, "transcript.text.done", false, true);
        let deltas: String = events[..events.len() - 1]
            .iter()
            .map(|e| e["delta"].as_str().expect("delta"))
            .collect();
        let done = events.last().expect("done");
        assert_eq!(done["text"], deltas.as_str());
        assert!(events.len() > 3, "several deltas");
        let buffered = read.headers.contains_key("content-length");
        assert_eq!(
            buffered,
            profile == Profile::NewApi,
            "new-api sends it whole"
        );
        // whisper-1 ignores `stream`.
        let whisper = read_stream(
            &server,
            path,
            &ct,
            transcription_form("whisper-1", Some("true")),
        )
        .await;
        assert!(whisper.events.is_empty() && whisper.status == 200);
        let bad = read_stream(
            &server,
            path,
            &ct,
            transcription_form("gpt-4o-mini-transcribe", Some("yes")),
        )
        .await;
        assert!(bad.status == 400 || bad.status == 500, "{bad:?}");
    }
}

/// The embedded fixtures with a diarization model, `gpt-4o-transcribe-diarize` (a copy of
/// `gpt-4o-mini-transcribe` under that id).
pub(crate) fn with_diarize_model() -> gatecheck_mock::Fixtures {
    let mut fixtures = gatecheck_mock::Fixtures::embedded();
    let base = "gpt-4o-mini-transcribe";
    let mut model = fixtures
        .catalog
        .iter()
        .find(|m| m.id == base)
        .cloned()
        .expect("the base model");
    model.id = "gpt-4o-transcribe-diarize".into();
    let caps = fixtures.capabilities[base].clone();
    fixtures.capabilities.insert(model.id.clone(), caps);
    fixtures.catalog.push(model);
    fixtures
}

#[tokio::test]
async fn a_diarization_model_streams_each_segment_after_its_deltas() {
    let ct = format!("multipart/form-data; boundary={BOUNDARY}");
    let path = "/v1/audio/transcriptions";
    let wav = wav_of(12_000);
    let form = |model: &str, format: &str, stream: &str| {
        multipart(&[
            ("model", None, model.as_bytes()),
            ("file", Some("a.wav"), &wav),
            ("response_format", None, format.as_bytes()),
            ("stream", None, stream.as_bytes()),
        ])
    };
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = MockServer::builder()
            .profile(profile)
            .fixtures(with_diarize_model())
            .stream_event_gap(Duration::ZERO)
            .start()
            .await;
        let diarize = "gpt-4o-transcribe-diarize";
        let read = read_stream(&server, path, &ct, form(diarize, "diarized_json", "true")).await;
        let events = check_events(&read, "transcript.text.done", false, true);
        let (mut all, mut current, mut segments) = (String::new(), String::new(), 0);
        for e in &events[..events.len() - 1] {
            if e["type"] == "transcript.text.delta" {
                let id = format!("seg_{:03}", segments + 1);
                assert_eq!(e["segment_id"], id.as_str(), "{e}");
                current.push_str(e["delta"].as_str().expect("delta"));
                continue;
            }
            assert_eq!(e["type"], "transcript.text.segment");
            segments += 1;
            assert_eq!(
                e["text"],
                current.trim_end(),
                "the segment's deltas make its text"
            );
            assert!(e["start"].as_f64() <= e["end"].as_f64(), "{e}");
            all.push_str(&current);
            current.clear();
        }
        assert!(
            current.is_empty(),
            "the last deltas are followed by their segment"
        );
        assert!(segments >= 2, "{segments} segments");
        assert_eq!(events.last().expect("done")["text"], all.as_str());

        // Without diarized_json, or on another model: no segment; diarized_json unstreamed,
        // or on a model that does not diarize: refused.
        let read = read_stream(&server, path, &ct, form(diarize, "json", "true")).await;
        let events = check_events(&read, "transcript.text.done", false, true);
        assert!(events.iter().all(|e| e.get("segment_id").is_none()));
        assert!(events
            .iter()
            .all(|e| e["type"] != "transcript.text.segment"));
        for (model, stream) in [(diarize, "false"), ("gpt-4o-mini-transcribe", "true")] {
            let bad = read_stream(&server, path, &ct, form(model, "diarized_json", stream)).await;
            assert!(bad.status == 400 || bad.status == 500, "{bad:?}");
        }
    }
}

fn image_body(partials: i64) -> Value {
    json!({"model": "gpt-image-1", "prompt": "a lighthouse", "size": "1024x1536", "stream": true, "partial_images": partials})
}

#[tokio::test]
async fn image_streams_partial_pngs_then_the_completed_one() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = server(profile).await;
        let mut plain = image_body(0);
        plain.as_object_mut().expect("object").remove("stream");
        let plain = post_json(&server, "/v1/images/generations", KEY_ENABLED, plain)
            .await
            .json();
        let done_marker = profile == Profile::NewApi;
        for partials in 0..=3 {
            let read = post_stream(&server, "/v1/images/generations", image_body(partials)).await;
            let events = check_events(&read, "image_generation.completed", done_marker, true);
            assert_eq!(events.len() as i64, partials + 1);
            for (i, e) in events.iter().enumerate() {
                let png = base64::engine::general_purpose::STANDARD
                    .decode(e["b64_json"].as_str().expect("b64"))
                    .expect("base64");
                let info = parse_png(&png).expect("a PNG");
                assert_eq!((info.width, info.height), (1024, 1536));
                assert_eq!(e["size"], "1024x1536");
                if (i as i64) < partials {
                    assert_eq!(e["partial_image_index"], i);
                }
            }
            let last = events.last().expect("completed");
            assert_eq!(last["b64_json"], plain["data"][0]["b64_json"]);
            assert_eq!(
                last["usage"]["total_tokens"],
                plain["usage"]["total_tokens"]
            );
        }
    }
    let server = server(Profile::Documented).await;
    for bad in [
        image_body(4),
        image_body(-1),
        json!({"model": "dall-e-3", "prompt": "x", "size": "1024x1024", "stream": true}),
        json!({"model": "gpt-image-1", "prompt": "x", "size": "1024x1024", "stream": true, "n": 2}),
    ] {
        let resp = post_json(&server, "/v1/images/generations", KEY_ENABLED, bad.clone()).await;
        assert_400(&resp, &bad.to_string());
    }
}

#[tokio::test]
async fn stream_faults_cut_stall_and_malform_one_event() {
    let server = server(Profile::Documented).await;
    let mut body = speech_body("gpt-4o-mini-tts");
    body["stream_format"] = json!("sse");
    // A stream fault does not touch answers that do not stream.
    server.inject(Fault::stream_cut(1).on("POST /v1/audio/speech").times(1));
    let plain = post_json(
        &server,
        "/v1/audio/speech",
        KEY_ENABLED,
        speech_body("gpt-4o-mini-tts"),
    )
    .await;
    assert_eq!(plain.status, 200);
    let read = post_stream(&server, "/v1/audio/speech", body.clone()).await;
    assert!(read.cut, "cut");
    assert_eq!(read.events.len(), 1, "one whole event, then half of one");
    assert!(!read.rest.is_empty());

    server.inject(Fault::stream_malformed(2).times(1));
    let read = post_stream(&server, "/v1/audio/speech", body.clone()).await;
    let bad: Vec<usize> = read
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| serde_json::from_str::<Value>(&e.data).is_err())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(bad, [2]);

    server.inject(Fault::stream_stall(1, Duration::from_millis(300)).times(1));
    let started = Instant::now();
    let read = post_stream(&server, "/v1/audio/speech", body.clone()).await;
    assert!(started.elapsed() >= Duration::from_millis(300));
    check_events(&read, "speech.audio.done", false, true);
    let read = post_stream(&server, "/v1/audio/speech", body).await;
    check_events(&read, "speech.audio.done", false, true);
}
