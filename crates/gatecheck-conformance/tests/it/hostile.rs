//! The whole runner against hostile targets: connection resets, endless bodies, silence,
//! off-host redirects, garbage JSON and wrong content types. Each run ends (within its
//! deadline) with a report or a clean error, never a panic or a hang, and never leaks the key.

use gatecheck_conformance::{Runner, RunnerConfig};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const KEY: &str = "sk-hostiletargetkey0123456789";
const TOKEN: &str = "hostileaccesstoken0123456789";

#[derive(Clone, Copy)]
enum Hostile {
    Reset,
    Endless,
    Silent,
    OffHostRedirect,
    GarbageJson,
    WrongContentType,
}

async fn serve(kind: Hostile) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            tokio::spawn(async move {
                if matches!(kind, Hostile::Reset) {
                    // Closing with the request unread makes the kernel answer with a reset.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    drop(s);
                    return;
                }
                let mut buf = [0u8; 8192];
                let _ = s.read(&mut buf).await;
                let answer = |body: &str, ct: &str| {
                    format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: {ct}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    )
                };
                match kind {
                    Hostile::Reset => {}
                    Hostile::Endless => {
                        let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
                        if s.write_all(head.as_bytes()).await.is_ok() {
                            let chunk = format!("{:x}\r\n{}\r\n", 65536, "[".repeat(65536));
                            while s.write_all(chunk.as_bytes()).await.is_ok() {}
                        }
                    }
                    Hostile::Silent => tokio::time::sleep(Duration::from_secs(60)).await,
                    Hostile::OffHostRedirect => {
                        let _ = s
                            .write_all(b"HTTP/1.1 307 Temporary Redirect\r\nlocation: http://attacker.invalid/steal\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                            .await;
                    }
                    Hostile::GarbageJson => {
                        let _ = s
                            .write_all(
                                answer("{\"data\": [1, 2, {\"id\": tru", "application/json")
                                    .as_bytes(),
                            )
                            .await;
                    }
                    Hostile::WrongContentType => {
                        let _ = s
                            .write_all(answer("<html>hello</html>", "text/html").as_bytes())
                            .await;
                    }
                }
            });
        }
    });
    format!("http://{addr}")
}

async fn run(kind: Hostile) -> String {
    let base = serve(kind).await;
    let mut config = RunnerConfig::new(base.parse().expect("url"));
    config.target.api_key = Some(KEY.into());
    config.target.access_token = Some(TOKEN.into());
    config.target.user_id = Some(1);
    config.target.key_id = Some(1);
    config.scope.cases = 1;
    config.scope.seed = Some(1);
    config.limits.request_timeout = Duration::from_secs(2);
    config.limits.deadline = Duration::from_secs(60);
    let outcome = tokio::time::timeout(Duration::from_secs(120), Runner::new(config).run())
        .await
        .expect("the run did not end");
    let text = match outcome {
        Ok(report) => report.to_json(),
        Err(e) => e.to_string(),
    };
    assert!(!text.contains(&KEY[3..]), "the key leaked: {text}");
    assert!(!text.contains(TOKEN), "the token leaked: {text}");
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resetting_target_ends_cleanly() {
    run(Hostile::Reset).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_target_ends_cleanly() {
    run(Hostile::Endless).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_target_ends_cleanly() {
    run(Hostile::Silent).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_off_host_redirecting_target_ends_cleanly() {
    let text = run(Hostile::OffHostRedirect).await;
    assert!(!text.contains("attacker.invalid/steal?"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_garbage_json_target_ends_cleanly() {
    run(Hostile::GarbageJson).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_content_type_target_ends_cleanly() {
    run(Hostile::WrongContentType).await;
}
