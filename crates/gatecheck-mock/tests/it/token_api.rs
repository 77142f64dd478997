//! `/api/token/*`: the update checks in DECISIONS order, resets, status_only, profiles, auth,
//! and the list/get/create/delete extensions.

use crate::support::*;
use gatecheck_mock::{ClockMode, MockServer};
use gatecheck_schemas::Profile;
use serde_json::{json, Value};

fn failure_message(v: &Value) -> String {
    assert_eq!(v["success"], false, "{v}");
    v["message"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn put_updates_and_answers_the_record() {
    let server = MockServer::start().await;
    let v = put(&server, "", full(1)).await;
    assert_eq!(v["success"], true);
    assert_eq!(v["message"], "");
    assert_eq!(v["data"]["name"], "kept");
    assert_eq!(v["data"]["remain_quota"], 1000);
    assert_eq!(server.key(1).unwrap().name, "kept");
}

#[tokio::test]
async fn put_name_longer_than_50_characters_fails() {
    let server = MockServer::start().await;
    let mut body = full(1);
    body["name"] = json!("x".repeat(51));
    assert!(
        failure_message(&put(&server, "", body.clone()).await).contains("token name is too long")
    );
    body["name"] = json!("é".repeat(50)); // 50 characters, 100 bytes
    assert_eq!(put(&server, "", body).await["success"], true);
}

#[tokio::test]
async fn put_name_length_counts_bytes_in_new_api_profile() {
    let server = MockServer::builder().profile(Profile::NewApi).start().await;
    let mut body = full(1);
    body["name"] = json!("é".repeat(26)); // 26 characters, 52 bytes
                                          // new-api's own wording (DECISIONS NA12).
    assert_eq!(
        failure_message(&put(&server, "", body).await),
        "Token name is too long"
    );
}

#[tokio::test]
async fn put_negative_quota_fails() {
    let server = MockServer::start().await;
    let mut body = full(1);
    body["remain_quota"] = json!(-1);
    assert_eq!(
        failure_message(&put(&server, "", body.clone()).await),
        "Quota value cannot be negative"
    );
    body["unlimited_quota"] = json!(true);
    assert_eq!(put(&server, "", body).await["success"], true);
}

#[tokio::test]
async fn put_unknown_id_is_record_not_found() {
    let server = MockServer::start().await;
    assert_eq!(
        failure_message(&put(&server, "", full(999)).await),
        "record not found"
    );
}

#[tokio::test]
async fn put_other_users_key_is_record_not_found() {
    let server = MockServer::start().await;
    assert_eq!(
        failure_message(&put(&server, "", full(8)).await),
        "record not found"
    );
    assert_eq!(server.key(8).unwrap().name, "other-enabled");
}

#[tokio::test]
async fn put_group_without_access_fails() {
    let server = MockServer::start().await;
    let mut body = full(1);
    body["group"] = json!("svip");
    assert!(failure_message(&put(&server, "", body.clone()).await).contains("no access to group"));
    body["group"] = json!("vip");
    assert_eq!(put(&server, "", body).await["data"]["group"], "vip");
}

#[tokio::test]
async fn put_enabling_an_expired_key_fails() {
    let server = MockServer::start().await;
    let mut body = full(3);
    body["status"] = json!(1);
    body["expired_time"] = json!(1_700_000_000);
    let msg = failure_message(&put(&server, "?status_only=1", body).await);
    assert!(msg.to_lowercase().contains("expired"), "{msg}");
    assert_eq!(server.key(3).unwrap().status, 3);
}

/// Enabling uses admission's expiry boundary (rules::key::is_past_expiry): an expired-status
/// key whose `expired_time` is now may be enabled (it would be admitted); one a second older
/// may not.
#[tokio::test]
async fn put_enabling_an_expired_key_at_its_expired_time_succeeds() {
    let now = 1_800_000_000;
    let server = MockServer::builder()
        .clock(ClockMode::Virtual { epoch: now })
        .start()
        .await;
    for (expired_time, enabled) in [(now, true), (now - 1, false)] {
        let key = server.add_key(
            gatecheck_mock::NewKey::new()
                .status(3)
                .expired_time(expired_time),
        );
        let v = put(
            &server,
            "?status_only=1",
            json!({"id": key.id, "status": 1}),
        )
        .await;
        assert_eq!(v["success"], enabled, "expired_time {expired_time}: {v}");
        let status = server.key(key.id).unwrap().status;
        assert_eq!(status, if enabled { 1 } else { 3 });
    }
}

#[tokio::test]
async fn put_enabling_an_exhausted_key_fails() {
    let server = MockServer::start().await;
    let mut body = full(4);
    body["status"] = json!(1);
    let msg = failure_message(&put(&server, "?status_only=1", body).await);
    assert!(msg.to_lowercase().contains("quota"), "{msg}");
    assert_eq!(server.key(4).unwrap().status, 4);
}

#[tokio::test]
async fn put_checks_run_in_decisions_order() {
    let server = MockServer::start().await;
    // name + negative quota + unknown id + group: the name wins.
    let body = json!({"id": 999, "name": "n".repeat(60), "remain_quota": -5, "group": "svip"});
    assert!(failure_message(&put(&server, "", body).await).contains("too long"));
    // negative quota + unknown id: the quota wins.
    let body = json!({"id": 999, "remain_quota": -5, "group": "svip"});
    assert!(failure_message(&put(&server, "", body).await).contains("negative"));
    // unknown id + group: not found wins.
    let body = json!({"id": 999, "group": "svip"});
    assert_eq!(
        failure_message(&put(&server, "", body).await),
        "record not found"
    );
    // group + re-enable of an expired key: the group wins.
    let body = json!({"id": 3, "group": "svip", "status": 1});
    assert!(failure_message(&put(&server, "", body).await).contains("no access to group"));
}

#[tokio::test]
async fn put_resets_omitted_fields_to_zero_values() {
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    let v = put(&server, "", json!({"id": 1, "name": "only-name"})).await;
    let data = &v["data"];
    assert_eq!(data["expired_time"], 0);
    assert_eq!(data["remain_quota"], 0);
    assert_eq!(data["model_limits"], "");
    assert_eq!(data["unlimited_quota"], false);
    assert_eq!(data["allow_ips"], Value::Null);
    // The reset is not an error: the next model request finds the key expired.
    let resp = Http::new(server.uri())
        .get("/v1/models", &[("authorization", &bearer(KEY_ENABLED))])
        .await;
    assert_eq!(resp.status, 401);
    assert_eq!(server.key(1).unwrap().status, 3);
}

#[tokio::test]
async fn put_status_only_changes_status_alone() {
    let server = MockServer::start().await;
    let v = put(
        &server,
        "?status_only=1",
        json!({"id": 1, "status": 2, "name": "ignored"}),
    )
    .await;
    assert_eq!(v["data"]["status"], 2);
    assert_eq!(v["data"]["name"], "demo-enabled");
    assert_eq!(v["data"]["remain_quota"], 50_000_000);
}

#[tokio::test]
async fn put_status_is_applied_in_documented_profile() {
    let server = MockServer::start().await;
    let mut body = full(1);
    body["status"] = json!(2);
    assert_eq!(put(&server, "", body).await["data"]["status"], 2);
}

#[tokio::test]
async fn put_status_is_ignored_without_status_only_in_new_api_profile() {
    let server = MockServer::builder().profile(Profile::NewApi).start().await;
    let mut body = full(1);
    body["status"] = json!(2);
    assert_eq!(put(&server, "", body).await["data"]["status"], 1);
}

#[tokio::test]
async fn access_token_missing_is_401_envelope() {
    let server = MockServer::start().await;
    let resp = Http::new(server.uri())
        .json("PUT", "/api/token/", &[], full(1))
        .await;
    assert_eq!(resp.status, 401);
    assert_eq!(resp.json()["success"], false);
}

#[tokio::test]
async fn wrong_access_token_is_401_in_documented_profile() {
    let server = MockServer::start().await;
    let resp = Http::new(server.uri())
        .json("PUT", "/api/token/", &[("authorization", "wrong")], full(1))
        .await;
    assert_eq!(resp.status, 401);
    assert_eq!(resp.json()["success"], false);
}

#[tokio::test]
async fn wrong_access_token_is_200_failure_in_new_api_adaptors_profile() {
    let server = MockServer::builder()
        .named_profile(gatecheck_schemas::NamedProfile::NEW_API_ADAPTORS)
        .start()
        .await;
    let resp = Http::new(server.uri())
        .json(
            "PUT",
            "/api/token/",
            &[("authorization", "wrong"), ("new-api-user", "1")],
            full(1),
        )
        .await;
    assert_eq!(resp.status, 200);
    assert_eq!(resp.json()["success"], false);
}

#[tokio::test]
async fn bearer_access_token_is_accepted() {
    let server = MockServer::start().await;
    let auth = format!("Bearer {ACCESS_TOKEN}");
    let resp = Http::new(server.uri())
        .json("PUT", "/api/token/", &[("authorization", &auth)], full(1))
        .await;
    assert_eq!(resp.json()["success"], true);
}

#[tokio::test]
async fn new_api_user_is_optional_in_documented_profile_but_must_match() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let ok = http
        .json(
            "PUT",
            "/api/token/",
            &[("authorization", ACCESS_TOKEN)],
            full(1),
        )
        .await;
    assert_eq!(ok.json()["success"], true);
    let mismatch = http
        .json(
            "PUT",
            "/api/token/",
            &[("authorization", ACCESS_TOKEN), ("new-api-user", "2")],
            full(1),
        )
        .await;
    assert_eq!(mismatch.status, 401);
    assert_eq!(mismatch.json()["success"], false);
}

#[tokio::test]
async fn new_api_user_is_required_in_new_api_adaptors_profile() {
    let server = MockServer::builder()
        .named_profile(gatecheck_schemas::NamedProfile::NEW_API_ADAPTORS)
        .start()
        .await;
    let http = Http::new(server.uri());
    let missing = http
        .json(
            "PUT",
            "/api/token/",
            &[("authorization", ACCESS_TOKEN)],
            full(1),
        )
        .await;
    assert_eq!(missing.status, 401);
    let ok = http.json("PUT", "/api/token/", &DEMO, full(1)).await;
    assert_eq!(ok.json()["success"], true);
}

/// The plugin era's new-api (31d70fca on): `New-Api-User` is not read, and a missing or
/// unknown token is 401 `AUTH_UNAUTHORIZED` (middleware/auth.go@823e263; D-AUTH-9).
#[tokio::test]
async fn new_api_profile_plays_the_stateless_dashboard_auth() {
    let server = MockServer::builder().profile(Profile::NewApi).start().await;
    let http = Http::new(server.uri());
    for headers in [
        vec![("authorization", ACCESS_TOKEN)],
        vec![("authorization", ACCESS_TOKEN), ("new-api-user", "2")],
        vec![("authorization", ACCESS_TOKEN), ("new-api-user", "x")],
    ] {
        let ok = http.json("PUT", "/api/token/", &headers, full(1)).await;
        assert_eq!(ok.json()["success"], true, "{headers:?}");
    }
    for headers in [
        vec![("authorization", "wrong"), ("new-api-user", "1")],
        vec![],
    ] {
        let refused = http.json("PUT", "/api/token/", &headers, full(1)).await;
        assert_eq!(refused.status, 401, "{headers:?}");
        assert_eq!(
            refused.json(),
            gatecheck_schemas::rules::auth::stateless_refusal()
        );
    }
}

#[tokio::test]
async fn invalid_json_body_is_a_200_failure() {
    let server = MockServer::start().await;
    let resp = Http::new(server.uri())
        .send("PUT", "/api/token/", &DEMO, "{not json")
        .await;
    assert_eq!(resp.status, 200);
    assert_eq!(resp.json()["success"], false);
}

#[tokio::test]
async fn list_keys_pages_the_accounts_keys() {
    let server = MockServer::start().await;
    let v = Http::new(server.uri())
        .get("/api/token/?p=1&size=3", &DEMO)
        .await
        .json();
    assert_eq!(v["success"], true);
    assert_eq!(v["data"]["total"], 7);
    assert_eq!(v["data"]["page_size"], 3);
    let items = v["data"]["items"].as_array().unwrap();
    assert_eq!(items.len(), 3);
    assert!(items.iter().all(|k| k["user_id"] == 1));
    let v = Http::new(server.uri())
        .get("/api/token/?p=3&size=3", &DEMO)
        .await
        .json();
    assert_eq!(v["data"]["items"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn get_key_by_id_and_others_key_is_not_found() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let v = http.get("/api/token/2", &DEMO).await.json();
    assert_eq!(v["data"]["name"], "demo-disabled");
    let v = http.get("/api/token/8", &DEMO).await.json();
    assert_eq!(v["success"], false);
}

#[tokio::test]
async fn create_then_delete_a_key() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let v = http
        .json(
            "POST",
            "/api/token/",
            &DEMO,
            json!({"name": "scratch", "remain_quota": 500}),
        )
        .await
        .json();
    assert_eq!(v["success"], true, "{v}");
    let id = v["data"]["id"].as_i64().unwrap();
    assert_eq!(v["data"]["expired_time"], -1);
    let key = http
        .send("POST", &format!("/api/token/{id}/key"), &DEMO, "")
        .await
        .json();
    let secret = key["data"]["key"].as_str().unwrap().to_owned();
    assert_eq!(secret.len(), 48);
    let models = http
        .get("/v1/models", &[("authorization", &bearer(&secret))])
        .await;
    assert_eq!(models.status, 200);
    let del = http
        .send("DELETE", &format!("/api/token/{id}"), &DEMO, "")
        .await
        .json();
    assert_eq!(del["success"], true);
    assert!(server.key(id).is_none());
    let again = http
        .send("DELETE", &format!("/api/token/{id}"), &DEMO, "")
        .await
        .json();
    assert_eq!(again["success"], false);
    let models = http
        .get("/v1/models", &[("authorization", &bearer(&secret))])
        .await;
    assert_eq!(models.status, 401);
}

#[tokio::test]
async fn create_checks_name_quota_and_group() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    for body in [
        json!({"name": "x".repeat(51)}),
        json!({"name": "n", "remain_quota": -1}),
        json!({"name": "n", "group": "svip"}),
    ] {
        let v = http.json("POST", "/api/token/", &DEMO, body).await.json();
        assert_eq!(v["success"], false, "{v}");
    }
}

#[tokio::test]
async fn other_account_sees_only_its_keys() {
    let server = MockServer::start().await;
    let v = Http::new(server.uri())
        .get("/api/token/", &[("authorization", OTHER_ACCESS_TOKEN)])
        .await
        .json();
    assert_eq!(v["data"]["total"], 1);
    assert_eq!(v["data"]["items"][0]["id"], 8);
}

#[tokio::test]
async fn put_without_id_runs_the_checks_then_is_record_not_found() {
    let server = MockServer::start().await;
    let long = put(&server, "", json!({"name": "x".repeat(51)})).await;
    assert!(failure_message(&long).contains("too long"));
    let plain = put(&server, "", json!({"name": "ok"})).await;
    assert_eq!(failure_message(&plain), "record not found");
}

#[tokio::test]
async fn usage_token_reports_the_calling_keys_quota() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let v = http
        .get(
            "/api/usage/token",
            &[("authorization", &bearer(KEY_MODEL_RESTRICTED))],
        )
        .await
        .json();
    assert_eq!(v["code"], true);
    assert_eq!(v["data"]["object"], "token_usage");
    assert_eq!(v["data"]["total_available"], 50_000_000);
    assert_eq!(v["data"]["expires_at"], 0);
    assert_eq!(v["data"]["model_limits"]["tts-1"], true);
    // Read-only: an exhausted key still sees its usage.
    let v = http
        .get(
            "/api/usage/token",
            &[("authorization", &bearer(KEY_EXHAUSTED))],
        )
        .await
        .json();
    assert_eq!(v["data"]["total_used"], 50_000_000);
    let missing = http.get("/api/usage/token", &[]).await;
    assert_eq!(missing.status, 401);
    let unknown = http
        .get("/api/usage/token", &[("authorization", "Bearer sk-nope")])
        .await;
    // 401 first, by new-api's TokenAuthReadOnly (see below).
    assert_eq!(
        (unknown.status, unknown.json()["success"].clone()),
        (401, json!(false))
    );
}

#[tokio::test]
async fn token_update_status_enum() {
    // new-api stores any status (DECISIONS NA11; profiles.rs tests both profiles).
    {
        let profile = Profile::Documented;
        let server = MockServer::builder().profile(profile).start().await;
        let before = server.key(1).unwrap();
        for status in [0, 5, 9, -5, 1000] {
            for query in ["", "?status_only=1"] {
                let mut body = full(1);
                body["status"] = json!(status);
                let msg = failure_message(&put(&server, query, body).await);
                assert!(
                    msg.contains("1, 2, 3 or 4"),
                    "{profile:?} {status} {query}: {msg}"
                );
            }
        }
        assert_eq!(
            server.key(1).unwrap(),
            before,
            "{profile:?}: nothing stored"
        );
        // In range, it is taken (status_only applies it in both profiles).
        let v = put(&server, "?status_only=1", json!({"id": 1, "status": 2})).await;
        assert_eq!(v["data"]["status"], 2, "{profile:?}");
        // After name length and negative quota, before the lookup.
        let body = json!({"id": 999, "remain_quota": -5, "status": 9});
        assert!(failure_message(&put(&server, "", body).await).contains("negative"));
        let body = json!({"id": 999, "status": 9});
        assert!(failure_message(&put(&server, "", body).await).contains("1, 2, 3 or 4"));
    }
}

#[tokio::test]
async fn token_update_expired_time_range() {
    // new-api stores any expired_time (DECISIONS NA11; profiles.rs tests both profiles).
    {
        let profile = Profile::Documented;
        let server = MockServer::builder().profile(profile).start().await;
        let before = server.key(1).unwrap();
        for t in [-2i64, -5, i64::MIN] {
            let mut body = full(1);
            body["expired_time"] = json!(t);
            let msg = failure_message(&put(&server, "", body).await);
            assert!(msg.contains("expired_time"), "{profile:?} {t}: {msg}");
        }
        assert_eq!(
            server.key(1).unwrap(),
            before,
            "{profile:?}: nothing stored"
        );
        for t in [-1i64, 0, 4_102_444_800] {
            let mut body = full(1);
            body["expired_time"] = json!(t);
            let v = put(&server, "", body).await;
            assert_eq!(v["data"]["expired_time"], t, "{profile:?} {v}");
            let record = v["data"].clone();
            gatecheck_schemas::validate("key-record", &record).expect("key-record schema");
        }
        // Creating a key checks the range too.
        let v = Http::new(server.uri())
            .json(
                "POST",
                "/api/token/",
                &DEMO,
                json!({"name": "n", "expired_time": -5}),
            )
            .await
            .json();
        assert_eq!(v["success"], false, "{v}");
    }
}

// Planted first: each answer follows the new-api source named (main 823e263).

/// new-api's controller/token.go `GetAllTokens` and `GetToken` answer through
/// `buildMaskedTokenResponse(s)` (model/token.go `GetMaskedKey`): the listing and one key show
/// the key masked, as PUT and search already do; only `POST /api/token/{id}/key` reveals it.
#[tokio::test]
async fn list_and_get_mask_keys_in_new_api_profile() {
    let server = MockServer::builder().profile(Profile::NewApi).start().await;
    let http = Http::new(server.uri());
    let full_key = server.key(2).unwrap().key;
    let masked = gatecheck_schemas::rules::auth::mask_key(&full_key);
    let v = http.get("/api/token/?p=1&size=100", &DEMO).await.json();
    let items = v["data"]["items"].as_array().unwrap();
    assert!(!items.is_empty());
    for item in items {
        let id = item["id"].as_i64().unwrap();
        let key = server.key(id).unwrap().key;
        assert_eq!(
            item["key"],
            json!(gatecheck_schemas::rules::auth::mask_key(&key)),
            "{item}"
        );
    }
    let one = http.get("/api/token/2", &DEMO).await.json();
    assert_eq!(one["data"]["key"], json!(masked), "{one}");
    let revealed = http
        .send("POST", "/api/token/2/key", &DEMO, "")
        .await
        .json();
    assert_eq!(revealed["data"]["key"], json!(full_key));
}

/// new-api's controller/token.go `AddToken` binds with `c.ShouldBindJSON` (Go's
/// encoding/json): a JSON `null` leaves a field at its zero value, as the PUT already takes it.
#[tokio::test]
async fn create_takes_null_fields_as_zero_values() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = MockServer::builder().profile(profile).start().await;
        let body = json!({
            "name": "nulls", "expired_time": null, "remain_quota": null,
            "unlimited_quota": null, "model_limits_enabled": null, "model_limits": null,
            "allow_ips": null, "group": null, "cross_group_retry": null
        });
        let v = Http::new(server.uri())
            .json("POST", "/api/token/", &DEMO, body)
            .await
            .json();
        assert_eq!(v["success"], true, "{profile:?}: {v}");
        let made = server
            .state()
            .keys
            .into_iter()
            .find(|k| k.name == "nulls")
            .unwrap();
        assert_eq!(
            (made.remain_quota, made.expired_time, made.group.as_str()),
            (0, -1, "")
        );
    }
}

/// new-api's router/api-router.go puts `GET /api/usage/token` behind
/// middleware/auth.go `TokenAuthReadOnly`, which answers 401 `{success:false, message:"Invalid
/// token"}` for a key it cannot find and 401 `This token status is unavailable` for a disabled
/// one, before controller/token.go `GetTokenUsage` runs.
#[tokio::test]
async fn usage_token_refuses_unknown_and_disabled_keys_with_401() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = MockServer::builder().profile(profile).start().await;
        let http = Http::new(server.uri());
        let unknown = http
            .get("/api/usage/token", &[("authorization", "Bearer sk-nope")])
            .await;
        assert_eq!(unknown.status, 401, "{profile:?}");
        assert_eq!(
            unknown.json(),
            json!({"success": false, "message": "Invalid token"})
        );
        let disabled = http
            .get(
                "/api/usage/token",
                &[("authorization", &bearer(KEY_DISABLED))],
            )
            .await;
        assert_eq!(disabled.status, 401, "{profile:?}");
        assert_eq!(
            disabled.json()["message"],
            "This token status is unavailable"
        );
        let missing = http.get("/api/usage/token", &[]).await;
        assert_eq!(
            (missing.status, missing.json()["message"].clone()),
            (401, json!("Token not provided"))
        );
    }
}

/// The documented profile refuses a page out of range with 400 (`check_paging`; new-api's
/// common GetPageQuery normalises it instead): the document must allow that status on
/// `GET /api/token/search`, as it does on `GET /api/token/` (Schemathesis ST103 otherwise).
#[tokio::test]
async fn search_page_size_over_the_bound_is_a_documented_400() {
    let server = MockServer::start().await;
    let resp = Http::new(server.uri())
        .get("/api/token/search?page_size=101", &DEMO)
        .await;
    assert_eq!(resp.status, 400, "{}", resp.text());
    let doc = gatecheck_schemas::openapi();
    let op = &doc["paths"]["/api/token/search"]["get"];
    let bound = op["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "page_size")
        .map(|p| p["schema"]["maximum"].clone());
    assert_eq!(bound, Some(json!(100)));
    assert!(op["responses"].get("400").is_some(), "{}", op["responses"]);
    let failure = &resp.json();
    assert_eq!(failure["success"], false);
}
