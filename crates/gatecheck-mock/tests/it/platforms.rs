//! The video platforms behind the unified route (DECISIONS D-PLAT), over HTTP as a client of
//! each would send them: the channel picks the platform, each state is reached on the virtual
//! clock and through the control API, the record and `/v1/videos/{id}` are each adaptor's.

use crate::media_util::*;
use crate::support::*;
use gatecheck_mock::{Channel, ClockMode, Fixtures, MockServer};
use gatecheck_schemas::rules::platform_record::check_record;
use gatecheck_schemas::rules::platforms::{all, by_name, is_realtime};
use gatecheck_schemas::rules::task::{check_envelope, TaskDto, TaskStatus};
use gatecheck_schemas::Profile;
use serde_json::{json, Value};

const GENERATIONS: &str = "/v1/video/generations";

/// The catalog model of each platform (`fixtures/catalog.json`).
fn model_of(name: &str) -> &'static str {
    by_name(name)
        .unwrap_or_else(|e| panic!("{e}"))
        .catalog_model
}

async fn fetch(server: &MockServer, id: &str) -> TaskDto {
    let resp = get_with(server, &format!("{GENERATIONS}/{id}"), KEY_ENABLED).await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    let v = resp.json();
    gatecheck_schemas::validate("task-envelope", &v).unwrap_or_else(|e| panic!("{e}: {v}"));
    check_envelope(&v).unwrap_or_else(|e| panic!("{e}: {v}"))
}

async fn submit(server: &MockServer, model: &str, prompt: &str) -> Resp {
    let body = json!({"model": model, "prompt": prompt, "duration": 5, "metadata": {"seed": 7}});
    post_json(server, GENERATIONS, KEY_ENABLED, body).await
}

#[tokio::test]
async fn every_platform_reaches_every_state_in_both_profiles() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server_with(profile, Fixtures::embedded()).await;
        // Gemini and Vertex answer a fetch in real time: tests/it/platforms_veo.rs.
        for p in all().iter().copied().filter(|p| !is_realtime(p)) {
            let model = model_of(p.name);
            let resp = submit(&server, model, "a kite over dunes").await;
            assert_eq!(resp.status, 200, "{}: {}", p.name, resp.text());
            assert_eq!(
                resp.headers
                    .get("x-new-api-other-ratios")
                    .map(|h| h.as_bytes()),
                Some(if p.name == "ali" {
                    &br#"{"seconds":5}"#[..]
                } else {
                    &b"{}"[..]
                }),
                "{}: Ali bills the seconds (D-PLAT-8), the others per call",
                p.name
            );
            let v = resp.json();
            let id = v["id"].as_str().unwrap().to_owned();
            assert_eq!(
                (v["status"].as_str(), v["model"].as_str()),
                (Some("queued"), Some(model))
            );
            let first = fetch(&server, &id).await;
            assert_eq!(first.platform, p.channel_type, "{}", p.name);
            check_record(p, &first).unwrap_or_else(|e| panic!("{}: {e}", p.name));
            let queued_word = p.word(gatecheck_schemas::types::VideoStatus::Queued);
            assert_eq!(
                first.data.pointer(p.state_pointer).and_then(Value::as_str),
                Some(queued_word)
            );
            // Every other state of the same status, through the control API.
            for alt in p.alternatives(gatecheck_schemas::types::VideoStatus::Queued) {
                let path = format!("/__mock/videos/{id}/upstream");
                let r = control(&server, &path, json!({"status": alt})).await;
                assert_eq!(r.status, 200, "{}", r.text());
                let t = fetch(&server, &id).await;
                assert_eq!(
                    t.data.pointer(p.state_pointer).and_then(Value::as_str),
                    Some(alt)
                );
                check_record(p, &t).unwrap();
            }
            let bad = control(
                &server,
                &format!("/__mock/videos/{id}/upstream"),
                json!({"status": "success-ish"}),
            )
            .await;
            assert_eq!(bad.status, 400, "{}", bad.text());
            advance(&server, 8.0).await;
            let running = fetch(&server, &id).await;
            assert_eq!(running.status, TaskStatus::InProgress, "{}", p.name);
            check_record(p, &running).unwrap();
            advance(&server, 60.0).await;
            let done = fetch(&server, &id).await;
            check_record(p, &done).unwrap();
            assert_eq!(done.status, TaskStatus::Success);
            let url = done.data.pointer(p.url_pointer).and_then(Value::as_str);
            assert_eq!(url, done.result_url.as_deref(), "{}", p.name);
            // `/v1/videos/{id}`: the adaptor's conversion.
            let video = get_with(&server, &format!("/v1/videos/{id}"), KEY_ENABLED)
                .await
                .json();
            assert_eq!(
                (video["id"].as_str(), video["status"].as_str()),
                (Some(id.as_str()), Some("completed"))
            );
            assert_eq!(
                video["model"], model,
                "the video object's model (D-PLAT-5): {video}"
            );
            // A chosen failure (the fixture's `[fail]` rule).
            let failing = submit(&server, model, "a kite [fail]").await.json();
            let fid = failing["id"].as_str().unwrap().to_owned();
            advance(&server, 60.0).await;
            let failed = fetch(&server, &fid).await;
            assert_eq!(failed.status, TaskStatus::Failure);
            assert!(!failed.fail_reason.is_empty());
            check_record(p, &failed).unwrap();
            let video = get_with(&server, &format!("/v1/videos/{fid}"), KEY_ENABLED)
                .await
                .json();
            assert_eq!(video["status"], "failed", "{video}");
            assert!(video["error"]["message"].is_string(), "{video}");
        }
    }
}

#[tokio::test]
async fn the_channel_picks_the_platform_and_an_unknown_type_is_invalid_api_platform() {
    let mut fixtures = Fixtures::embedded();
    // This deployment routes `sora-2` to a Vidu channel (mapped to `viduq2`) and `viduq1` to
    // a channel of a type no adaptor serves.
    fixtures.channels = vec![
        Channel {
            id: 7,
            channel_type: 52,
            name: "vidu".into(),
            models: vec!["sora-2".into()],
            model_mapping: [("sora-2".to_owned(), "viduq2".to_owned())].into(),
            group: "default".into(),
        },
        Channel {
            id: 8,
            channel_type: 99,
            name: "unknown".into(),
            models: vec!["viduq1".into()],
            model_mapping: Default::default(),
            group: "default".into(),
        },
    ];
    let server = adaptors_server_with(Profile::NewApi, fixtures).await;
    let v = submit(&server, "sora-2", "a tram at night").await.json();
    let t = fetch(&server, v["id"].as_str().unwrap()).await;
    assert_eq!((t.platform.as_str(), t.channel_id), ("52", 7));
    assert_eq!(t.properties.upstream_model_name, "viduq2");
    let resp = submit(&server, "viduq1", "a tram at night").await;
    assert_eq!(resp.status, 400, "{}", resp.text());
    assert_eq!(
        resp.json(),
        json!({"code": "invalid_api_platform", "message": "invalid api platform: 99", "data": null})
    );
    let blank = post_json(
        &server,
        GENERATIONS,
        KEY_ENABLED,
        json!({"model": "sora-2", "prompt": " "}),
    )
    .await;
    assert_eq!(blank.status, 400);
    assert_eq!(blank.json()["code"], "invalid_request");
}

#[tokio::test]
async fn ali_bills_the_upstream_models_resolution_and_answers_its_own_status() {
    let mut fixtures = Fixtures::embedded();
    // `wan2.7-t2v` sent upstream as `wan2.5-i2v-preview`: the defaults follow the client's
    // model (a t2v model: 1280*720, 720P), the ratio table the upstream's (720P: 2).
    fixtures.channels = vec![Channel {
        id: 9,
        channel_type: 17,
        name: "ali".into(),
        models: vec!["wan2.7-t2v".into()],
        model_mapping: [("wan2.7-t2v".to_owned(), "wan2.5-i2v-preview".to_owned())].into(),
        group: "default".into(),
    }];
    let server = adaptors_server_with(Profile::NewApi, fixtures).await;
    let resp = submit(&server, "wan2.7-t2v", "a lantern on a lake").await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    let ratios: Value = serde_json::from_slice(
        resp.headers
            .get("x-new-api-other-ratios")
            .expect("the ratios header")
            .as_bytes(),
    )
    .unwrap();
    assert_eq!(ratios, json!({"seconds": 5, "resolution-720P": 2.0}));
    let v = resp.json();
    assert_eq!(v["status"], "queued", "PENDING through convertAliStatus");
    let t = fetch(&server, v["id"].as_str().unwrap()).await;
    assert_eq!((t.platform.as_str(), t.progress.as_str()), ("17", "20%"));
    assert_eq!(t.data["output"]["task_status"], "PENDING");
    assert_eq!(
        t.data["output"]["submit_time"].as_str().map(str::len),
        Some(23)
    );
    // A chosen failure: new-api's reason from DashScope's output code and message.
    let failing = submit(&server, "wan2.7-t2v", "a lantern [fail]")
        .await
        .json();
    let fid = failing["id"].as_str().unwrap().to_owned();
    advance(&server, 60.0).await;
    let failed = fetch(&server, &fid).await;
    assert_eq!(failed.data["output"]["task_status"], "FAILED");
    assert!(
        failed.fail_reason.starts_with("task failed, code: "),
        "{}",
        failed.fail_reason
    );
    let video = get_with(&server, &format!("/v1/videos/{fid}"), KEY_ENABLED)
        .await
        .json();
    assert_eq!(video["metadata"]["url"], "", "always set: {video}");
}

/// Doubao's `EstimateBilling` (DECISIONS D-PLAT-9): a Seedance 2.0 request with a video input
/// announces `video_input` 28/46 and is charged the price times it; the same request without
/// one announces nothing and is charged the price.
#[tokio::test]
async fn doubao_bills_a_video_input_at_its_ratio() {
    let mut fixtures = Fixtures::embedded();
    let model = "doubao-seedance-2-0-260128";
    let mut record = fixtures
        .catalog
        .iter()
        .find(|m| m.id == model_of("doubao"))
        .cloned()
        .expect("the catalog's doubao model");
    record.id = model.into();
    record.code = model.into();
    fixtures.catalog.push(record);
    fixtures
        .channels
        .iter_mut()
        .find(|c| c.channel_type == 54)
        .expect("the doubao channel")
        .models
        .push(model.into());
    let server = adaptors_server_with(Profile::NewApi, fixtures).await;
    let video = json!([{"type": "video_url", "video_url": {"url": "https://example.com/in.mp4"}}]);
    for (content, ratios, quota) in [
        (video, json!({"video_input": 28.0 / 46.0}), 60_870),
        (json!([]), json!({}), 100_000),
    ] {
        let body = json!({"model": model, "prompt": "a kite", "metadata": {"content": content}});
        let resp = post_json(&server, GENERATIONS, KEY_ENABLED, body).await;
        assert_eq!(resp.status, 200, "{}", resp.text());
        let header: Value = serde_json::from_slice(
            resp.headers
                .get("x-new-api-other-ratios")
                .expect("the ratios header")
                .as_bytes(),
        )
        .unwrap();
        assert_eq!(header, ratios);
        let t = fetch(&server, resp.json()["id"].as_str().unwrap()).await;
        assert_eq!(t.quota, quota, "0.2 USD x 500000 x the ratio");
        check_record(by_name("doubao").unwrap(), &t).unwrap();
    }
}

/// Ali's HappyHorse models (DECISIONS D-PLAT-11), once the deployment's catalog lists them:
/// new-api's refusals by image and video count, an i2v without a prompt accepted, the actions,
/// and `seconds` 0 for a video edit (buildHappyHorseRequest sets no duration).
#[tokio::test]
async fn ali_happyhorse_validates_as_new_api_and_bills_its_seconds() {
    let mut fixtures = Fixtures::embedded();
    let base = fixtures
        .catalog
        .iter()
        .find(|m| m.id == model_of("ali"))
        .cloned()
        .expect("the catalog's ali model");
    for id in [
        "happyhorse-1.1-i2v",
        "happyhorse-1.1-r2v",
        "happyhorse-1.0-video-edit",
    ] {
        let mut m = base.clone();
        m.id = id.into();
        m.code = id.into();
        fixtures.catalog.push(m);
    }
    let server = adaptors_server_with(Profile::NewApi, fixtures).await;
    let refused = [
        (
            json!({"model": "happyhorse-1.1-i2v", "prompt": "p"}),
            "happyhorse i2v requires exactly 1 first-frame image, got 0",
        ),
        (
            json!({"model": "happyhorse-1.1-r2v", "images": ["u"]}),
            "prompt is required",
        ),
        (
            json!({"model": "happyhorse-1.1-r2v", "prompt": "p", "images": vec!["u"; 10]}),
            "happyhorse r2v requires 1-9 reference images, got 10",
        ),
        (
            json!({"model": "happyhorse-1.0-video-edit", "prompt": "p"}),
            "happyhorse video-edit requires exactly 1 video, got 0",
        ),
    ];
    for (body, message) in refused {
        let resp = post_json(&server, GENERATIONS, KEY_ENABLED, body.clone()).await;
        assert_eq!(resp.status, 400, "{body}: {}", resp.text());
        assert_eq!(
            resp.json(),
            json!({"code": "invalid_request", "message": message, "data": null})
        );
    }
    let accepted = [
        (
            json!({"model": "happyhorse-1.1-i2v", "images": ["https://example.com/a.png"], "duration": 6}),
            json!({"seconds": 6}),
            "generate",
        ),
        (
            json!({"model": "happyhorse-1.0-video-edit", "prompt": "p", "videos": ["https://example.com/a.mp4"]}),
            json!({"seconds": 0}),
            "remixGenerate",
        ),
    ];
    for (body, ratios, action) in accepted {
        let resp = post_json(&server, GENERATIONS, KEY_ENABLED, body.clone()).await;
        assert_eq!(resp.status, 200, "{body}: {}", resp.text());
        let header: Value = serde_json::from_slice(
            resp.headers
                .get("x-new-api-other-ratios")
                .expect("the ratios header")
                .as_bytes(),
        )
        .unwrap();
        assert_eq!(header, ratios, "{body}");
        let t = fetch(&server, resp.json()["id"].as_str().unwrap()).await;
        assert_eq!((t.platform.as_str(), t.action.as_str()), ("17", action));
        check_record(by_name("ali").unwrap(), &t).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// The used quota of the test key (`GET /__mock/keys`).
async fn used_quota(server: &MockServer) -> Value {
    let keys = Http::new(server.uri())
        .get("/__mock/keys", &[])
        .await
        .json();
    let k = keys
        .as_array()
        .and_then(|ks| {
            ks.iter()
                .find(|k| k["key"].as_str().is_some_and(|s| s.contains(KEY_ENABLED)))
        })
        .cloned()
        .expect("the test key");
    json!([k["used_quota"], k["remain_quota"]])
}

/// DashScope refusing the submit (DECISIONS D-PLAT-11), chosen by an upstream fault: new-api's
/// relay of each (a non-200 `fail_to_fetch_task` with its status and body, a 429's message
/// rewritten; a 200 with a `code` `ali_api_error` answered 200; a 200 without `output.task_id`
/// 500 `invalid_response`), nothing charged, no task made, no ratios header.
#[tokio::test]
async fn ali_relays_dashscopes_submit_refusals_as_new_api() {
    let server = adaptors_server_with(Profile::NewApi, Fixtures::embedded()).await;
    let before = used_quota(&server).await;
    let refused = json!({"request_id": "r1", "code": "InvalidParameter", "message": "The size is not supported."});
    let text = refused.to_string();
    let cases = [
        (
            400,
            refused.clone(),
            400,
            "fail_to_fetch_task",
            text.clone(),
        ),
        (
            429,
            json!({"code": "Throttling", "message": "Too many requests."}),
            429,
            "fail_to_fetch_task",
            "当前分组上游负载已饱和，请稍后再试".to_owned(),
        ),
        (
            200,
            refused.clone(),
            200,
            "ali_api_error",
            "InvalidParameter: The size is not supported.".to_owned(),
        ),
        (
            200,
            json!({"request_id": "r1"}),
            500,
            "invalid_response",
            "task_id is empty".to_owned(),
        ),
    ];
    for (status, body, want, code, message) in cases {
        let fault = json!({"route": "POST /v1/video/generations", "kind": "upstream",
                           "status": status, "body": body, "times": 1});
        let r = control(&server, "/__mock/faults", fault).await;
        assert_eq!(r.status, 201, "{}", r.text());
        let resp = submit(&server, "wan2.7-t2v", "a lantern on a lake").await;
        assert_eq!(resp.status, want, "{}", resp.text());
        assert_eq!(
            resp.json(),
            json!({"code": code, "message": message, "data": null})
        );
        assert!(resp.header("x-new-api-other-ratios").is_none());
    }
    assert_eq!(used_quota(&server).await, before, "each charge given back");
    let videos = Http::new(server.uri())
        .get("/__mock/videos", &[])
        .await
        .json();
    assert_eq!(videos["data"], json!([]), "no task made");
    // Not Ali's: a Vidu submit leaves the fault unfired (its DoResponse is not modelled).
    let fault = json!({"kind": "upstream", "status": 200, "body": {"code": "X"}});
    assert_eq!(control(&server, "/__mock/faults", fault).await.status, 201);
    assert_eq!(submit(&server, "viduq1", "a kite").await.status, 200);
    let faults = Http::new(server.uri())
        .get("/__mock/faults", &[])
        .await
        .json();
    assert_eq!(
        faults.as_array().and_then(|f| f.last()).unwrap()["fired"],
        0
    );
    // An answer new-api accepts, or masks, is refused.
    for body in [
        json!({"output": {"task_id": "t1", "task_status": "PENDING"}}),
        json!({"code": "InvalidParameter", "message": "see https://help.aliyun.com"}),
    ] {
        let fault = json!({"kind": "upstream", "status": 200, "body": body});
        let r = control(&server, "/__mock/faults", fault).await;
        assert_eq!(r.status, 400, "{}", r.text());
    }
}

/// DashScope answering new-api's polls with an error (DECISIONS D-PLAT-11), chosen through
/// `POST /__mock/videos/{id}/upstream` with a number: the record shows the body as `data`,
/// QUEUED 20% (ParseTaskResult's other state), `/v1/videos/{id}` `unknown` with the error; it
/// survives a state dump and load, ends when a state word is chosen, and is refused for an
/// ended task or a body that is not DashScope's error.
#[tokio::test]
async fn ali_shows_dashscopes_poll_errors_as_new_api_stores_them() {
    let server = adaptors_server_with(Profile::NewApi, Fixtures::embedded()).await;
    let id = submit(&server, "wan2.7-t2v", "a lantern on a lake")
        .await
        .json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    advance(&server, 6.0).await;
    assert_eq!(fetch(&server, &id).await.status, TaskStatus::InProgress);
    let body = json!({"request_id": "r2", "code": "InternalError", "message": "An internal error occurred."});
    let path = format!("/__mock/videos/{id}/upstream");
    let r = control(&server, &path, json!({"status": 500, "body": body})).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let shown = |t: &TaskDto| (t.status, t.progress.clone(), t.data.clone());
    let t = fetch(&server, &id).await;
    assert_eq!(
        shown(&t),
        (TaskStatus::Queued, "20%".to_owned(), body.clone())
    );
    let video = get_with(&server, &format!("/v1/videos/{id}"), KEY_ENABLED)
        .await
        .json();
    assert_eq!(
        (&video["status"], &video["progress"]),
        (&json!("unknown"), &json!(20))
    );
    assert_eq!(
        video["error"],
        json!({"code": "InternalError", "message": "An internal error occurred."})
    );
    // Dumped and loaded: the same record.
    let http = Http::new(server.uri());
    let dump = http.get("/__mock/state", &[]).await.json();
    assert_eq!(
        control(&server, "/__mock/reset", json!({})).await.status,
        200
    );
    assert_eq!(
        http.json("PUT", "/__mock/state", &[], dump).await.status,
        200
    );
    assert_eq!(shown(&fetch(&server, &id).await), shown(&t));
    // Refused: not DashScope's error body; another platform's task.
    let r = control(
        &server,
        &path,
        json!({"status": 500, "body": {"message": "no code"}}),
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.text());
    let vidu = submit(&server, "viduq1", "a kite").await.json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = control(
        &server,
        &format!("/__mock/videos/{vidu}/upstream"),
        json!({"status": 500, "body": body}),
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.text());
    // A state word ends it; an ended task is no longer polled (409).
    let r = control(&server, &path, json!({"status": "RUNNING"})).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        fetch(&server, &id).await.data["output"]["task_status"],
        "RUNNING"
    );
    advance(&server, 60.0).await;
    let r = control(&server, &path, json!({"status": 500, "body": body})).await;
    assert_eq!(r.status, 409, "{}", r.text());
}

/// The plugin era's platform facts (DECISIONS D-PLAT-23): Doubao on a type-45 channel (its
/// tasks' `platform` "45"; `invalid_api_platform` in the adaptors' era), its ratio under
/// `video_input_ratio` with the plugin's tiers (4k), and Veo's seconds refused but 4, 6 or 8.
#[tokio::test]
async fn the_plugin_eras_platform_facts() {
    use gatecheck_schemas::rules::platform_record::check_record_in;
    use gatecheck_schemas::Era;
    let doubao = by_name("doubao").unwrap();
    let model = "doubao-seedance-2-0-260128";
    let mut fixtures = Fixtures::embedded();
    let mut record = fixtures
        .catalog
        .iter()
        .find(|m| m.id == doubao.catalog_model)
        .cloned()
        .expect("the catalog's doubao model");
    record.id = model.into();
    record.code = model.into();
    fixtures.catalog.push(record);
    fixtures.channels.insert(
        0,
        Channel {
            id: 45,
            channel_type: 45,
            name: "volcengine".into(),
            models: vec![model.into()],
            model_mapping: Default::default(),
            group: "default".into(),
        },
    );
    let body = json!({"model": model, "prompt": "a kite", "metadata": {"resolution": "4k"}});
    for era in [Era::Plugins, Era::Adaptors] {
        let server = MockServer::builder()
            .profile(Profile::NewApi)
            .era(era)
            .fixtures(fixtures.clone())
            .clock(ClockMode::virtual_default())
            .start()
            .await;
        let resp = post_json(&server, GENERATIONS, KEY_ENABLED, body.clone()).await;
        if era == Era::Adaptors {
            assert_eq!(resp.status, 400, "{}", resp.text());
            assert_eq!(resp.json()["code"], "invalid_api_platform");
        } else {
            assert_eq!(resp.status, 200, "{}", resp.text());
            let header: Value = serde_json::from_slice(
                resp.headers
                    .get("x-new-api-other-ratios")
                    .expect("the ratios header")
                    .as_bytes(),
            )
            .unwrap();
            assert_eq!(header, json!({"video_input_ratio": 26.0 / 46.0}));
            let t = fetch(&server, resp.json()["id"].as_str().unwrap()).await;
            assert_eq!((t.platform.as_str(), t.channel_id), ("45", 45));
            check_record_in(doubao, era, &t).unwrap_or_else(|e| panic!("{e}"));
            assert!(
                check_record_in(doubao, Era::Adaptors, &t).is_err(),
                "45 is no adaptor's"
            );
        }
        let veo = all()
            .iter()
            .copied()
            .find(|p| is_realtime(p))
            .expect("a Veo platform");
        for (seconds, refused) in [(5, era == Era::Plugins), (6, false)] {
            let body = json!({"model": veo.catalog_model, "prompt": "a kite", "duration": seconds});
            let resp = post_json(&server, GENERATIONS, KEY_ENABLED, body).await;
            let want = if refused { 400 } else { 200 };
            assert_eq!(resp.status, want, "{era} {seconds}s: {}", resp.text());
            if refused {
                assert_eq!(resp.json()["code"], "plugin_request_invalid");
            }
        }
        server.shutdown().await;
    }
}
