//! The `new-api` profile in new-api's plugin era (DECISIONS D-ERA-2..6), against the same
//! requests on `new-api-adaptors` (the Go adaptors, frozen) and `documented`.

use super::support::{bearer, named_server, Http, KEY_ENABLED};
use gatecheck_schemas::rules::era;
use gatecheck_schemas::NamedProfile;
use serde_json::json;

#[tokio::test]
async fn the_plugin_era_renders_the_host_owned_task_and_serves_head() {
    for named in NamedProfile::ALL {
        let server = named_server(named).await;
        let plugins = named == NamedProfile::NEW_API;
        assert_eq!(server.named_profile(), named);
        let http = Http::new(server.uri());
        let auth = bearer(KEY_ENABLED);
        let h = [("authorization", auth.as_str())];
        let created = http
            .json(
                "POST",
                "/v1/videos",
                &h,
                json!({"model": "sora-2", "prompt": "a boat"}),
            )
            .await;
        assert_eq!(created.status, 200, "{named}: {}", created.text());
        let v = created.json();
        let id = v["id"].as_str().expect("id").to_owned();
        assert_eq!(v.get("task_id").is_none(), plugins, "{named}: {v}");
        assert_eq!(v["status"], "queued", "{named}: {v}");
        if plugins {
            assert_eq!(v["completed_at"], v["created_at"], "D-ERA-2: {v}");
        }
        server.clock().advance(std::time::Duration::from_secs(3600));
        let done = http.get(&format!("/v1/videos/{id}"), &h).await.json();
        assert_eq!(done["status"], "completed", "{named}: {done}");
        assert_eq!(
            done.pointer("/metadata/url").is_none(),
            plugins,
            "{named}: {done}"
        );
        let content = format!("/v1/videos/{id}/content");
        let got = http.get(&content, &h).await;
        assert_eq!(got.status, 200);
        let head = http.send("HEAD", &content, &h, bytes::Bytes::new()).await;
        if plugins {
            assert_eq!(head.status, 200, "D-ERA-6");
            assert!(head.body.is_empty());
            assert_eq!(head.header("content-type"), got.header("content-type"));
            assert_eq!(
                head.header("content-length"),
                Some(got.body.len().to_string().as_str())
            );
        } else if named == NamedProfile::DOCUMENTED {
            assert_eq!(head.status, 405, "{named}");
            assert_eq!(head.header("allow"), Some("GET"), "{named}");
        } else {
            assert_eq!(head.status, 404, "{named}: gin's NoRoute");
        }
        server.shutdown().await;
    }
}

#[tokio::test]
async fn the_plugin_era_refuses_an_empty_prompt_and_forbids_caching_a_not_found() {
    for named in NamedProfile::ALL {
        let server = named_server(named).await;
        let plugins = named == NamedProfile::NEW_API;
        let http = Http::new(server.uri());
        let auth = bearer(KEY_ENABLED);
        let h = [("authorization", auth.as_str())];
        let r = http
            .json(
                "POST",
                "/v1/videos",
                &h,
                json!({"model": "sora-2", "prompt": ""}),
            )
            .await;
        assert_eq!(r.status, 400, "{named}");
        let body = r.json();
        assert_eq!(era::is_plugin_refusal(&body), plugins, "{named}: {body}");
        if plugins {
            // The task error, as respondTaskError writes it (DECISIONS D-ERA-4).
            assert_eq!(
                body,
                era::plugin_refusal_body(era::MSG_FIELD_PROMPT_REQUIRED)
            );
        }
        let nf = http.get("/v1/gatecheck-nothing", &h).await;
        assert_eq!(nf.status, 404);
        assert_eq!(
            era::forbids_store(nf.header("cache-control")),
            plugins,
            "{named}"
        );
        if plugins {
            for (name, value) in era::NOT_FOUND_NO_STORE {
                assert_eq!(nf.header(name), Some(value), "{name}");
            }
        }
        let health = http.get("/__mock/health", &[]).await.json();
        assert_eq!(health["era"], named.effective_era().as_str(), "{named}");
        server.shutdown().await;
    }
}
