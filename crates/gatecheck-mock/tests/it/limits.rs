//! Body limit (413 before the body is read), header and idle timeouts, per-key rate limit.

use crate::support::*;
use gatecheck_mock::MockServer;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn read_status_line(stream: &mut TcpStream) -> String {
    let mut buf = vec![0u8; 1024];
    let mut got = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !got.windows(2).any(|w| w == b"\r\n") && Instant::now() < deadline {
        match tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf)).await {
            Ok(Ok(0)) | Err(_) => break,
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
            Ok(Err(_)) => break,
        }
    }
    String::from_utf8_lossy(&got)
        .lines()
        .next()
        .unwrap_or("")
        .to_owned()
}

#[tokio::test]
async fn body_over_the_limit_is_413_before_it_is_read() {
    let server = MockServer::builder()
        .max_body_bytes(1024 * 1024)
        .start()
        .await;
    let mut stream = TcpStream::connect(server.address()).await.unwrap();
    // Declare 100 MiB but send only the headers: the answer must come anyway.
    let head = format!(
        "PUT /api/token/ HTTP/1.1\r\nhost: x\r\nauthorization: {ACCESS_TOKEN}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        100 * 1024 * 1024
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let line = read_status_line(&mut stream).await;
    assert!(line.starts_with("HTTP/1.1 413"), "{line}");
}

/// A plain client (no `Expect: 100-continue`) that writes the whole request, then reads.
fn blocking_upload(addr: std::net::SocketAddr, body_len: usize, chunked: bool) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).ok();
    s.set_write_timeout(Some(Duration::from_secs(10))).ok();
    let framing = if chunked {
        "transfer-encoding: chunked".to_owned()
    } else {
        format!("content-length: {body_len}")
    };
    let head = format!(
        "POST /v1/audio/translations HTTP/1.1\r\nhost: x\r\nauthorization: Bearer sk-{KEY_ENABLED}\r\n\
         content-type: multipart/form-data; boundary=b\r\n{framing}\r\n\r\n"
    );
    let mut out = head.into_bytes();
    let data = vec![b'a'; body_len];
    if chunked {
        for c in data.chunks(256 * 1024) {
            out.extend_from_slice(format!("{:x}\r\n", c.len()).as_bytes());
            out.extend_from_slice(c);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"0\r\n\r\n");
    } else {
        out.extend_from_slice(&data);
    }
    if let Err(e) = s.write_all(&out) {
        return format!("write failed: {e}");
    }
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                answer.extend_from_slice(&buf[..n]);
                if answer.windows(4).any(|w| w == b"\r\n\r\n") {
                    break;
                }
            }
            Err(e) => return format!("read failed: {e} after {answer:?}"),
        }
    }
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upload_over_the_limit_is_always_answered_413() {
    // The 413 goes out before the body is read; the rest of the body is then drained (a
    // lingering close), so the connection does not end in a reset that eats the answer.
    let server = MockServer::builder()
        .max_body_bytes(1024 * 1024)
        .start()
        .await;
    let addr = server.address();
    for i in 0..20 {
        let chunked = i % 4 == 3;
        let answer =
            tokio::task::spawn_blocking(move || blocking_upload(addr, 6 * 1024 * 1024, chunked))
                .await
                .expect("join");
        assert!(
            answer.starts_with("HTTP/1.1 413"),
            "run {i} (chunked {chunked}): {answer}"
        );
    }
    // And through a keep-alive HTTP client that sends the whole body.
    let http = Http::new(server.uri());
    let auth = bearer(KEY_ENABLED);
    for i in 0..20 {
        let resp = http
            .try_send(
                "POST",
                "/v1/audio/translations",
                &[
                    ("authorization", &auth),
                    ("content-type", "multipart/form-data; boundary=b"),
                ],
                vec![b'a'; 3 * 1024 * 1024],
            )
            .await;
        match resp {
            Ok(r) => assert_eq!(r.status, 413, "run {i}: {}", r.text()),
            Err(e) => panic!("run {i}: no answer: {e}"),
        }
    }
    // The server still serves.
    let ok = http.get("/v1/models", &[("authorization", &auth)]).await;
    assert_eq!(ok.status, 200);
}

#[tokio::test]
async fn chunked_body_over_the_limit_is_413() {
    let server = MockServer::builder()
        .max_body_bytes(64 * 1024)
        .start()
        .await;
    let mut stream = TcpStream::connect(server.address()).await.unwrap();
    let head = format!(
        "PUT /api/token/ HTTP/1.1\r\nhost: x\r\nauthorization: {ACCESS_TOKEN}\r\ntransfer-encoding: chunked\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let chunk = vec![b'a'; 16 * 1024];
    for _ in 0..6 {
        let mut frame = format!("{:x}\r\n", chunk.len()).into_bytes();
        frame.extend_from_slice(&chunk);
        frame.extend_from_slice(b"\r\n");
        if stream.write_all(&frame).await.is_err() {
            break;
        }
    }
    let line = read_status_line(&mut stream).await;
    assert!(line.starts_with("HTTP/1.1 413"), "{line}");
}

#[tokio::test]
async fn rate_limit_answers_429_with_retry_after() {
    let server = MockServer::builder()
        .rate_limit(3, Duration::from_secs(60))
        .start()
        .await;
    let http = Http::new(server.uri());
    let auth = bearer(KEY_ENABLED);
    for _ in 0..3 {
        assert_eq!(
            http.get("/v1/models", &[("authorization", &auth)])
                .await
                .status,
            200
        );
    }
    let limited = http.get("/v1/models", &[("authorization", &auth)]).await;
    assert_eq!(limited.status, 429);
    let retry: u64 = limited.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry));
    // Another key has its own budget.
    let other = bearer(KEY_UNLIMITED);
    assert_eq!(
        http.get("/v1/models", &[("authorization", &other)])
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn rate_limit_is_off_by_default() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let auth = bearer(KEY_ENABLED);
    for _ in 0..200 {
        assert_eq!(
            http.get("/v1/models", &[("authorization", &auth)])
                .await
                .status,
            200
        );
    }
}

#[tokio::test]
async fn header_timeout_closes_a_slow_connection() {
    let server = MockServer::builder()
        .header_timeout(Duration::from_millis(300))
        .start()
        .await;
    let mut stream = TcpStream::connect(server.address()).await.unwrap();
    stream
        .write_all(b"GET /api/models HTTP/1.1\r\nhost: x\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 256];
    let started = Instant::now();
    let r = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf)).await;
    assert!(r.is_ok(), "the connection was not closed");
    assert!(started.elapsed() < Duration::from_secs(4));
}

#[tokio::test]
async fn idle_timeout_closes_an_idle_keep_alive_connection() {
    let server = MockServer::builder()
        .idle_timeout(Duration::from_millis(300))
        .header_timeout(Duration::from_secs(30))
        .start()
        .await;
    let mut stream = TcpStream::connect(server.address()).await.unwrap();
    stream
        .write_all(b"GET /__mock/health HTTP/1.1\r\nhost: localhost\r\n\r\n")
        .await
        .unwrap();
    assert!(read_status_line(&mut stream)
        .await
        .starts_with("HTTP/1.1 200"));
    // Drain the rest of the answer, then wait: the server must close the connection.
    let mut buf = [0u8; 4096];
    let started = Instant::now();
    loop {
        match tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(_)) => continue,
            Err(_) => panic!("idle connection still open after 5 s"),
        }
    }
    assert!(started.elapsed() < Duration::from_secs(4));
}

#[tokio::test]
async fn header_timeout_does_not_close_an_idle_keep_alive_connection() {
    let server = MockServer::builder()
        .header_timeout(Duration::from_millis(200))
        .idle_timeout(Duration::from_secs(30))
        .start()
        .await;
    let mut stream = TcpStream::connect(server.address()).await.unwrap();
    for _ in 0..2 {
        stream
            .write_all(b"GET /__mock/health HTTP/1.1\r\nhost: localhost\r\n\r\n")
            .await
            .unwrap();
        let line = read_status_line(&mut stream).await;
        assert!(line.starts_with("HTTP/1.1 200"), "{line}");
        // Idle for longer than the header timeout: the connection must stay usable.
        tokio::time::sleep(Duration::from_millis(700)).await;
        let mut buf = [0u8; 4096];
        let _ = tokio::time::timeout(Duration::from_millis(50), stream.read(&mut buf)).await;
    }
}
