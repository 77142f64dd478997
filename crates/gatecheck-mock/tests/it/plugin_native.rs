//! Kling's and Jimeng's native routes in the plugin era (DECISIONS D-ERA-11): the plugins'
//! own bodies with the public task id, their refusals in the plugin's `native.error`; and the
//! OpenAI-video task's plugin render of a failure. The adaptors' era keeps new-api's objects
//! (tests/it/tasks.rs).

use super::support::{bearer, Http, KEY_ENABLED};
use gatecheck_mock::{ClockMode, MockServer};
use gatecheck_schemas::rules::platforms::{jimeng, kling, sora, OPENAI_VIDEO};
use gatecheck_schemas::NamedProfile;
use serde_json::json;
use std::time::Duration;

async fn server(named: NamedProfile) -> MockServer {
    MockServer::builder()
        .named_profile(named)
        .clock(ClockMode::virtual_default())
        .start()
        .await
}

#[tokio::test]
async fn kling_answers_its_own_bodies_with_the_public_id() {
    let server = server(NamedProfile::NEW_API).await;
    let http = Http::new(server.uri());
    let auth = bearer(KEY_ENABLED);
    let h = [("authorization", auth.as_str())];
    let model = kling::PLATFORM.catalog_model;
    let path = "/kling/v1/videos/text2video";
    // No prompt: the plugin's decoder does not require one.
    let r = http
        .json("POST", path, &h, json!({"model_name": model}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["code"], 0, "{v}");
    let id = v["data"]["task_id"].as_str().expect("task_id").to_owned();
    assert!(id.starts_with("task_"), "{v}");
    assert_eq!(v["data"]["task_status"], "submitted", "{v}");
    assert!(
        v.get("object").is_none(),
        "not new-api's create object: {v}"
    );
    let got = http.get(&format!("{path}/{id}"), &h).await.json();
    assert_eq!(got["data"]["task_id"], id.as_str(), "{got}");
    assert_eq!(got["code"], 0, "{got}");
    server.clock().advance(Duration::from_secs(3600));
    let done = http.get(&format!("{path}/{id}"), &h).await.json();
    assert_eq!(done["data"]["task_status"], "succeed", "{done}");
    assert!(
        done["data"]["task_result"]["videos"][0]["url"].is_string(),
        "{done}"
    );
    for (body, message) in [
        (json!({"prompt": "p"}), kling::MSG_MODEL_REQUIRED),
        (
            json!({"model": model, "mode": "std"}),
            kling::MSG_V2_MASTER_STD,
        ),
    ] {
        let r = http.json("POST", path, &h, body).await;
        assert_eq!(r.status, 400, "{}", r.text());
        assert_eq!(r.json()["message"], message, "{}", r.text());
        assert!(r.json()["code"].is_string(), "{}", r.text());
    }
    let unknown = http.get(&format!("{path}/task_nosuch"), &h).await;
    assert_eq!(unknown.status, 400);
    assert_eq!(unknown.json()["code"], "task_not_exist");
}

#[tokio::test]
async fn jimeng_renders_volcengines_body_and_refuses_other_actions() {
    let server = server(NamedProfile::NEW_API).await;
    let http = Http::new(server.uri());
    let auth = bearer(KEY_ENABLED);
    let h = [("authorization", auth.as_str())];
    let model = jimeng::PLATFORM.catalog_model;
    let path = |a: &str| format!("/jimeng/?Action={a}&Version=2022-08-31");
    let r = http
        .json(
            "POST",
            &path("CVSync2AsyncSubmitTask"),
            &h,
            json!({"req_key": model, "prompt": "p"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["code"], 10000, "{v}");
    let id = v["data"]["task_id"].as_str().expect("task_id").to_owned();
    let got = http
        .json(
            "POST",
            &path("CVSync2AsyncGetResult"),
            &h,
            json!({"task_id": id}),
        )
        .await
        .json();
    assert_eq!(got["code"], 10000, "{got}");
    assert_eq!(got["data"]["task_id"], id.as_str(), "{got}");
    assert_eq!(got["data"]["status"], "in_queue", "{got}");
    for (query, body, message) in [
        ("/jimeng/", json!({}), "Action query parameter is required"),
        (
            &path("CVSync2AsyncGetResult")[..],
            json!({}),
            "task_id is required for CVSync2AsyncGetResult",
        ),
        (
            &path("Other")[..],
            json!({"req_key": model}),
            jimeng::MSG_UNSUPPORTED_ACTION,
        ),
    ] {
        let r = http.json("POST", query, &h, body).await;
        assert_eq!(r.status, 400, "{query}: {}", r.text());
        assert_eq!(
            r.json(),
            json!({"code": 400, "message": message}),
            "{query}"
        );
    }
    // Through `/v1/videos`, its plugin takes 5 seconds only.
    let r = http
        .json(
            "POST",
            "/v1/videos",
            &h,
            json!({"model": model, "prompt": "p", "seconds": "10"}),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text());
    let body = r.json();
    let message = gatecheck_schemas::rules::era::plugin_refusal_message(&body);
    assert!(message.starts_with("seconds must be 5"), "{message}");
}

#[tokio::test]
async fn a_failed_openai_video_task_shows_its_plugins_error() {
    let server = server(NamedProfile::NEW_API).await;
    let http = Http::new(server.uri());
    let auth = bearer(KEY_ENABLED);
    let h = [("authorization", auth.as_str())];
    let body = json!({"model": OPENAI_VIDEO.catalog_model, "prompt": "a storm [fail]"});
    let r = http.json("POST", "/v1/videos", &h, body).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let id = r.json()["id"].as_str().expect("id").to_owned();
    server.clock().advance(Duration::from_secs(3600));
    let v = http.get(&format!("/v1/videos/{id}"), &h).await.json();
    assert_eq!(v["status"], "failed", "{v}");
    assert_eq!(v["error"]["code"], sora::FAILED_CODE, "{v}");
    assert_eq!(v["error"]["message"], sora::FAILED_MESSAGE, "{v}");
}
