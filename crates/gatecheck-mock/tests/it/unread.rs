//! Bodies the mock refuses before reading them (401, 403, 404): read and discarded the way
//! Go's net/http server does (up to 256 KiB, then the connection is closed cleanly), so a
//! client still sending finishes its write and gets the whole answer (DECISIONS D-ROUTE-1).

use crate::support::*;
use gatecheck_mock::MockServer;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Every test ends well within this.
const DEADLINE: Duration = Duration::from_secs(15);

/// A request head for `path` with `auth` and a declared body of `len` bytes.
fn head(path: &str, auth: &str, len: usize, extra: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nhost: x\r\nauthorization: {auth}\r\n\
         content-type: multipart/form-data; boundary=b\r\ncontent-length: {len}\r\n{extra}\r\n"
    )
}

/// Writes `len` body bytes in 10 KiB pieces, 3 ms apart (a slow client).
async fn send_slowly(w: &mut (impl AsyncWriteExt + Unpin), len: usize) -> std::io::Result<()> {
    let piece = vec![b'a'; 10 * 1024];
    let mut left = len;
    while left > 0 {
        let n = left.min(piece.len());
        w.write_all(&piece[..n]).await?;
        left -= n;
        tokio::time::sleep(Duration::from_millis(3)).await;
    }
    w.flush().await
}

/// One answer read off `r`: status, lower-cased head, body (by `content-length`).
async fn read_answer(r: &mut (impl AsyncReadExt + Unpin)) -> (u16, String, Vec<u8>) {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = got.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = r.read(&mut buf).await.expect("read the answer");
        assert!(n > 0, "connection closed before the answer: {got:?}");
        got.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&got[..head_end]).to_ascii_lowercase();
    let status = head[9..12].parse().expect("status");
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .and_then(|v| v.trim().parse().ok())
        .expect("content-length");
    let mut body = got[head_end..].to_vec();
    while body.len() < len {
        let n = r.read(&mut buf).await.expect("read the body");
        assert!(n > 0, "connection closed inside the answer's body");
        body.extend_from_slice(&buf[..n]);
    }
    (status, head, body)
}

/// A client that writes a 200 KiB body slowly and only then reads gets the whole answer, and
/// the connection stays open for its next request: 401 (bad key), 403 (IP allowlist), 404.
#[tokio::test]
async fn a_refused_short_body_is_read_and_the_connection_kept() {
    let server = MockServer::start().await;
    let cases = [
        ("/v1/audio/transcriptions", bearer("not-a-key"), 401),
        ("/v1/audio/transcriptions", bearer(KEY_IP_RESTRICTED), 403),
        ("/v1/no/such/route", bearer(KEY_ENABLED), 404),
    ];
    for (path, auth, status) in cases {
        let run = async {
            let mut s = TcpStream::connect(server.address()).await.expect("connect");
            let len = 200 * 1024;
            s.write_all(head(path, &auth, len, "").as_bytes()).await?;
            send_slowly(&mut s, len).await?;
            let (got, head, body) = read_answer(&mut s).await;
            assert_eq!(got, status, "{path}: {head}");
            assert!(!head.contains("connection: close"), "{path}: {head}");
            serde_json::from_slice::<serde_json::Value>(&body).expect("a JSON body");
            // Kept open: a next request on the same connection is answered.
            s.write_all(b"GET /health HTTP/1.1\r\nhost: x\r\n\r\n")
                .await?;
            let (next, _, _) = read_answer(&mut s).await;
            assert_eq!(next, 200, "{path}");
            std::io::Result::Ok(())
        };
        tokio::time::timeout(DEADLINE, run)
            .await
            .unwrap_or_else(|_| panic!("{path}: no answer in time"))
            .unwrap_or_else(|e| panic!("{path}: the client's write failed: {e}"));
    }
}

/// A body over 256 KiB, sent while the client reads: the whole answer, `Connection: close`,
/// then a clean end of the stream (a FIN, not a reset), and the client's write finishes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_long_body_gets_the_answer_then_a_clean_close() {
    let server = MockServer::start().await;
    for declared in [true, false] {
        let s = TcpStream::connect(server.address()).await.expect("connect");
        let (mut r, mut w) = s.into_split();
        let len = 1024 * 1024;
        let auth = bearer("not-a-key");
        let head = if declared {
            head("/v1/audio/transcriptions", &auth, len, "")
        } else {
            // Chunked: the length is not known until more than 256 KiB has been read.
            "POST /v1/audio/transcriptions HTTP/1.1\r\nhost: x\r\nauthorization: x\r\n\
             transfer-encoding: chunked\r\n\r\n"
                .to_owned()
        };
        let writer = tokio::spawn(async move {
            w.write_all(head.as_bytes()).await?;
            if declared {
                send_slowly(&mut w, len).await?;
            } else {
                let chunk = vec![b'a'; 64 * 1024];
                for _ in 0..16 {
                    w.write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
                        .await?;
                    w.write_all(&chunk).await?;
                    w.write_all(b"\r\n").await?;
                }
                w.write_all(b"0\r\n\r\n").await?;
            }
            std::io::Result::Ok(())
        });
        let run = async {
            let (status, head, body) = read_answer(&mut r).await;
            assert_eq!(status, 401, "{head}");
            assert!(head.contains("connection: close"), "{head}");
            serde_json::from_slice::<serde_json::Value>(&body).expect("a JSON body");
            let mut rest = Vec::new();
            let end = r.read_to_end(&mut rest).await;
            assert!(end.is_ok(), "not a clean close: {end:?}");
            assert!(rest.is_empty(), "bytes after the answer: {rest:?}");
            writer.await.expect("join")
        };
        tokio::time::timeout(DEADLINE, run)
            .await
            .expect("no hang")
            .unwrap_or_else(|e| panic!("declared {declared}: the client's write failed: {e}"));
    }
}

/// `Expect: 100-continue` and a refusal: no `100 Continue`, the answer at once, and
/// `Connection: close` (Go's closeAfterReply), with nothing of the body sent.
#[tokio::test]
async fn expect_continue_is_refused_without_continue() {
    let server = MockServer::start().await;
    let mut s = TcpStream::connect(server.address()).await.expect("connect");
    let head = head(
        "/v1/audio/transcriptions",
        &bearer("not-a-key"),
        1_000_000,
        "expect: 100-continue\r\n",
    );
    s.write_all(head.as_bytes()).await.expect("write");
    let (status, head, _) = tokio::time::timeout(DEADLINE, read_answer(&mut s))
        .await
        .expect("answered without the body");
    assert_eq!(status, 401, "{head}");
    assert!(head.contains("connection: close"), "{head}");
}
