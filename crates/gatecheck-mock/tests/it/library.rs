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
