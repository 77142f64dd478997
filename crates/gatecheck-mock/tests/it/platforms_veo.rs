//! Gemini (24) and Vertex (41) Veo behind the unified route (DECISIONS D-PLAT-20..22): the
//! channel picks the platform, a fetch is answered in real time (not the record, unlike the
//! other platforms), `unreachable` falls back to the record with the operation as `data`,
//! every state on the clock and through the control API, `/v1/videos/{id}` and a playable
//! content.

use crate::media_util::*;
use crate::support::*;
use gatecheck_mock::MockServer;
use gatecheck_schemas::rules::media::parse_mp4;
use gatecheck_schemas::rules::platform_record::check_record;
use gatecheck_schemas::rules::platforms::{gemini, vertex, Platform};
use gatecheck_schemas::rules::task::{check_envelope, TaskDto, TaskStatus};
use gatecheck_schemas::Profile;
use serde_json::{json, Value};

const GENERATIONS: &str = "/v1/video/generations";

async fn get(server: &MockServer, path: &str) -> Value {
    let resp = get_with(server, path, KEY_ENABLED).await;
    assert_eq!(resp.status, 200, "{path}: {}", resp.text());
    resp.json()
}

/// The real-time answer's `data` (`status`, `url`...), checked for its shape.
async fn realtime(server: &MockServer, id: &str) -> Value {
    let v = get(server, &format!("{GENERATIONS}/{id}")).await;
    assert_eq!(
        (v["code"].as_str(), v["message"].as_str()),
        (Some("success"), Some(""))
    );
    let d = v["data"].clone();
    assert_eq!(d["task_id"], id, "{v}");
    assert_eq!(
        (d["error"].is_null(), d["metadata"].is_null()),
        (true, true),
        "{v}"
    );
    assert_eq!(d["format"], "mp4");
    d
}

/// The record (the real-time fetch made to fail).
async fn record(server: &MockServer, id: &str) -> TaskDto {
    let v = get(server, &format!("{GENERATIONS}/{id}")).await;
    gatecheck_schemas::validate("task-envelope", &v).unwrap_or_else(|e| panic!("{e}: {v}"));
    let t = check_envelope(&v).unwrap_or_else(|e| panic!("{e}: {v}"));
    let schema = gatecheck_schemas::rules::platforms::by_channel_type(&t.platform)
        .expect("a registered platform")
        .data_schema;
    gatecheck_schemas::validate(schema, &t.data).unwrap_or_else(|e| panic!("{e}: {}", t.data));
    t
}

/// Chooses the upstream's `word` for task `id` (`unreachable`: the real-time fetch fails).
async fn upstream(server: &MockServer, id: &str, word: &str) {
    let path = format!("/__mock/videos/{id}/upstream");
    let r = control(server, &path, json!({ "status": word })).await;
    assert_eq!(r.status, 200, "{}", r.text());
}

async fn submit(server: &MockServer, model: &str, prompt: &str, extra: Value) -> (String, Resp) {
    let mut body = json!({"model": model, "prompt": prompt, "duration": 6});
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let resp = post_json(server, GENERATIONS, KEY_ENABLED, body).await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    let id = resp.json()["id"].as_str().unwrap().to_owned();
    (id, resp)
}

async fn lifecycle(server: &MockServer, p: &Platform, model: &str) {
    let (id, resp) = submit(server, model, "a kite over dunes", json!({})).await;
    let v = resp.json();
    assert_eq!(
        (v["status"].as_str(), v["model"].as_str()),
        (Some("queued"), Some(model))
    );
    // Billed by ResolveVeoDuration: `duration` when metadata has no durationSeconds.
    assert_eq!(
        resp.header("x-new-api-other-ratios"),
        Some(r#"{"seconds":6}"#)
    );
    // At once: the upstream's operation is running (Veo has no queued state).
    assert_eq!(realtime(server, &id).await["status"], "processing");
    // The record path: the operation as `data`, the status it maps to.
    upstream(server, &id, "unreachable").await;
    let t = record(server, &id).await;
    assert_eq!(t.platform, p.channel_type, "{}", p.name);
    check_record(p, &t).unwrap_or_else(|e| panic!("{}: {e}", p.name));
    assert_eq!(
        (t.status, t.progress.as_str()),
        (TaskStatus::InProgress, "50%")
    );
    assert_eq!(
        t.data["done"],
        Value::Null,
        "a running operation: {}",
        t.data
    );
    advance(server, 120.0).await;
    let done = record(server, &id).await;
    check_record(p, &done).unwrap();
    assert_eq!(
        (done.status, done.data["done"].as_bool()),
        (TaskStatus::Success, Some(true))
    );
    let proxy = format!("{}/v1/videos/{id}/content", server.uri());
    assert_eq!(
        done.result_url.as_deref(),
        Some(proxy.as_str()),
        "{}",
        p.name
    );
    assert!(
        !done.data.to_string().contains("bytesBase64Encoded"),
        "{}",
        done.data
    );
    // Back to real time: Gemini shows its proxy URL, Vertex none (a data: URL stays in data).
    upstream(server, &id, "done").await;
    let now = realtime(server, &id).await;
    assert_eq!(now["status"], "succeeded");
    let url = if p.name == "gemini" {
        proxy.as_str()
    } else {
        ""
    };
    assert_eq!(now["url"], url, "{}", p.name);
    // `/v1/videos/{id}`: the model from the operation name.
    let video = get(server, &format!("/v1/videos/{id}")).await;
    assert_eq!(
        (video["id"].as_str(), video["model"].as_str()),
        (Some(id.as_str()), Some(model))
    );
    assert_eq!(
        (video["status"].as_str(), video["progress"].as_i64()),
        (Some("completed"), Some(100))
    );
    assert!(
        video.get("metadata").is_none() && video.get("error").is_none(),
        "{video}"
    );
    assert_eq!(video["completed_at"].as_i64(), Some(done.finish_time));
    // The content: a real MP4.
    let mp4 = get_with(server, &format!("/v1/videos/{id}/content"), KEY_ENABLED).await;
    assert_eq!(mp4.status, 200);
    parse_mp4(&mp4.body).expect("a playable mp4");
    // A chosen failure: real time says failed at once, the record carries the reason.
    let (fid, _) = submit(server, model, "a kite [fail]", json!({})).await;
    advance(server, 120.0).await;
    let f = realtime(server, &fid).await;
    assert_eq!(
        (f["status"].as_str(), f["url"].as_str()),
        (Some("failed"), Some(""))
    );
    upstream(server, &fid, "unreachable").await;
    let failed = record(server, &fid).await;
    check_record(p, &failed).unwrap();
    assert_eq!(
        (failed.status, failed.progress.as_str()),
        (TaskStatus::Failure, "100%")
    );
    assert_eq!(
        failed.data["error"]["message"].as_str(),
        Some(failed.fail_reason.as_str())
    );
    assert!(!failed.fail_reason.is_empty());
    let video = get(server, &format!("/v1/videos/{fid}")).await;
    assert_eq!(video["status"], "failed", "{video}");
}

#[tokio::test]
async fn gemini_and_vertex_on_the_clock_and_the_control_api_in_both_profiles() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server(profile).await;
        lifecycle(&server, &gemini::PLATFORM, "veo-3.1-fast-generate-preview").await;
        lifecycle(&server, &vertex::PLATFORM, "veo-3.0-fast-generate-001").await;
    }
}

#[tokio::test]
async fn a_fetch_asks_veo_in_real_time_and_the_others_answer_their_record() {
    let server = adaptors_server(Profile::NewApi).await;
    let (veo, _) = submit(
        &server,
        "veo-3.1-fast-generate-preview",
        "a kite",
        json!({}),
    )
    .await;
    let (vidu, _) = submit(&server, "viduq1", "a kite", json!({})).await;
    advance(&server, 120.0).await;
    // The same moment: Gemini's fetch is the real-time answer, Vidu's the stored record.
    let g = get(&server, &format!("{GENERATIONS}/{veo}")).await;
    assert_eq!(
        (g["data"]["status"].as_str(), g["data"].get("platform")),
        (Some("succeeded"), None)
    );
    let v = get(&server, &format!("{GENERATIONS}/{vidu}")).await;
    assert_eq!(
        (v["data"]["status"].as_str(), v["data"]["platform"].as_str()),
        (Some("SUCCESS"), Some("52"))
    );
    // Only a real-time platform offers `unreachable`.
    let r = control(
        &server,
        &format!("/__mock/videos/{vidu}/upstream"),
        json!({"status": "unreachable"}),
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.text());
}

#[tokio::test]
async fn metadata_overlays_the_veo_request() {
    let server = adaptors_server(Profile::NewApi).await;
    let extra = json!({"seconds": "4", "metadata": {"durationSeconds": 8}, "duration": 0});
    let (_, resp) = submit(&server, "veo-3.0-fast-generate-001", "a kite", extra).await;
    assert_eq!(
        resp.header("x-new-api-other-ratios"),
        Some(r#"{"seconds":8}"#)
    );
    let img = json!({"images": ["data:image/png;base64,iVBORw0KGgo="], "duration": 4});
    let (id, _) = submit(&server, "veo-3.0-fast-generate-001", "a kite", img).await;
    upstream(&server, &id, "unreachable").await;
    assert_eq!(
        record(&server, &id).await.action,
        "generate",
        "Vertex reads images[0]"
    );
    let (id, _) = submit(
        &server,
        "veo-3.1-fast-generate-preview",
        "a kite",
        json!({"images": ["aGVsbG8="]}),
    )
    .await;
    upstream(&server, &id, "unreachable").await;
    assert_eq!(
        record(&server, &id).await.action,
        "textGenerate",
        "Gemini: always textGenerate"
    );
}

/// `GET /v1/videos/{id}/content`: new-api's content-route error (status, message, `server_error`).
async fn content_error(server: &MockServer, id: &str, status: u16, message: &str) {
    let r = get_with(server, &format!("/v1/videos/{id}/content"), KEY_ENABLED).await;
    assert_eq!(r.status, status, "{id}: {}", r.text());
    assert_eq!(
        r.json(),
        json!({"error": {"message": message, "type": "server_error"}})
    );
}

/// A succeeded task of `model` (the clock moved past its end).
async fn succeeded(server: &MockServer, model: &str) -> String {
    let (id, _) = submit(server, model, "a kite", json!({})).await;
    advance(server, 120.0).await;
    assert_eq!(realtime(server, &id).await["status"], "succeeded");
    id
}

#[tokio::test]
async fn the_content_route_fails_as_new_api_when_its_upstream_does_in_both_profiles() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server(profile).await;
        // Gemini: the stored operation has its `uri`, so `unreachable` fails the download.
        let g = succeeded(&server, "veo-3.1-fast-generate-preview").await;
        upstream(&server, &g, "unreachable").await;
        content_error(&server, &g, 502, "Failed to fetch video content").await;
        assert_eq!(record(&server, &g).await.status, TaskStatus::Success);
        // A state clears the conditions; a task stored without its key: 500 before any URL.
        upstream(&server, &g, "done").await;
        upstream(&server, &g, "no_key").await;
        content_error(&server, &g, 500, "API key not stored for task").await;
        assert_eq!(realtime(&server, &g).await["status"], "succeeded");
        // Done without a video (the safety filter): no URL to resolve; still `succeeded`.
        upstream(&server, &g, "filtered").await;
        content_error(&server, &g, 502, "Failed to resolve Gemini video URL").await;
        assert_eq!(realtime(&server, &g).await["status"], "succeeded");
        // Vertex: its video needs a new fetch (base64 removed from `data`).
        let v = succeeded(&server, "veo-3.0-fast-generate-001").await;
        upstream(&server, &v, "unreachable").await;
        content_error(&server, &v, 502, "Failed to resolve Vertex video URL").await;
        upstream(&server, &v, "filtered").await;
        content_error(&server, &v, 502, "Failed to resolve Vertex video URL").await;
        // Vertex reads the channel's key when the task has none: no `no_key`.
        let path = format!("/__mock/videos/{v}/upstream");
        let r = control(&server, &path, json!({"status": "no_key"})).await;
        assert_eq!(r.status, 400, "{}", r.text());
        // Back to `done`: the MP4.
        upstream(&server, &v, "done").await;
        let mp4 = get_with(&server, &format!("/v1/videos/{v}/content"), KEY_ENABLED).await;
        assert_eq!(mp4.status, 200);
        parse_mp4(&mp4.body).expect("a playable mp4");
    }
}

#[tokio::test]
async fn a_filtered_operation_is_a_success_without_a_video_and_survives_a_dump() {
    let server = adaptors_server(Profile::NewApi).await;
    let (g, _) = submit(
        &server,
        "veo-3.1-fast-generate-preview",
        "a kite",
        json!({}),
    )
    .await;
    // `filtered` is a state of success: refused while the operation runs.
    let path = format!("/__mock/videos/{g}/upstream");
    let r = control(&server, &path, json!({"status": "filtered"})).await;
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(
        r.text().contains("running, unreachable, no_key"),
        "{}",
        r.text()
    );
    let (v, _) = submit(&server, "veo-3.0-fast-generate-001", "a kite", json!({})).await;
    advance(&server, 120.0).await;
    // Filtered and unreachable: the record shows the operation without a sample.
    upstream(&server, &g, "filtered").await;
    upstream(&server, &g, "unreachable").await;
    upstream(&server, &v, "unreachable").await;
    let dump = Http::new(server.uri()).get("/__mock/state", &[]).await;
    assert_eq!(dump.status, 200);
    let r = control(&server, "/__mock/reset", json!({})).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let load = Http::new(server.uri())
        .send(
            "PUT",
            "/__mock/state",
            &[("content-type", "application/json")],
            dump.body.clone(),
        )
        .await;
    assert_eq!(load.status, 200, "{}", load.text());
    content_error(&server, &g, 502, "Failed to resolve Gemini video URL").await;
    content_error(&server, &v, 502, "Failed to resolve Vertex video URL").await;
    let t = record(&server, &g).await;
    check_record(&gemini::PLATFORM, &t).unwrap();
    assert_eq!(
        (t.status, t.progress.as_str()),
        (TaskStatus::Success, "100%")
    );
    let answer = &t.data["response"]["generateVideoResponse"];
    assert_eq!(t.data["done"], true);
    assert_eq!(answer["raiMediaFilteredCount"], 1, "{}", t.data);
    assert!(answer.get("generatedSamples").is_none(), "{}", t.data);
    // A condition the dump does not know does not load.
    let bad = dump.text().replace("\"unreachable\"", "\"asleep\"");
    let r = Http::new(server.uri())
        .send(
            "PUT",
            "/__mock/state",
            &[("content-type", "application/json")],
            bad.into_bytes(),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text());
}
