//! The Midjourney task routes over HTTP, as curl sends them (DECISIONS D-MJ): submit with a
//! Bearer key or `mj-api-secret`, fetch on the virtual clock to SUCCESS, the image, the
//! derivative actions, refusals, charging after submit, the outcome override.

use crate::media_util::*;
use crate::support::*;
use gatecheck_mock::{ClockMode, MockServer};
use gatecheck_schemas::rules::midjourney::{check_record, parse_progress};
use gatecheck_schemas::rules::quota::{price_quota, Usage};
use serde_json::{json, Value};
use std::time::Duration;

async fn mock() -> MockServer {
    MockServer::builder()
        .clock(ClockMode::virtual_default())
        .start()
        .await
}

async fn submit(server: &MockServer, path: &str, headers: &[(&str, &str)], body: Value) -> Resp {
    Http::new(server.uri())
        .json("POST", path, headers, body)
        .await
}

async fn fetch(server: &MockServer, id: &str) -> Resp {
    get_with(server, &format!("/mj/task/{id}/fetch"), KEY_ENABLED).await
}

fn price(model: &str) -> i64 {
    let pricing = gatecheck_mock::Fixtures::embedded()
        .catalog
        .into_iter()
        .find(|m| m.id == model)
        .expect("an mj model in the catalog")
        .pricing;
    price_quota(&pricing, Usage::one_request())
}

#[tokio::test]
async fn an_imagine_moves_to_success_and_its_image_is_a_png() {
    let server = mock().await;
    let auth = bearer(KEY_ENABLED);
    let before = remain(&server);
    let resp = submit(
        &server,
        "/mj/submit/imagine",
        &[("authorization", auth.as_str())],
        json!({"prompt": "a red fox"}),
    )
    .await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    let v = resp.json();
    assert_eq!(v["code"], 1);
    let id = v["result"].as_str().expect("task id").to_owned();
    assert_eq!(id.len(), 16);
    assert!(gatecheck_schemas::validate("mj-submit-answer", &v).is_ok());
    assert_eq!(
        before - remain(&server),
        price("mj_imagine"),
        "charged after submit"
    );

    let first = fetch(&server, &id).await.json();
    assert_eq!(first["status"], "SUBMITTED");
    assert_eq!(first["progress"], "0%");
    let (mut last_rank, mut last_progress) = (0, 0);
    let mut record = first;
    for _ in 0..40 {
        server.clock().advance(Duration::from_secs(1));
        record = fetch(&server, &id).await.json();
        check_record(&record).unwrap();
        gatecheck_schemas::validate("mj-task", &record).unwrap();
        let rank =
            gatecheck_schemas::rules::midjourney::status_rank(record["status"].as_str().unwrap());
        let progress = parse_progress(record["progress"].as_str().unwrap()).expect("NN%");
        assert!(rank >= last_rank && progress >= last_progress, "{record}");
        (last_rank, last_progress) = (rank, progress);
        if record["status"] == "SUCCESS" {
            break;
        }
    }
    assert_eq!(record["status"], "SUCCESS", "{record}");
    assert_eq!(record["progress"], "100%");
    let url = record["imageUrl"].as_str().unwrap();
    let path = url.strip_prefix(&server.uri()).expect("a URL of the mock");
    let img = Http::new(server.uri()).get(path, &[]).await;
    assert_eq!(img.status, 200);
    let info = gatecheck_schemas::rules::media::parse_png(&img.body).expect("a PNG");
    assert_eq!((info.width, info.height), (1024, 1024));

    // U2 from its button, with the key in mj-api-secret and the mode prefix.
    let custom = record["buttons"][1]["customId"]
        .as_str()
        .unwrap()
        .to_owned();
    let secret = format!("sk-{KEY_ENABLED}");
    let up = submit(
        &server,
        "/mj-fast/mj/submit/action",
        &[("mj-api-secret", secret.as_str())],
        json!({"customId": custom, "taskId": id}),
    )
    .await;
    assert_eq!(up.status, 200, "{}", up.text());
    let up_id = up.json()["result"].as_str().unwrap().to_owned();
    assert_eq!(fetch(&server, &up_id).await.json()["action"], "UPSCALE");
}

#[tokio::test]
async fn refusals_are_new_api_s_and_charge_nothing() {
    let server = mock().await;
    let auth = bearer(KEY_ENABLED);
    let h = [("authorization", auth.as_str())];
    let before = remain(&server);
    for (path, body, reason) in [
        (
            "/mj/submit/imagine",
            json!({"prompt": ""}),
            "prompt_is_required ",
        ),
        (
            "/mj/submit/change",
            json!({"action": "UPSCALE", "index": 1}),
            "task_id_is_required ",
        ),
        (
            "/mj/submit/change",
            json!({"taskId": "1", "action": "UPSCALE", "index": 1}),
            "task_not_found ",
        ),
        (
            "/mj/submit/action",
            json!({"taskId": "1"}),
            "custom_id_is_required ",
        ),
        (
            "/mj/submit/simple-change",
            json!({"content": "nonsense"}),
            "invalid_request ",
        ),
    ] {
        let resp = submit(&server, path, &h, body).await;
        assert_eq!(resp.status, 400, "{path}: {}", resp.text());
        assert_eq!(
            resp.json(),
            json!({"description": reason, "type": "upstream_error", "code": 4}),
            "{path}"
        );
    }
    let unknown = fetch(&server, "1234567890123456").await;
    assert_eq!(unknown.status, 400);
    assert_eq!(unknown.json()["description"], "task_no_found ");
    assert_eq!(remain(&server), before);
    // No key at all: 401 before anything; the image route needs none.
    let anon = submit(&server, "/mj/submit/imagine", &[], json!({"prompt": "x"})).await;
    assert_eq!(anon.status, 401);
    let img = Http::new(server.uri()).get("/mj/image/1", &[]).await;
    assert_eq!(img.status, 400);
}

#[tokio::test]
async fn a_change_needs_a_finished_grid_and_outcomes_can_be_forced() {
    let server = mock().await;
    let auth = bearer(KEY_ENABLED);
    let h = [("authorization", auth.as_str())];
    let id = submit(
        &server,
        "/mj/submit/imagine",
        &h,
        json!({"prompt": "a boat"}),
    )
    .await
    .json()["result"]
        .as_str()
        .unwrap()
        .to_owned();
    let early = submit(
        &server,
        "/mj/submit/change",
        &h,
        json!({"taskId": id, "action": "VARIATION", "index": 2}),
    )
    .await;
    assert_eq!(early.json()["description"], "task_status_not_success ");
    let forced = Http::new(server.uri())
        .json(
            "POST",
            &format!("/__mock/mj/{id}/outcome"),
            &[],
            json!({"outcome": "failed", "message": "banned prompt", "immediate": true}),
        )
        .await;
    assert_eq!(forced.status, 200, "{}", forced.text());
    let record = fetch(&server, &id).await.json();
    assert_eq!(record["status"], "FAILURE");
    assert_eq!(record["failReason"], "banned prompt");
    check_record(&record).unwrap();
}

#[tokio::test]
async fn the_proxy_placeholder_defers_to_mj_api_secret() {
    let server = mock().await;
    let secret = format!("Bearer sk-{KEY_ENABLED}");
    let resp = submit(
        &server,
        "/mj/submit/imagine",
        &[
            ("authorization", "Bearer midjourney-proxy"),
            ("mj-api-secret", secret.as_str()),
        ],
        json!({"prompt": "a kite"}),
    )
    .await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    assert_eq!(resp.json()["code"], 1);
    // A Bearer key wins over mj-api-secret; a wrong one is refused.
    let wrong = submit(
        &server,
        "/mj/submit/imagine",
        &[
            ("authorization", "Bearer sk-wrong"),
            ("mj-api-secret", secret.as_str()),
        ],
        json!({"prompt": "a kite"}),
    )
    .await;
    assert_eq!(wrong.status, 401);
}

/// A 1x1 PNG as a data URL.
const DATA_URL: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==";

#[tokio::test]
async fn an_upload_answers_one_url_per_image_and_is_charged_once() {
    let server = mock().await;
    let auth = bearer(KEY_ENABLED);
    let headers = [("authorization", auth.as_str())];
    let path = "/mj/submit/upload-discord-images";
    let before = remain(&server);
    let resp = submit(
        &server,
        path,
        &headers,
        json!({"base64Array": [DATA_URL, DATA_URL]}),
    )
    .await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    let v = resp.json();
    assert_eq!(v["code"], 1);
    assert_eq!(v["result"].as_array().map(Vec::len), Some(2), "{v}");
    assert_eq!(before - remain(&server), price("mj_upload"));
    // No images, or one that is not a data URL: the upstream's code 4 with HTTP 200, free.
    for body in [
        json!({}),
        json!({"base64Array": []}),
        json!({"base64Array": ["iVBORw0KGgo="]}),
    ] {
        let before = remain(&server);
        let resp = submit(&server, path, &headers, body.clone()).await;
        assert_eq!(resp.status, 200, "{body}: {}", resp.text());
        assert_eq!(resp.json()["code"], 4, "{body}");
        assert_eq!(remain(&server), before, "{body} was charged");
    }
}

#[tokio::test]
async fn a_face_swap_is_a_task_charged_as_swap_face() {
    let server = mock().await;
    let auth = bearer(KEY_ENABLED);
    let headers = [("authorization", auth.as_str())];
    let path = "/mj/insight-face/swap";
    let missing = submit(&server, path, &headers, json!({"sourceBase64": DATA_URL})).await;
    assert_eq!(missing.status, 400);
    assert_eq!(
        missing.json()["description"],
        "sour_base64_and_target_base64_is_required "
    );
    let before = remain(&server);
    let body = json!({"sourceBase64": DATA_URL, "targetBase64": DATA_URL});
    let resp = submit(&server, path, &headers, body).await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    assert_eq!(before - remain(&server), price("swap_face"));
    let id = resp.json()["result"].as_str().expect("task id").to_owned();
    let record = fetch(&server, &id).await.json();
    assert_eq!(record["action"], "SWAP_FACE");
    assert_eq!(record["prompt"], "InsightFace");
}

#[tokio::test]
async fn list_by_condition_answers_the_users_tasks_among_the_ids_and_seed_waits_for_success() {
    let server = mock().await;
    let auth = bearer(KEY_ENABLED);
    let headers = [("authorization", auth.as_str())];
    let mut ids = Vec::new();
    for prompt in ["a red fox", "a blue whale"] {
        let resp = submit(
            &server,
            "/mj/submit/imagine",
            &headers,
            json!({"prompt": prompt}),
        )
        .await;
        ids.push(resp.json()["result"].as_str().expect("id").to_owned());
    }
    let list = |body: Value| {
        let server = &server;
        let headers = &headers;
        async move { submit(server, "/mj/task/list-by-condition", headers, body).await }
    };
    // Asked newest first, with a repeat and an unknown id: each known task once, oldest first.
    let resp = list(json!({"ids": [ids[1], ids[0], ids[1], "1"]})).await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    let got: Vec<Value> = resp.json().as_array().cloned().expect("an array");
    let got_ids: Vec<&str> = got.iter().filter_map(|r| r["id"].as_str()).collect();
    assert_eq!(got_ids, [ids[0].as_str(), ids[1].as_str()]);
    assert_eq!(list(json!({})).await.json(), json!([]));
    let refused = list(json!({"ids": "x"})).await;
    assert_eq!(refused.status, 400);
    assert_eq!(refused.json()["description"], "do_request_failed ");
    // Another user's key sees none of them.
    let other = bearer(KEY_OTHER_USER);
    let resp = Http::new(server.uri())
        .json(
            "POST",
            "/mj/task/list-by-condition",
            &[("authorization", other.as_str())],
            json!({"ids": ids}),
        )
        .await;
    assert_eq!(resp.json(), json!([]), "{}", resp.text());

    let seed_path = format!("/mj/task/{}/image-seed", ids[0]);
    let early = get_with(&server, &seed_path, KEY_ENABLED).await.json();
    assert_eq!(early["code"], 4, "{early}");
    server.clock().advance(Duration::from_secs(60));
    let seed = get_with(&server, &seed_path, KEY_ENABLED).await.json();
    assert_eq!(seed["code"], 1, "{seed}");
    assert!(
        seed["result"]
            .as_str()
            .is_some_and(|s| s.parse::<u64>().is_ok()),
        "{seed}"
    );
    let unknown = get_with(&server, "/mj/task/1/image-seed", KEY_ENABLED).await;
    assert_eq!(unknown.status, 400);
}

#[tokio::test]
async fn a_field_of_another_type_is_refused_as_go_decodes_it() {
    let server = mock().await;
    let auth = bearer(KEY_ENABLED);
    let headers = [("authorization", auth.as_str())];
    for body in [
        json!({"prompt": "a cat", "notifyHook": {}}),
        json!({"prompt": "a cat", "index": 1.5}),
        json!({"prompt": 5}),
        json!({"prompt": "a cat", "base64Array": [1]}),
    ] {
        let before = remain(&server);
        let resp = submit(&server, "/mj/submit/imagine", &headers, body.clone()).await;
        assert_eq!(resp.status, 400, "{body}: {}", resp.text());
        assert_eq!(
            resp.json()["description"],
            "bind_request_body_failed ",
            "{body}"
        );
        assert_eq!(remain(&server), before);
    }
    // A field new-api does not know is accepted, whatever its type.
    let resp = submit(
        &server,
        "/mj/submit/imagine",
        &headers,
        json!({"prompt": "a cat", "extra": {}}),
    )
    .await;
    assert_eq!(resp.status, 200, "{}", resp.text());
}
