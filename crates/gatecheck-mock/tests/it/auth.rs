//! Model-route authentication: key parsing, status, expiry, quota, IP allowlist, model limits.

use crate::support::*;
use gatecheck_mock::{ClockMode, MockServer, NewKey};
use std::time::Duration;

async fn models_with(server: &MockServer, auth: &str) -> Resp {
    Http::new(server.uri())
        .get("/v1/models", &[("authorization", auth)])
        .await
}

#[tokio::test]
async fn missing_key_is_401() {
    let server = MockServer::start().await;
    let resp = Http::new(server.uri()).get("/v1/models", &[]).await;
    assert_eq!(resp.status, 401);
    let (_, kind, _) = v1_error(&resp);
    assert_eq!(kind, "new_api_error");
}

#[tokio::test]
async fn unknown_key_is_401() {
    let server = MockServer::start().await;
    let resp = models_with(
        &server,
        "Bearer sk-doesnotexist0000000000000000000000000000000000",
    )
    .await;
    assert_eq!(resp.status, 401);
    v1_error(&resp);
}

#[tokio::test]
async fn bearer_prefix_is_case_insensitive_and_sk_prefix_optional() {
    let server = MockServer::start().await;
    for auth in [
        format!("Bearer sk-{KEY_ENABLED}"),
        format!("bearer sk-{KEY_ENABLED}"),
        format!("BEARER {KEY_ENABLED}"),
        format!("Bearer {KEY_ENABLED}"),
    ] {
        assert_eq!(models_with(&server, &auth).await.status, 200, "{auth}");
    }
}

#[tokio::test]
async fn disabled_key_is_401() {
    let server = MockServer::start().await;
    assert_eq!(
        models_with(&server, &bearer(KEY_DISABLED)).await.status,
        401
    );
}

#[tokio::test]
async fn expired_status_key_is_401() {
    let server = MockServer::start().await;
    assert_eq!(models_with(&server, &bearer(KEY_EXPIRED)).await.status, 401);
}

#[tokio::test]
async fn exhausted_status_key_is_401() {
    let server = MockServer::start().await;
    assert_eq!(
        models_with(&server, &bearer(KEY_EXHAUSTED)).await.status,
        401
    );
}

/// A mock on a virtual clock at 1 800 000 000 s, and a key that expires 100 s later.
async fn key_expiring_in_100_s() -> (MockServer, gatecheck_schemas::types::KeyRecord) {
    let server = MockServer::builder()
        .clock(ClockMode::Virtual {
            epoch: 1_800_000_000,
        })
        .start()
        .await;
    let key = server.add_key(NewKey::new().expired_time(1_800_000_100));
    (server, key)
}

#[tokio::test]
async fn past_expired_time_is_401_and_sets_status_3() {
    let (server, key) = key_expiring_in_100_s().await;
    assert_eq!(models_with(&server, &bearer(&key.key)).await.status, 200);
    server.clock().advance(Duration::from_secs(101));
    assert_eq!(models_with(&server, &bearer(&key.key)).await.status, 401);
    assert_eq!(server.key(key.id).unwrap().status, 3);
}

/// The expiry boundary (rules::key::is_past_expiry, new-api's `ExpiredTime < now`): a key is
/// admitted at `now == expired_time` and refused one second later.
#[tokio::test]
async fn a_key_is_admitted_at_its_expired_time_and_refused_a_second_later() {
    let (server, key) = key_expiring_in_100_s().await;
    server.clock().advance(Duration::from_secs(100));
    assert_eq!(models_with(&server, &bearer(&key.key)).await.status, 200);
    server.clock().advance(Duration::from_secs(1));
    assert_eq!(models_with(&server, &bearer(&key.key)).await.status, 401);
}

#[tokio::test]
async fn zero_quota_is_401_and_sets_status_4() {
    let server = MockServer::start().await;
    let key = server.add_key(NewKey::new().remain_quota(0));
    assert_eq!(models_with(&server, &bearer(&key.key)).await.status, 401);
    assert_eq!(server.key(key.id).unwrap().status, 4);
}

#[tokio::test]
async fn unlimited_key_ignores_remaining_quota() {
    let server = MockServer::start().await;
    assert_eq!(
        models_with(&server, &bearer(KEY_UNLIMITED)).await.status,
        200
    );
}

#[tokio::test]
async fn ip_allowlist_refuses_other_peers_with_403_access_denied() {
    let server = MockServer::start().await;
    let resp = models_with(&server, &bearer(KEY_IP_RESTRICTED)).await;
    assert_eq!(resp.status, 403);
    let (_, _, code) = v1_error(&resp);
    assert_eq!(code.as_deref(), Some("access_denied"));
}

#[tokio::test]
async fn ip_allowlist_ipv4_address_allows_that_peer() {
    let server = MockServer::start().await;
    let key = server.add_key(NewKey::new().allow_ips("10.0.0.1\n 127.0.0.1 \n"));
    assert_eq!(models_with(&server, &bearer(&key.key)).await.status, 200);
}

#[tokio::test]
async fn ip_allowlist_ipv4_cidr_allows_peers_inside() {
    let server = MockServer::start().await;
    let key = server.add_key(NewKey::new().allow_ips("127.0.0.0/8"));
    assert_eq!(models_with(&server, &bearer(&key.key)).await.status, 200);
    let outside = server.add_key(NewKey::new().allow_ips("10.0.0.0/8"));
    assert_eq!(
        models_with(&server, &bearer(&outside.key)).await.status,
        403
    );
}

#[tokio::test]
async fn ip_allowlist_ipv6_address_and_cidr() {
    // The fixture key allows 2001:db8::/32; the client IP comes from X-Forwarded-For here.
    let server = MockServer::builder()
        .trust_forwarded_for(true)
        .start()
        .await;
    let http = Http::new(server.uri());
    let auth = bearer(KEY_IP_RESTRICTED);
    for (ip, status) in [
        ("2001:db8::5", 200),
        ("2001:db9::5", 403),
        ("203.0.113.7", 200),
    ] {
        let resp = http
            .get(
                "/v1/models",
                &[("authorization", &auth), ("x-forwarded-for", ip)],
            )
            .await;
        assert_eq!(resp.status, status, "{ip}");
    }
    let exact = server.add_key(NewKey::new().allow_ips("::1"));
    let resp = http
        .get(
            "/v1/models",
            &[
                ("authorization", &bearer(&exact.key)),
                ("x-forwarded-for", "::1"),
            ],
        )
        .await;
    assert_eq!(resp.status, 200);
}

#[tokio::test]
async fn ip_allowlist_malformed_entries_never_match() {
    let server = MockServer::start().await;
    let key = server.add_key(NewKey::new().allow_ips("127.0.0.x\n127.0.0.1/99\nlocalhost"));
    assert_eq!(models_with(&server, &bearer(&key.key)).await.status, 403);
}

#[tokio::test]
async fn forwarded_for_is_ignored_unless_trusted() {
    let server = MockServer::start().await;
    let resp = Http::new(server.uri())
        .get(
            "/v1/models",
            &[
                ("authorization", &bearer(KEY_IP_RESTRICTED)),
                ("x-forwarded-for", "203.0.113.7"),
            ],
        )
        .await;
    assert_eq!(resp.status, 403);
}

#[tokio::test]
async fn status_is_checked_before_ip_allowlist() {
    let server = MockServer::start().await;
    let key = server.add_key(NewKey::new().status(2).allow_ips("10.0.0.1"));
    assert_eq!(models_with(&server, &bearer(&key.key)).await.status, 401);
}

#[tokio::test]
async fn model_limits_refuse_other_models_with_403() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let auth = bearer(KEY_MODEL_RESTRICTED);
    let denied = http
        .get("/v1/models/sora-2", &[("authorization", &auth)])
        .await;
    assert_eq!(denied.status, 403);
    v1_error(&denied);
    let allowed = http
        .get("/v1/models/tts-1", &[("authorization", &auth)])
        .await;
    assert_eq!(allowed.status, 200);
    let list = http
        .get("/v1/models", &[("authorization", &auth)])
        .await
        .json();
    let ids: Vec<_> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].clone())
        .collect();
    assert_eq!(ids, vec!["whisper-1", "tts-1"]);
}

#[tokio::test]
async fn model_limits_enabled_with_empty_string_means_no_restriction() {
    // The spec: "empty string means no restriction". Real new-api refuses every model here:
    // the new-api profile does too (DECISIONS NA1, tested in profiles.rs).
    {
        let profile = gatecheck_schemas::Profile::Documented;
        let server = MockServer::builder().profile(profile).start().await;
        let http = Http::new(server.uri());
        let key = server.add_key(NewKey::new().model_limits(""));
        let auth = bearer(&key.key);
        for model in ["sora-2", "tts-1", "gpt-image-1"] {
            let r = http
                .get(&format!("/v1/models/{model}"), &[("authorization", &auth)])
                .await;
            assert_eq!(r.status, 200, "{profile:?} {model}: {}", r.text());
        }
        let r = http
            .send(
                "POST",
                "/v1/images/generations",
                &[
                    ("authorization", &auth),
                    ("content-type", "application/json"),
                ],
                serde_json::json!({"model": "gpt-image-1", "prompt": "x", "size": "1024x1024"})
                    .to_string(),
            )
            .await;
        assert_eq!(r.status, 200, "{profile:?}: {}", r.text());
        let list = http
            .get("/v1/models", &[("authorization", &auth)])
            .await
            .json();
        assert!(list["data"].as_array().unwrap().len() > 2, "{list}");
    }
}

#[tokio::test]
async fn every_response_carries_a_request_id() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let auth = bearer(KEY_ENABLED);
    let answers = vec![
        http.get("/v1/models", &[]).await,
        http.get("/v1/models", &[("authorization", &auth)]).await,
        http.get("/v1/nope", &[("authorization", &auth)]).await,
        http.get("/api/models", &[]).await,
        http.get("/api/token/", &[]).await,
        http.get("/nowhere", &[]).await,
        http.get("/__mock/health", &[]).await,
    ];
    let mut ids = std::collections::HashSet::new();
    for resp in &answers {
        let id = resp
            .header("x-oneapi-request-id")
            .expect("request id header");
        assert!(!id.is_empty());
        ids.insert(id.to_owned());
    }
    assert_eq!(ids.len(), answers.len(), "request ids are unique");
}

#[tokio::test]
async fn request_ids_follow_the_seed() {
    let ids = |seed| async move {
        let server = MockServer::builder()
            .seed(seed)
            .clock(ClockMode::virtual_default())
            .start()
            .await;
        let http = Http::new(server.uri());
        let mut out = Vec::new();
        for _ in 0..3 {
            let r = http.get("/api/models", &[]).await;
            out.push(r.header("x-oneapi-request-id").unwrap().to_owned());
        }
        out
    };
    assert_eq!(ids(1).await, ids(1).await);
    assert_ne!(ids(1).await, ids(2).await);
}

#[tokio::test]
async fn cors_preflight_and_headers_as_new_api() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let pre = http
        .send(
            "OPTIONS",
            "/v1/images/generations",
            &[
                ("origin", "http://localhost:5173"),
                ("access-control-request-method", "POST"),
                (
                    "access-control-request-headers",
                    "authorization,content-type",
                ),
            ],
            "",
        )
        .await;
    assert_eq!(pre.status, 204);
    assert_eq!(pre.header("access-control-allow-origin"), Some("*"));
    assert!(pre
        .header("access-control-allow-methods")
        .unwrap()
        .contains("POST"));
    let get = http
        .get("/api/models", &[("origin", "http://localhost:5173")])
        .await;
    assert_eq!(get.header("access-control-allow-origin"), Some("*"));
    let plain = http.get("/api/models", &[]).await;
    assert!(plain.header("access-control-allow-origin").is_none());
}

#[tokio::test]
async fn model_route_checks_run_in_new_api_order() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let post = |key: String, size: &'static str| {
        let http = http.clone();
        async move {
            http.json(
                "POST",
                "/v1/images/generations",
                &[("authorization", &bearer(&key))],
                serde_json::json!({"model": "dall-e-3", "prompt": "x", "size": size}),
            )
            .await
        }
    };
    // Disabled + IP-restricted + model-restricted + invalid: the status wins (401).
    let all = server.add_key(
        NewKey::new()
            .status(2)
            .allow_ips("10.0.0.1")
            .model_limits("tts-1")
            .remain_quota(1),
    );
    assert_eq!(post(all.key, "1x1").await.status, 401);
    // IP + model + invalid: the IP wins (403 access_denied).
    let ip = server.add_key(NewKey::new().allow_ips("10.0.0.1").model_limits("tts-1"));
    let r = post(ip.key, "1x1").await;
    assert_eq!(
        (r.status, v1_error(&r).2.as_deref()),
        (403, Some("access_denied"))
    );
    // Model + invalid + no quota: the model limit wins (403).
    let model = server.add_key(NewKey::new().model_limits("tts-1").remain_quota(1));
    let r = post(model.key, "1x1").await;
    assert_eq!(
        (r.status, v1_error(&r).2.as_deref()),
        (403, Some("model_not_allowed"))
    );
    // Invalid + no quota: validation wins (400).
    let poor = server.add_key(NewKey::new().remain_quota(1));
    assert_eq!(post(poor.key.clone(), "1x1").await.status, 400);
    // Valid + no quota: 403 pre_consume_token_quota_failed.
    let r = post(poor.key, "1024x1024").await;
    assert_eq!(
        (r.status, v1_error(&r).2.as_deref()),
        (403, Some("pre_consume_token_quota_failed"))
    );
}
