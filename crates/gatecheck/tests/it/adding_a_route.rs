//! The worked example of docs/ARCHITECTURE.md's "Adding a route" stays true: every snippet
//! the doc quotes under `<!-- example: <file> -->` stands verbatim (line by line, indentation
//! aside) in that file, and the route it describes is in the table and served.

use crate::serve::{request, start};
use crate::support::repo_root;
use gatecheck_schemas::routes::{lookup, Lookup, Op};
use gatecheck_schemas::Profile;

/// The doc's section "Adding a route".
fn section() -> String {
    let doc = std::fs::read_to_string(repo_root().join("docs/ARCHITECTURE.md")).expect("doc");
    let start = doc.find("\n## Adding a route").expect("the section");
    let rest = &doc[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    rest[..end].to_owned()
}

/// Each `<!-- example: <file> -->` of `text` with the code block that follows it.
fn examples(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("<!-- example: ") {
        let after = &rest[at + "<!-- example: ".len()..];
        let (file, after) = after.split_once(" -->").expect("a closed marker");
        let body = after
            .trim_start()
            .strip_prefix("```rust\n")
            .expect("a rust code block after the marker");
        let (code, after) = body.split_once("```").expect("a closed code block");
        let lines = code
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect();
        out.push((file.to_owned(), lines));
        rest = after;
    }
    out
}

#[test]
fn each_quoted_snippet_stands_in_its_file() {
    let examples = examples(&section());
    assert_eq!(examples.len(), 3, "the row, the match arm and the handler");
    for (file, snippet) in examples {
        let source = std::fs::read_to_string(repo_root().join(&file)).expect(&file);
        let lines: Vec<&str> = source.lines().map(str::trim).collect();
        let found = lines
            .windows(snippet.len())
            .any(|w| w.iter().zip(&snippet).all(|(a, b)| a == b));
        assert!(found, "{file} does not contain\n{}", snippet.join("\n"));
    }
}

#[test]
fn the_example_route_is_served() {
    let Lookup::Found(found) = lookup(Profile::Documented, "GET", "/v1/videos/video_7") else {
        panic!("GET /v1/videos/{{task_id}} is in the table");
    };
    assert_eq!(found.route.op, Op::GetVideo);
    assert_eq!(found.param("task_id"), "video_7");

    let served = start(&["--seed", "3"]);
    let fixtures = gatecheck_mock::Fixtures::embedded();
    let key = gatecheck_mock::demo_key_of(&fixtures).expect("demo key");
    let auth = format!("Bearer {}", key.key);
    let headers = [
        ("Authorization", auth.as_str()),
        ("Content-Type", "application/json"),
    ];
    let body = r#"{"model":"sora-2","prompt":"a red kite","seconds":"4","size":"720x1280"}"#;
    let (status, created) = request(&served.base, "POST", "/v1/videos", &headers, body);
    assert_eq!(status, 200, "{created}");
    let created: serde_json::Value = serde_json::from_str(&created).expect("JSON");
    let id = created["id"].as_str().expect("an id");
    let (status, got) = request(
        &served.base,
        "GET",
        &format!("/v1/videos/{id}"),
        &headers,
        "",
    );
    assert_eq!(status, 200, "{got}");
    let got: serde_json::Value = serde_json::from_str(&got).expect("JSON");
    assert_eq!(got["id"], id, "{got}");
}
