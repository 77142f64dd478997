//! Connection hygiene and durability: half-closed requests, IPv4-mapped loopback,
//! stalled bodies, the connection limit, and the state file written through.

use crate::support::*;
use gatecheck_mock::{MockServer, NewKey, StateSnapshot};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Sends `request` on a fresh connection, shuts the write side, reads to the end.
async fn half_closed(addr: SocketAddr, request: &[u8]) -> Vec<u8> {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    stream.shutdown().await.unwrap();
    let mut got = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut got)).await;
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_closed_requests_are_all_answered() {
    let server = MockServer::start().await;
    let addr = server.address();
    let mut tasks = tokio::task::JoinSet::new();
    let answered = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    for i in 0..1000 {
        let answered = answered.clone();
        tasks.spawn(async move {
            let req: &[u8] = if i % 2 == 0 {
                b"GET /__mock/health HTTP/1.1\r\nhost: localhost\r\n\r\n"
            } else {
                b"GET /api/models HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"
            };
            let got = half_closed(addr, req).await;
            if got.starts_with(b"HTTP/1.1 200") {
                answered.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        });
        // At most 50 connections at a time.
        if tasks.len() >= 50 {
            tasks.join_next().await;
        }
    }
    while tasks.join_next().await.is_some() {}
    assert_eq!(answered.load(std::sync::atomic::Ordering::Relaxed), 1000);
}

/// Binds the mock to `::` (skipped, with a note, where IPv6 is not available).
async fn on_ipv6_any() -> Option<MockServer> {
    let bind: SocketAddr = "[::]:0".parse().unwrap();
    match MockServer::builder().bind(bind).try_start().await {
        Ok(s) => Some(s),
        Err(e) => {
            eprintln!("skipped: cannot bind [::]: {e}");
            None
        }
    }
}

#[tokio::test]
async fn ipv4_mapped_loopback_is_loopback_for_the_control_api() {
    let Some(server) = on_ipv6_any().await else {
        return;
    };
    let port = server.address().port();
    let http = Http::new(format!("http://127.0.0.1:{port}"));
    let resp = http.get("/__mock/health", &[]).await;
    assert_eq!(resp.status, 200, "{}", resp.text());
}

#[tokio::test]
async fn ipv4_mapped_peer_matches_an_ipv4_allowlist() {
    let Some(server) = on_ipv6_any().await else {
        return;
    };
    let key = server.add_key(NewKey::new().allow_ips("127.0.0.1"));
    let port = server.address().port();
    let http = Http::new(format!("http://127.0.0.1:{port}"));
    let auth = bearer(&key.key);
    let resp = http
        .json(
            "POST",
            "/v1/images/generations",
            &[("authorization", &auth)],
            serde_json::json!({}),
        )
        .await;
    // Past the allowlist: a validation answer, not 403 access_denied.
    assert_ne!(resp.status, 403, "{}", resp.text());
    assert_ne!(resp.status, 401, "{}", resp.text());
}

/// Opens a connection that sends a request head announcing a body, 10 bytes of it, then
/// nothing more.
async fn stalled_body(addr: SocketAddr) -> Option<TcpStream> {
    let mut stream = TcpStream::connect(addr).await.ok()?;
    let head = format!(
        "POST /v1/images/generations HTTP/1.1\r\nhost: x\r\nauthorization: {}\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{{\"model\":",
        bearer(KEY_ENABLED)
    );
    stream.write_all(head.as_bytes()).await.ok()?;
    Some(stream)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_hundred_stalled_bodies_do_not_starve_a_client() {
    let server = MockServer::start().await;
    let addr = server.address();
    let mut stalled = Vec::new();
    for _ in 0..500 {
        if let Some(s) = stalled_body(addr).await {
            stalled.push(s);
        }
    }
    assert_eq!(stalled.len(), 500, "could not open 500 connections");
    // Let the server take all of them in.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let http = Http::new(server.uri());
    let started = Instant::now();
    let resp = tokio::time::timeout(Duration::from_secs(30), http.get("/api/models", &[]))
        .await
        .expect("a legitimate client was not served while 500 bodies stalled");
    let took = started.elapsed();
    assert_eq!(resp.status, 200);
    eprintln!("legitimate request beside 500 stalled bodies served in {took:?}");
    drop(stalled);
}

#[tokio::test]
async fn a_stalled_body_gets_408_and_the_connection_closes() {
    let server = MockServer::builder()
        .body_timeout(Duration::from_millis(300))
        .start()
        .await;
    let mut stream = stalled_body(server.address()).await.unwrap();
    let mut got = Vec::new();
    let r = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut got)).await;
    assert!(r.is_ok(), "the stalled connection was not closed");
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
}

#[tokio::test]
async fn connections_past_the_limit_wait_until_one_closes() {
    let server = MockServer::builder().max_connections(2).start().await;
    let addr = server.address();
    let a = TcpStream::connect(addr).await.unwrap();
    let b = TcpStream::connect(addr).await.unwrap();
    // Both are taken in; the third waits in the accept queue.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut c = TcpStream::connect(addr).await.unwrap();
    c.write_all(b"GET /__mock/health HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 64];
    let early = tokio::time::timeout(Duration::from_millis(300), c.read(&mut buf)).await;
    assert!(early.is_err(), "a connection past the limit was served");
    drop(a);
    let mut got = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), c.read_to_end(&mut got))
        .await
        .expect("the waiting connection was not served after one closed")
        .unwrap();
    assert!(got.starts_with(b"HTTP/1.1 200"));
    drop(b);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_writes_are_on_disk_before_the_answer() {
    let path = temp_state("writethrough");
    let server = MockServer::builder().state_file(&path).start().await;
    let http = Http::new(server.uri());
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..200 {
        let http = http.clone();
        tasks.spawn(async move {
            let name = format!("writer-{i}");
            let resp = http
                .json(
                    "POST",
                    "/__mock/keys",
                    &[],
                    serde_json::json!({"name": name, "remain_quota": 1000 + i}),
                )
                .await;
            assert_eq!(resp.status, 201, "{}", resp.text());
            name
        });
    }
    let mut acked = Vec::new();
    while let Some(name) = tasks.join_next().await {
        acked.push(name.unwrap());
    }
    // Read the file while the server still runs (as after kill -9): every key is there.
    let on_disk: StateSnapshot = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    for name in &acked {
        assert!(
            on_disk.keys.iter().any(|k| &k.name == name),
            "acknowledged key {name} is not on disk"
        );
    }
    // A charge is a write too.
    let auth = bearer(KEY_ENABLED);
    let before = server.key(1).unwrap().used_quota;
    let resp = http
        .json(
            "POST",
            "/v1/images/generations",
            &[("authorization", &auth)],
            serde_json::json!({"model": "gpt-image-1", "prompt": "a cat", "size": "1024x1024"}),
        )
        .await;
    let after = server.key(1).unwrap().used_quota;
    let on_disk: StateSnapshot = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let disk_used = on_disk.keys.iter().find(|k| k.id == 1).unwrap().used_quota;
    assert_eq!(disk_used, after, "status {} {}", resp.status, resp.text());
    eprintln!("charge {before} -> {after} on disk");
    server.close().await.unwrap();
    // Restarted from the file: everything is back.
    let again = MockServer::builder().state_file(&path).start().await;
    let keys = again.state().keys;
    for name in &acked {
        assert!(keys.iter().any(|k| &k.name == name), "{name} lost");
    }
}

#[tokio::test]
async fn a_corrupt_state_file_fails_the_start_and_is_kept() {
    let path = temp_state("corrupt");
    std::fs::write(&path, b"{\"accounts\": [").unwrap();
    let err = MockServer::builder()
        .state_file(&path)
        .try_start()
        .await
        .unwrap_err();
    assert!(err.to_string().contains("corrupt or truncated"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), b"{\"accounts\": [");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_uncached_public_images_is_queued_or_refused() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let mut tasks = tokio::task::JoinSet::new();
    for seed in 0..24u64 {
        let http = http.clone();
        tasks.spawn(async move {
            let path = format!("/media/images/{:x}_2048x2048.png", 0xabc000 + seed);
            http.get(&path, &[]).await
        });
    }
    let (mut ok, mut busy) = (0, 0);
    while let Some(r) = tasks.join_next().await {
        let resp = r.unwrap();
        match resp.status {
            200 => {
                assert_eq!(resp.header("content-type"), Some("image/png"));
                ok += 1;
            }
            503 => {
                assert_eq!(resp.header("retry-after"), Some("1"));
                busy += 1;
            }
            other => panic!("unexpected status {other}: {}", resp.text()),
        }
    }
    eprintln!("24 uncached 2048x2048 images at once: {ok} rendered, {busy} refused 503");
    assert!(ok >= 1);
    // The authenticated routes are not slowed: the catalog still answers.
    assert_eq!(http.get("/api/models", &[]).await.status, 200);
}
