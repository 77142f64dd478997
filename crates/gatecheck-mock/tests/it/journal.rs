//! The request journal: bounded, and what it shows of a request.

use crate::support::*;
use gatecheck_mock::MockServer;

/// Sends `n` pipelined `GET path` requests on one keep-alive connection (writing while it
/// reads) and returns how many answers were 200. A raw client: the 100k requests of the test
/// below cost the server's work, not a client stack's.
async fn pipelined_gets(addr: std::net::SocketAddr, path: &str, n: usize) -> usize {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let (mut rd, mut wr) = stream.split();
    let request = format!("GET {path} HTTP/1.1\r\nhost: mock\r\n\r\n");
    let write = async {
        let batch = request.repeat(50);
        for _ in 0..n / 50 {
            wr.write_all(batch.as_bytes()).await.expect("write");
        }
        for _ in 0..n % 50 {
            wr.write_all(request.as_bytes()).await.expect("write");
        }
    };
    let read = async {
        let (mut buf, mut at, mut ok, mut seen) = (Vec::<u8>::new(), 0, 0, 0);
        let mut chunk = vec![0u8; 64 * 1024];
        while seen < n {
            // One whole answer at `buf[at..]`: its head, then Content-Length bytes.
            let rest = &buf[at..];
            if let Some(end) = rest.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = std::str::from_utf8(&rest[..end]).expect("ASCII head");
                let length: usize = head
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("content-length")
                            .then(|| v.trim().parse().ok())?
                    })
                    .expect("content-length");
                if rest.len() >= end + 4 + length {
                    ok += usize::from(head.starts_with("HTTP/1.1 200"));
                    seen += 1;
                    at += end + 4 + length;
                    continue;
                }
            }
            buf.drain(..at);
            at = 0;
            let got = rd.read(&mut chunk).await.expect("read");
            assert!(got > 0, "the server closed after {seen} answers");
            buf.extend_from_slice(&chunk[..got]);
        }
        ok
    };
    tokio::join!(write, read).1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn journal_holds_its_limit_after_100k_requests() {
    const TOTAL: usize = 100_000;
    const CONNECTIONS: usize = 16;
    let server = MockServer::builder().journal_capacity(1000).start().await;
    let addr = server.address();
    let mut tasks = Vec::new();
    for _ in 0..CONNECTIONS {
        tasks.push(tokio::spawn(pipelined_gets(
            addr,
            "/api/models?page_size=1",
            TOTAL / CONNECTIONS,
        )));
    }
    for t in tasks {
        assert_eq!(
            t.await.unwrap(),
            TOTAL / CONNECTIONS,
            "every answer is a 200"
        );
    }
    let journal = server.received_requests();
    assert_eq!(journal.len(), 1000);
    assert_eq!(journal.last().unwrap().seq, TOTAL as u64);
    assert_eq!(journal.first().unwrap().seq, (TOTAL - 999) as u64);
    let v = Http::new(server.uri())
        .get("/__mock/requests?limit=5", &[])
        .await
        .json();
    assert_eq!(v["held"], 1000);
    assert_eq!(v["total"], TOTAL as u64);
}

/// The journal shows a request's headers (credentials redacted) and the parts of a multipart
/// body: text parts by value, file parts by name, size and content type.
#[tokio::test]
async fn journal_records_headers_and_form_fields() {
    let server = MockServer::start().await;
    let wav = crate::media_util::wav_of(200);
    let mut body = Vec::new();
    let part = |body: &mut Vec<u8>, head: &str, data: &[u8]| {
        body.extend_from_slice(format!("--XB\r\n{head}\r\n\r\n").as_bytes());
        body.extend_from_slice(data);
        body.extend_from_slice(b"\r\n");
    };
    part(
        &mut body,
        "content-disposition: form-data; name=\"file\"; filename=\"talk.wav\"\r\ncontent-type: audio/wav",
        &wav,
    );
    part(
        &mut body,
        "content-disposition: form-data; name=\"model\"",
        b"whisper-1",
    );
    part(
        &mut body,
        "content-disposition: form-data; name=\"language\"",
        b"fr",
    );
    body.extend_from_slice(b"--XB--\r\n");
    let auth = bearer(KEY_ENABLED);
    let resp = Http::new(server.uri())
        .send(
            "POST",
            "/v1/audio/transcriptions",
            &[
                ("content-type", "multipart/form-data; boundary=XB"),
                ("authorization", auth.as_str()),
                ("x-trace", "t-1"),
                (gatecheck_mock::CONTROL_TOKEN_HEADER, "control-secret-1"),
            ],
            body,
        )
        .await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    let entry = server.received_requests().pop().expect("journaled");
    assert_eq!(entry.headers["authorization"], "Bearer ***");
    assert_eq!(entry.headers["x-trace"], "t-1");
    assert_eq!(entry.headers[gatecheck_mock::CONTROL_TOKEN_HEADER], "***");
    assert!(entry.headers["content-type"].starts_with("multipart/form-data"));
    let form = entry.form.expect("the form's parts");
    let names: Vec<&str> = form.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["file", "model", "language"]);
    assert_eq!(form[0].filename.as_deref(), Some("talk.wav"));
    assert_eq!(form[0].content_type.as_deref(), Some("audio/wav"));
    assert_eq!(form[0].size, Some(wav.len()));
    assert_eq!(form[0].value, None);
    assert_eq!(form[1].value.as_deref(), Some("whisper-1"));
    assert_eq!(form[2].value.as_deref(), Some("fr"));
    // The control API shows the same, and never the key.
    let json = Http::new(server.uri())
        .get("/__mock/requests", &[])
        .await
        .text();
    assert!(
        json.contains("\"language\"") && !json.contains(KEY_ENABLED),
        "{json}"
    );
}
