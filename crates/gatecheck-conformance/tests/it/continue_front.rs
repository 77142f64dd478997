//! The 413 probe's `Expect: 100-continue` in front of a server that never
//! sends `100 Continue` (an HTTP/1.0 front, some proxies): a tiny hand-written TCP front drops
//! the `Expect` header on its way to the mock, so no `100 Continue` ever comes back. The probe
//! sends its body after about a second, as curl does, and gets its 413 well within the request
//! timeout (it used to wait for the whole timeout and end in an error).

use gatecheck_conformance::{Runner, Status};
use gatecheck_mock::{ClockMode, MockServer};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The request head of `buf` (through its blank line) without an `Expect` line, and the rest.
fn without_expect(buf: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = String::from_utf8_lossy(&buf[..end]);
    let kept: String = head
        .split_inclusive("\r\n")
        .filter(|l| !l.to_ascii_lowercase().starts_with("expect:"))
        .collect();
    Some((kept.into_bytes(), buf[end..].to_vec()))
}

/// One connection: the first head without `Expect`, then bytes both ways as they come.
async fn front(mut client: TcpStream, upstream: String) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let (head, rest) = loop {
        match client.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
        if let Some(split) = without_expect(&buf) {
            break split;
        }
    };
    let Ok(mut server) = TcpStream::connect(upstream).await else {
        return;
    };
    if server.write_all(&head).await.is_err() || server.write_all(&rest).await.is_err() {
        return;
    }
    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
}

/// A front on a free port that forwards to `upstream` (`host:port`) and never answers
/// `100 Continue`.
async fn start_front(upstream: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(front(stream, upstream.clone()));
        }
    });
    format!("http://{addr}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_413_probe_sends_its_body_when_no_100_continue_comes() {
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    let upstream = server.uri().trim_start_matches("http://").to_owned();
    let front = start_front(upstream).await;
    let mut config = super::support::config(&front);
    config.limits.request_timeout = Duration::from_secs(8);
    config.scope.only = vec!["audio.upload.too-large-413".into()];
    let started = Instant::now();
    let report = Runner::new(config).run().await.expect("run");
    let took = started.elapsed();
    let show = gatecheck_conformance::report::summary_table(&report);
    let c = report
        .checks
        .iter()
        .find(|c| c.id == "audio.upload.too-large-413")
        .expect("check");
    assert_eq!(c.status, Status::Passed, "{show}");
    assert!(
        took < Duration::from_secs(8),
        "took {took:?}: waited for a 100 Continue"
    );
    println!(
        "413 probe through a front without 100 Continue: {:?} in {took:?}",
        c.status
    );
    server.shutdown().await;
}
