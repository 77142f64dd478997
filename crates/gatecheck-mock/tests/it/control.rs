//! The control API under `/__mock/`.

use crate::support::*;
use gatecheck_mock::{ClockMode, MockServer};
use serde_json::json;
use std::time::{Duration, Instant};

#[tokio::test]
async fn control_health_answers_ok() {
    let server = MockServer::start().await;
    let v = Http::new(server.uri())
        .get("/__mock/health", &[])
        .await
        .json();
    assert_eq!(v["status"], "ok");
    assert_eq!(v["profile"], "documented");
}

#[tokio::test]
async fn control_reset_restores_the_fixtures() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    http.json(
        "PUT",
        "/api/token/",
        &[("authorization", ACCESS_TOKEN)],
        json!({"id": 1, "name": "changed"}),
    )
    .await;
    http.json("POST", "/__mock/keys", &[], json!({})).await;
    assert_eq!(server.key(1).unwrap().name, "changed");
    let resp = http.send("POST", "/__mock/reset", &[], "").await;
    assert_eq!(resp.status, 200);
    assert_eq!(server.key(1).unwrap().name, "demo-enabled");
    assert!(server.key(9).is_none());
    assert!(server.received_requests().is_empty());
}

#[tokio::test]
async fn control_keys_create_from_a_partial_record() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let resp = http
        .json("POST", "/__mock/keys", &[], json!({"name": "ci", "remain_quota": 7, "model_limits_enabled": true, "model_limits": "tts-1"}))
        .await;
    assert_eq!(resp.status, 201);
    let key = resp.json();
    assert_eq!(key["name"], "ci");
    assert_eq!(key["remain_quota"], 7);
    assert_eq!(key["status"], 1);
    assert_eq!(key["expired_time"], -1);
    let secret = key["key"].as_str().unwrap();
    assert_eq!(secret.len(), 48);
    assert!(secret.chars().all(|c| c.is_ascii_alphanumeric()));
    let list = http.get("/__mock/keys", &[]).await.json();
    assert_eq!(list.as_array().unwrap().len(), 9);
    let models = http
        .get("/v1/models", &[("authorization", &bearer(secret))])
        .await
        .json();
    assert_eq!(models["data"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn control_accounts_lists_access_tokens() {
    let server = MockServer::start().await;
    let v = Http::new(server.uri())
        .get("/__mock/accounts", &[])
        .await
        .json();
    assert_eq!(v[0]["access_token"], ACCESS_TOKEN);
    assert_eq!(v[0]["id"], 1);
}

#[tokio::test]
async fn control_clock_advances_the_virtual_clock() {
    let server = MockServer::builder()
        .clock(ClockMode::Virtual {
            epoch: 2_000_000_000,
        })
        .start()
        .await;
    let http = Http::new(server.uri());
    let v = http.get("/__mock/clock", &[]).await.json();
    assert_eq!(v["mode"], "virtual");
    assert_eq!(v["now"], 2_000_000_000i64);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(
        http.get("/__mock/clock", &[]).await.json()["now"],
        2_000_000_000i64
    );
    let v = http
        .json("POST", "/__mock/clock/advance", &[], json!({"seconds": 90}))
        .await
        .json();
    assert_eq!(v["now"], 2_000_000_090i64);
    let bad = http
        .json("POST", "/__mock/clock/advance", &[], json!({"seconds": -1}))
        .await;
    assert_eq!(bad.status, 400);
}

#[tokio::test]
async fn control_faults_answer_a_status_for_times_then_stop() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let resp = http
        .json(
            "POST",
            "/__mock/faults",
            &[],
            json!({"route": "GET /api/models", "kind": "status", "status": 503, "times": 2}),
        )
        .await;
    assert_eq!(resp.status, 201, "{}", resp.text());
    for _ in 0..2 {
        let r = http.get("/api/models", &[]).await;
        assert_eq!(r.status, 503);
        assert_eq!(r.header("retry-after"), Some("1"));
        assert!(r.header("x-oneapi-request-id").is_some());
    }
    assert_eq!(http.get("/api/models", &[]).await.status, 200);
    assert_eq!(http.get("/__mock/health", &[]).await.status, 200);
}

#[tokio::test]
async fn control_faults_match_route_patterns() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    http.json(
        "POST",
        "/__mock/faults",
        &[],
        json!({"route": "/v1/*", "kind": "status", "status": 429}),
    )
    .await;
    assert_eq!(http.get("/v1/models", &[]).await.status, 429);
    assert_eq!(http.get("/api/models", &[]).await.status, 200);
    assert_eq!(
        http.send("DELETE", "/__mock/faults", &[], "").await.status,
        200
    );
    assert_eq!(http.get("/v1/models", &[]).await.status, 401);
}

#[tokio::test]
async fn control_faults_probability_is_deterministic_with_a_seed() {
    async fn pattern() -> Vec<u16> {
        let server = MockServer::start().await;
        let http = Http::new(server.uri());
        http.json(
            "POST",
            "/__mock/faults",
            &[],
            json!({"route": "/api/models", "kind": "status", "status": 500, "probability": 0.5, "seed": 42}),
        )
        .await;
        let mut out = Vec::new();
        for _ in 0..40 {
            out.push(http.get("/api/models", &[]).await.status);
        }
        out
    }
    let a = pattern().await;
    assert_eq!(a, pattern().await);
    let fails = a.iter().filter(|s| **s == 500).count();
    assert!(fails > 5 && fails < 35, "{fails} of 40");
}

#[tokio::test]
async fn control_faults_delay_then_serve() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    http.json(
        "POST",
        "/__mock/faults",
        &[],
        json!({"route": "/api/models", "kind": "delay", "ms": 300, "times": 1}),
    )
    .await;
    let started = Instant::now();
    assert_eq!(http.get("/api/models", &[]).await.status, 200);
    assert!(started.elapsed() >= Duration::from_millis(300));
}

/// A reset ends the wait of a request held by a `delay` fault (it is answered at once, 503
/// `mock_reset`), and stopping the mock does not wait a delay out.
#[tokio::test]
async fn a_reset_or_a_stop_ends_a_delay_at_once() {
    let server = MockServer::start().await;
    let delay = gatecheck_mock::Fault::delay(Duration::from_secs(5)).on("/api/models");
    server.inject(delay.clone());
    let http = Http::new(server.uri());
    let started = Instant::now();
    let waiting = tokio::spawn({
        let http = http.clone();
        async move { http.get("/api/models", &[]).await.status }
    });
    tokio::time::sleep(Duration::from_millis(150)).await;
    server.reset();
    assert_eq!(waiting.await.unwrap(), 503);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );

    server.inject(delay);
    let waiting = tokio::spawn(async move { http.try_send("GET", "/api/models", &[], "").await });
    tokio::time::sleep(Duration::from_millis(150)).await;
    let stopping = Instant::now();
    server.shutdown().await;
    assert!(
        stopping.elapsed() < Duration::from_secs(1),
        "{:?}",
        stopping.elapsed()
    );
    assert!(
        waiting.await.unwrap().is_err(),
        "the held request is dropped"
    );
}

/// A request a reset cuts out of its `delay` is answered, but not journaled: the reset journal
/// holds only what arrived after the reset (a vitest suite's next test's `requests()` began
/// with the previous test's cut `GET /v1/models`). So for any request in flight across a reset.
#[tokio::test]
async fn a_request_cut_out_of_its_delay_by_a_reset_is_not_in_the_fresh_journal() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    server.inject(gatecheck_mock::Fault::delay(Duration::from_secs(5)).on("GET /v1/models"));
    let waiting = tokio::spawn({
        let http = http.clone();
        async move {
            let auth = bearer(KEY_ENABLED);
            http.get("/v1/models", &[("authorization", &auth)])
                .await
                .status
        }
    });
    tokio::time::sleep(Duration::from_millis(150)).await;
    // The control API's reset, as the npm and Python packages call it.
    assert_eq!(
        http.json("POST", "/__mock/reset", &[], json!({}))
            .await
            .status,
        200
    );
    assert_eq!(
        waiting.await.unwrap(),
        503,
        "the cut request is answered, unserved"
    );
    let journal = server.received_requests();
    assert!(journal.is_empty(), "a reset journal is empty: {journal:?}");
    let listed = http.get("/__mock/requests", &[]).await.json();
    assert_eq!(listed["requests"], json!([]), "{listed}");
    assert_eq!(http.get("/api/models", &[]).await.status, 200);
    let journal = server.received_requests();
    let paths: Vec<&str> = journal.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["/api/models"], "only the request after the reset");
    assert_eq!(journal[0].fault, None);
}

/// A request a reset cuts out of its `delay` is not served: it belongs to the state before
/// the reset, so a cut key creation leaves the fresh state as the fixtures have it.
#[tokio::test]
async fn a_request_cut_out_of_its_delay_by_a_reset_does_not_change_the_fresh_state() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let before = http.get("/__mock/keys", &[]).await.json();
    server.inject(gatecheck_mock::Fault::delay(Duration::from_secs(5)).on("POST /api/token/"));
    let waiting = tokio::spawn({
        let http = http.clone();
        async move {
            let body = json!({"name": "cut-by-reset", "unlimited_quota": true});
            http.json("POST", "/api/token/", &DEMO, body).await
        }
    });
    // It has arrived and sits in its delay.
    while http.get("/__mock/faults", &[]).await.json()[0]["fired"] == 0 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    server.reset();
    let cut = waiting.await.unwrap();
    assert_eq!(cut.status, 503);
    assert_eq!(
        cut.json()["error"]["code"],
        "mock_reset",
        "{:?}",
        cut.json()
    );
    let after = http.get("/__mock/keys", &[]).await.json();
    assert_eq!(after, before, "the cut creation made no key");
}

#[tokio::test]
async fn control_faults_reset_the_connection() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    http.json(
        "POST",
        "/__mock/faults",
        &[],
        json!({"route": "/api/models", "kind": "reset", "times": 1}),
    )
    .await;
    assert!(http.try_send("GET", "/api/models", &[], "").await.is_err());
    assert_eq!(
        Http::new(server.uri()).get("/api/models", &[]).await.status,
        200
    );
}

#[tokio::test]
async fn control_faults_hang_until_the_client_gives_up() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    http.json(
        "POST",
        "/__mock/faults",
        &[],
        json!({"route": "/api/models", "kind": "hang", "times": 1}),
    )
    .await;
    let r = tokio::time::timeout(
        Duration::from_millis(500),
        http.try_send("GET", "/api/models", &[], ""),
    )
    .await;
    assert!(r.is_err(), "a hung request must not answer");
    assert_eq!(
        Http::new(server.uri()).get("/api/models", &[]).await.status,
        200
    );
}

#[tokio::test]
async fn control_requests_shows_the_journal_with_a_limit() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    for _ in 0..5 {
        http.get("/api/models", &[]).await;
    }
    http.get("/v1/models", &[("authorization", &bearer(KEY_ENABLED))])
        .await;
    let v = http.get("/__mock/requests?limit=2", &[]).await.json();
    let reqs = v["requests"].as_array().unwrap();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[1]["path"], "/v1/models");
    assert_eq!(reqs[1]["key_id"], 1);
    assert_eq!(reqs[1]["status"], 200);
    assert_eq!(v["total"], 6);
}

#[tokio::test]
async fn control_state_dump_and_load_round_trip() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    http.json("POST", "/__mock/keys", &[], json!({"name": "persisted"}))
        .await;
    let dump = http.get("/__mock/state", &[]).await;
    assert_eq!(dump.status, 200);
    let other = MockServer::start().await;
    let load = Http::new(other.uri())
        .send(
            "PUT",
            "/__mock/state",
            &[("content-type", "application/json")],
            dump.body.clone(),
        )
        .await;
    assert_eq!(load.status, 200, "{}", load.text());
    assert_eq!(other.key(9).unwrap().name, "persisted");
    assert_eq!(other.state().keys, server.state().keys);
}

#[tokio::test]
async fn control_can_be_turned_off() {
    let server = MockServer::builder().no_control().start().await;
    let http = Http::new(server.uri());
    assert_eq!(http.get("/__mock/health", &[]).await.status, 404);
    assert_eq!(
        http.send("POST", "/__mock/reset", &[], "").await.status,
        404
    );
}

/// A non-loopback address of this machine, if it has one (no packet is sent).
pub(crate) fn local_non_loopback_ip() -> Option<std::net::IpAddr> {
    let sock = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    sock.connect("192.0.2.1:9").ok()?;
    let ip = sock.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

#[tokio::test]
async fn control_refuses_non_loopback_peers_without_the_token() {
    let Some(ip) = local_non_loopback_ip() else {
        eprintln!("no non-loopback address; skipped");
        return;
    };
    let server = MockServer::builder()
        .bind(std::net::SocketAddr::new(ip, 0))
        .control_token("s3cret")
        .start()
        .await;
    let http = Http::new(server.uri());
    assert_eq!(http.get("/__mock/health", &[]).await.status, 403);
    assert_eq!(
        http.get("/__mock/health", &[("x-mock-control-token", "nope")])
            .await
            .status,
        403
    );
    assert_eq!(
        http.get("/__mock/health", &[("x-mock-control-token", "s3cret")])
            .await
            .status,
        200
    );
    let no_token = MockServer::builder()
        .bind(std::net::SocketAddr::new(ip, 0))
        .start()
        .await;
    assert_eq!(
        Http::new(no_token.uri())
            .get("/__mock/health", &[])
            .await
            .status,
        403
    );
    // Model routes are served to any peer.
    assert_eq!(http.get("/api/models", &[]).await.status, 200);
}

#[tokio::test]
async fn control_clock_advance_saturates_instead_of_wrapping() {
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    let http = Http::new(server.uri());
    let before = server.clock().now();
    for _ in 0..3 {
        let v = http
            .json(
                "POST",
                "/__mock/clock/advance",
                &[],
                json!({"seconds": 1e300}),
            )
            .await
            .json();
        assert!(v["now"].as_i64().unwrap() > before);
    }
}
