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
    /// An answer whose head holds 2 000 headers.
    HeaderFlood,
    /// An answer whose body stops short of its `content-length`.
    ShortBody,
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
                    Hostile::HeaderFlood => {
                        let mut head = String::from("HTTP/1.1 200 OK\r\n");
                        for i in 0..2000 {
                            head.push_str(&format!("x-flood-{i}: {}\r\n", "a".repeat(64)));
                        }
                        head.push_str("content-length: 2\r\n\r\n{}");
                        let _ = s.write_all(head.as_bytes()).await;
                    }
                    Hostile::ShortBody => {
                        let _ = s
                            .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\nconnection: close\r\n\r\n{\"data\": [")
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

/// A target that answers discovery with a header flood or a body cut
/// short was reached, and misbehaved: docs/verdicts.md's exit 1 (`target`), not unreachable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_breaking_http_in_discovery_misbehaved_and_was_not_unreachable() {
    for kind in [Hostile::HeaderFlood, Hostile::ShortBody] {
        let text = run(kind).await;
        let report: serde_json::Value = serde_json::from_str(&text).expect(&text);
        assert_eq!(report["setup_failure"]["kind"], "target", "{text}");
        assert!(
            report["setup_failure"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("broke HTTP")),
            "{text}"
        );
    }
}

/// What the gate proxy does to the key write-backs (`PUT /api/token/` with credentials) it
/// sees; everything else goes to the mock untouched.
#[derive(Clone, Copy)]
enum WriteBack {
    /// The answer's head at once, then one byte every 400 ms (a target answering one byte a
    /// second, faster).
    Drip,
    /// The connection dropped with the request read (a reset).
    Reset,
}

type ProxyBody = http_body_util::combinators::BoxBody<bytes::Bytes, std::io::Error>;

/// A proxy in front of the mock at `upstream` that breaks its key write-backs as `mode` says.
async fn gate(upstream: String, mode: WriteBack) -> String {
    use http_body_util::BodyExt;
    use hyper_util::client::legacy::{connect::HttpConnector, Client};
    use hyper_util::rt::{TokioExecutor, TokioIo};
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let client: Client<HttpConnector, ProxyBody> =
        Client::builder(TokioExecutor::new()).build(HttpConnector::new());
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (client, upstream) = (client.clone(), upstream.clone());
            tokio::spawn(async move {
                let svc =
                    hyper::service::service_fn(move |req: http::Request<hyper::body::Incoming>| {
                        let (client, upstream) = (client.clone(), upstream.clone());
                        async move {
                            let (mut parts, body) = req.into_parts();
                            let body = body
                                .collect()
                                .await
                                .map_err(std::io::Error::other)?
                                .to_bytes();
                            // Discovery's probe of the route (`{"id": -1}`) goes through.
                            let write_back = parts.method == http::Method::PUT
                                && parts.uri.path().starts_with("/api/token")
                                && parts.headers.contains_key(http::header::AUTHORIZATION)
                                && !String::from_utf8_lossy(&body).contains("\"id\":-1");
                            if write_back {
                                return match mode {
                                    WriteBack::Reset => Err(std::io::Error::other("reset")),
                                    WriteBack::Drip => Ok(drip()),
                                };
                            }
                            let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
                            parts.uri = format!("{upstream}{path}").parse().expect("uri");
                            let body =
                                http_body_util::Full::new(body).map_err(|never| match never {});
                            let req = http::Request::from_parts(parts, body.boxed());
                            match client.request(req).await {
                                Ok(res) => {
                                    Ok(res.map(|b| b.map_err(std::io::Error::other).boxed()))
                                }
                                Err(e) => Err(std::io::Error::other(e)),
                            }
                        }
                    });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    format!("http://{addr}")
}

/// A 200 whose JSON body comes one byte every 400 ms.
fn drip() -> http::Response<ProxyBody> {
    use http_body_util::BodyExt;
    let body = br#"{"success":true,"message":"","data":{"id":1}}"#.to_vec();
    let len = body.len();
    let frames = futures_util::stream::unfold(0usize, move |i| {
        let body = body.clone();
        async move {
            if i >= body.len() {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(400)).await;
            let frame = hyper::body::Frame::data(bytes::Bytes::copy_from_slice(&body[i..=i]));
            Some((Ok::<_, std::io::Error>(frame), i + 1))
        }
    });
    http::Response::builder()
        .header("content-type", "application/json")
        .header("content-length", len)
        .body(http_body_util::StreamBody::new(frames).boxed())
        .expect("response")
}

/// The mock on the real clock as a deployment behind `gate`, key 1 named (snapshotted and
/// restored at the end), two key checks that each need the key written back before them.
async fn run_behind_gate(
    mode: WriteBack,
    deadline: Duration,
) -> (gatecheck_conformance::Report, Duration) {
    let server = gatecheck_mock::MockServer::start().await;
    let base = gate(server.uri(), mode).await;
    let mut c = RunnerConfig::new(base.parse().expect("url"));
    c.target.access_token = Some(server.demo_account().access_token.into());
    c.target.user_id = Some(1);
    c.target.key_id = Some(1);
    c.target.api_key = Some(server.demo_key().into());
    c.known.use_mock_control = false;
    c.scope.only = vec![
        "key.disabled-rejected".into(),
        "key.expired-status-rejected".into(),
    ];
    c.scope.seed = Some(1);
    c.limits.request_timeout = Duration::from_millis(700);
    c.limits.deadline = deadline;
    let started = std::time::Instant::now();
    let report = Runner::new(c).run().await.expect("run");
    let took = started.elapsed();
    server.shutdown().await;
    (report, took)
}

/// A write-back that times out is not ignored (the checks it guards
/// error, none passes on a key in an unknown state), the final restore that cannot finish is
/// said and fails the run, and the run ends by its deadline, the restore included.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_key_write_back_errors_its_checks_and_the_deadline_bounds_the_restore() {
    let deadline = Duration::from_secs(3);
    let (report, took) = run_behind_gate(WriteBack::Drip, deadline).await;
    let text = gatecheck_conformance::report::summary_table(&report);
    assert!(
        took < deadline + Duration::from_millis(800),
        "took {took:?}\n{text}"
    );
    assert_eq!(report.summary.passed, 0, "{text}");
    assert!(report.summary.errors >= 1, "{text}");
    assert!(report.key_not_restored, "{text}");
    assert!(text.contains("could NOT be put back"), "{text}");
    assert_eq!(
        report.exit_code(),
        gatecheck_conformance::exit::CONTRACT_FAILURES,
        "{text}"
    );
}

/// The same write-back under a connection reset: the checks it guards error, never pass.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reset_key_write_back_errors_the_checks_it_guards() {
    let (report, _) = run_behind_gate(WriteBack::Reset, Duration::from_secs(20)).await;
    let text = gatecheck_conformance::report::summary_table(&report);
    assert_eq!(report.summary.errors, 2, "{text}");
    assert!(
        text.contains("could not be put back to its first state"),
        "{text}"
    );
    assert!(report.key_not_restored, "{text}");
    assert_eq!(
        report.exit_code(),
        gatecheck_conformance::exit::CONTRACT_FAILURES
    );
}

/// The run's bytes are bounded as a whole (`--budget-bytes`), not only
/// per body: past the budget the run sends nothing more, and the checks left are skipped
/// `budget-spent`, the run ending at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_run_reads_no_more_than_its_byte_budget() {
    let server = gatecheck_mock::MockServer::start().await;
    let mut c = RunnerConfig::new(server.uri().parse().expect("url"));
    c.target.api_key = Some(server.demo_key().into());
    c.scope.only = vec!["catalog.*".into(), "v1.*".into(), "auth.v1.*".into()];
    c.scope.cases = 2;
    c.scope.seed = Some(1);
    c.limits.budget_bytes = Some(40_000);
    let report = Runner::new(c).run().await.expect("run");
    let text = gatecheck_conformance::report::summary_table(&report);
    let spent = report
        .summary
        .skipped_by_cause
        .get(&gatecheck_conformance::SkipCause::BudgetSpent)
        .copied()
        .unwrap_or(0);
    assert!(spent > 0, "{text}");
    assert!(text.contains("byte budget of 40000"), "{text}");
    let served = server.received_requests().len();
    assert!(served < 60, "{served} requests after the budget\n{text}");
    server.shutdown().await;
}
