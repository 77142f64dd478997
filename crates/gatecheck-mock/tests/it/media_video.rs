//! `/v1/videos*` and `/__mock/videos/*` over HTTP: encodings, validation, ownership, the
//! lifecycle on the virtual clock, outcomes, content, quota and faults.

use crate::media_util::*;
use crate::support::*;
use gatecheck_mock::{ClockMode, Fault, MockServer, NewKey};
use gatecheck_schemas::rules::media::parse_mp4;
use gatecheck_schemas::rules::video::{check_created, check_task_decisions, check_transition};
use gatecheck_schemas::types::{VideoStatus, VideoTask};
use gatecheck_schemas::Profile;
use serde_json::json;
use std::time::Instant;

const VIDEOS: &str = "/v1/videos";

async fn virtual_server() -> MockServer {
    MockServer::builder()
        .clock(ClockMode::virtual_default())
        .start()
        .await
}

fn task(resp: &Resp) -> VideoTask {
    serde_json::from_slice(&resp.body)
        .unwrap_or_else(|e| panic!("not a video task ({e}): {} {}", resp.status, resp.text()))
}

async fn create(server: &MockServer, body: serde_json::Value) -> VideoTask {
    let resp = post_json(server, VIDEOS, KEY_ENABLED, body).await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    task(&resp)
}

async fn poll(server: &MockServer, id: &str) -> VideoTask {
    let resp = get_with(server, &format!("{VIDEOS}/{id}"), KEY_ENABLED).await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    task(&resp)
}

#[tokio::test]
async fn create_accepts_multipart_urlencoded_and_json() {
    let server = virtual_server().await;
    let mp = post_multipart(
        &server,
        VIDEOS,
        KEY_ENABLED,
        &[
            ("model", None, b"sora-2"),
            ("prompt", None, b"a cat surfing"),
            ("seconds", None, b"8"),
            ("size", None, b"1280x720"),
            ("input_reference", Some("ref.png"), b"\x89PNG..."),
        ],
    )
    .await;
    assert_eq!(mp.status, 200, "{}", mp.text());
    let t = task(&mp);
    check_created(&t).expect("queued, progress 0");
    check_task_decisions(&t).expect("decided shape");
    assert_eq!(
        (t.seconds.as_deref(), t.size.as_deref()),
        (Some("8"), Some("1280x720"))
    );
    assert_eq!(mp.header("openai-poll-after-ms"), Some("10000"));

    let auth = bearer(KEY_ENABLED);
    let form = Http::new(server.uri())
        .send(
            "POST",
            VIDEOS,
            &[
                ("content-type", "application/x-www-form-urlencoded"),
                ("authorization", auth.as_str()),
            ],
            "model=sora-2-pro&prompt=a+dog&seconds=12&size=1792x1024",
        )
        .await;
    assert_eq!(form.status, 200, "{}", form.text());
    assert_eq!(task(&form).seconds.as_deref(), Some("12"));

    // JSON with seconds as an integer, and defaults from the capabilities.
    let t = create(
        &server,
        json!({"model": "veo-3.1-fast", "prompt": "waves", "seconds": 6}),
    )
    .await;
    assert_eq!(
        (t.seconds.as_deref(), t.size.as_deref()),
        (Some("6"), Some("1280x720"))
    );
    let t = create(
        &server,
        json!({"model": "kling-v2-master", "prompt": "rain"}),
    )
    .await;
    assert_eq!(
        (t.seconds.as_deref(), t.size.as_deref()),
        (Some("5"), Some("1280x720"))
    );
    assert_ne!(t.id, task(&form).id);
}

#[tokio::test]
async fn create_rules_are_400_in_every_profile() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = MockServer::builder()
            .profile(profile)
            .era(gatecheck_schemas::Era::Adaptors) // the Go adaptors' (new-api-adaptors)
            .start()
            .await;
        let cases = [
            ("empty prompt", json!({"model": "sora-2", "prompt": ""})),
            ("blank prompt", json!({"model": "sora-2", "prompt": "   "})),
            ("missing prompt", json!({"model": "sora-2"})),
            ("missing model", json!({"prompt": "p"})),
            ("unknown model", json!({"model": "nope", "prompt": "p"})),
            (
                "not a video model",
                json!({"model": "gpt-image-1", "prompt": "p"}),
            ),
            (
                "seconds not allowed",
                json!({"model": "sora-2", "prompt": "p", "seconds": "5"}),
            ),
            (
                "seconds not a number",
                json!({"model": "sora-2", "prompt": "p", "seconds": "four"}),
            ),
            (
                "size not allowed",
                json!({"model": "sora-2", "prompt": "p", "size": "1792x1024"}),
            ),
        ];
        for (what, body) in cases {
            let resp = post_json(&server, VIDEOS, KEY_ENABLED, body).await;
            // new-api's distributor answers an unknown model 503 (DECISIONS NA5).
            let want = if profile == Profile::NewApi && what == "unknown model" {
                503
            } else {
                400
            };
            assert_eq!(resp.status, want, "{profile:?} {what}: {}", resp.text());
            v1_error(&resp);
        }
        assert!(
            server.state().videos.tasks.is_empty(),
            "no task made by a refused create"
        );
    }
}

#[tokio::test]
async fn video_size_must_be_wxh_and_one_of_the_models_sizes() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = MockServer::builder()
            .profile(profile)
            .era(gatecheck_schemas::Era::Adaptors) // the Go adaptors' (new-api-adaptors)
            .start()
            .await;
        for size in [
            "",
            " ",
            "1280X720",
            "1280*720",
            "1280x",
            "x720",
            "0x0",
            "-1280x720",
            "+1280x720",
            " 1280x720",
            "1280x720 ",
            "1280x720x1",
            "big",
            "1792x1024",
        ] {
            let body = json!({"model": "sora-2", "prompt": "p", "size": size});
            let resp = post_json(&server, VIDEOS, KEY_ENABLED, body).await;
            assert_eq!(resp.status, 400, "{profile:?} {size:?}: {}", resp.text());
            v1_error(&resp);
            // The same through a form, as the SDK sends it.
            let resp = post_multipart(
                &server,
                VIDEOS,
                KEY_ENABLED,
                &[
                    ("model", None, b"sora-2"),
                    ("prompt", None, b"p"),
                    ("size", None, size.as_bytes()),
                ],
            )
            .await;
            assert_eq!(
                resp.status,
                400,
                "{profile:?} form {size:?}: {}",
                resp.text()
            );
        }
        assert!(server.state().videos.tasks.is_empty(), "no task made");
        // Listed sizes, and no size at all (the model's default), are accepted.
        let listed = json!({"model": "sora-2", "prompt": "p", "size": "1280x720"});
        assert_eq!(
            create(&server, listed).await.size.as_deref(),
            Some("1280x720")
        );
        let default = json!({"model": "sora-2", "prompt": "p"});
        assert_eq!(
            create(&server, default).await.size.as_deref(),
            Some("720x1280")
        );
    }
}

#[tokio::test]
async fn lifecycle_follows_the_virtual_clock_to_a_playable_mp4() {
    let server = virtual_server().await;
    let created = create(
        &server,
        json!({"model": "sora-2", "prompt": "a calm lake", "seconds": "4"}),
    )
    .await;
    let content_path = format!("{VIDEOS}/{}/content", created.id);
    let early = get_with(&server, &content_path, KEY_ENABLED).await;
    assert_eq!(early.status, 400, "content before completion");

    let mut prev = created.clone();
    let mut seen = vec![prev.status];
    // 5 s queued + max(10, 4 × 2.5) s in progress = 15 s.
    for _ in 0..20 {
        advance(&server, 1.0).await;
        let next = poll(&server, &created.id).await;
        check_task_decisions(&next).expect("task rules");
        check_transition(&prev, &next).expect("transition rules");
        if seen.last() != Some(&next.status) {
            seen.push(next.status);
        }
        prev = next;
    }
    assert_eq!(
        seen,
        vec![
            VideoStatus::Queued,
            VideoStatus::InProgress,
            VideoStatus::Completed
        ]
    );
    assert_eq!(prev.progress, 100);
    assert_eq!(prev.completed_at, Some(created.created_at + 15));
    let url = prev.video_url.clone().expect("video_url");
    assert!(url.ends_with(&content_path), "{url}");
    assert_eq!(
        prev.metadata.as_ref().and_then(|m| m["url"].as_str()),
        Some(url.as_str())
    );

    let mp4 = get_with(&server, &content_path, KEY_ENABLED).await;
    assert_eq!(mp4.status, 200);
    assert_eq!(mp4.header("content-type"), Some("video/mp4"));
    let info = parse_mp4(&mp4.body).expect("valid mp4");
    assert!((info.duration_secs - 4.0).abs() < 1e-9);
    assert_eq!((info.tracks[0].width, info.tracks[0].height), (720, 1280));
}

#[tokio::test]
async fn prompt_markers_end_in_failed_and_error() {
    let server = virtual_server().await;
    let failed = create(
        &server,
        json!({"model": "sora-2", "prompt": "a [fail] scene"}),
    )
    .await;
    let errored = create(
        &server,
        json!({"model": "sora-2", "prompt": "an [error] scene"}),
    )
    .await;
    advance(&server, 60.0).await;
    for (t, status, code) in [
        (&failed, VideoStatus::Failed, "content_policy_violation"),
        (&errored, VideoStatus::Error, "internal_error"),
    ] {
        let now = poll(&server, &t.id).await;
        assert_eq!(now.status, status);
        assert!(now.progress < 100 && now.video_url.is_none());
        assert_eq!(now.error.as_ref().map(|e| e.code.as_str()), Some(code));
        check_task_decisions(&now).expect("task rules");
        let content = get_with(&server, &format!("{VIDEOS}/{}/content", t.id), KEY_ENABLED).await;
        assert_eq!(content.status, 400);
    }
}

#[tokio::test]
async fn outcome_override_through_the_control_api() {
    let server = virtual_server().await;
    let t = create(&server, json!({"model": "sora-2", "prompt": "fine"})).await;
    let http = Http::new(server.uri());
    let path = format!("/__mock/videos/{}/outcome", t.id);
    let resp = http
        .json(
            "POST",
            &path,
            &[],
            json!({"outcome": "failed", "code": "moderation", "message": "nope"}),
        )
        .await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    advance(&server, 60.0).await;
    let now = poll(&server, &t.id).await;
    assert_eq!(now.status, VideoStatus::Failed);
    assert_eq!(now.error.map(|e| e.code), Some("moderation".into()));
    // Terminal tasks never change.
    let resp = http
        .json("POST", &path, &[], json!({"outcome": "completed"}))
        .await;
    assert_eq!(resp.status, 409);
    // `immediate` ends a task now.
    let u = create(&server, json!({"model": "sora-2", "prompt": "x [fail]"})).await;
    let resp = http
        .json(
            "POST",
            &format!("/__mock/videos/{}/outcome", u.id),
            &[],
            json!({"outcome": "completed", "immediate": true}),
        )
        .await;
    assert_eq!(resp.status, 200);
    assert_eq!(poll(&server, &u.id).await.status, VideoStatus::Completed);
    let bad = http
        .json("POST", &path, &[], json!({"outcome": "exploded"}))
        .await;
    assert_eq!(bad.status, 400);
    let missing = http
        .json(
            "POST",
            "/__mock/videos/task_nope/outcome",
            &[],
            json!({"outcome": "failed"}),
        )
        .await;
    assert_eq!(missing.status, 404);
}

#[tokio::test]
async fn tasks_belong_to_their_user() {
    for (profile, status) in [(Profile::Documented, 404), (Profile::NewApi, 400)] {
        let server = MockServer::builder()
            .profile(profile)
            .era(gatecheck_schemas::Era::Adaptors) // the Go adaptors' (new-api-adaptors)
            .start()
            .await;
        let t = create(&server, json!({"model": "sora-2", "prompt": "mine"})).await;
        for path in [
            format!("{VIDEOS}/{}", t.id),
            format!("{VIDEOS}/{}/content", t.id),
            format!("{VIDEOS}/task_unknown"),
        ] {
            let resp = get_with(&server, &path, KEY_OTHER_USER).await;
            if profile == Profile::NewApi && path.ends_with("/content") {
                // new-api's content route (DECISIONS NA10).
                assert_eq!(resp.status, 404, "{path}: {}", resp.text());
                assert_eq!(resp.json()["error"]["message"], "Task not found");
                continue;
            }
            assert_eq!(resp.status, status, "{profile:?} {path}: {}", resp.text());
            if profile == Profile::NewApi {
                assert_eq!(
                    resp.json(),
                    json!({"code": "task_not_exist", "message": "task_not_exist", "data": null})
                );
            }
        }
        // The owner's other keys see it (ownership is per user).
        assert_eq!(
            get_with(&server, &format!("{VIDEOS}/{}", t.id), KEY_UNLIMITED)
                .await
                .status,
            200
        );
        if profile == Profile::NewApi {
            // new-api routes no list and no delete (DECISIONS D-ROUTE-2).
            assert_eq!(get_with(&server, VIDEOS, KEY_ENABLED).await.status, 404);
            continue;
        }
        let list = get_with(&server, VIDEOS, KEY_OTHER_USER).await.json();
        assert_eq!(list["data"].as_array().map(Vec::len), Some(0));
        let mine = get_with(&server, VIDEOS, KEY_ENABLED).await.json();
        assert_eq!(mine["data"][0]["id"], t.id.as_str());
        // Only the owner deletes it.
        let path = format!("{VIDEOS}/{}", t.id);
        let auth = bearer(KEY_OTHER_USER);
        let other = Http::new(server.uri())
            .send("DELETE", &path, &[("authorization", auth.as_str())], "")
            .await;
        assert_eq!(other.status, 404);
        let auth = bearer(KEY_ENABLED);
        let del = Http::new(server.uri())
            .send("DELETE", &path, &[("authorization", auth.as_str())], "")
            .await;
        assert_eq!(del.json()["deleted"], true);
        assert_eq!(get_with(&server, &path, KEY_ENABLED).await.status, 404);
    }
}

#[tokio::test]
async fn video_charges_per_second_or_per_request() {
    let server = MockServer::start().await;
    let before = remain(&server);
    create(
        &server,
        json!({"model": "sora-2", "prompt": "p", "seconds": "8"}),
    )
    .await;
    // sora-2: 0.1 USD per second × 8 s = 0.8 USD = 400000 units.
    assert_eq!(before - remain(&server), 400_000);
    let before = remain(&server);
    create(
        &server,
        json!({"model": "kling-v2-master", "prompt": "p", "seconds": 10}),
    )
    .await;
    assert_eq!(before - remain(&server), 250_000); // 0.5 USD per request
}

#[tokio::test]
async fn injected_503_on_create_leaves_existing_tasks_alone() {
    let server = virtual_server().await;
    let t = create(
        &server,
        json!({"model": "sora-2", "prompt": "before the fault"}),
    )
    .await;
    let before = server.state().videos;
    server.inject(Fault::status(503).on("POST /v1/videos").times(2));
    for _ in 0..2 {
        let resp = post_json(
            &server,
            VIDEOS,
            KEY_ENABLED,
            json!({"model": "sora-2", "prompt": "p"}),
        )
        .await;
        assert_eq!(resp.status, 503);
    }
    assert_eq!(
        server.state().videos,
        before,
        "the faulted creates touched no task"
    );
    // Polling works during the window, and after it.
    server.inject(Fault::status(503).on("POST /v1/videos"));
    assert_eq!(poll(&server, &t.id).await.status, VideoStatus::Queued);
    advance(&server, 30.0).await;
    server.clear_faults();
    assert_eq!(poll(&server, &t.id).await.status, VideoStatus::Completed);
    let journal = server.received_requests();
    assert!(journal
        .iter()
        .any(|e| e.path == VIDEOS && e.status == 503 && e.fault.is_some()));
}

#[tokio::test]
async fn polls_refused_during_a_fault_window_find_the_task_moved_on_after_it() {
    let server = virtual_server().await;
    let t = create(&server, json!({"model": "sora-2", "prompt": "steady"})).await;
    server.inject(Fault::status(503).on("/v1/videos*").times(3));
    for _ in 0..3 {
        let resp = get_with(&server, &format!("{VIDEOS}/{}", t.id), KEY_ENABLED).await;
        assert_eq!(resp.status, 503);
        advance(&server, 2.0).await;
    }
    // 6 s after creation: past the 5 s queue.
    let now = poll(&server, &t.id).await;
    assert_eq!(now.status, VideoStatus::InProgress);
    check_transition(&t, &now).expect("transition rules");
}

#[tokio::test]
async fn a_key_short_of_quota_gets_403_and_no_task() {
    let server = MockServer::start().await;
    let key = server.add_key(NewKey::new().remain_quota(100_000));
    // sora-2 for 4 s costs 200000 units.
    let resp = post_json(
        &server,
        VIDEOS,
        &key.key,
        json!({"model": "sora-2", "prompt": "p", "seconds": "4"}),
    )
    .await;
    assert_eq!(resp.status, 403, "{}", resp.text());
    assert_eq!(
        v1_error(&resp).2.as_deref(),
        Some("pre_consume_token_quota_failed")
    );
    assert!(server.state().videos.tasks.is_empty());
    assert_eq!(server.key(key.id).map(|k| k.remain_quota), Some(100_000));
}

#[tokio::test]
async fn tasks_survive_a_state_dump_and_load() {
    let server = virtual_server().await;
    let t = create(&server, json!({"model": "sora-2", "prompt": "keep me"})).await;
    let http = Http::new(server.uri());
    let dump = http.get("/__mock/state", &[]).await;
    assert_eq!(dump.status, 200);
    assert_eq!(
        http.send("POST", "/__mock/reset", &[], "").await.status,
        200
    );
    assert_eq!(
        get_with(&server, &format!("{VIDEOS}/{}", t.id), KEY_ENABLED)
            .await
            .status,
        404
    );
    let load = http
        .send(
            "PUT",
            "/__mock/state",
            &[("content-type", "application/json")],
            dump.body.clone(),
        )
        .await;
    assert_eq!(load.status, 200, "{}", load.text());
    let back = poll(&server, &t.id).await;
    assert_eq!((back.id, back.created_at), (t.id, t.created_at));
}

#[tokio::test]
async fn a_thousand_tasks_reach_terminal_states_through_clock_advance() {
    let server = virtual_server().await;
    let http = Http::new(server.uri());
    let auth = bearer(KEY_UNLIMITED);
    let mut created = Vec::with_capacity(1000);
    let creating = Instant::now();
    for i in 0..1000 {
        let prompt = match i % 10 {
            0 => "scene [fail]",
            1 => "scene [error]",
            _ => "scene",
        };
        let seconds = ["4", "8", "12"][i % 3];
        let resp = http
            .json(
                "POST",
                VIDEOS,
                &[("authorization", auth.as_str())],
                json!({"model": "sora-2", "prompt": prompt, "seconds": seconds}),
            )
            .await;
        assert_eq!(resp.status, 200, "{}", resp.text());
        created.push(task(&resp));
    }
    let creation = creating.elapsed();
    let started = Instant::now();
    // Three advances of the clock cover the longest task (5 s + 12 × 2.5 s = 35 s).
    let mut last = created.clone();
    for _ in 0..3 {
        advance(&server, 12.0).await;
        for prev in last.iter_mut() {
            let resp = http
                .get(
                    &format!("{VIDEOS}/{}", prev.id),
                    &[("authorization", auth.as_str())],
                )
                .await;
            let next = task(&resp);
            check_task_decisions(&next).expect("task rules");
            check_transition(prev, &next).expect("transition rules");
            *prev = next;
        }
    }
    let elapsed = started.elapsed();
    eprintln!(
        "1000 video tasks: created in {creation:?}; 3 clock advances + 3000 polls in {elapsed:?}"
    );
    let count = |s: VideoStatus| last.iter().filter(|t| t.status == s).count();
    assert!(last.iter().all(|t| t.status.is_terminal()));
    assert_eq!(
        (count(VideoStatus::Failed), count(VideoStatus::Error)),
        (100, 100)
    );
    assert_eq!(count(VideoStatus::Completed), 800);
}
