//! Quota: price vs remaining quota, atomic charging under concurrency.
//!
//! These use `POST /v1/images/generations` with `flux-schnell` (0.003 USD per request =
//! 1500 quota units), a route of the media handlers.

use crate::support::*;
use gatecheck_mock::{MockServer, NewKey};
use gatecheck_schemas::rules::quota::{price_quota, Usage};
use serde_json::json;
use std::sync::Arc;

fn flux_price() -> i64 {
    let catalog = gatecheck_mock::Fixtures::embedded().catalog;
    let flux = catalog.iter().find(|m| m.id == "flux-schnell").unwrap();
    price_quota(&flux.pricing, Usage::one_request())
}

fn image_body() -> serde_json::Value {
    json!({"model": "flux-schnell", "prompt": "a lighthouse", "size": "512x512"})
}

#[tokio::test]
async fn price_above_remaining_quota_is_403_pre_consume_token_quota_failed() {
    let server = MockServer::start().await;
    let price = flux_price();
    assert_eq!(price, 1500);
    let key = server.add_key(NewKey::new().remain_quota(price - 1));
    let resp = Http::new(server.uri())
        .json(
            "POST",
            "/v1/images/generations",
            &[("authorization", &bearer(&key.key))],
            image_body(),
        )
        .await;
    assert_eq!(resp.status, 403, "{}", resp.text());
    let (_, _, code) = v1_error(&resp);
    assert_eq!(code.as_deref(), Some("pre_consume_token_quota_failed"));
    let after = server.key(key.id).unwrap();
    assert_eq!((after.remain_quota, after.used_quota), (price - 1, 0));
}

#[tokio::test]
async fn accepted_request_moves_its_price_to_used_quota() {
    let server = MockServer::start().await;
    let price = flux_price();
    let key = server.add_key(NewKey::new().remain_quota(10 * price));
    let resp = Http::new(server.uri())
        .json(
            "POST",
            "/v1/images/generations",
            &[("authorization", &bearer(&key.key))],
            image_body(),
        )
        .await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    let after = server.key(key.id).unwrap();
    assert_eq!((after.remain_quota, after.used_quota), (9 * price, price));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_charge_exactly_the_quota_for_k() {
    const K: i64 = 20;
    let server = MockServer::start().await;
    let price = flux_price();
    let key = server.add_key(NewKey::new().remain_quota(K * price));
    let http = Arc::new(Http::new(server.uri()));
    let auth = Arc::new(bearer(&key.key));
    let mut tasks = Vec::new();
    for _ in 0..10 * K {
        let (http, auth) = (http.clone(), auth.clone());
        tasks.push(tokio::spawn(async move {
            http.json(
                "POST",
                "/v1/images/generations",
                &[("authorization", &auth)],
                image_body(),
            )
            .await
            .status
        }));
    }
    let mut ok = 0;
    for t in tasks {
        match t.await.unwrap() {
            200 => ok += 1,
            401 | 403 => {}
            other => panic!("unexpected status {other}"),
        }
    }
    assert_eq!(ok, K);
    let after = server.key(key.id).unwrap();
    assert_eq!(after.used_quota, K * price);
    assert_eq!(after.remain_quota, 0);
}

/// Video tasks are billed as new-api bills them (DECISIONS D-ROUTE-5): charged at submit; a
/// task that fails (or ends in `error`) is refunded in full once it has failed, however often
/// it is polled; a completed task keeps its charge. Both profiles.
#[tokio::test]
async fn a_failed_video_task_is_refunded_in_full_once() {
    use gatecheck_mock::ClockMode;
    use gatecheck_schemas::Profile;
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = MockServer::builder()
            .profile(profile)
            .clock(ClockMode::virtual_default())
            .start()
            .await;
        let key = server.add_key(NewKey::new());
        let http = Http::new(server.uri());
        let auth = bearer(&key.key);
        let quota = |server: &MockServer| {
            let k = server.key(key.id).expect("key");
            (k.remain_quota, k.used_quota)
        };
        let start = quota(&server);
        let mut ids = Vec::new();
        for prompt in ["a boat [fail]", "a boat [error]", "a boat"] {
            let body = json!({"model": "sora-2", "prompt": prompt});
            let resp = http
                .json("POST", "/v1/videos", &[("authorization", &auth)], body)
                .await;
            assert_eq!(resp.status, 200, "{}", resp.text());
            ids.push(resp.json()["id"].as_str().expect("id").to_owned());
        }
        let charged = quota(&server);
        let price = (start.0 - charged.0) / 3;
        assert!(price > 0, "{profile:?}: sora-2 is charged at submit");
        assert_eq!(charged, (start.0 - 3 * price, start.1 + 3 * price));
        advance(&server, 600.0).await;
        for _ in 0..3 {
            for id in &ids {
                let poll = http
                    .get(&format!("/v1/videos/{id}"), &[("authorization", &auth)])
                    .await;
                assert_eq!(poll.status, 200, "{}", poll.text());
            }
            // The two failures are given back, once; the completed task stays charged.
            assert_eq!(
                quota(&server),
                (start.0 - price, start.1 + price),
                "{profile:?}"
            );
        }
    }
}
