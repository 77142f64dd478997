//! The worked example of docs/ARCHITECTURE.md's "Adding a video platform" stays true: every
//! snippet the doc quotes under `<!-- example: <file> -->` stands verbatim (line by line,
//! indentation aside) in that file, and the platform it describes is served on the unified
//! route with its channel type as `platform`.

use crate::serve::{request, start};
use crate::support::repo_root;

/// The doc's section "Adding a video platform".
fn section() -> String {
    let doc = std::fs::read_to_string(repo_root().join("docs/ARCHITECTURE.md")).expect("doc");
    let start = doc
        .find("\n## Adding a video platform")
        .expect("the section");
    let rest = &doc[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    rest[..end].to_owned()
}

#[test]
fn each_quoted_snippet_stands_in_its_file() {
    let text = section();
    let mut rest = text.as_str();
    let mut seen = 0;
    while let Some(at) = rest.find("<!-- example: ") {
        let after = &rest[at + "<!-- example: ".len()..];
        let (file, after) = after.split_once(" -->").expect("a closed marker");
        let body = after
            .trim_start()
            .strip_prefix("```rust\n")
            .expect("a rust block");
        let (code, after) = body.split_once("```").expect("a closed block");
        let snippet: Vec<&str> = code
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let source = std::fs::read_to_string(repo_root().join(file)).expect(file);
        let lines: Vec<&str> = source.lines().map(str::trim).collect();
        let found = lines
            .windows(snippet.len())
            .any(|w| w.iter().zip(&snippet).all(|(a, b)| a == b));
        assert!(found, "{file} does not contain\n{}", snippet.join("\n"));
        seen += 1;
        rest = after;
    }
    assert_eq!(
        seen, 4,
        "the description, its registry line, the hooks, their line"
    );
}

#[test]
fn the_example_platform_is_served() {
    let served = start(&["--seed", "3"]);
    let fixtures = gatecheck_mock::Fixtures::embedded();
    let key = gatecheck_mock::demo_key_of(&fixtures).expect("demo key");
    let auth = format!("Bearer {}", key.key);
    let headers = [
        ("Authorization", auth.as_str()),
        ("Content-Type", "application/json"),
    ];
    let body = r#"{"model":"viduq1","prompt":"a red kite","duration":5}"#;
    let path = "/v1/video/generations";
    let (status, created) = request(&served.base, "POST", path, &headers, body);
    assert_eq!(status, 200, "{created}");
    let created: serde_json::Value = serde_json::from_str(&created).expect("JSON");
    let id = created["id"].as_str().expect("an id");
    let (status, got) = request(&served.base, "GET", &format!("{path}/{id}"), &headers, "");
    assert_eq!(status, 200, "{got}");
    let got: serde_json::Value = serde_json::from_str(&got).expect("JSON");
    assert_eq!(
        (
            got["data"]["task_id"].as_str(),
            got["data"]["platform"].as_str()
        ),
        (Some(id), Some("52")),
        "{got}"
    );
    assert_eq!(
        got["data"]["data"]["state"], "queueing",
        "Vidu's own task: {got}"
    );
}
