//! The worked example of docs/ARCHITECTURE.md's "Adding a check" stays true: every snippet the
//! doc quotes under `<!-- example: <file> -->` stands verbatim (line by line, indentation aside)
//! in that file, and the check it describes is in the check list with the needs and the
//! decision the doc quotes.

use gatecheck_conformance::discovery::{Needs, RouteFamily};
use gatecheck_conformance::internals::find;
use gatecheck_conformance::Kind;
use gatecheck_schemas::decisions::id;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The doc's section "Adding a check".
fn section() -> String {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).expect("doc");
    let start = doc.find("\n## Adding a check").expect("the section");
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
        let source = std::fs::read_to_string(root().join(file)).expect(file);
        let lines: Vec<&str> = source.lines().map(str::trim).collect();
        let found = lines
            .windows(snippet.len())
            .any(|w| w.iter().zip(&snippet).all(|(a, b)| a == b));
        assert!(found, "{file} does not contain\n{}", snippet.join("\n"));
        seen += 1;
        rest = after;
    }
    assert_eq!(seen, 3, "the check, its function, its planted bug");
}

#[test]
fn the_example_check_is_listed_with_its_needs_and_decision() {
    let check = find("audio.speech.formats").expect("in the check list");
    assert_eq!(check.kind, Kind::Deviation);
    assert_eq!(check.route, "POST /v1/audio/speech");
    assert_eq!(check.needs, Needs::All(&[RouteFamily::AudioSpeech]));
    assert_eq!(check.mock_only, None);
    assert_eq!(check.decision, Some(id::D_MEDIA));
    assert!(
        section().contains(check.title),
        "the doc quotes the listed title"
    );
}
