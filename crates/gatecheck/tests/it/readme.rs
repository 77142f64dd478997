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
