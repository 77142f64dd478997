//! The logged-in user's routes beside the keys, in new-api's shapes (main
//! 823e263), by personal access token as the token routes: `GET /api/user/self`,
//! `/api/user/self/groups`, `/api/user/models`, `/api/log/self`, `/api/log/self/stat`,
//! `/api/data/self`. What they report agrees with what the mock charged.

use crate::support::*;
use gatecheck_mock::{ClockMode, MockServer};
use gatecheck_schemas::openapi::check::{Answer, ResponseChecker};
use gatecheck_schemas::Profile;
use serde_json::{json, Value};

/// A new-api mock on a virtual clock.
async fn new_api() -> MockServer {
    MockServer::builder()
        .profile(Profile::NewApi)
        .clock(ClockMode::virtual_default())
        .start()
        .await
}

/// One image generation on the demo key (a charged request): the quota it charged.
async fn charge_once(server: &MockServer, http: &Http) -> i64 {
    let before = server.key(1).unwrap().used_quota;
    let resp = http
        .json(
            "POST",
            "/v1/images/generations",
            &[("authorization", &bearer(KEY_ENABLED))],
            json!({"model": "flux-schnell", "prompt": "a lighthouse", "size": "512x512", "n": 1}),
        )
        .await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    let charged = server.key(1).unwrap().used_quota - before;
    assert!(charged > 0);
    charged
}

/// `GET path` as the demo account: asserts 200 and that the document allows the answer.
async fn get_ok(http: &Http, path: &str) -> Value {
    let resp = http.get(path, &DEMO).await;
    assert_eq!(resp.status, 200, "{path}: {}", resp.text());
    let ct = resp.header("content-type").unwrap_or("").to_owned();
    let rid = resp.header("x-oneapi-request-id").unwrap_or("").to_owned();
    let headers = [
        ("content-type", ct.as_str()),
        ("x-oneapi-request-id", rid.as_str()),
    ];
    let bare = path.split('?').next().unwrap_or(path);
    let answer = Answer {
        method: "GET",
        path: bare,
        status: resp.status,
        headers: &headers,
        body: &resp.body,
    };
    let problems = ResponseChecker::new().check(&answer);
    assert!(problems.is_empty(), "{path}: {problems:?}\n{}", resp.text());
    resp.json()
}

/// controller/user.go `GetSelf` (buildSelfUserData, calculateUserPermissions for a common
/// user, authz.Capabilities: no admin permission): the account, its quota and what it used.
#[tokio::test]
async fn self_is_the_account_with_what_its_keys_used() {
    let server = new_api().await;
    let http = Http::new(server.uri());
    let charged = charge_once(&server, &http).await;
    let v = get_ok(&http, "/api/user/self").await;
    assert_eq!(
        (v["success"].clone(), v["message"].clone()),
        (json!(true), json!(""))
    );
    let d = &v["data"];
    assert_eq!(
        (d["id"].clone(), d["username"].clone()),
        (json!(1), json!("demo"))
    );
    assert_eq!(
        (d["role"].clone(), d["status"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(d["group"], "default");
    let used: i64 = server
        .state()
        .keys
        .iter()
        .filter(|k| k.user_id == 1)
        .map(|k| k.used_quota)
        .sum();
    assert_eq!(d["used_quota"], json!(used), "{d}");
    assert!(used >= charged);
    assert_eq!(d["request_count"], 1);
    assert!(d["quota"].as_i64().unwrap() >= 0);
    assert_eq!(d["permissions"]["sidebar_settings"], true);
    assert_eq!(d["permissions"]["sidebar_modules"], json!({"admin": false}));
    assert_eq!(
        d["permissions"]["admin_permissions"]["channel"]["read"],
        false
    );
    // Another account sees itself.
    let other = http
        .get(
            "/api/user/self",
            &[("authorization", OTHER_ACCESS_TOKEN), ("new-api-user", "2")],
        )
        .await
        .json();
    assert_eq!(
        (
            other["data"]["id"].clone(),
            other["data"]["used_quota"].clone()
        ),
        (json!(2), json!(0))
    );
}

/// controller/group.go `GetUserGroups` (routed at `/api/user/self/groups`): each group the
/// user may use with its ratio and description (setting/user_usable_group.go's defaults).
#[tokio::test]
async fn self_groups_are_the_usable_groups_with_their_ratios() {
    let server = new_api().await;
    let v = get_ok(&Http::new(server.uri()), "/api/user/self/groups").await;
    assert_eq!(
        v["data"],
        json!({"default": {"ratio": 1, "desc": "默认分组"}, "vip": {"ratio": 2, "desc": "vip分组"}})
    );
}

/// controller/user.go `GetUserModels`: the models enabled in the user's usable groups, as a
/// list of names: the catalog's models, the same the key without limits lists.
#[tokio::test]
async fn user_models_are_the_models_a_key_without_limits_lists() {
    let server = new_api().await;
    let http = Http::new(server.uri());
    let v = get_ok(&http, "/api/user/models").await;
    let listed = http
        .get("/v1/models", &[("authorization", &bearer(KEY_ENABLED))])
        .await
        .json();
    let ids: Vec<Value> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].clone())
        .collect();
    assert!(!ids.is_empty());
    assert_eq!(v["data"], Value::Array(ids));
}

/// controller/log.go `GetUserLogs` (model/log.go GetUserLogs, formatUserLogs,
/// assignDisplayLogIds): a page `{page, page_size, total, items}` of the user's logs, newest
/// first, each consume log (type 2) with the key's name, the model and the quota charged.
#[tokio::test]
async fn self_logs_list_each_charge() {
    let server = new_api().await;
    let http = Http::new(server.uri());
    let first = charge_once(&server, &http).await;
    let second = charge_once(&server, &http).await;
    let v = get_ok(&http, "/api/log/self?p=1&page_size=10").await;
    let d = &v["data"];
    assert_eq!(
        (
            d["page"].clone(),
            d["page_size"].clone(),
            d["total"].clone()
        ),
        (json!(1), json!(10), json!(2)),
        "{d}"
    );
    let items = d["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    let quotas: Vec<i64> = items.iter().map(|i| i["quota"].as_i64().unwrap()).collect();
    assert_eq!(quotas, vec![second, first]);
    let item = &items[0];
    assert_eq!(
        (item["id"].clone(), item["type"].clone()),
        (json!(1), json!(2)),
        "{item}"
    );
    assert_eq!(item["user_id"], 1);
    assert_eq!(item["username"], "demo");
    assert_eq!(item["token_name"], "demo-enabled");
    assert_eq!(item["token_id"], 1);
    assert_eq!(item["model_name"], "flux-schnell");
    assert_eq!(item["channel_name"], "");
    assert!(item["created_at"].as_i64().unwrap() > 0);
    // The filters of GetUserLogs.
    let none = get_ok(&http, "/api/log/self?model_name=tts-1").await;
    assert_eq!(none["data"]["total"], 0);
    let page2 = get_ok(&http, "/api/log/self?p=2&page_size=1").await;
    assert_eq!(page2["data"]["items"][0]["quota"], json!(first));
    assert_eq!(page2["data"]["items"][0]["id"], 2);
    let refunds = get_ok(&http, "/api/log/self?type=6").await;
    assert_eq!(refunds["data"]["total"], 0);
}

/// controller/log.go `GetLogsSelfStat` (model/log.go SumUsedQuota): the quota of the user's
/// consume logs, and the requests of the last 60 seconds (`rpm`; `tpm` their tokens).
#[tokio::test]
async fn self_log_stat_sums_the_charges() {
    let server = new_api().await;
    let http = Http::new(server.uri());
    let a = charge_once(&server, &http).await;
    let b = charge_once(&server, &http).await;
    let v = get_ok(&http, "/api/log/self/stat").await;
    assert_eq!(v["data"]["quota"], json!(a + b), "{v}");
    assert_eq!(v["data"]["rpm"], 2);
    assert_eq!(v["data"]["tpm"], 0);
    server.clock().advance(std::time::Duration::from_secs(61));
    let later = get_ok(&http, "/api/log/self/stat").await;
    assert_eq!(
        (later["data"]["quota"].clone(), later["data"]["rpm"].clone()),
        (json!(a + b), json!(0))
    );
}

/// controller/usedata.go `GetUserQuotaDates` (model/usedata.go LogQuotaData: by the hour;
/// GetQuotaDataByUserId): the user's usage by model and hour, at most a 30-day span.
#[tokio::test]
async fn self_quota_data_is_the_usage_by_the_hour() {
    let server = new_api().await;
    let http = Http::new(server.uri());
    let a = charge_once(&server, &http).await;
    let b = charge_once(&server, &http).await;
    let now = server.clock().now();
    let v = get_ok(
        &http,
        &format!(
            "/api/data/self?start_timestamp={}&end_timestamp={}",
            now - 3600,
            now + 3600
        ),
    )
    .await;
    let rows = v["data"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{v}");
    let row = &rows[0];
    assert_eq!(
        (row["count"].clone(), row["quota"].clone()),
        (json!(2), json!(a + b))
    );
    assert_eq!(
        (row["model_name"].clone(), row["username"].clone()),
        (json!("flux-schnell"), json!("demo"))
    );
    assert_eq!(row["created_at"].as_i64().unwrap() % 3600, 0);
    assert_eq!(row["user_id"], 1);
    let too_long = http
        .get(
            &format!(
                "/api/data/self?start_timestamp=0&end_timestamp={}",
                2_592_001
            ),
            &DEMO,
        )
        .await
        .json();
    assert_eq!(
        too_long,
        json!({"success": false, "message": "时间跨度不能超过 1 个月"})
    );
}

/// middleware/auth.go `UserAuth` guards them all, as the token routes: no token is 401.
#[tokio::test]
async fn user_routes_need_the_access_token() {
    let server = new_api().await;
    let http = Http::new(server.uri());
    for path in [
        "/api/user/self",
        "/api/user/self/groups",
        "/api/user/models",
        "/api/log/self",
        "/api/log/self/stat",
        "/api/data/self",
    ] {
        let resp = http.get(path, &[]).await;
        assert_eq!(resp.status, 401, "{path}");
        assert_eq!(resp.json()["success"], false, "{path}");
    }
}
