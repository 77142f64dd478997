//! new-api's task routes over HTTP, as curl would send them (DECISIONS D-TASK): the unified
//! video routes and remix, on the virtual clock, in both profiles.

use crate::media_util::*;
use crate::support::*;
use gatecheck_mock::{ClockMode, MockServer};
use gatecheck_schemas::rules::task::{
    check_envelope, check_envelope_transition, check_task_error, envelope_task, parse_progress,
    TaskDto, TaskStatus,
};
use gatecheck_schemas::rules::video::is_task_id;
use gatecheck_schemas::Profile;
use serde_json::{json, Value};

const GENERATIONS: &str = "/v1/video/generations";

/// `curl -H 'Authorization: Bearer KEY' BASE/v1/video/generations/ID`, judged by the rules.
async fn fetch(server: &MockServer, id: &str) -> TaskDto {
    let resp = get_with(server, &format!("{GENERATIONS}/{id}"), KEY_ENABLED).await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    let v = resp.json();
    gatecheck_schemas::validate("task-envelope", &v).unwrap_or_else(|e| panic!("{e}: {v}"));
    let t = check_envelope(&v).unwrap_or_else(|e| panic!("{e}: {v}"));
    assert_eq!(envelope_task(&v).ok().as_ref(), Some(&t));
    assert!(parse_progress(&t.progress).is_some(), "{v}");
    t
}

async fn create(server: &MockServer, path: &str, prompt: &str) -> Value {
    let body = json!({"model": "sora-2", "prompt": prompt, "seconds": "4"});
    let resp = post_json(server, path, KEY_ENABLED, body).await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    let v = resp.json();
    gatecheck_schemas::validate("video-task", &v).unwrap_or_else(|e| panic!("{e}: {v}"));
    v
}

#[tokio::test]
async fn unified_create_and_fetch_follow_the_clock_in_both_profiles() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server(profile).await;
        let before = remain(&server);
        let v = create(&server, GENERATIONS, "a lighthouse at dawn").await;
        let id = v["id"].as_str().unwrap().to_owned();
        assert!(is_task_id(&id) && v["task_id"] == id, "{v}");
        assert_eq!(
            (v["status"].as_str(), v["progress"].as_i64()),
            (Some("queued"), Some(0))
        );
        let first = fetch(&server, &id).await;
        assert_eq!(before - remain(&server), first.quota, "charged at submit");
        assert!(first.quota > 0);
        assert_eq!(
            (first.status, first.progress.as_str()),
            (TaskStatus::Queued, "0%")
        );
        assert_eq!(
            (first.platform.as_str(), first.action.as_str()),
            ("55", "textGenerate")
        );
        assert_eq!(first.data["id"], id, "data is the upstream video object");
        advance(&server, 8.0).await;
        let mid = fetch(&server, &id).await;
        assert_eq!(mid.status, TaskStatus::InProgress, "{profile:?}");
        assert!(mid.start_time >= mid.submit_time && mid.finish_time == 0);
        check_envelope_transition(&first, &mid).unwrap();
        advance(&server, 120.0).await;
        let done = fetch(&server, &id).await;
        check_envelope_transition(&mid, &done).unwrap();
        assert_eq!(
            (done.status, done.progress.as_str()),
            (TaskStatus::Success, "100%")
        );
        let url = done.result_url.clone().unwrap();
        assert!(url.ends_with(&format!("/v1/videos/{id}/content")), "{url}");
        // The same task on the OpenAI route.
        let resp = get_with(&server, &format!("/v1/videos/{id}"), KEY_ENABLED).await;
        assert_eq!(resp.json()["status"], "completed");
        assert_eq!(remain(&server), before - first.quota, "polls are free");
    }
}

#[tokio::test]
async fn unified_failed_task_reports_failure_and_reason() {
    let server = adaptors_server(Profile::NewApi).await;
    let v = create(&server, GENERATIONS, "a storm at sea [fail]").await;
    advance(&server, 300.0).await;
    let t = fetch(&server, v["id"].as_str().unwrap()).await;
    assert_eq!(t.status, TaskStatus::Failure);
    assert!(!t.fail_reason.is_empty() && t.result_url.is_none() && t.finish_time > 0);
}

#[tokio::test]
async fn unknown_or_foreign_ids_are_task_not_exist() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server(profile).await;
        let v = create(&server, GENERATIONS, "mine").await;
        let id = v["id"].as_str().unwrap();
        let unknown = format!("{GENERATIONS}/task_00000000000000000000000000000000");
        for (path, key) in [
            (unknown.as_str(), KEY_ENABLED),
            (&format!("{GENERATIONS}/{id}"), KEY_OTHER_USER),
        ] {
            let resp = get_with(&server, path, key).await;
            assert_eq!(resp.status, 400, "{}", resp.text());
            assert_eq!(
                resp.json(),
                json!({"code":"task_not_exist","message":"task_not_exist","data":null})
            );
        }
        let resp = Http::new(server.uri()).get(&unknown, &[]).await;
        assert_eq!(resp.status, 401, "the key is checked first");
    }
}

#[tokio::test]
async fn remix_makes_a_charged_task_from_a_completed_one() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server(profile).await;
        let source = create(&server, "/v1/videos", "a cat").await;
        let sid = source["id"].as_str().unwrap().to_owned();
        let remix = format!("/v1/videos/{sid}/remix");
        // Not completed yet: the upstream refuses, nothing is charged.
        let before = remain(&server);
        let resp = post_json(&server, &remix, KEY_ENABLED, json!({"prompt": "at night"})).await;
        assert_eq!(resp.status, 400, "{}", resp.text());
        check_task_error(&resp.json(), "fail_to_fetch_task").unwrap();
        assert_eq!(remain(&server), before);
        advance(&server, 120.0).await;
        let resp = post_json(&server, &remix, KEY_ENABLED, json!({"prompt": "  "})).await;
        assert_eq!(resp.status, 400);
        assert_eq!(resp.json()["message"], "field prompt is required");
        let resp = post_json(&server, &remix, KEY_ENABLED, json!({"prompt": "at night"})).await;
        assert_eq!(resp.status, 200, "{}", resp.text());
        let v = resp.json();
        gatecheck_schemas::validate("video-task", &v).unwrap();
        let id = v["id"].as_str().unwrap().to_owned();
        assert!(is_task_id(&id) && id != sid);
        assert_eq!(v["remixed_from_video_id"], sid);
        assert_eq!(
            (v["model"].clone(), v["status"].clone()),
            (source["model"].clone(), json!("queued"))
        );
        let charged = before - remain(&server);
        assert!(charged > 0);
        let t = fetch(&server, &id).await;
        assert_eq!((t.action.as_str(), t.quota), ("remixGenerate", charged));
        advance(&server, 120.0).await;
        let resp = get_with(&server, &format!("/v1/videos/{id}"), KEY_ENABLED).await;
        let polled = resp.json();
        assert_eq!(
            (
                polled["status"].as_str(),
                polled["remixed_from_video_id"].as_str()
            ),
            (Some("completed"), Some(sid.as_str()))
        );
        // Unknown, or another user's: task_not_exist (task_origin_not_exist).
        for (path, key) in [
            ("/v1/videos/task_nope/remix", KEY_ENABLED),
            (remix.as_str(), KEY_OTHER_USER),
        ] {
            let resp = post_json(&server, path, key, json!({"prompt": "x"})).await;
            assert_eq!(resp.status, 400);
            assert_eq!(
                resp.json(),
                json!({"code":"task_not_exist","message":"task_origin_not_exist","data":null})
            );
        }
    }
}

const KLING: &str = "/kling/v1/videos/text2video";

#[tokio::test]
async fn kling_create_answers_new_apis_object_and_fetch_the_envelope() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server(profile).await;
        let before = remain(&server);
        let body = json!({"model_name": "kling-v2-master", "prompt": "koi in the rain", "duration": "5", "aspect_ratio": "16:9"});
        let resp = post_json(&server, KLING, KEY_ENABLED, body).await;
        assert_eq!(resp.status, 200, "{}", resp.text());
        let v = resp.json();
        let id = v["id"].as_str().unwrap().to_owned();
        assert!(
            is_task_id(&id) && v["task_id"] == id && v["object"] == "video",
            "{v}"
        );
        assert_eq!(
            (v["status"].as_str(), v["progress"].as_i64()),
            (Some("queued"), Some(0))
        );
        assert!(v.get("code").is_none(), "not Kling's envelope: {v}");
        assert!(remain(&server) < before, "charged at submit");
        let path = format!("/kling/v1/videos/image2video/{id}");
        let first = {
            let resp = get_with(&server, &path, KEY_ENABLED).await;
            assert_eq!(resp.status, 200, "{}", resp.text());
            check_envelope(&resp.json()).unwrap()
        };
        assert_eq!(
            (first.status, first.platform.as_str()),
            (TaskStatus::Submitted, "50")
        );
        assert_eq!(
            (
                first.action.as_str(),
                first.data["data"]["task_status"].as_str()
            ),
            ("textGenerate", Some("submitted"))
        );
        advance(&server, 300.0).await;
        let resp = get_with(
            &server,
            &path.replace("image2video", "text2video"),
            KEY_ENABLED,
        )
        .await;
        let done = check_envelope(&resp.json()).unwrap();
        check_envelope_transition(&first, &done).unwrap();
        assert_eq!(done.status, TaskStatus::Success);
        assert_eq!(done.data["data"]["task_status"], "succeed");
        assert_eq!(
            done.data["data"]["task_result"]["videos"][0]["url"].as_str(),
            done.result_url.as_deref()
        );
    }
}

#[tokio::test]
async fn kling_refusals() {
    let server = adaptors_server(Profile::NewApi).await;
    let before = remain(&server);
    let resp = post_json(
        &server,
        KLING,
        KEY_ENABLED,
        json!({"model_name": "kling-v2-master", "prompt": " "}),
    )
    .await;
    assert_eq!(resp.status, 400);
    assert_eq!(
        resp.json(),
        json!({"code": "invalid_request", "message": "prompt is required", "data": null})
    );
    let resp = post_json(
        &server,
        KLING,
        KEY_ENABLED,
        json!({"model_name": "kling-v2-master", "prompt": "x", "duration": "7"}),
    )
    .await;
    assert_eq!(resp.status, 400);
    check_task_error(&resp.json(), "task_failed").unwrap();
    assert_eq!(remain(&server), before, "refusals are not charged");
    let resp = Http::new(server.uri())
        .json(
            "POST",
            KLING,
            &[],
            json!({"model_name": "kling-v2-master", "prompt": "x"}),
        )
        .await;
    assert_eq!(resp.status, 401);
    // An image makes it image to video, whatever the path.
    let body =
        json!({"model": "kling-v2-master", "prompt": "x", "image": "https://example.com/a.png"});
    let resp = post_json(&server, KLING, KEY_ENABLED, body).await;
    let id = resp.json()["id"].as_str().unwrap().to_owned();
    let t = fetch(&server, &id).await;
    assert_eq!(t.action, "generate");
}

#[tokio::test]
async fn jimeng_submit_and_get_result() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server(profile).await;
        let submit = "/jimeng/?Action=CVSync2AsyncSubmitTask&Version=2022-08-31";
        let body = json!({"req_key": "jimeng_vgfm_t2v_l20", "prompt": "a paper boat"});
        let resp = post_json(&server, submit, KEY_ENABLED, body).await;
        assert_eq!(resp.status, 200, "{}", resp.text());
        let id = resp.json()["id"].as_str().unwrap().to_owned();
        assert!(is_task_id(&id));
        let get = "/jimeng/?Action=CVSync2AsyncGetResult&Version=2022-08-31";
        let resp = post_json(&server, get, KEY_ENABLED, json!({"task_id": id})).await;
        assert_eq!(resp.status, 200, "{}", resp.text());
        let t = check_envelope(&resp.json()).unwrap();
        assert_eq!(
            (
                t.status,
                t.platform.as_str(),
                t.data["data"]["status"].as_str()
            ),
            (TaskStatus::Queued, "51", Some("in_queue"))
        );
        advance(&server, 300.0).await;
        let resp = post_json(&server, get, KEY_ENABLED, json!({"task_id": id})).await;
        let t = check_envelope(&resp.json()).unwrap();
        assert_eq!(
            (t.status, t.data["data"]["status"].as_str()),
            (TaskStatus::Success, Some("done"))
        );
        // Checks before the key: no Action, a body that is not JSON, a fetch without task_id.
        let http = Http::new(server.uri());
        for (path, body, message) in [
            ("/jimeng/", "{}", "Action query parameter is required"),
            (submit, "not json", "Invalid request body"),
            (get, "{}", "task_id is required for CVSync2AsyncGetResult"),
        ] {
            let resp = http
                .send(
                    "POST",
                    path,
                    &[("content-type", "application/json")],
                    body.as_bytes().to_vec(),
                )
                .await;
            assert_eq!(resp.status, 400, "{path}: {}", resp.text());
            let (msg, _, _) = v1_error(&resp);
            assert!(msg.starts_with(message), "{msg}");
        }
        let resp = post_json(
            &server,
            get,
            KEY_ENABLED,
            json!({"task_id": "task_unknown"}),
        )
        .await;
        assert_eq!(
            (resp.status, resp.json()["code"].as_str()),
            (400, Some("task_not_exist"))
        );
    }
}

/// A receiver of callbacks on loopback: answers `status` to every POST and keeps the bodies.
async fn receiver(status: u16) -> (String, std::sync::Arc<parking_lot::Mutex<Vec<Value>>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let got = std::sync::Arc::new(parking_lot::Mutex::new(Vec::new()));
    let keep = got.clone();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            let body = loop {
                let n = s.read(&mut chunk).await.unwrap_or(0);
                if n == 0 {
                    break None;
                }
                buf.extend_from_slice(&chunk[..n]);
                let text = String::from_utf8_lossy(&buf).into_owned();
                let Some(end) = text.find("\r\n\r\n") else {
                    continue;
                };
                let len = text[..end]
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                    })
                    .unwrap_or(0);
                if buf.len() >= end + 4 + len {
                    break Some(buf[end + 4..end + 4 + len].to_vec());
                }
            };
            if let Some(b) = body {
                keep.lock()
                    .push(serde_json::from_slice(&b).unwrap_or(Value::Null));
            }
            let resp =
                format!("HTTP/1.1 {status} X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
            let _ = s.write_all(resp.as_bytes()).await;
        }
    });
    (url, got)
}

async fn kling_with_callback(server: &MockServer, url: &str) -> String {
    let body = json!({"model_name": "kling-v2-master", "prompt": "a heron", "callback_url": url});
    let resp = post_json(server, KLING, KEY_ENABLED, body).await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    resp.json()["id"].as_str().unwrap().to_owned()
}

async fn wait_callbacks(
    server: &MockServer,
    n: usize,
) -> Vec<gatecheck_mock::callbacks::CallbackRecord> {
    for _ in 0..200 {
        let cbs = server.callbacks();
        if cbs.len() >= n {
            return cbs;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    server.callbacks()
}

#[tokio::test]
async fn kling_callback_is_posted_once_when_the_task_ends() {
    use gatecheck_mock::callbacks::CallbackResult;
    let server = adaptors_server(Profile::NewApi).await;
    let (url, got) = receiver(200).await;
    let id = kling_with_callback(&server, &url).await;
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert!(
        server.callbacks().is_empty() && got.lock().is_empty(),
        "nothing before the end"
    );
    advance(&server, 300.0).await;
    let cbs = wait_callbacks(&server, 1).await;
    assert_eq!(cbs.len(), 1, "{cbs:?}");
    assert_eq!(cbs[0].result, CallbackResult::Delivered { status: 200 });
    assert_eq!((cbs[0].task_id.as_str(), cbs[0].attempts), (id.as_str(), 1));
    assert_eq!(cbs[0].payload["task_status"], "succeed");
    assert_eq!(got.lock().as_slice(), [cbs[0].payload.clone()]);
    let journaled = server
        .received_requests()
        .into_iter()
        .any(|e| e.path == "/hook" && e.fault.as_deref().is_some_and(|f| f.contains("delivered")));
    assert!(journaled, "the callback is journaled");
    // Polling stays the source of truth, and nothing is sent twice.
    assert_eq!(fetch(&server, &id).await.status, TaskStatus::Success);
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(got.lock().len(), 1);
}

#[tokio::test]
async fn kling_callbacks_are_bounded_refused_off_loopback_and_retried() {
    use gatecheck_mock::callbacks::{CallbackResult, MAX_ATTEMPTS};
    let server = adaptors_server(Profile::Documented).await;
    // Not loopback, not allowed: refused at once, never contacted.
    kling_with_callback(&server, "http://203.0.113.7/hook").await;
    let cbs = server.callbacks();
    assert!(
        matches!(cbs[0].result, CallbackResult::Refused { .. }),
        "{cbs:?}"
    );
    assert_eq!(cbs[0].attempts, 0);
    // A receiver that answers 500 is tried MAX_ATTEMPTS times, then given up.
    let (url, got) = receiver(500).await;
    kling_with_callback(&server, &url).await;
    advance(&server, 300.0).await;
    let cbs = wait_callbacks(&server, 2).await;
    assert_eq!(cbs.len(), 2, "{cbs:?}");
    assert_eq!(cbs[1].attempts, MAX_ATTEMPTS);
    assert!(
        matches!(
            cbs[1].result,
            CallbackResult::Failed {
                status: Some(500),
                ..
            }
        ),
        "{cbs:?}"
    );
    assert_eq!(got.lock().len(), MAX_ATTEMPTS as usize);
    // An allowed non-loopback entry is taken; a bad one is refused by the parser.
    assert!("10.0.0.0/8"
        .parse::<gatecheck_mock::callbacks::AllowEntry>()
        .is_ok());
    assert!("10.0.0.0/99"
        .parse::<gatecheck_mock::callbacks::AllowEntry>()
        .is_err());
}

/// A mock with the virtual clock and `--state-file` at `path`.
async fn stateful(path: &std::path::Path) -> MockServer {
    MockServer::builder()
        .clock(ClockMode::virtual_default())
        .state_file(path)
        .start()
        .await
}

#[tokio::test]
async fn a_waiting_kling_callback_survives_a_restart_and_is_sent_once() {
    use gatecheck_mock::callbacks::CallbackResult;
    let dir = std::env::temp_dir().join(format!("gatecheck-it-{}-cb", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("state.json");
    let (url, got) = receiver(200).await;
    let server = stateful(&path).await;
    let waiting = kling_with_callback(&server, &url).await;
    let listed = server.state().callbacks;
    assert_eq!(
        (
            listed.len(),
            listed[0].task_id.as_str(),
            listed[0].url.as_str()
        ),
        (1, waiting.as_str(), url.as_str())
    );
    // As after kill -9: the file as it stood once the create was acknowledged.
    let crashed = dir.join("crashed.json");
    std::fs::copy(&path, &crashed).unwrap();
    server.close().await.unwrap();
    for file in [&path, &crashed] {
        let again = stateful(file).await;
        assert_eq!(again.state().callbacks.len(), 1, "from {}", file.display());
        advance(&again, 300.0).await;
        let cbs = wait_callbacks(&again, 1).await;
        assert_eq!(cbs.len(), 1, "{cbs:?}");
        assert_eq!(cbs[0].task_id, waiting);
        assert_eq!(cbs[0].result, CallbackResult::Delivered { status: 200 });
        // Sent, so no longer in the file: a second restart sends nothing.
        assert!(again.state().callbacks.is_empty());
        again.close().await.unwrap();
        let third = stateful(file).await;
        assert!(
            third.state().callbacks.is_empty(),
            "from {}",
            file.display()
        );
        advance(&third, 300.0).await;
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        assert!(third.callbacks().is_empty(), "{:?}", third.callbacks());
        third.close().await.unwrap();
    }
    assert_eq!(got.lock().len(), 2, "once from each file");
    let _ = std::fs::remove_dir_all(&dir);
}

/// With `poll_advance` on a virtual clock, a loop that sleeps for `openai-poll-after-ms`
/// between polls (as the OpenAI SDKs' create-and-poll does) sees its video end in a fraction
/// of a second without touching the clock; a test that moves the clock by hand between polls
/// sees exactly the times it set.
#[tokio::test]
async fn polls_that_honour_the_hint_reach_completed_and_advances_by_hand_stay_exact() {
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .poll_advance(true)
        .start()
        .await;
    let started = std::time::Instant::now();
    let v = create(&server, "/v1/videos", "a lighthouse at dawn").await;
    let path = format!("/v1/videos/{}", v["id"].as_str().unwrap());
    let mut polls = 0;
    let done = loop {
        let resp = get_with(&server, &path, KEY_ENABLED).await;
        polls += 1;
        let v = resp.json();
        if v["status"] == "completed" || polls > 20 {
            break v;
        }
        let hint: u64 = resp
            .header("openai-poll-after-ms")
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(hint, 50);
        tokio::time::sleep(std::time::Duration::from_millis(hint)).await;
    };
    assert_eq!(done["status"], "completed", "after {polls} polls: {done}");
    assert!(polls <= 4, "{polls} polls");
    assert!(
        started.elapsed().as_secs_f64() < 3.0,
        "{:?}",
        started.elapsed()
    );

    // By hand: each poll after an advance answers at exactly the time set.
    let v = create(&server, "/v1/videos", "a second lighthouse").await;
    let path = format!("/v1/videos/{}", v["id"].as_str().unwrap());
    let t0 = server.clock().now_ms();
    assert_eq!(
        get_with(&server, &path, KEY_ENABLED).await.json()["status"],
        "queued"
    );
    for _ in 0..3 {
        advance(&server, 2.0).await;
        get_with(&server, &path, KEY_ENABLED).await;
    }
    assert_eq!(server.clock().now_ms(), t0 + 6000);
    // Without poll_advance (the default), repeated polls never move the clock.
    let plain = server_plain().await;
    let v = create(&plain, "/v1/videos", "a third lighthouse").await;
    let path = format!("/v1/videos/{}", v["id"].as_str().unwrap());
    let t0 = plain.clock().now_ms();
    for _ in 0..3 {
        let resp = get_with(&plain, &path, KEY_ENABLED).await;
        assert_eq!(resp.header("openai-poll-after-ms"), Some("10000"));
    }
    assert_eq!(plain.clock().now_ms(), t0);
}

async fn server_plain() -> MockServer {
    adaptors_server(Profile::Documented).await
}
