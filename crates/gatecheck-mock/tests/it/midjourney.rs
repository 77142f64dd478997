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
