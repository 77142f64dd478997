//! No crate of the workspace declares a dependency it never uses (the check `cargo machete`
//! makes, by hand, so that it runs without installing anything): each name under
//! `[dependencies]` and `[dev-dependencies]` must appear as a path (`name::`), in a `use`, or in
//! an attribute of the crate's Rust sources.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The dependency names of a manifest's `[dependencies]` and `[dev-dependencies]`.
fn declared(manifest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]" || line == "[dev-dependencies]";
            continue;
        }
        if !in_deps || line.is_empty() || line.starts_with('#') {
            continue;
        }
        let name = line
            .split(['=', '.', ' '])
            .next()
            .unwrap_or("")
            .trim()
            .to_owned();
        if !name.is_empty() && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

fn rust_sources(dir: &Path, out: &mut String) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_sources(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
            out.push('\n');
        }
    }
}

fn used(ident: &str, sources: &str) -> bool {
    [
        format!("{ident}::"),
        format!("use {ident}"),
        format!("extern crate {ident}"),
    ]
    .iter()
    .any(|needle| {
        sources.match_indices(needle.as_str()).any(|(i, _)| {
            // Not the tail of a longer name (`my_tokio::`).
            !sources[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    })
}

#[test]
fn dependencies_are_used() {
    let root = root();
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
        .map(|e| e.path())
        .collect();
    crates.push(root.join("examples/rust"));
    crates.sort();
    let mut unused = Vec::new();
    for dir in crates {
        let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        let mut sources = String::new();
        for sub in ["src", "tests", "examples", "benches"] {
            rust_sources(&dir.join(sub), &mut sources);
        }
        for name in declared(&manifest) {
            if !used(&name.replace('-', "_"), &sources) {
                unused.push(format!("{}: {name}", dir.display()));
            }
        }
    }
    assert!(
        unused.is_empty(),
        "unused dependencies:\n{}",
        unused.join("\n")
    );
}

#[test]
fn the_dependency_check_sees_an_unused_one() {
    let manifest = "[package]\nname = \"x\"\n[dependencies]\nserde.workspace = true\nregex = \"1\"\n[dev-dependencies]\ninsta = { version = \"1\" }\n[lints]\nworkspace = true\n";
    assert_eq!(declared(manifest), ["serde", "regex", "insta"]);
    let sources =
        "use serde::Deserialize;\nfn f() { insta::assert_snapshot!(\"x\"); }\nmod my_regex {}";
    assert!(used("serde", sources));
    assert!(used("insta", sources));
    assert!(!used("regex", sources));
}
