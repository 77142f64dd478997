//! The library API: MockServer, its builder, and shutdown on drop.

use crate::support::*;
use gatecheck_mock::{ClockMode, Fault, MockServer, NewKey};
use std::time::Duration;

#[tokio::test]
async fn start_serves_on_a_random_loopback_port_with_a_demo_key() {
    let server = MockServer::start().await;
    assert!(server.uri().starts_with("http://127.0.0.1:"));
    assert_eq!(server.demo_key(), format!("sk-{KEY_ENABLED}"));
    let auth = format!("Bearer {}", server.demo_key());
    let resp = Http::new(server.uri())
        .get("/v1/models", &[("authorization", &auth)])
        .await;
    assert_eq!(resp.status, 200);
    assert_eq!(server.demo_account().access_token, ACCESS_TOKEN);
}

#[tokio::test]
async fn builder_sets_profile_clock_and_fixtures() {
    let fixtures = gatecheck_mock::Fixtures::embedded();
    let server = MockServer::builder()
        .profile(gatecheck_schemas::Profile::NewApi)
        .clock(ClockMode::Virtual {
            epoch: 1_900_000_000,
        })
        .fixtures(fixtures)
        .start()
        .await;
    assert_eq!(server.profile(), gatecheck_schemas::Profile::NewApi);
    assert_eq!(server.clock().now(), 1_900_000_000);
    server.clock().advance(Duration::from_secs(5));
    assert_eq!(server.clock().now(), 1_900_000_005);
}

#[tokio::test]
async fn add_key_inject_and_received_requests() {
    let server = MockServer::start().await;
    let key = server.add_key(NewKey::new().name("lib").remain_quota(5));
    assert_eq!(server.key(key.id).unwrap().name, "lib");
    server.inject(Fault::status(500).on("/v1/models").times(1));
    let http = Http::new(server.uri());
    let auth = bearer(&key.key);
    assert_eq!(
        http.get("/v1/models", &[("authorization", &auth)])
            .await
            .status,
        500
    );
    assert_eq!(
        http.get("/v1/models", &[("authorization", &auth)])
            .await
            .status,
        200
    );
    let calls = server.received_requests();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].fault.as_deref(), Some("status 500"));
    assert_eq!(calls[1].key_id, Some(key.id));
}

#[tokio::test]
async fn state_round_trips_through_load_state() {
    let server = MockServer::start().await;
    server.add_key(NewKey::new().name("saved"));
    let saved = server.state();
    server.reset();
    assert!(server.key(9).is_none());
    server.load_state(saved);
    assert_eq!(server.key(9).unwrap().name, "saved");
}

#[tokio::test]
async fn dropping_the_server_shuts_it_down() {
    let server = MockServer::start().await;
    let addr = server.address();
    drop(server);
    let mut refused = false;
    for _ in 0..50 {
        if tokio::net::TcpStream::connect(addr).await.is_err() {
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(refused, "the port still accepts connections after drop");
}

#[tokio::test]
async fn shutdown_waits_for_the_server_task() {
    let server = MockServer::start().await;
    let addr = server.address();
    server.shutdown().await;
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

#[tokio::test]
async fn fixtures_from_a_directory_replace_the_embedded_ones() {
    let dir = std::env::temp_dir().join(format!("gatecheck-fixtures-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let keys = serde_json::json!({"keys": [{
        "id": 42, "user_id": 1, "key": "sk-CustomKey0000000000000000000000000000000000000000",
        "status": 1, "name": "custom", "created_time": 0, "accessed_time": 0,
        "expired_time": -1, "remain_quota": 10, "unlimited_quota": false,
        "model_limits_enabled": false, "model_limits": "", "allow_ips": null,
        "used_quota": 0, "group": "", "cross_group_retry": false
    }]});
    std::fs::write(dir.join("keys.json"), keys.to_string()).unwrap();
    let fixtures = gatecheck_mock::Fixtures::from_dir(&dir).unwrap();
    let server = MockServer::builder().fixtures(fixtures).start().await;
    assert_eq!(
        server.demo_key(),
        "sk-CustomKey0000000000000000000000000000000000000000"
    );
    assert!(server.key(1).is_none());
    // Files not in the directory come from the embedded fixtures.
    assert_eq!(server.demo_account().access_token, ACCESS_TOKEN);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn received_requests_keep_a_preview_of_json_bodies() {
    let server = MockServer::start().await;
    let body = serde_json::json!({"id": 1, "name": "journaled"});
    Http::new(server.uri())
        .json(
            "PUT",
            "/api/token/",
            &[("authorization", ACCESS_TOKEN)],
            body.clone(),
        )
        .await;
    let calls = server.received_requests();
    let put = calls.last().unwrap();
    assert_eq!(put.body_len, Some(body.to_string().len()));
    let seen: serde_json::Value = serde_json::from_str(put.body.as_deref().unwrap()).unwrap();
    assert_eq!(seen, body);
}

#[tokio::test]
async fn http2_prior_knowledge_is_served_too() {
    use http_body_util::{BodyExt, Empty};
    let server = MockServer::start().await;
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .http2_only(true)
        .build_http::<Empty<bytes::Bytes>>();
    let req = http::Request::get(format!("{}/api/models?page_size=1", server.uri()))
        .body(Empty::new())
        .unwrap();
    let resp = client.request(req).await.unwrap();
    assert_eq!(resp.version(), http::Version::HTTP_2);
    assert_eq!(resp.status(), 200);
    assert!(resp.headers().contains_key("x-oneapi-request-id"));
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["page_size"], 1);
}

#[tokio::test]
async fn configured_faults_fire_from_the_start_and_survive_a_reset() {
    let server = MockServer::builder()
        .fault(Fault::status(429).on("/api/models").times(1))
        .start()
        .await;
    let http = Http::new(server.uri());
    assert_eq!(http.get("/api/models", &[]).await.status, 429);
    assert_eq!(http.get("/api/models", &[]).await.status, 200);
    server.reset();
    assert_eq!(http.get("/api/models", &[]).await.status, 429);
}

#[tokio::test]
async fn a_request_sent_before_the_server_starts_waits_on_the_listener() {
    use std::io::{Read as _, Write as _};
    let listener = gatecheck_mock::listen("127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = listener.local_addr().unwrap();
    // The client connects and sends while nothing serves the socket yet.
    let client = std::thread::spawn(move || {
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(b"GET /api/models HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
            .unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).unwrap();
        answer
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    let server = MockServer::builder().listener(listener).start().await;
    assert_eq!(server.address(), addr);
    let answer = tokio::task::spawn_blocking(move || client.join().unwrap())
        .await
        .unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("\"success\":true"), "{answer}");
}

#[tokio::test]
async fn a_blocking_listener_is_served_too() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let server = MockServer::builder().listener(listener).start().await;
    let resp = Http::new(server.uri()).get("/api/models", &[]).await;
    assert_eq!(resp.status, 200);
}
