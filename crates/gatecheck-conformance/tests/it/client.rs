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
