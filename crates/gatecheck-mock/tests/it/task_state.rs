//! The task routes' state in the dump (`GET|PUT /__mock/state`) and the state file
//! (`--state-file`): a Midjourney task, a Kling task with its `callback_url` and a remix read
//! back the same after a restart or a dump and load (DECISIONS D-TASK, D-MJ).

use crate::media_util::*;
use crate::support::*;
use gatecheck_mock::{ClockMode, MockServer, StateSnapshot};
use serde_json::{json, Value};

const CALLBACK: &str = "http://127.0.0.1:9/kling-callback";

fn builder() -> gatecheck_mock::MockServerBuilder {
    MockServer::builder().clock(ClockMode::virtual_default())
}

/// The ids of the tasks [`populate`] made.
struct Made {
    mj: String,
    mj_failed: String,
    kling: String,
    source: String,
    remix: String,
}

async fn created(server: &MockServer, path: &str, body: Value) -> String {
    let resp = post_json(server, path, KEY_ENABLED, body).await;
    assert_eq!(resp.status, 200, "{path}: {}", resp.text());
    let v = resp.json();
    let id = v["result"].as_str().or(v["id"].as_str());
    id.unwrap_or_else(|| panic!("no id: {v}")).to_owned()
}

/// Two Midjourney imagines (one forced to fail), a Kling task with a `callback_url`, and a
/// remix of a completed Sora task.
async fn populate(server: &MockServer) -> Made {
    let http = Http::new(server.uri());
    let mj = created(server, "/mj/submit/imagine", json!({"prompt": "a red fox"})).await;
    let mj_failed = created(server, "/mj/submit/imagine", json!({"prompt": "a boat"})).await;
    let forced = http
        .json(
            "POST",
            &format!("/__mock/mj/{mj_failed}/outcome"),
            &[],
            json!({"outcome": "failed", "message": "banned prompt", "immediate": true}),
        )
        .await;
    assert_eq!(forced.status, 200, "{}", forced.text());
    let kling = created(
        server,
        "/kling/v1/videos/text2video",
        json!({"model_name": "kling-v2-master", "prompt": "a heron", "callback_url": CALLBACK}),
    )
    .await;
    let body = json!({"model": "sora-2", "prompt": "a cat", "seconds": "4"});
    let source = created(server, "/v1/videos", body).await;
    advance(server, 120.0).await;
    let remix = format!("/v1/videos/{source}/remix");
    let remix = created(server, &remix, json!({"prompt": "at night"})).await;
    Made {
        mj,
        mj_failed,
        kling,
        source,
        remix,
    }
}

/// What the task routes answer for `made`, with the server's base URL written `BASE` (two
/// mocks listen on two ports).
async fn answers(server: &MockServer, made: &Made) -> Vec<(String, u16, Value)> {
    let paths = [
        format!("/mj/task/{}/fetch", made.mj),
        format!("/mj/task/{}/fetch", made.mj_failed),
        format!("/v1/video/generations/{}", made.kling),
        format!("/kling/v1/videos/text2video/{}", made.kling),
        format!("/v1/video/generations/{}", made.source),
        format!("/v1/video/generations/{}", made.remix),
        format!("/v1/videos/{}", made.remix),
    ];
    let mut out = Vec::new();
    for path in paths {
        let resp = get_with(server, &path, KEY_ENABLED).await;
        let text = resp.text().replace(&server.uri(), "BASE");
        let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}: {text}"));
        out.push((path, resp.status, v));
    }
    out
}

/// The answers show what the tasks are: the Midjourney records, the Kling platform and
/// action, the remix's action and source.
fn assert_shown(a: &[(String, u16, Value)], made: &Made) {
    assert!(a.iter().all(|(_, status, _)| *status == 200), "{a:#?}");
    let (mj, failed) = (&a[0].2, &a[1].2);
    assert_eq!(
        (mj["id"].as_str(), mj["action"].as_str()),
        (Some(made.mj.as_str()), Some("IMAGINE"))
    );
    assert_eq!(
        (failed["status"].as_str(), failed["failReason"].as_str()),
        (Some("FAILURE"), Some("banned prompt"))
    );
    let kling = &a[2].2["data"];
    assert_eq!(
        (kling["platform"].as_str(), kling["action"].as_str()),
        (Some("50"), Some("textGenerate"))
    );
    assert_eq!(a[3].2["data"]["platform"], "50");
    assert_eq!(a[4].2["data"]["platform"], "55");
    assert_eq!(a[5].2["data"]["action"], "remixGenerate");
    assert_eq!(
        a[6].2["remixed_from_video_id"].as_str(),
        Some(made.source.as_str())
    );
}

#[tokio::test]
async fn task_route_state_survives_a_restart_from_the_state_file() {
    let path = temp_state("task-routes");
    let server = builder().state_file(&path).start().await;
    let made = populate(&server).await;
    let before = answers(&server, &made).await;
    assert_shown(&before, &made);
    // As after kill -9: a copy of the file taken while the mock runs, once every write was
    // acknowledged.
    let crashed = path.with_file_name("crashed.json");
    std::fs::copy(&path, &crashed).unwrap();
    server.close().await.unwrap();
    for file in [&path, &crashed] {
        let again = builder().state_file(file).start().await;
        assert_eq!(
            answers(&again, &made).await,
            before,
            "from {}",
            file.display()
        );
        let kept = again.state().task_meta;
        let kling = kept
            .iter()
            .find(|e| e.id == made.kling)
            .expect("the Kling entry");
        assert_eq!(kling.callback_url.as_deref(), Some(CALLBACK));
        again.close().await.unwrap();
    }
}

#[tokio::test]
async fn a_state_file_without_the_task_route_fields_still_loads() {
    let server = builder().start().await;
    let made = populate(&server).await;
    let mut old = serde_json::to_value(server.state()).unwrap();
    let fields = old.as_object_mut().unwrap();
    for field in ["task_meta", "mj_tasks"] {
        assert!(fields.remove(field).is_some(), "the dump has {field}");
    }
    let path = temp_state("old-format");
    std::fs::write(&path, serde_json::to_vec_pretty(&old).unwrap()).unwrap();
    let again = builder().state_file(&path).start().await;
    let state: StateSnapshot = again.state();
    assert!(state.task_meta.is_empty() && state.mj_tasks.is_empty());
    assert_eq!(state.keys, server.state().keys);
    assert_eq!(state.videos, server.state().videos);
    // What the old file held reads back: the Sora source task, as before.
    let (a, b) = (answers(&server, &made).await, answers(&again, &made).await);
    assert_eq!(a[4], b[4]);
    again.close().await.unwrap();
}

/// Waits until the callback pump has taken the Kling task's callback off the wait list. Its
/// task ended in [`populate`]'s clock advance, so the callback is due, and the pump (a 50 ms
/// real-time tick) takes it: a dump taken before lists it, one taken after does not. Dumped
/// before, it goes into the fresh mock with the load, whose own pump takes it soon after,
/// and the fresh mock's dump then lacks it or not by when that pump ran (under load, once in
/// a while it did first). Waiting for the event makes both dumps the state after it,
/// whatever the machine's pace.
async fn callback_taken(server: &MockServer, kling: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while server.state().callbacks.iter().any(|c| c.task_id == kling) {
        assert!(
            std::time::Instant::now() < deadline,
            "the ended Kling task's callback was never taken off the wait list"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

#[tokio::test]
async fn a_dump_loaded_into_a_fresh_mock_answers_the_same() {
    let server = builder().start().await;
    let made = populate(&server).await;
    let before = answers(&server, &made).await;
    assert_shown(&before, &made);
    callback_taken(&server, &made.kling).await;
    let dump = Http::new(server.uri()).get("/__mock/state", &[]).await;
    assert_eq!(dump.status, 200);
    let fresh = builder().start().await;
    let http = Http::new(fresh.uri());
    let headers = [("content-type", "application/json")];
    let load = http
        .send("PUT", "/__mock/state", &headers, dump.body.clone())
        .await;
    assert_eq!(load.status, 200, "{}", load.text());
    assert_eq!(answers(&fresh, &made).await, before);
    assert_eq!(http.get("/__mock/state", &[]).await.json(), dump.json());
    // A name the mock does not know is refused, and the state stays as it was.
    let mut odd = dump.json();
    odd["task_meta"][0]["platform"] = json!("99");
    let refused = http
        .send("PUT", "/__mock/state", &headers, odd.to_string())
        .await;
    assert_eq!(refused.status, 400);
    assert!(
        refused.text().contains("unknown task platform"),
        "{}",
        refused.text()
    );
    assert_eq!(answers(&fresh, &made).await, before);
}

/// A state file that a mock wrote before the tasks moved into one store, made by
/// `gatecheck serve --seed 41 --clock virtual --state-file`: video tasks charged, refunded,
/// deleted and remixed, a Kling and a Jimeng task with their route-table entries, a Kling
/// callback still waiting, Midjourney tasks (one forced to fail) and a clock offset.
const STATE_BEFORE_41: &str = include_str!("../data/state-before-41.json");

/// The JSON answer of `GET path` with the enabled key (200 asserted).
async fn shown(server: &MockServer, path: &str) -> Value {
    let resp = get_with(server, path, KEY_ENABLED).await;
    assert_eq!(resp.status, 200, "{path}: {}", resp.text());
    resp.json()
}

#[tokio::test]
async fn a_state_file_written_before_the_task_store_loads_and_dumps_byte_for_byte() {
    let path = temp_state("before-41");
    std::fs::write(&path, STATE_BEFORE_41).unwrap();
    let server = builder().state_file(&path).start().await;
    let dump = serde_json::to_string_pretty(&server.state()).unwrap();
    assert!(
        dump == STATE_BEFORE_41,
        "the state read back differs:\n{dump}"
    );
    let state = server.state();
    assert_eq!(state.clock_offset_ms, 123_000);
    assert_eq!(
        (state.videos.tasks.len(), state.task_meta.len()),
        (7, 4),
        "tasks and route-table entries"
    );
    assert_eq!((state.callbacks.len(), state.mj_tasks.len()), (1, 3));
    // The task routes answer from what was loaded.
    let kling = shown(
        &server,
        "/v1/video/generations/task_hAR39JzLoYpe1XvLqpWiZ0nQgeENq7rA",
    )
    .await;
    assert_eq!(kling["data"]["platform"], "50");
    let jimeng = shown(
        &server,
        "/v1/video/generations/task_WiFDihhrKIR65snbFsq4XcCQQQEfUuNo",
    )
    .await;
    assert_eq!(jimeng["data"]["platform"], "51");
    let remix = shown(&server, "/v1/videos/task_ZKG1P8SdfmJEy5eDbbfE1StAFJWLs2x4").await;
    assert_eq!(
        remix["remixed_from_video_id"],
        "task_2ErzqeMnArUUs1iy7Jlp3601GrZJgHTF"
    );
    let failed = shown(&server, "/v1/videos/task_cviDtcfe2L6kWIucz4CQkTndJav7asi4").await;
    assert_eq!(failed["status"], "failed");
    let mj = shown(&server, "/mj/task/1763683200000432/fetch").await;
    assert_eq!(
        (mj["status"].as_str(), mj["failReason"].as_str()),
        (Some("FAILURE"), Some("banned prompt"))
    );
    server.close().await.unwrap();
}
