//! The mock's live dashboard (`/__mock/ui`) in Chromium, driven through the DevTools protocol
//! by `tests/browser/dashboard.mjs`: a queued task moves to completed when the `+10 min`
//! button is clicked, and a prompt carrying `<script>` shows as text and runs nothing.

use super::{chromium, node, run};
use gatecheck_conformance::{Auth, Client, ClientConfig, RequestSpec, Secret, Target};
use gatecheck_mock::{ClockMode, MockServer};
use serde_json::{json, Value};
use std::process::Command;

/// A prompt that would set `window.__pwned`, retitle the page, or parse an image if the
/// dashboard let it.
const HOSTILE_PROMPT: &str = "<script>window.__pwned=1;document.title='pwned'</script><img src=x onerror=\"window.__pwned=2\">";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clock_advance_completes_a_task_and_an_injected_prompt_runs_nothing() {
    let (Some(chromium), Some(node)) = (chromium(), node()) else {
        return;
    };
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    let mut target = Target::new(server.uri().parse().expect("url"));
    target.api_key = Some(Secret::new(server.demo_key()));
    let client = Client::new(ClientConfig::new(target)).expect("client");
    let create = RequestSpec::post("/v1/videos")
        .auth(Auth::ApiKey)
        .json(json!({"model": "sora-2", "prompt": HOSTILE_PROMPT}));
    let ex = client.send(&create).await.expect("create");
    let task: Value = ex.json().expect("task");
    assert_eq!(task["status"], "queued", "{task}");
    let id = task["id"].as_str().expect("id").to_owned();

    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/browser/dashboard.mjs"
    );
    let mut cmd = Command::new(node);
    cmd.arg(script)
        .arg(&chromium)
        .arg(format!("{}/__mock/ui", server.uri()))
        .arg(&id);
    let out = tokio::task::spawn_blocking(move || run(cmd))
        .await
        .expect("node");
    let seen: Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
    server.shutdown().await;

    // The row showed the task queued, then completed after the click moved the clock 600 s.
    assert_eq!(seen["before"], "queued", "{seen}");
    assert_eq!(seen["after"], "completed", "{seen}");
    let secs = |v: &Value| -> i64 {
        v.as_str()
            .unwrap_or("")
            .trim_matches(['(', ')'])
            .parse()
            .unwrap_or(0)
    };
    assert_eq!(
        secs(&seen["clockAfter"]) - secs(&seen["clockBefore"]),
        600,
        "{seen}"
    );
    // The request's body is in the journal as text, and nothing in it ran.
    assert!(
        seen["shown"]
            .as_str()
            .unwrap_or("")
            .contains(HOSTILE_PROMPT.split('"').next().unwrap_or("")),
        "{seen}"
    );
    assert_eq!(seen["title"], "gatecheck mock", "{seen}");
    assert_eq!(seen["pwned"], Value::Null, "{seen}");
    assert_eq!(seen["injectedImages"], 0, "{seen}");
    assert_eq!(seen["dialogs"], 0, "{seen}");
    assert_eq!(seen["exceptions"], json!([]), "{seen}");
    assert_eq!(seen["scripts"], json!(["/__mock/ui/ui.js"]), "{seen}");
}
