//! No crate of the workspace declares a dependency it never uses (the check `cargo machete`
//! makes, by hand, so that it runs without installing anything): each name under
//! `[dependencies]` and `[dev-dependencies]` must appear as a path (`name::`), in a `use`, or in
//! an attribute of the crate's Rust sources.

use super::support::repo_root;
use std::path::{Path, PathBuf};

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
    let root = repo_root();
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

/// A `rust-version` as numbers (`"1.89"` -> `[1, 89, 0]`).
fn version(text: &str) -> Vec<u64> {
    let mut v: Vec<u64> = text.split('.').map(|p| p.parse().unwrap_or(0)).collect();
    v.resize(3, 0);
    v
}

/// The locked graph's dependencies that declare a `rust-version`: `(name, version, Rust)`. The
/// workspace's own crates are left out: they carry the declaration being checked.
fn dependencies(metadata: &serde_json::Value) -> Vec<(String, String, String)> {
    let members = metadata["workspace_members"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let packages = metadata["packages"].as_array().cloned().unwrap_or_default();
    packages
        .iter()
        .filter(|p| !members.contains(&p["id"]))
        .filter_map(|p| {
            let field = |k: &str| p[k].as_str().map(str::to_owned);
            Some((field("name")?, field("version")?, field("rust_version")?))
        })
        .collect()
}

/// The dependencies whose `rust-version` is above `declared`.
fn above(metadata: &serde_json::Value, declared: &[u64]) -> Vec<String> {
    dependencies(metadata)
        .into_iter()
        .filter(|(_, _, needs)| version(needs).as_slice() > declared)
        .map(|(name, at, needs)| format!("{name} {at} needs Rust {needs}"))
        .collect()
}

/// The workspace's `rust-version` is the Rust the locked dependencies need, and the README's
/// quick start says it: `cargo install --locked` on an older toolchain stops at the first
/// dependency that needs more (proptest 1.12 needs 1.88, uuid 1.29 through quick-junit 1.89;
/// checked with `cargo +1.89 check --locked --workspace --all-targets`).
#[test]
fn the_declared_rust_version_is_what_the_locked_dependencies_need() {
    let root = repo_root();
    // This host's packages only: they are the ones the build fetched, and `--offline` holds
    // on a machine that never fetched the others (windows-sys, wasi, ...).
    let version_info = std::process::Command::new(env!("CARGO"))
        .arg("-vV")
        .output()
        .expect("cargo -vV runs");
    let version_info = String::from_utf8_lossy(&version_info.stdout).into_owned();
    let host = version_info
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("cargo -vV names the host");
    let out = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .args(["--filter-platform", host])
        .current_dir(&root)
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let declared = manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix("rust-version = "))
        .map(|v| v.trim_matches('"').to_owned())
        .expect("the workspace declares rust-version");
    let too_new = above(&metadata, &version(&declared));
    assert!(
        too_new.is_empty(),
        "the workspace declares Rust {declared}, but:\n{}",
        too_new.join("\n")
    );
    let needed = dependencies(&metadata)
        .iter()
        .map(|(_, _, needs)| version(needs))
        .max()
        .unwrap_or_default();
    assert_eq!(
        version(&declared),
        needed,
        "declare the oldest Rust the locked graph allows, not an older or newer one"
    );
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    assert!(
        readme.contains(&format!("You need Rust {declared} or newer")),
        "the README's quick start names another Rust than {declared}"
    );
}

#[test]
fn the_rust_version_check_sees_a_package_that_needs_more() {
    let metadata = serde_json::json!({"workspace_members": ["ours"], "packages": [
        {"id": "ours", "name": "ours", "version": "0.1.0", "rust_version": "1.99"},
        {"name": "a", "version": "1.0.0", "rust_version": "1.89"},
        {"name": "b", "version": "2.0.0", "rust_version": "1.85.1"},
        {"name": "c", "version": "3.0.0", "rust_version": null},
    ]});
    assert!(above(&metadata, &version("1.89")).is_empty());
    assert_eq!(
        above(&metadata, &version("1.85")),
        ["a 1.0.0 needs Rust 1.89", "b 2.0.0 needs Rust 1.85.1"]
    );
}
