//! The client: host pinning, redirects never followed (and refused off the host), timeouts,
//! and reproducible curl commands with secrets redacted.

use gatecheck_conformance::{
    Auth, Client, ClientConfig, ClientError, Redactor, RequestSpec, Secret, Target,
};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A server that answers every request with `response` (raw HTTP/1.1), or never answers.
async fn raw_server(response: Option<&'static str>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = s.read(&mut buf).await;
                match response {
                    Some(r) => {
                        let _ = s.write_all(r.as_bytes()).await;
                    }
                    None => tokio::time::sleep(Duration::from_secs(30)).await,
                }
            });
        }
    });
    format!("http://{addr}")
}

fn client(base: &str, timeout: Duration) -> Client {
    let mut target = Target::new(base.parse().expect("url"));
    target.api_key = Some(Secret::new("sk-supersecretkey123456"));
    Client::new(ClientConfig {
        timeout,
        ..ClientConfig::new(target)
    })
    .expect("client")
}

#[tokio::test]
async fn a_redirect_to_another_host_is_refused() {
    let base = raw_server(Some(
        "HTTP/1.1 302 Found\r\nLocation: http://example.invalid/x\r\nContent-Length: 0\r\n\r\n",
    ))
    .await;
    let err = client(&base, Duration::from_secs(5))
        .send(&RequestSpec::get("/api/models"))
        .await
        .expect_err("refused");
    assert!(matches!(err, ClientError::OffHostRedirect { .. }), "{err}");
}

#[tokio::test]
async fn a_same_host_redirect_is_returned_not_followed() {
    let base = raw_server(Some(
        "HTTP/1.1 301 Moved\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n",
    ))
    .await;
    let ex = client(&base, Duration::from_secs(5))
        .send(&RequestSpec::get("/api/models"))
        .await
        .expect("answer");
    assert_eq!(ex.status.as_u16(), 301);
}

#[tokio::test]
async fn requests_to_other_hosts_are_refused_before_sending() {
    let c = client("http://127.0.0.1:9", Duration::from_secs(5));
    let err = c
        .send(&RequestSpec::get("http://example.invalid/v1/videos"))
        .await
        .expect_err("refused");
    assert!(matches!(err, ClientError::OffHost { .. }), "{err}");
}

#[tokio::test]
async fn a_silent_server_times_out() {
    let base = raw_server(None).await;
    let err = client(&base, Duration::from_millis(300))
        .send(&RequestSpec::get("/"))
        .await
        .expect_err("timeout");
    assert!(matches!(err, ClientError::Timeout(_)), "{err}");
}

#[test]
fn curl_commands_reproduce_requests_without_secrets() {
    let mut target = Target::new("http://127.0.0.1:3000".parse().expect("url"));
    target.user_id = Some(1);
    let r = Redactor::new();
    r.add("sk-supersecretkey123456");
    let spec = RequestSpec::put("/api/token/")
        .auth(Auth::AccessToken)
        .json(serde_json::json!({"id": 1, "name": "it's", "key": "sk-supersecretkey123456"}));
    let curl = spec.to_curl(&target, &r);
    assert!(
        curl.starts_with("curl -sS -X PUT 'http://127.0.0.1:3000/api/token/'"),
        "{curl}"
    );
    assert!(curl.contains("$GATECHECK_ACCESS_TOKEN"));
    assert!(curl.contains("New-Api-User: 1"));
    assert!(curl.contains(r#"it'\''s"#), "{curl}");
    assert!(!curl.contains("supersecret"), "{curl}");
    let raw = RequestSpec::get("/v1/videos/x")
        .auth(Auth::Raw(Secret::new("Bearer sk-supersecretkey123456")));
    assert!(!raw.to_curl(&target, &r).contains("supersecret"));
}

#[tokio::test]
async fn plain_http_goes_through_a_configured_proxy_in_absolute_form() {
    // A "proxy" that records the request line and answers itself.
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let proxy = format!("http://{}", listener.local_addr().expect("addr"));
    let seen = tokio::spawn(async move {
        let (mut s, _) = listener.accept().await.expect("accept");
        let mut buf = vec![0u8; 4096];
        let n = s.read(&mut buf).await.expect("read");
        let body = "{\"via\":\"proxy\"}";
        let answer = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        s.write_all(answer.as_bytes()).await.expect("write");
        String::from_utf8_lossy(&buf[..n]).into_owned()
    });
    // A non-loopback name: loopback targets never use a proxy. It is never resolved.
    let target = Target::new("http://gatecheck.invalid:8080".parse().expect("url"));
    let c = Client::new(ClientConfig {
        proxy: Some(proxy),
        ..ClientConfig::new(target)
    })
    .expect("client");
    let ex = c
        .send(&RequestSpec::get("/api/models"))
        .await
        .expect("answer via proxy");
    assert_eq!(ex.json().expect("json")["via"], "proxy");
    let request = seen.await.expect("proxy task");
    assert!(
        request.starts_with("GET http://gatecheck.invalid:8080/api/models HTTP/1.1"),
        "{request}"
    );
}

#[test]
fn https_targets_build_with_the_bundled_roots() {
    let target = Target::new("https://gateway.example.com".parse().expect("url"));
    assert!(Client::new(ClientConfig::new(target)).is_ok());
}

#[tokio::test]
async fn https_goes_through_a_configured_proxy_with_connect() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let proxy = format!("http://{}", listener.local_addr().expect("addr"));
    let seen = tokio::spawn(async move {
        let (mut s, _) = listener.accept().await.expect("accept");
        let mut buf = vec![0u8; 4096];
        let n = s.read(&mut buf).await.expect("read");
        // Accept the tunnel, then drop it: the TLS handshake fails, which is fine here.
        let _ = s
            .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
            .await;
        String::from_utf8_lossy(&buf[..n]).into_owned()
    });
    let target = Target::new("https://gateway.example.com".parse().expect("url"));
    let c = Client::new(ClientConfig {
        proxy: Some(proxy),
        timeout: Duration::from_secs(5),
        ..ClientConfig::new(target)
    })
    .expect("client");
    let _ = c.send(&RequestSpec::get("/api/models")).await;
    let request = seen.await.expect("proxy task");
    assert!(
        request.starts_with("CONNECT gateway.example.com:443 HTTP/1.1"),
        "{request}"
    );
}

/// A server that answers every request with a chunked body that never ends.
async fn endless_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = s.read(&mut buf).await;
                let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
                if s.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let chunk = format!("{:x}\r\n{}\r\n", 64 * 1024, "a".repeat(64 * 1024));
                while s.write_all(chunk.as_bytes()).await.is_ok() {}
            });
        }
    });
    format!("http://{addr}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endless_bodies_stay_within_one_memory_budget() {
    let base = endless_server().await;
    let budget = gatecheck_conformance::internals::MemoryBudget::new(8 << 20);
    let c = Client::new(ClientConfig {
        timeout: Duration::from_secs(20),
        max_body_bytes: 4 << 20,
        memory_budget: budget.clone(),
        ..ClientConfig::new(Target::new(base.parse().expect("url")))
    })
    .expect("client");
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..16 {
        let c = c.clone();
        tasks.spawn(async move { c.send(&RequestSpec::get("/v1/x")).await });
    }
    let (mut too_large, mut over_budget) = (0, 0);
    while let Some(r) = tasks.join_next().await {
        match r.expect("task") {
            Err(ClientError::BodyTooLarge(n)) => {
                assert_eq!(n, 4 << 20);
                too_large += 1;
            }
            Err(ClientError::MemoryBudget(n)) => {
                assert_eq!(n, 8 << 20);
                over_budget += 1;
            }
            other => panic!("unexpected: {other:?}"),
        }
        // Never more than the budget reserved at once.
        assert!(budget.available() <= budget.total());
    }
    assert_eq!(too_large + over_budget, 16);
    assert_eq!(budget.available(), budget.total(), "bytes not given back");
    eprintln!("16 endless bodies: {too_large} hit the 4 MiB cap, {over_budget} the 8 MiB budget");
}

#[tokio::test]
async fn target_headers_go_with_every_request_and_stay_out_of_curl() {
    // A gateway that routes by header (Portkey's x-portkey-provider): a server that keeps the
    // head of every request it reads.
    let heads = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let kept = heads.clone();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let kept = kept.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let n = s.read(&mut buf).await.unwrap_or(0);
                kept.lock()
                    .expect("lock")
                    .push(String::from_utf8_lossy(&buf[..n]).to_lowercase());
                let _ = s
                    .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
                    .await;
            });
        }
    });
    let mut target = Target::new(format!("http://{addr}").parse().expect("url"));
    target.headers = vec![(
        "x-gateway-route".to_owned(),
        Secret::new("route-secret-value-123"),
    )];
    let c = Client::new(ClientConfig::new(target.clone())).expect("client");
    let spec = RequestSpec::get("/api/models");
    c.send(&spec).await.expect("sent");
    // A request's own header of the same name wins over the target's.
    let own = RequestSpec::get("/api/models?p=2").header("x-gateway-route", "own");
    c.send(&own).await.expect("sent");
    let heads = heads.lock().expect("lock").clone();
    assert!(
        heads[0].contains("x-gateway-route: route-secret-value-123"),
        "{heads:?}"
    );
    assert!(heads[1].contains("x-gateway-route: own"), "{heads:?}");
    assert!(!heads[1].contains("route-secret-value-123"), "{heads:?}");
    let redactor = Redactor::new();
    redactor.add("route-secret-value-123");
    let curl = spec.to_curl(&target, &redactor);
    assert!(
        curl.contains("x-gateway-route: $GATECHECK_HEADER_1"),
        "{curl}"
    );
    assert!(!curl.contains("route-secret-value-123"), "{curl}");
}

/// `Transport::direct` (the request sequence of `diff` and snapshots, `fixtures pull`) sends a
/// request once and returns what came: a 503 is not retried, and an answer a replay marks
/// `unmatched` is an answer. A run's transport retries the 503 and refuses the unmatched one.
#[tokio::test]
async fn a_direct_transport_sends_once_and_returns_what_came() {
    use gatecheck_conformance::internals::{Backoff, Transport, TransportConfig, TransportError};
    let run_config = || TransportConfig {
        max_requests: None,
        max_quota: None,
        rate: None,
        concurrency: 1,
        backoff: Backoff {
            base: Duration::from_millis(1),
            max: Duration::from_millis(2),
            max_retries: 2,
        },
        deadline: tokio::time::Instant::now() + Duration::from_secs(60),
        dry_run: false,
        seed: 0,
        retry_budget: None,
        bytes: Default::default(),
    };
    let spec = RequestSpec::get("/api/models?p=1&page_size=100");
    let busy = raw_server(Some(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
    ))
    .await;
    let direct = Transport::direct(client(&busy, Duration::from_secs(5)));
    let ex = direct.send(&spec, 0).await.expect("answered");
    assert_eq!(ex.status.as_u16(), 503);
    assert_eq!((direct.sent(), direct.retries()), (1, 0));
    let run = Transport::new(client(&busy, Duration::from_secs(5)), run_config());
    let ex = run.send(&spec, 0).await.expect("answered");
    assert_eq!(ex.status.as_u16(), 503);
    assert_eq!((run.sent(), run.retries()), (3, 2));

    let unmatched = raw_server(Some(
        "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nx-gatecheck-replay: unmatched\r\nconnection: close\r\n\r\n",
    ))
    .await;
    let direct = Transport::direct(client(&unmatched, Duration::from_secs(5)));
    let ex = direct.send(&spec, 0).await.expect("answered");
    assert_eq!(ex.status.as_u16(), 404);
    let run = Transport::new(client(&unmatched, Duration::from_secs(5)), run_config());
    let refused = run.send(&spec, 0).await;
    assert!(
        matches!(refused, Err(TransportError::NotInRecording(_))),
        "{refused:?}"
    );
}

/// The run's byte budget is charged by every answer, across the
/// transports that share it, and once spent no request is sent (`budget-spent`), however
/// many each body is under its own cap.
#[tokio::test]
async fn the_run_wide_byte_budget_stops_the_run_not_just_one_body() {
    use gatecheck_conformance::internals::{
        Backoff, BudgetExhausted, ByteBudget, Transport, TransportConfig, TransportError,
    };
    // 4 000 bytes a body: the budget of 10 000 lets three answers in, then refuses.
    let body: &'static str = Box::leak(
        format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 4000\r\nconnection: close\r\n\r\n\"{}\"",
            "a".repeat(3998)
        )
        .into_boxed_str(),
    );
    let server = raw_server(Some(body)).await;
    let bytes = ByteBudget::new(Some(10_000));
    let config = || TransportConfig {
        max_requests: None,
        max_quota: None,
        rate: None,
        concurrency: 1,
        backoff: Backoff::none(),
        deadline: tokio::time::Instant::now() + Duration::from_secs(60),
        dry_run: false,
        seed: 0,
        retry_budget: None,
        bytes: bytes.clone(),
    };
    // Two transports of one run (discovery's and the checks') share the budget.
    let probe = Transport::new(client(&server, Duration::from_secs(5)), config());
    let checks = Transport::new(client(&server, Duration::from_secs(5)), config());
    let spec = RequestSpec::get("/v1/models");
    probe.send(&spec, 0).await.expect("first");
    checks.send(&spec, 0).await.expect("second");
    checks.send(&spec, 0).await.expect("third");
    assert_eq!(bytes.read(), 12_000);
    let refused = checks.send(&spec, 0).await;
    assert!(
        matches!(
            refused,
            Err(TransportError::Budget(BudgetExhausted::Bytes(10_000)))
        ),
        "{refused:?}"
    );
    assert!(refused.unwrap_err().is_stop());
    assert!(probe.send(&spec, 0).await.is_err());
    assert_eq!((probe.sent(), checks.sent()), (1, 2));
}
