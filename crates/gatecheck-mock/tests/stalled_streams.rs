//! 100 streams whose clients never read, of each kind the mock streams (speech, transcription,
//! image partials, a scripted stream), add less than 20 MB to the mock: every
//! stream makes its events as the client reads, so a stalled one holds what the socket and
//! hyper's write buffer took, not its whole answer.
//!
//! Measured as the process's resident memory (`VmRSS` in /proc/self/status) before and after,
//! in a test binary of its own (one test: no other test's memory in the figure). Nothing is
//! timed: the streams are opened, given time to fill their sockets, and the highest of
//! several readings is compared with the bound.
//!
//! ```sh
//! cargo test -p gatecheck-mock --test stalled_streams -- --nocapture
//! ```

use gatecheck_mock::internals::media::{tone, wav, SPEECH_RATE};
use gatecheck_mock::{ClockMode, Fixtures, MockServer, StreamPacing, StreamScript};
use serde_json::json;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const STREAMS: usize = 100;
const BOUND_BYTES: u64 = 20 << 20;
const BOUNDARY: &str = "gatecheckstalledboundary";

fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// An unlimited enabled key of the embedded fixtures (100 long answers exceed any quota).
fn key() -> String {
    let fixtures = Fixtures::embedded();
    let k = fixtures
        .keys
        .iter()
        .find(|k| {
            k.unlimited_quota
                && k.status == 1
                && !k.model_limits_enabled
                && k.allow_ips.as_deref().unwrap_or("").is_empty()
        })
        .expect("an unlimited key");
    format!("sk-{}", k.key)
}

/// The bytes of one request.
fn request(path: &str, content_type: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "POST {path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer {}\r\n\
         content-type: {content_type}\r\ncontent-length: {}\r\n\r\n",
        key(),
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

fn speech() -> Vec<u8> {
    let body = json!({"model": "gpt-4o-mini-tts", "input": "a".repeat(4000), "voice": "alloy",
                      "stream_format": "sse"});
    request(
        "/v1/audio/speech",
        "application/json",
        body.to_string().as_bytes(),
    )
}

fn transcription() -> Vec<u8> {
    let audio = wav(&tone(20_000, SPEECH_RATE, 3), SPEECH_RATE);
    let mut body = Vec::new();
    for (name, file, value) in [
        ("model", None, &b"gpt-4o-mini-transcribe"[..]),
        ("stream", None, b"true"),
        ("file", Some("a.wav"), &audio),
    ] {
        body.extend(
            format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"").bytes(),
        );
        if let Some(f) = file {
            body.extend(format!("; filename=\"{f}\"\r\nContent-Type: audio/wav").bytes());
        }
        body.extend(b"\r\n\r\n");
        body.extend(value);
        body.extend(b"\r\n");
    }
    body.extend(format!("--{BOUNDARY}--\r\n").bytes());
    let ct = format!("multipart/form-data; boundary={BOUNDARY}");
    request("/v1/audio/transcriptions", &ct, &body)
}

fn images() -> Vec<u8> {
    let body = json!({"model": "gpt-image-1", "prompt": "a lighthouse", "size": "1536x1024",
                      "stream": true, "partial_images": 3});
    request(
        "/v1/images/generations",
        "application/json",
        body.to_string().as_bytes(),
    )
}

/// A scripted transcription stream of many large events.
fn script() -> StreamScript {
    let delta = json!({"type": "transcript.text.delta", "delta": "x".repeat(4 * 1024)});
    let mut s = StreamScript::new("POST /v1/audio/transcriptions").times(u32::MAX);
    for _ in 0..2048 {
        s = s.event("transcript.text.delta", &delta);
    }
    s
}

/// Sends `req` and reads until the answer's head and some of its body arrived: the stream
/// started. The connection is then left unread.
async fn open(addr: SocketAddr, req: &[u8]) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    s.write_all(req).await.expect("send");
    let mut buf = vec![0u8; 4096];
    let n = s.read(&mut buf).await.expect("read head");
    let head = String::from_utf8_lossy(&buf[..n]);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    s
}

/// Reads one whole answer (warm-up: buffers and caches the first stream of a kind allocates).
async fn drain(addr: SocketAddr, req: &[u8]) {
    let mut s = open(addr, req).await;
    let mut buf = vec![0u8; 64 * 1024];
    while let Ok(Ok(n)) = tokio::time::timeout(Duration::from_secs(5), s.read(&mut buf)).await {
        if n == 0 || buf[..n].ends_with(b"0\r\n\r\n") {
            break;
        }
    }
}

/// The highest RSS over a few readings once the stalled streams have had time to fill their
/// sockets.
async fn settled_rss() -> u64 {
    let mut high = 0;
    for _ in 0..6 {
        tokio::time::sleep(Duration::from_millis(250)).await;
        high = high.max(rss_bytes());
    }
    high
}

/// The kind a child measures.
const KIND_ENV: &str = "GATECHECK_STALLED_KIND";
const KINDS: [&str; 5] = [
    "speech",
    "speech-paced",
    "transcription",
    "image-partials",
    "scripted",
];

/// Each kind is measured in a process of its own (this binary run again for one kind), so
/// that memory one kind freed cannot hide another's growth.
#[test]
fn a_hundred_stalled_streams_of_each_kind_stay_small() {
    if let Ok(kind) = std::env::var(KIND_ENV) {
        let grew = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(measure(&kind));
        println!("grew={grew}");
        return;
    }
    if rss_bytes() == 0 {
        eprintln!("no /proc/self/status: skipped");
        return;
    }
    let exe = std::env::current_exe().expect("this test binary");
    let mut failures = Vec::new();
    for kind in KINDS {
        let out = std::process::Command::new(&exe)
            .args([
                "--exact",
                "a_hundred_stalled_streams_of_each_kind_stay_small",
                "--nocapture",
            ])
            .env(KIND_ENV, kind)
            .output()
            .expect("run the child");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let grew: u64 = stdout
            .lines()
            .find_map(|l| l.trim().strip_prefix("grew="))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| {
                panic!(
                    "{kind}: the child reported nothing ({}): {stdout}\n{}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr)
                )
            });
        eprintln!(
            "{kind}: {STREAMS} stalled streams added {:.1} MB (bound {} MB)",
            grew as f64 / 1e6,
            BOUND_BYTES >> 20
        );
        if grew >= BOUND_BYTES {
            failures.push(format!("{kind}: +{:.1} MB", grew as f64 / 1e6));
        }
    }
    assert!(
        failures.is_empty(),
        "over {} MB: {failures:?}",
        BOUND_BYTES >> 20
    );
}

/// Opens [`STREAMS`] stalled streams of `kind`; the RSS they added, bytes.
async fn measure(kind: &str) -> u64 {
    // Sent as fast as the sockets take them; or (`speech-paced`) held on a virtual clock that
    // never moves: the streams wait before their second event however long the reading.
    let server = if kind == "speech-paced" {
        MockServer::builder()
            .clock(ClockMode::virtual_default())
            .stream_pacing(StreamPacing::Clock)
            .start()
            .await
    } else {
        MockServer::builder()
            .stream_event_gap(Duration::ZERO)
            .start()
            .await
    };
    let addr = server.address();
    let req = match kind {
        "speech-paced" => speech(),
        "speech" => speech(),
        "image-partials" => images(),
        "scripted" => {
            server.script_stream(script());
            transcription()
        }
        _ => transcription(),
    };
    if kind != "speech-paced" {
        drain(addr, &req).await;
        drain(addr, &req).await;
    }
    let before = settled_rss().await;
    let mut held = Vec::with_capacity(STREAMS);
    for _ in 0..STREAMS {
        held.push(open(addr, &req).await);
    }
    let after = settled_rss().await;
    drop(held);
    after.saturating_sub(before)
}
