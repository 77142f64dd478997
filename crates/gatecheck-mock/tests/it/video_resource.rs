//! The video object of `/v1/videos*` against OpenAI's published `VideoResource` schema
//! (fixtures/openai/video-resource.schema.json, copied from openai/openai-openapi with its
//! commit noted): in the documented profile every object validates (every required key
//! present, `null` where unknown); in the `new-api` profile an unset key is left out, as
//! new-api's dto/openai_video.go does (DECISIONS D-ROUTE-4).

use crate::support::*;
use gatecheck_mock::{ClockMode, MockServer};
use gatecheck_schemas::rules::video::{missing_openai_keys, OPENAI_NULLABLE_KEYS};
use gatecheck_schemas::Profile;
use serde_json::{json, Value};

const SCHEMA: &str = include_str!("../../../../fixtures/openai/video-resource.schema.json");

fn validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(SCHEMA).expect("the fixture is JSON");
    jsonschema::validator_for(&schema).expect("the fixture is a JSON Schema")
}

fn errors(v: &jsonschema::Validator, object: &Value) -> Vec<String> {
    v.iter_errors(object).map(|e| e.to_string()).collect()
}

/// Every video object the mock shows for two tasks, one completed and one failed: the create
/// answers, a poll in each state, and the list.
async fn objects(profile: Profile) -> Vec<Value> {
    let server = MockServer::builder()
        .profile(profile)
        // The Go-adaptor era's expectations (new-api-adaptors; the plugin era: plugin_era.rs).
        .era(gatecheck_schemas::Era::Adaptors)
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    let http = Http::new(server.uri());
    let auth = bearer(KEY_ENABLED);
    let headers = [("authorization", auth.as_str())];
    let mut seen = Vec::new();
    let mut ids = Vec::new();
    for (model, size) in [("sora-2", "1280x720"), ("sora-2-pro", "1792x1024")] {
        let body = json!({"model": model, "prompt": "a paper boat on a pond", "size": size});
        let created = http.json("POST", "/v1/videos", &headers, body).await;
        assert_eq!(created.status, 200, "{}", created.text());
        let created = created.json();
        ids.push(created["id"].as_str().expect("id").to_owned());
        seen.push(created);
    }
    let failed = format!("/__mock/videos/{}/outcome", ids[1]);
    let set = http
        .json(
            "POST",
            &failed,
            &[],
            json!({"outcome": "failed", "code": "moderation", "message": "refused"}),
        )
        .await;
    assert_eq!(set.status, 200, "{}", set.text());
    for step in [6.0, 600.0] {
        advance(&server, step).await;
        for id in &ids {
            let polled = http.get(&format!("/v1/videos/{id}"), &headers).await;
            assert_eq!(polled.status, 200, "{}", polled.text());
            seen.push(polled.json());
        }
    }
    if profile == Profile::Documented {
        let list = http.get("/v1/videos", &headers).await.json();
        seen.extend(list["data"].as_array().cloned().unwrap_or_default());
    }
    seen
}

#[tokio::test]
async fn documented_video_objects_validate_against_openai_video_resource() {
    let v = validator();
    let objects = objects(Profile::Documented).await;
    let statuses: std::collections::BTreeSet<&str> = objects
        .iter()
        .filter_map(|o| o["status"].as_str())
        .collect();
    assert_eq!(
        statuses.into_iter().collect::<Vec<_>>(),
        ["completed", "failed", "in_progress", "queued"],
        "every state is covered"
    );
    for o in &objects {
        assert_eq!(errors(&v, o), Vec::<String>::new(), "{o}");
        assert!(missing_openai_keys(o).is_empty(), "{o}");
        assert_eq!(o["prompt"], "a paper boat on a pond", "{o}");
        assert!(
            o["expires_at"].is_null() && o["remixed_from_video_id"].is_null(),
            "{o}"
        );
        match o["status"].as_str() {
            Some("completed") => assert!(o["completed_at"].is_i64() && o["error"].is_null(), "{o}"),
            Some("failed") => assert_eq!(o["error"]["code"], "moderation", "{o}"),
            _ => assert!(o["completed_at"].is_null() && o["error"].is_null(), "{o}"),
        }
    }
}

#[tokio::test]
async fn new_api_video_objects_leave_unset_keys_out() {
    let v = validator();
    for o in objects(Profile::NewApi).await {
        let missing = missing_openai_keys(&o);
        // No prompt and no expiry ever; the rest only while unset.
        assert!(
            missing.contains(&"prompt") && missing.contains(&"expires_at"),
            "{o}"
        );
        for key in OPENAI_NULLABLE_KEYS {
            assert!(
                o.get(key).is_none_or(|x| !x.is_null()),
                "new-api writes no null {key}: {o}"
            );
        }
        assert!(
            !errors(&v, &o).is_empty(),
            "new-api's object lacks required keys: {o}"
        );
    }
}
