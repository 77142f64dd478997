//! `GET /api/pricing` and `GET /api/status` as new-api answers them (DECISIONS D-CATALOG-2),
//! the group ratio every charge is made at (D-STREAM-7), and a failed task at 100% in the
//! new-api profile (D-TASK-2).

use crate::support::*;
use gatecheck_mock::{ClockMode, Fixtures, MockServer};
use gatecheck_schemas::Profile;
use serde_json::json;
use std::time::Duration;

#[tokio::test]
async fn pricing_publishes_the_callers_group_ratios_and_status_the_quota_unit() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let anonymous = http.get("/api/pricing", &[]).await.json();
    gatecheck_schemas::validate("pricing-answer", &anonymous).expect("pricing-answer");
    assert_eq!(
        anonymous["group_ratio"],
        json!({"default": 1.0, "vip": 2.0})
    );
    assert!(
        anonymous.get("message").is_none(),
        "new-api's answer has no message"
    );
    let dalle = anonymous["data"]
        .as_array()
        .and_then(|d| d.iter().find(|m| m["model_name"] == "dall-e-3"))
        .expect("dall-e-3");
    assert_eq!(
        (dalle["quota_type"].clone(), dalle["model_price"].clone()),
        (json!(1), json!(0.04))
    );
    let other = http
        .get("/api/pricing", &[("authorization", OTHER_ACCESS_TOKEN)])
        .await
        .json();
    assert_eq!(other["group_ratio"], json!({"default": 1.0}));
    assert_eq!(other["usable_group"].as_object().map(|o| o.len()), Some(1));
    let status = http.get("/api/status", &[]).await.json();
    gatecheck_schemas::validate("status-answer", &status).expect("status-answer");
    assert_eq!(status["data"]["quota_per_unit"], 500000);
    server.shutdown().await;
}

#[tokio::test]
async fn a_key_is_charged_its_groups_ratio() {
    let mut fixtures = Fixtures::embedded();
    fixtures.keys[0].group = "vip".into();
    let server = MockServer::builder().fixtures(fixtures).start().await;
    let http = Http::new(server.uri());
    let auth = bearer(KEY_ENABLED);
    let body = json!({"model": "dall-e-3", "prompt": "a pebble", "size": "1024x1024"});
    let made = http
        .json(
            "POST",
            "/v1/images/generations",
            &[("authorization", &auth)],
            body,
        )
        .await;
    assert_eq!(made.status, 200, "{}", made.text());
    let key = http.get("/api/token/1", &DEMO).await.json();
    // $0.04 x 500000 x 2 (vip).
    assert_eq!(key["data"]["used_quota"], 40_000, "{key}");
    server.shutdown().await;
}

#[tokio::test]
async fn a_failed_task_shows_100_in_the_new_api_profile_only() {
    for (profile, want) in [(Profile::NewApi, Some(100)), (Profile::Documented, None)] {
        let server = MockServer::builder()
            .profile(profile)
            .clock(ClockMode::virtual_default())
            .start()
            .await;
        let http = Http::new(server.uri());
        let auth = bearer(KEY_ENABLED);
        let body = json!({"model": "sora-2", "prompt": "a boat [fail]", "seconds": "4"});
        let made = http
            .json("POST", "/v1/videos", &[("authorization", &auth)], body)
            .await
            .json();
        let id = made["id"].as_str().expect("id").to_owned();
        server.clock().advance(Duration::from_secs(600));
        let polled = http
            .get(&format!("/v1/videos/{id}"), &[("authorization", &auth)])
            .await
            .json();
        assert_eq!(polled["status"], "failed", "{polled}");
        let progress = polled["progress"].as_i64().expect("progress");
        match want {
            Some(p) => assert_eq!(progress, p, "{profile:?}"),
            None => assert!(progress < 100, "{profile:?}: {progress}"),
        }
        let envelope = http
            .get(
                &format!("/v1/video/generations/{id}"),
                &[("authorization", &auth)],
            )
            .await
            .json();
        assert_eq!(envelope["data"]["progress"], "100%", "{envelope}");
        assert_eq!(envelope["data"]["status"], "FAILURE");
        server.shutdown().await;
    }
}
