//! The video platforms on `/v1/videos` in new-api's plugin era (DECISIONS D-ERA-8 to
//! D-ERA-10): `POST /v1/videos` runs the platform's plugin, `GET /v1/videos/{id}` is the host's
//! render over the plugin's, the content route serves the plugin's artifact; the frozen
//! `new-api-adaptors` profile keeps the adaptors' answers.

use super::support::{bearer, named_server, Http, Resp, KEY_ENABLED};
use gatecheck_schemas::rules::openai_video::{named_status, MSG_JSON_OBJECT_REQUIRED};
use gatecheck_schemas::rules::platforms::{all, Key, OTHER_RATIOS_HEADER};
use gatecheck_schemas::rules::task::TaskStatus;
use gatecheck_schemas::NamedProfile;
use serde_json::{json, Value};
use std::time::Duration;

fn auth() -> String {
    bearer(KEY_ENABLED)
}

/// A multipart body of text fields and one file part named `file_field`.
fn multipart(fields: &[(&str, &str)], file_field: Option<&str>) -> (String, bytes::Bytes) {
    let b = "gatecheckboundary";
    let mut out = String::new();
    for (k, v) in fields {
        out.push_str(&format!(
            "--{b}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n"
        ));
    }
    if let Some(f) = file_field {
        out.push_str(&format!(
            "--{b}\r\nContent-Disposition: form-data; name=\"{f}\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\nPNG\r\n"
        ));
    }
    out.push_str(&format!("--{b}--\r\n"));
    (format!("multipart/form-data; boundary={b}"), out.into())
}

async fn post_multipart(http: &Http, fields: &[(&str, &str)], file: Option<&str>) -> Resp {
    let (ct, body) = multipart(fields, file);
    let a = auth();
    http.send(
        "POST",
        "/v1/videos",
        &[("authorization", a.as_str()), ("content-type", ct.as_str())],
        body,
    )
    .await
}

/// The catalog model of the platform `k` (its description's).
fn model(k: Key) -> &'static str {
    k.platform().expect("registered").catalog_model
}

#[tokio::test]
async fn post_v1_videos_runs_the_platforms_plugin_only_in_the_plugin_era() {
    for named in [NamedProfile::NEW_API, NamedProfile::NEW_API_ADAPTORS] {
        let server = named_server(named).await;
        let http = Http::new(server.uri());
        let a = auth();
        let h = [("authorization", a.as_str())];
        let vidu = model(Key::Vidu);
        let body = json!({"model": vidu, "prompt": "a kite"});
        let created = http.json("POST", "/v1/videos", &h, body).await;
        if named == NamedProfile::NEW_API_ADAPTORS {
            assert_eq!(created.status, 400, "frozen: {}", created.text());
            server.shutdown().await;
            continue;
        }
        assert_eq!(created.status, 200, "{}", created.text());
        let v = created.json();
        assert!(v.get("task_id").is_none(), "ToOpenAIVideo: {v}");
        assert_eq!(v["metadata"], json!({"url": ""}), "{v}");
        assert_eq!(
            (v["status"].as_str(), v["model"].as_str()),
            (Some("queued"), Some(vidu))
        );
        assert_eq!(created.header(OTHER_RATIOS_HEADER), Some("{}"));
        // Vidu and Hailuo decode JSON only; Doubao refuses a file part.
        for k in [Key::Vidu, Key::Hailuo] {
            let r = post_multipart(&http, &[("model", model(k)), ("prompt", "x")], None).await;
            assert_eq!(r.status, 400, "{k:?}: {}", r.text());
            assert_eq!(r.json()["code"], "plugin_request_invalid");
            assert!(r.text().contains(MSG_JSON_OBJECT_REQUIRED), "{}", r.text());
        }
        let doubao = [("model", model(Key::Doubao)), ("prompt", "x")];
        assert_eq!(post_multipart(&http, &doubao, None).await.status, 200);
        let r = post_multipart(&http, &doubao, Some("input_reference")).await;
        assert_eq!(r.status, 400, "{}", r.text());
        // Seconds beyond the host's 3600.
        let long = json!({"model": vidu, "prompt": "x", "seconds": 4000});
        assert_eq!(http.json("POST", "/v1/videos", &h, long).await.status, 400);
        server.shutdown().await;
    }
}

#[tokio::test]
async fn the_generic_task_bills_its_seconds_and_takes_one_input_reference() {
    let server = named_server(NamedProfile::NEW_API).await;
    let http = Http::new(server.uri());
    let fields = [("model", "sora-2"), ("prompt", "a boat"), ("seconds", "8")];
    let ok = post_multipart(&http, &fields, Some("input_reference")).await;
    assert_eq!(ok.status, 200, "{}", ok.text());
    assert_eq!(ok.header(OTHER_RATIOS_HEADER), Some(r#"{"seconds":8}"#));
    let other = post_multipart(&http, &fields, Some("image")).await;
    assert_eq!(other.status, 400, "{}", other.text());
    assert!(other.text().contains("unexpected file field: image"));
    server.shutdown().await;
}

/// A task of each registered platform (the unified route), its record's status now.
async fn record_status(http: &Http, id: &str) -> TaskStatus {
    let a = auth();
    let r = http
        .get(
            &format!("/v1/video/generations/{id}"),
            &[("authorization", a.as_str())],
        )
        .await;
    TaskStatus::parse(r.json()["data"]["status"].as_str().unwrap_or("")).expect("a status")
}

#[tokio::test]
async fn every_platforms_task_is_the_hosts_render_and_its_plugins_content() {
    let server = named_server(NamedProfile::NEW_API).await;
    let http = Http::new(server.uri());
    let a = auth();
    let h = [("authorization", a.as_str())];
    let mut ids = Vec::new();
    for p in all() {
        for prompt in ["a kite", "a storm [fail]"] {
            let body = json!({"model": p.catalog_model, "prompt": prompt, "duration": 6});
            let r = http.json("POST", "/v1/video/generations", &h, body).await;
            assert_eq!(r.status, 200, "{}: {}", p.name, r.text());
            ids.push((p, prompt, r.json()["id"].as_str().unwrap().to_owned()));
        }
    }
    for (p, _, id) in &ids {
        let content = http.get(&format!("/v1/videos/{id}/content"), &h).await;
        assert_eq!(content.status, 400, "{}: {}", p.name, content.text());
        assert_eq!(content.header("cache-control"), Some("private, no-store"));
        let named = named_status(&content.json()).expect("names the status");
        // A real-time platform's fetch answers its upstream, not the record.
        if !gatecheck_schemas::rules::platforms::is_realtime(p) {
            assert_eq!(named, record_status(&http, id).await, "{}", p.name);
        }
    }
    server.clock().advance(Duration::from_secs(3600));
    for (p, prompt, id) in &ids {
        let v: Value = http.get(&format!("/v1/videos/{id}"), &h).await.json();
        assert!(v.get("task_id").is_none(), "{}: {v}", p.name);
        assert!(v.pointer("/metadata/url").is_none(), "{}: {v}", p.name);
        assert_eq!(v["model"], p.catalog_model, "{}: {v}", p.name);
        let content = http.get(&format!("/v1/videos/{id}/content"), &h).await;
        if prompt.contains("[fail]") {
            assert_eq!(v["status"], "failed", "{}: {v}", p.name);
            assert_eq!(named_status(&content.json()), Some(TaskStatus::Failure));
            // The plugin's render error, where it renders one.
            let renders = p.plugins.render_error.is_some();
            assert_eq!(v.get("error").is_some(), renders, "{}: {v}", p.name);
        } else {
            assert_eq!(v["status"], "completed", "{}: {v}", p.name);
            assert_eq!(content.status, 200, "{}: {}", p.name, content.text());
            assert_eq!(content.header("content-type"), Some("video/mp4"));
        }
    }
    server.shutdown().await;
}

#[tokio::test]
async fn the_adaptors_era_keeps_the_adaptors_render() {
    let server = named_server(NamedProfile::NEW_API_ADAPTORS).await;
    let http = Http::new(server.uri());
    let a = auth();
    let h = [("authorization", a.as_str())];
    let body = json!({"model": model(Key::Doubao), "prompt": "a kite"});
    let id = http
        .json("POST", "/v1/video/generations", &h, body)
        .await
        .json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let v = http.get(&format!("/v1/videos/{id}"), &h).await.json();
    assert_eq!(v["task_id"], id.as_str(), "Doubao's adaptor: {v}");
    server.shutdown().await;
}

#[tokio::test]
async fn a_filtered_veo_video_is_gone_in_the_plugin_era() {
    let server = named_server(NamedProfile::NEW_API).await;
    let http = Http::new(server.uri());
    let a = auth();
    let h = [("authorization", a.as_str())];
    let body = json!({"model": model(Key::Gemini), "prompt": "a kite", "duration": 6});
    let id = http
        .json("POST", "/v1/video/generations", &h, body)
        .await
        .json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    server.clock().advance(Duration::from_secs(3600));
    let path = format!("/__mock/videos/{id}/upstream");
    let chosen = http
        .json("POST", &path, &[], json!({"status": "filtered"}))
        .await;
    assert_eq!(chosen.status, 200, "{}", chosen.text());
    let gone = http.get(&format!("/v1/videos/{id}/content"), &h).await;
    assert_eq!(gone.status, 410, "{}", gone.text());
    assert_eq!(gone.json()["error"]["code"], "artifact_gone");
    server.shutdown().await;
}
