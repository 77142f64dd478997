//! A throwaway video platform added by the documented path (docs/ARCHITECTURE.md, "Adding a
//! video platform"): one description ([`description`]), one hooks file ([`hooks`]), a
//! catalog model; no other file. Added at run time (`gatecheck_mock::platform_hooks::extend`,
//! before anything reads the registry: this binary is its own process), it is served by the
//! mock on the unified route, documented in the OpenAPI document and checked by the runner's
//! `task.platform.throwaway`, with nothing else told of it.

mod description;
mod hooks;

use gatecheck_conformance::{Runner, RunnerConfig, Status};
use gatecheck_mock::{ClockMode, Fixtures, MockServer};
use gatecheck_schemas::rules::platforms::{self, by_name};
use serde_json::Value;
use std::time::Duration;

/// The embedded fixtures with the throwaway's catalog model (step 3), priced as Vidu's.
fn fixtures() -> Fixtures {
    let mut f = Fixtures::embedded();
    let vidu = by_name("vidu").expect("vidu").catalog_model;
    let mut model = f
        .catalog
        .iter()
        .find(|m| m.id == vidu)
        .cloned()
        .expect("a video model to copy");
    model.id = description::MODEL.to_owned();
    model.code = description::MODEL.to_owned();
    model.name = "Throwaway video".to_owned();
    f.catalog.push(model);
    f
}

async fn send(server: &MockServer, method: &str, path: &str, body: &str) -> (u16, Value) {
    let fixtures = Fixtures::embedded();
    let key = gatecheck_mock::demo_key_of(&fixtures).expect("demo key");
    let client = reqwest_like::Client::new();
    client
        .send(&server.uri(), method, path, &key.key, body)
        .await
}

/// A minimal HTTP/1.1 client on tokio (the crate's dev-dependencies have no HTTP client).
mod reqwest_like {
    use serde_json::Value;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    pub struct Client;

    impl Client {
        pub fn new() -> Self {
            Client
        }

        pub async fn send(
            &self,
            base: &str,
            method: &str,
            path: &str,
            key: &str,
            body: &str,
        ) -> (u16, Value) {
            let host = base.trim_start_matches("http://").trim_end_matches('/');
            let mut s = tokio::net::TcpStream::connect(host).await.expect("connect");
            let req = format!(
                "{method} {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\n\
                 Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            s.write_all(req.as_bytes()).await.expect("write");
            let mut raw = Vec::new();
            s.read_to_end(&mut raw).await.expect("read");
            let text = String::from_utf8_lossy(&raw);
            let status = text[9..12].parse().expect("status");
            let (head, rest) = text.split_once("\r\n\r\n").expect("head");
            let body = if head
                .to_ascii_lowercase()
                .contains("transfer-encoding: chunked")
            {
                dechunk(rest)
            } else {
                rest.to_owned()
            };
            (status, serde_json::from_str(&body).unwrap_or(Value::Null))
        }
    }

    fn dechunk(mut rest: &str) -> String {
        let mut out = String::new();
        while let Some((size, after)) = rest.split_once("\r\n") {
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 {
                break;
            }
            out.push_str(&after[..n]);
            rest = &after[n + 2..];
        }
        out
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_throwaway_platform_is_served_documented_and_checked() {
    gatecheck_mock::platform_hooks::extend(&hooks::HOOKS).expect("added before any read");
    let p = by_name("throwaway").expect("registered");
    assert_eq!(p.key.platform(), Some(p));

    // Documented: the OpenAPI document names it and carries its `data` schema.
    let doc = gatecheck_schemas::openapi();
    assert!(
        doc["components"]["schemas"]["ThrowawayTaskData"].is_object(),
        "the data schema is a component"
    );
    assert!(
        doc.to_string().contains("Throwaway `9054`"),
        "the create answer names the platform"
    );
    assert!(gatecheck_schemas::schema_names().contains(&"throwaway-task-data"));

    // Served: the unified route runs it with its channel type and its upstream's task.
    let server = MockServer::builder()
        .fixtures(fixtures())
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    let body = format!(
        r#"{{"model":"{}","prompt":"a paper kite","duration":5}}"#,
        description::MODEL
    );
    let (status, created) = send(&server, "POST", "/v1/video/generations", &body).await;
    assert_eq!(status, 200, "{created}");
    let id = created["id"].as_str().expect("an id").to_owned();
    let path = format!("/v1/video/generations/{id}");
    let (status, got) = send(&server, "GET", &path, "").await;
    assert_eq!(status, 200, "{got}");
    assert_eq!(got["data"]["platform"], description::CHANNEL_TYPE, "{got}");
    assert_eq!(got["data"]["data"]["phase"], "waiting", "{got}");

    // Checked: the runner has `task.platform.throwaway`, and it passes with a case run.
    let list = gatecheck_conformance::all_checks();
    assert!(list.iter().any(|c| c.id == "task.platform.throwaway"));
    let mut config = RunnerConfig::new(server.uri().parse().expect("uri"));
    config.scope.only = vec!["task.platform.throwaway".into()];
    config.scope.seed = Some(54);
    config.limits.deadline = Duration::from_secs(60);
    let report = Runner::new(config).run().await.expect("run");
    let check = report
        .checks
        .iter()
        .find(|c| c.id == "task.platform.throwaway")
        .expect("the check ran");
    assert_eq!(check.status, Status::Passed, "{check:?}");
    assert!(check.cases > 0, "a check that ran no case did not pass");
    server.shutdown().await;

    native_routes_are_served_documented_and_checked().await;

    // The registry is read now: another platform is refused, naming it; an unknown name
    // fails with its own name.
    let late = gatecheck_mock::platform_hooks::extend(&hooks::HOOKS).unwrap_err();
    assert!(late.contains("throwaway"), "{late}");
    let unknown = platforms::by_name("nosuch").unwrap_err();
    assert!(
        unknown.contains("\"nosuch\"") && unknown.contains("throwaway"),
        "{unknown}"
    );
}

/// Its native routes (the description's `PluginFacts::native`): in the OpenAPI document,
/// served by the `new-api` mock's plugin era from the route table, and judged by
/// `task.native-routes` with the registered platforms'.
async fn native_routes_are_served_documented_and_checked() {
    let doc = gatecheck_schemas::openapi();
    assert!(
        doc["paths"]["/throwaway/v1/tasks"]["post"].is_object(),
        "documented"
    );
    let server = MockServer::builder()
        .named_profile(gatecheck_schemas::NamedProfile::NEW_API)
        .fixtures(fixtures())
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    let body = format!(
        r#"{{"model":"{}","text":"a paper kite"}}"#,
        description::MODEL
    );
    let (status, created) = send(&server, "POST", "/throwaway/v1/tasks", &body).await;
    assert_eq!(status, 200, "{created}");
    let id = created["task"]["id"]
        .as_str()
        .expect("the public id")
        .to_owned();
    let (status, got) = send(&server, "GET", &format!("/throwaway/v1/tasks/{id}"), "").await;
    assert_eq!(
        (status, got["task"]["phase"].as_str()),
        (200, Some("waiting")),
        "{got}"
    );
    let (status, missing) = send(&server, "GET", "/throwaway/v1/tasks/task_none", "").await;
    assert_eq!(status, 404, "{missing}");
    assert_eq!(missing["failure"]["code"], "task_not_found", "{missing}");
    let mut config = RunnerConfig::new(server.uri().parse().expect("uri"));
    config.scope.only = vec!["task.native-routes".into()];
    config.limits.deadline = Duration::from_secs(60);
    let report = Runner::new(config).run().await.expect("run");
    let check = report
        .checks
        .iter()
        .find(|c| c.id == "task.native-routes")
        .expect("the check ran");
    assert_eq!(check.status, Status::Passed, "{check:?}");
    // Doubao's, Ali's and the throwaway's: three exchanges each.
    assert_eq!(check.cases, 9, "{check:?}");
    server.shutdown().await;
}
