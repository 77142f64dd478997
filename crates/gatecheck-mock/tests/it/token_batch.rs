//! new-api's key search and batch routes (DECISIONS D-TOKEN-6 to D-TOKEN-8) and the model
//! lists in Anthropic's and Gemini's shapes (D-MODELS-1 to D-MODELS-3).

use crate::support::*;
use gatecheck_mock::MockServer;
use serde_json::{json, Value};

fn others_key(server: &MockServer) -> i64 {
    server
        .state()
        .keys
        .iter()
        .find(|k| k.user_id != 1)
        .map(|k| k.id)
        .expect("a key of another account")
}

#[tokio::test]
async fn search_is_routed_before_the_id_and_matches_name_and_key() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let key = server.key(1).unwrap();
    let q = format!("/api/token/search?keyword={}", key.name.replace(' ', "%20"));
    let v = http.get(&q, &DEMO).await.json();
    assert_eq!(v["success"], true, "{v}");
    let items = v["data"]["items"].as_array().unwrap();
    assert!(items.iter().any(|i| i["id"] == 1), "{v}");
    assert!(items.iter().all(|i| i["name"] == key.name.as_str()), "{v}");
    let masked = gatecheck_schemas::rules::auth::mask_key(&key.key);
    assert!(items.iter().all(|i| i["key"] != key.key.as_str()), "{v}");
    assert!(items.iter().any(|i| i["key"] == masked.as_str()), "{v}");
    let by_key = http
        .get(&format!("/api/token/search?token=sk-{}", key.key), &DEMO)
        .await
        .json();
    assert_eq!(by_key["data"]["total"], 1, "{by_key}");
    assert_eq!(by_key["data"]["items"][0]["id"], 1);
    let refused = http
        .get("/api/token/search?keyword=%25%25ab", &DEMO)
        .await
        .json();
    assert_eq!(refused["success"], false, "{refused}");
    let three = http
        .get("/api/token/search?keyword=%25a%25b%25", &DEMO)
        .await
        .json();
    assert_eq!(
        three["message"],
        gatecheck_schemas::rules::token_batch::MSG_TOO_MANY_PERCENT
    );
}

#[tokio::test]
async fn batch_keys_answers_only_the_callers_keys_and_at_most_100_ids() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let other = others_key(&server);
    let v = http
        .json(
            "POST",
            "/api/token/batch/keys",
            &DEMO,
            json!({"ids": [1, other, 999_999]}),
        )
        .await
        .json();
    assert_eq!(v["success"], true, "{v}");
    let keys = v["data"]["keys"].as_object().unwrap();
    assert_eq!(keys.len(), 1, "{v}");
    assert_eq!(keys["1"], server.key(1).unwrap().key.as_str());
    let ids: Vec<i64> = (1..=101).collect();
    let v = http
        .json(
            "POST",
            "/api/token/batch/keys",
            &DEMO,
            json!({ "ids": ids }),
        )
        .await
        .json();
    assert_eq!(
        v["message"],
        "Too many items in batch request, maximum is 100"
    );
    for bad in [json!({"ids": []}), json!({"ids": ["1"]}), json!({})] {
        let v = http
            .json("POST", "/api/token/batch/keys", &DEMO, bad)
            .await
            .json();
        assert_eq!(v["message"], "Invalid parameters", "{v}");
    }
}

#[tokio::test]
async fn batch_delete_counts_only_the_callers_keys() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let other = others_key(&server);
    let v = http
        .json(
            "POST",
            "/api/token/batch",
            &DEMO,
            json!({"ids": [1, 1, other, 999_999]}),
        )
        .await
        .json();
    assert_eq!(v, json!({"success": true, "message": "", "data": 1}));
    assert!(server.key(1).is_none());
    assert!(server.key(other).is_some());
    let v = http
        .json("POST", "/api/token/batch", &DEMO, json!({"ids": []}))
        .await
        .json();
    assert_eq!(v["message"], "Invalid parameters");
}

#[tokio::test]
async fn model_lists_in_anthropic_and_gemini_shapes_follow_the_openai_list() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let secret = server.key(1).unwrap().key;
    let auth = bearer(&secret);
    let openai = http
        .get("/v1/models", &[("authorization", &auth)])
        .await
        .json();
    let ids: Vec<Value> = openai["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].clone())
        .collect();
    assert!(!ids.is_empty());
    let anthropic = http
        .get(
            "/v1/models",
            &[("x-api-key", &secret), ("anthropic-version", "2023-06-01")],
        )
        .await;
    assert_eq!(anthropic.status, 200, "{}", anthropic.text());
    let a = anthropic.json();
    let a_ids: Vec<Value> = a["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].clone())
        .collect();
    assert_eq!(a_ids, ids);
    assert_eq!(a["first_id"], ids[0]);
    assert_eq!(a["last_id"], ids[ids.len() - 1]);
    assert_eq!(a["has_more"], false);
    assert_eq!(a["data"][0]["type"], "model");
    assert!(gatecheck_schemas::validate("anthropic-model-list", &a).is_ok());
    // x-api-key alone is only a key: the OpenAI list.
    let plain = http
        .get("/v1/models", &[("x-api-key", &secret)])
        .await
        .json();
    assert_eq!(plain["object"], "list");
    for headers in [
        vec![("x-goog-api-key", secret.as_str())],
        vec![("authorization", auth.as_str())],
    ] {
        let g = http.get("/v1beta/models", &headers).await;
        assert_eq!(g.status, 200, "{}", g.text());
        let g = g.json();
        let g_ids: Vec<Value> = g["models"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].clone())
            .collect();
        assert_eq!(g_ids, ids);
        assert!(g["nextPageToken"].is_null());
        assert!(gatecheck_schemas::validate("gemini-model-list", &g).is_ok());
    }
    let q = http.get(&format!("/v1beta/models?key={secret}"), &[]).await;
    assert_eq!(q.status, 200);
    assert_eq!(http.get("/v1beta/models", &[]).await.status, 401);
    let goog_on_v1 = http
        .get("/v1/models", &[("x-goog-api-key", &secret)])
        .await
        .json();
    assert_eq!(goog_on_v1["error"]["code"], "model_not_found");
}
