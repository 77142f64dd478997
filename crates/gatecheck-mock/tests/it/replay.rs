//! The replaying mock (`MockServerBuilder::replay`, docs/recording.md): recorded answers for
//! recorded requests, task ids remapped per client and task states played back on the virtual
//! clock in recorded order; unmatched requests fall through to the mock (journaled
//! `unmatched`) or, strict, get 404/501 naming the closest recorded request.

use crate::support::{bearer, Http, KEY_ENABLED, KEY_UNLIMITED};
use gatecheck_mock::replay::format::{
    write_json, Manifest, RecordedBody, RecordedExchange, RecordedRequest, RecordedResponse,
    TargetInfo, FORMAT_VERSION,
};
use gatecheck_mock::replay::ReplayOptions;
use gatecheck_mock::{ClockMode, MockServer};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

const RECORDED_ID: &str = "video_0123456789abcdef0123456789abcdef";
const CREATE: &str = r#"{"model":"sora-2","prompt":"a cat","seconds":"4"}"#;

fn exchange(
    seq: u64,
    at_ms: u64,
    method: &str,
    path: &str,
    body: RecordedBody,
    status: u16,
    answer: Value,
) -> RecordedExchange {
    let mut headers = BTreeMap::new();
    headers.insert("authorization".to_owned(), "Bearer {{API_KEY}}".to_owned());
    if !matches!(body, RecordedBody::Empty) {
        headers.insert("content-type".to_owned(), "application/json".to_owned());
    }
    RecordedExchange {
        seq,
        request: RecordedRequest {
            method: method.into(),
            path: path.into(),
            headers,
            body,
            times: Vec::new(),
        },
        response: RecordedResponse {
            status,
            headers: vec![
                ("content-type".into(), "application/json".into()),
                (
                    "x-oneapi-request-id".into(),
                    "20250101000000000000000recorded".into(),
                ),
            ],
            body: RecordedBody::Json { json: answer },
        },
        elapsed_ms: 1,
        at_ms: Some(at_ms),
    }
}

/// A recording: the models, a video created at 0 s and polled at 1 s (queued), 3 s
/// (in_progress) and 6 s (completed).
pub(crate) fn recording(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "gatecheck-mock-replay-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("exchanges")).expect("dir");
    let poll = format!("/v1/videos/{RECORDED_ID}");
    let state =
        |s: &str, p: u32| json!({"id": RECORDED_ID, "object": "video", "status": s, "progress": p});
    let exchanges = [
        exchange(
            1,
            0,
            "GET",
            "/v1/models",
            RecordedBody::Empty,
            200,
            json!({"object": "list", "data": [{"id": "recorded-model", "object": "model"}]}),
        ),
        exchange(
            2,
            10,
            "POST",
            "/v1/videos",
            RecordedBody::Json {
                json: serde_json::from_str(CREATE).expect("json"),
            },
            200,
            state("queued", 0),
        ),
        exchange(
            3,
            1000,
            "GET",
            &poll,
            RecordedBody::Empty,
            200,
            state("queued", 0),
        ),
        exchange(
            4,
            3000,
            "GET",
            &poll,
            RecordedBody::Empty,
            200,
            state("in_progress", 50),
        ),
        exchange(
            5,
            6000,
            "GET",
            &poll,
            RecordedBody::Empty,
            200,
            state("completed", 100),
        ),
    ];
    for ex in &exchanges {
        write_json(
            &dir.join("exchanges").join(format!("{:05}.json", ex.seq)),
            ex,
        )
        .expect("write");
    }
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        target: TargetInfo {
            kind: "test".into(),
            name: "hand-made".into(),
        },
        recorded_at: "2026-11-25T10:00:00Z".into(),
        gatecheck_version: "0".into(),
        mode: "proxy".into(),
        secrets: vec!["API_KEY".into()],
        run: Value::Null,
        profile: Some("documented".into()),
        exchanges: Some(exchanges.len() as u64),
    };
    write_json(&dir.join("manifest.json"), &manifest).expect("manifest");
    dir
}

async fn replaying(dir: &PathBuf, strict: bool) -> MockServer {
    MockServer::builder()
        .clock(ClockMode::virtual_default())
        .replay_options(
            ReplayOptions::new(dir)
                .strict(strict)
                .secret("API_KEY", format!("sk-{KEY_ENABLED}")),
        )
        .start()
        .await
}

#[tokio::test]
async fn recorded_requests_get_recorded_answers_and_task_states_follow_the_clock() {
    let dir = recording("story");
    let server = replaying(&dir, false).await;
    let http = Http::new(server.uri());
    let auth = bearer(KEY_ENABLED);
    let h = [("authorization", auth.as_str())];
    let models = http.get("/v1/models", &h).await;
    assert_eq!(models.status, 200);
    assert_eq!(models.json()["data"][0]["id"], "recorded-model");
    let rid = models.header("x-oneapi-request-id").expect("request id");
    assert_ne!(rid, "20250101000000000000000recorded", "a fresh request id");

    let create = |http: Http| async move {
        let h = [("authorization", bearer(KEY_ENABLED))];
        let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let mut all = vec![("content-type", "application/json")];
        all.extend(h);
        http.send("POST", "/v1/videos", &all, CREATE).await
    };
    let first = create(http.clone()).await;
    assert_eq!(first.status, 200, "{}", first.text());
    let id = first.json()["id"].as_str().expect("id").to_owned();
    assert_ne!(id, RECORDED_ID, "the client gets its own id");
    assert!(
        id.starts_with("video_") && id.len() == RECORDED_ID.len(),
        "{id}"
    );
    let second = create(http.clone()).await.json()["id"]
        .as_str()
        .expect("id")
        .to_owned();
    assert_ne!(second, id, "each create its own id");

    let poll = |id: String| {
        let http = http.clone();
        let auth = auth.clone();
        async move {
            let r = http
                .get(&format!("/v1/videos/{id}"), &[("authorization", &auth)])
                .await;
            assert_eq!(r.status, 200, "{}", r.text());
            let v = r.json();
            assert_eq!(v["id"], id.as_str(), "the answer names the client's id");
            v["status"].as_str().expect("status").to_owned()
        }
    };
    assert_eq!(poll(id.clone()).await, "queued");
    assert_eq!(
        poll(id.clone()).await,
        "queued",
        "the clock has not reached 3 s"
    );
    server.clock().advance(Duration::from_secs(3));
    assert_eq!(poll(id.clone()).await, "in_progress");
    assert_eq!(
        poll(second.clone()).await,
        "queued",
        "the second task has its own story"
    );
    server.clock().advance(Duration::from_secs(10));
    assert_eq!(poll(id.clone()).await, "completed");
    assert_eq!(
        poll(id.clone()).await,
        "completed",
        "the last state repeats"
    );
    assert_eq!(
        poll(second.clone()).await,
        "in_progress",
        "states are not skipped"
    );
    assert_eq!(poll(second).await, "completed");

    // Another key is not in the recording: the mock answers, and the journal says so.
    let other = bearer(KEY_UNLIMITED);
    let fell = http.get("/v1/models", &[("authorization", &other)]).await;
    assert_eq!(fell.status, 200);
    assert_ne!(
        fell.json()["data"][0]["id"],
        "recorded-model",
        "the mock's catalog"
    );
    let journal = server.received_requests();
    let tags: Vec<Option<&str>> = journal.iter().map(|e| e.replay.as_deref()).collect();
    assert_eq!(tags.first(), Some(&Some("matched")));
    assert_eq!(tags.last(), Some(&Some("unmatched")), "{journal:?}");
    assert!(
        server.replay_unused().is_empty(),
        "{:?}",
        server.replay_unused()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn strict_misses_name_the_closest_recorded_request() {
    let dir = recording("strict");
    let server = replaying(&dir, true).await;
    let http = Http::new(server.uri());
    let auth = bearer(KEY_ENABLED);
    let h = [("authorization", auth.as_str())];
    let other_body = http
        .json(
            "POST",
            "/v1/videos",
            &h,
            json!({"model": "sora-2", "prompt": "a dog", "seconds": "4"}),
        )
        .await;
    assert_eq!(other_body.status, 501, "route recorded, request differs");
    let err = &other_body.json()["error"];
    assert_eq!(err["type"], "replay_unmatched");
    assert_eq!(err["closest"], "#2 POST /v1/videos");
    let message = err["message"].as_str().expect("message");
    assert!(
        message.contains("differs in body") && message.contains("a dog"),
        "{message}"
    );
    let unrecorded = http
        .json("POST", "/v1/images/generations", &h, json!({"model": "x"}))
        .await;
    assert_eq!(unrecorded.status, 404, "{}", unrecorded.text());
    let wrong_key = http
        .get(
            "/v1/models",
            &[("authorization", "Bearer sk-not-the-recorded-key")],
        )
        .await;
    assert_eq!(wrong_key.status, 501);
    assert!(
        wrong_key.text().contains("authorization"),
        "{}",
        wrong_key.text()
    );
    assert!(server
        .received_requests()
        .iter()
        .all(|e| e.replay.as_deref() == Some("unmatched")));
    // The control API is the mock's, not replayed.
    assert_eq!(http.get("/__mock/health", &[]).await.status, 200);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_recording_of_another_version_is_refused() {
    let dir = recording("version");
    let text = std::fs::read_to_string(dir.join("manifest.json")).expect("manifest");
    std::fs::write(
        dir.join("manifest.json"),
        text.replace(
            &format!("\"format_version\": {FORMAT_VERSION}"),
            "\"format_version\": 99",
        ),
    )
    .expect("write");
    let err = MockServer::builder()
        .replay(&dir)
        .try_start()
        .await
        .expect_err("refused");
    let message = err.to_string();
    assert!(
        message.contains("version 99") && message.contains("record it again"),
        "{message}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
