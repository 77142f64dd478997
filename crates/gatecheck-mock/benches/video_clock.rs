//! How fast the virtual clock drives video tasks to their terminal states, and what the media
//! generators cost.
//!
//! `cargo bench -p gatecheck-mock --bench video_clock` (`GATECHECK_BENCH_TASKS`, default 1000).
//! Prints wall times; there is nothing to assert here (the integration test asserts states).

use bytes::Bytes;
use gatecheck_mock::internals::media;
use gatecheck_mock::{ClockMode, MockServer};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use std::time::Instant;
use tokio::net::TcpStream;

type Sender = hyper::client::conn::http1::SendRequest<Full<Bytes>>;

async fn connect(server: &MockServer) -> Sender {
    let stream = TcpStream::connect(server.address()).await.expect("connect");
    let _ = stream.set_nodelay(true);
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    tokio::spawn(conn);
    sender
}

async fn call(
    s: &mut Sender,
    method: &str,
    path: &str,
    auth: &str,
    body: &str,
) -> serde_json::Value {
    let req = hyper::Request::builder()
        .method(method)
        .uri(path)
        .header("host", "bench")
        .header("authorization", auth)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body.to_owned())))
        .expect("request");
    s.ready().await.expect("connection ready");
    let resp = s.send_request(req).await.expect("send");
    assert!(
        resp.status().is_success(),
        "{method} {path}: {}",
        resp.status()
    );
    let body = resp.into_body().collect().await.expect("body").to_bytes();
    serde_json::from_slice(&body).expect("json")
}

fn main() {
    let tasks: usize = std::env::var("GATECHECK_BENCH_TASKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let server = MockServer::builder()
            .clock(ClockMode::virtual_default())
            .start()
            .await;
        let key = server
            .key(7)
            .map(|k| format!("Bearer sk-{}", k.key))
            .expect("unlimited key 7");
        let mut s = connect(&server).await;
        let t0 = Instant::now();
        let mut ids = Vec::with_capacity(tasks);
        for i in 0..tasks {
            let prompt = if i % 10 == 0 { "x [fail]" } else { "x" };
            let body = format!(r#"{{"model":"sora-2","prompt":"{prompt}","seconds":"12"}}"#);
            let v = call(&mut s, "POST", "/v1/videos", &key, &body).await;
            ids.push(v["id"].as_str().unwrap_or_default().to_owned());
        }
        let created = t0.elapsed();
        let t1 = Instant::now();
        call(
            &mut s,
            "POST",
            "/__mock/clock/advance",
            &key,
            r#"{"seconds":60}"#,
        )
        .await;
        let mut terminal = 0;
        for id in &ids {
            let v = call(&mut s, "GET", &format!("/v1/videos/{id}"), &key, "").await;
            if matches!(v["status"].as_str(), Some("completed" | "failed" | "error")) {
                terminal += 1;
            }
        }
        let driven = t1.elapsed();
        println!("video_clock: created {tasks} tasks over HTTP in {created:?}");
        println!(
            "video_clock: clock/advance + {tasks} polls in {driven:?} ({terminal}/{tasks} terminal)"
        );
    });

    let t = Instant::now();
    let png = media::png(0xC0FFEE, 1024, 1024).expect("png");
    println!(
        "media: PNG 1024x1024 encoded in {:?} ({} bytes)",
        t.elapsed(),
        png.len()
    );
    let t = Instant::now();
    let _ = media::png(0xC0FFEE, 1024, 1024);
    println!("media: PNG 1024x1024 from the cache in {:?}", t.elapsed());
    let t = Instant::now();
    let mp4 = media::mp4(1792, 1024, 12);
    println!(
        "media: MP4 1792x1024 12 s in {:?} ({} bytes)",
        t.elapsed(),
        mp4.len()
    );
    let t = Instant::now();
    let mp3 = media::speech(media::SpeechFormat::Mp3, &"x".repeat(4096), "alloy", 1.0);
    println!(
        "media: MP3 of 4096 characters in {:?} ({} bytes)",
        t.elapsed(),
        mp3.len()
    );
    let t = Instant::now();
    let wav = media::speech(media::SpeechFormat::Wav, &"x".repeat(4096), "alloy", 1.0);
    println!(
        "media: WAV of 4096 characters in {:?} ({} bytes)",
        t.elapsed(),
        wav.len()
    );
}
