//! Scripted streams (`MockServer::script_stream`) and streams paced by the mock's clock.

use crate::media_util::*;
use crate::streams::{check_events, post_stream, speech_body, take_events, Sse};
use crate::support::*;
use bytes::Bytes;
use gatecheck_mock::{ClockMode, MockServer, StreamPacing, StreamScript};
use gatecheck_schemas::Profile;
use http_body_util::{BodyExt as _, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

const SPEECH: &str = "/v1/audio/speech";

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn sse_speech(model: &str) -> Value {
    let mut body = speech_body(model);
    body["stream_format"] = json!("sse");
    body
}

fn delta(audio: &str) -> Value {
    json!({"type": "speech.audio.delta", "audio": audio})
}

#[tokio::test]
async fn a_scripted_stream_arrives_as_scripted_with_its_waits() {
    let server = MockServer::builder().stream_event_gap(ms(1)).start().await;
    server.script_stream(
        StreamScript::new(format!("POST {SPEECH}"))
            .model("gpt-4o-mini-tts")
            .event("speech.audio.delta", &delta("AAAA"))
            .wait(ms(150))
            .event_text("speech.audio.delta", "{\"type\": \"speech.au")
            .wait(ms(150))
            .data("[DONE]")
            .times(1),
    );
    let before = remain(&server);
    let read = post_stream(&server, SPEECH, sse_speech("gpt-4o-mini-tts")).await;
    assert_eq!(read.status, 200);
    assert!(!read.cut && read.rest.is_empty(), "{read:?}");
    let got: Vec<(Option<&str>, &str)> = read
        .events
        .iter()
        .map(|e| (e.name.as_deref(), e.data.as_str()))
        .collect();
    let first = delta("AAAA").to_string();
    assert_eq!(
        got,
        [
            (Some("speech.audio.delta"), first.as_str()),
            (Some("speech.audio.delta"), "{\"type\": \"speech.au"),
            (None, "[DONE]"),
        ]
    );
    let at: Vec<Duration> = read.events.iter().map(|e| e.at).collect();
    assert!(at[0] < ms(140), "the first event is not waited for: {at:?}");
    assert!(at[1] - at[0] >= ms(140), "{at:?}");
    assert!(at[2] - at[1] >= ms(140), "{at:?}");
    assert!(
        before > remain(&server),
        "the request is charged as without a script"
    );

    // Played once: the next answer is the mock's own stream.
    let read = post_stream(&server, SPEECH, sse_speech("gpt-4o-mini-tts")).await;
    check_events(&read, "speech.audio.done", false, true);
}

#[tokio::test]
async fn a_script_keeps_to_its_model_the_admission_and_the_reset() {
    let server = MockServer::builder()
        .profile(Profile::NewApi)
        .stream_event_gap(ms(0))
        .start()
        .await;
    server.script_stream(StreamScript::new(SPEECH).model("another-model").data("x"));
    let read = post_stream(&server, SPEECH, sse_speech("gpt-4o-mini-tts")).await;
    check_events(&read, "speech.audio.done", false, false);

    server.script_stream(StreamScript::new("*").data("scripted"));
    // A request the mock refuses is refused as without the script.
    let refused = post_json(&server, SPEECH, KEY_ENABLED, sse_speech("tts-1")).await;
    assert_eq!(refused.status, 500, "{}", refused.text());
    let read = post_stream(&server, SPEECH, sse_speech("gpt-4o-mini-tts")).await;
    assert_eq!(read.events.len(), 1);
    assert_eq!(read.events[0].data, "scripted");
    server.reset();
    let read = post_stream(&server, SPEECH, sse_speech("gpt-4o-mini-tts")).await;
    check_events(&read, "speech.audio.done", false, false);
}

#[tokio::test]
async fn a_cut_at_n_ends_the_connection_after_event_n() {
    let server = MockServer::builder().stream_event_gap(ms(2)).start().await;
    for n in [2u32, 0] {
        server.script_stream(
            StreamScript::new(SPEECH)
                .event("speech.audio.delta", &delta("AAAA"))
                .event("speech.audio.delta", &delta("BBBB"))
                .event("speech.audio.delta", &delta("CCCC"))
                .event("speech.audio.done", &json!({"type": "speech.audio.done"}))
                .cut_after(n)
                .times(1),
        );
        let read = post_stream(&server, SPEECH, sse_speech("gpt-4o-mini-tts")).await;
        assert_eq!(read.status, 200);
        assert!(
            read.cut,
            "the connection is closed without the end: {read:?}"
        );
        assert_eq!(read.events.len(), n as usize, "{read:?}");
        assert!(read.rest.is_empty(), "whole events only: {read:?}");
    }
}

/// Sends a streamed speech request and forwards each event as it arrives.
fn stream_events(server: &MockServer, body: Value) -> mpsc::UnboundedReceiver<Sse> {
    let (tx, rx) = mpsc::unbounded_channel();
    let req = http::Request::post(format!("{}{SPEECH}", server.uri()))
        .header("authorization", bearer(KEY_ENABLED))
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body.to_string())))
        .expect("request");
    tokio::spawn(async move {
        let start = Instant::now();
        let client = Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
        let mut body = client.request(req).await.expect("answer").into_body();
        let (mut buf, mut events) = (String::new(), Vec::new());
        while let Some(Ok(frame)) = body.frame().await {
            if let Some(d) = frame.data_ref() {
                buf.push_str(std::str::from_utf8(d).expect("utf-8"));
                take_events(&mut buf, &mut events, start.elapsed());
                for e in events.drain(..) {
                    let _ = tx.send(e);
                }
            }
        }
    });
    rx
}

/// The next event, within five seconds of real time.
async fn next(rx: &mut mpsc::UnboundedReceiver<Sse>) -> Sse {
    tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .expect("an event in time")
        .expect("the stream goes on")
}

/// No event for a while (the clock has not reached the next one).
async fn quiet(rx: &mut mpsc::UnboundedReceiver<Sse>) {
    let early = tokio::time::timeout(ms(120), rx.recv()).await;
    assert!(early.is_err(), "an event before its time: {early:?}");
}

#[tokio::test]
async fn on_the_clock_each_event_is_sent_when_the_clock_reaches_it() {
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .stream_pacing(StreamPacing::Clock)
        .stream_event_gap(Duration::from_secs(1))
        .start()
        .await;
    let mut rx = stream_events(&server, sse_speech("gpt-4o-mini-tts"));
    let mut types = vec![next(&mut rx).await];
    while !types
        .last()
        .is_some_and(|e| e.data.contains("speech.audio.done"))
    {
        quiet(&mut rx).await;
        server.clock().advance(ms(999));
        quiet(&mut rx).await;
        server.clock().advance(ms(1));
        types.push(next(&mut rx).await);
        assert!(types.len() < 100, "the stream ends");
    }
    assert!(types.len() >= 5, "{types:?}");

    // A script's own waits, on the clock of a server paced by wall time.
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    server.script_stream(
        StreamScript::new(SPEECH)
            .pacing(StreamPacing::Clock)
            .data("first")
            .wait(Duration::from_secs(60))
            .data("a minute later"),
    );
    let mut rx = stream_events(&server, sse_speech("gpt-4o-mini-tts"));
    assert_eq!(next(&mut rx).await.data, "first");
    quiet(&mut rx).await;
    server.clock().advance(Duration::from_secs(60));
    assert_eq!(next(&mut rx).await.data, "a minute later");
}

/// The control API scripts a stream from JSON (`POST /__mock/streams`), as the Python and
/// Node packages do; reads one key (`GET /__mock/keys/{id}`) and the callbacks.
#[tokio::test]
async fn the_control_api_scripts_a_stream_and_reads_a_key_and_callbacks() {
    let server = MockServer::builder().stream_event_gap(ms(1)).start().await;
    let http = Http::new(server.uri());
    let script = json!({
        "route": format!("POST {SPEECH}"),
        "model": "gpt-4o-mini-tts",
        "events": [{"event": "speech.audio.delta", "data": delta("AAAA")}, {"data": "[DONE]"}],
        "times": 1,
    });
    let resp = http.json("POST", "/__mock/streams", &[], script).await;
    assert_eq!(resp.status, 201, "{}", resp.text());
    assert_eq!(resp.json()["events"], 2);
    let read = post_stream(&server, SPEECH, sse_speech("gpt-4o-mini-tts")).await;
    let got: Vec<&str> = read.events.iter().map(|e| e.data.as_str()).collect();
    assert_eq!(got, [delta("AAAA").to_string().as_str(), "[DONE]"]);
    let bad = http
        .json("POST", "/__mock/streams", &[], json!({"events": []}))
        .await;
    assert_eq!(bad.status, 400, "{}", bad.text());
    let key = http.get("/__mock/keys/1", &[]).await;
    assert_eq!((key.status, key.json()["id"].as_i64()), (200, Some(1)));
    assert_eq!(http.get("/__mock/keys/987654", &[]).await.status, 404);
    assert_eq!(http.get("/__mock/keys/x", &[]).await.status, 400);
    let callbacks = http.get("/__mock/callbacks", &[]).await;
    assert_eq!((callbacks.status, callbacks.json()), (200, json!([])));
}
