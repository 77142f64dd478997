//! The README's mock quick start runs as written: its credentials are the ones `gatecheck
//! serve` prints, and its curl commands answer what the text says.

use crate::serve::start;
use std::process::Command;

const BEGIN: &str = "<!-- BEGIN mock-quickstart";
const END: &str = "<!-- END mock-quickstart -->";

fn quickstart() -> String {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README.md");
    let start = readme.find(BEGIN).expect("quick-start begin marker");
    let end = readme.find(END).expect("quick-start end marker");
    readme[start..end].to_owned()
}

/// The bodies of the fenced blocks with this info string.
fn blocks(section: &str, info: &str) -> Vec<String> {
    let fence = format!("```{info}\n");
    let mut out = Vec::new();
    let mut rest = section;
    while let Some(i) = rest.find(&fence) {
        let body = &rest[i + fence.len()..];
        let j = body.find("```").expect("closing fence");
        out.push(body[..j].to_owned());
        rest = &body[j + 3..];
    }
    out
}

fn run_sh(script: &str) -> String {
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .output()
        .expect("run sh");
    assert!(
        out.status.success(),
        "command failed: {script}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn readme_quickstart_credentials_match_serve() {
    let section = quickstart();
    let served = start(&[]);
    let console = blocks(&section, "console");
    assert_eq!(console.len(), 1);
    for word in console[0].split_whitespace() {
        if word.starts_with("sk-")
            || word.len() == 32 && word.chars().all(|c| c.is_ascii_alphanumeric())
        {
            assert!(
                served.banner.contains(word),
                "README shows {word}, serve does not print it"
            );
        }
    }
}

#[test]
fn readme_quickstart_curl_examples_run_as_written() {
    let section = quickstart();
    let served = start(&[]);
    let port = served.base.rsplit(':').next().expect("port").to_owned();
    let scripts = blocks(&section, "sh");
    assert_eq!(scripts.len(), 3, "catalog, key update, rejected key");
    let outputs: Vec<String> = scripts
        .iter()
        .map(|s| {
            assert!(s.contains("127.0.0.1:3000"), "{s}");
            run_sh(&s.replace("127.0.0.1:3000", &format!("127.0.0.1:{port}")))
        })
        .collect();

    let catalog: serde_json::Value = serde_json::from_str(&outputs[0]).expect("catalog JSON");
    assert_eq!(catalog["success"], true);
    assert_eq!(catalog["page_size"], 2);
    assert_eq!(catalog["data"].as_array().map(Vec::len), Some(2));
    assert!(catalog["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["model_type"] == "video"));

    let update: serde_json::Value = serde_json::from_str(&outputs[1]).expect("update JSON");
    assert_eq!(update["success"], true, "{update}");
    assert_eq!(update["data"]["name"], "my-app");
    assert_eq!(update["data"]["remain_quota"], 500000);

    let rejected = &outputs[2];
    assert!(rejected.trim_end().ends_with("HTTP 401"), "{rejected}");
    let body = rejected.lines().next().unwrap_or("");
    let err: serde_json::Value = serde_json::from_str(body).expect("v1 error JSON");
    assert_eq!(err["error"]["type"], "new_api_error");
}

const NEWCOMER_BEGIN: &str = "<!-- BEGIN newcomer-quickstart";
const NEWCOMER_END: &str = "<!-- END newcomer-quickstart -->";

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README.md")
}

/// The README's quick start, top to bottom: its first block is the install command (not run
/// here: the test runs this build's `gatecheck` instead of installing one); the others run in
/// order as one script, in a scratch directory, with this build's binary first on the PATH.
#[test]
fn readme_newcomer_quickstart_runs_top_to_bottom() {
    let readme = readme();
    let start = readme
        .find(NEWCOMER_BEGIN)
        .expect("newcomer quick-start marker");
    let end = readme.find(NEWCOMER_END).expect("newcomer quick-start end");
    let scripts = blocks(&readme[start..end], "sh");
    assert_eq!(
        scripts.first().map(|s| s.trim()),
        Some("cargo install --locked --path crates/gatecheck"),
        "the quick start begins with the install step"
    );
    let body = scripts[1..].join("\n");
    assert!(body.contains("--port 0") && body.contains("gatecheck check"));
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_gatecheck"));
    let dir = std::env::temp_dir().join(format!("gatecheck-quickstart-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    // Stop the mock whatever happens, and bound the wait for the ready file.
    let script = format!(
        "set -e\ntrap 'kill \"$SERVE_PID\" 2>/dev/null || true' EXIT\n{}",
        body.replace(
            "until [ -s ready.json ]",
            "n=0; until [ -s ready.json ] || [ $((n+=1)) -gt 600 ]"
        )
    );
    let path = format!(
        "{}:{}",
        bin.parent().expect("bin dir").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(&script)
        .current_dir(&dir)
        .env("PATH", path)
        .env("RUST_LOG", "warn")
        .output()
        .expect("run sh");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let log = std::fs::read_to_string(dir.join("serve.log")).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "quick start failed\nscript:\n{script}\nstdout:\n{stdout}\nstderr:\n{stderr}\nserve.log:\n{log}"
    );
    assert!(
        stdout.contains("mock listening on http://127.0.0.1:"),
        "{stdout}"
    );
    assert!(stdout.contains("\"status\":\"queued\""), "{stdout}");
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}

/// The README's Rust test is the file CI compiles and runs (`examples/rust/tests/gateway.rs`).
#[test]
fn readme_rust_example_is_the_tested_file() {
    let readme = readme();
    let rust = blocks(&readme, "rust");
    let file = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/rust/tests/gateway.rs"
    ))
    .expect("examples/rust/tests/gateway.rs");
    assert!(
        rust.contains(&file),
        "README.md has no ```rust block equal to examples/rust/tests/gateway.rs"
    );
    let toml = blocks(&readme, "toml");
    assert!(
        toml.iter().any(|b| b.contains("gatecheck-mock")
            && b.contains("\"macros\"")
            && b.contains("\"rt-multi-thread\"")),
        "README.md has no Cargo.toml snippet with gatecheck-mock and tokio's features"
    );
}
