//! A video platform is one description and one hooks file (docs/ARCHITECTURE.md
//! "Adding a video platform"): no code outside a platform's own files and the registry names
//! it. The test reads every `crates/*/src/**/*.rs` and the planted suites of the platforms,
//! and finds each string literal that is a registered platform's name (`"vidu"`), its channel
//! type (`"52"`) or its check id (`"task.platform.vidu"`); comments are not code and are left
//! out. Each hit must stand in one of the platform's own files, the registry's, or a file of
//! [`EXEMPT`] (with its reason); a listed exemption no longer needed fails too.

use super::source_text::string_literals;
use super::support::repo_root;
use gatecheck_schemas::rules::platforms::{all, Platform, CHECK_PREFIX};
use std::path::Path;

/// The registry's files (every platform's, by design).
const REGISTRY: &[&str] = &[
    "crates/gatecheck-schemas/src/rules/platforms/mod.rs",
    "crates/gatecheck-mock/src/tasks/platforms/mod.rs",
];

/// Files that may name a platform, and why.
const EXEMPT: &[(&str, &str)] = &[
    (
        "crates/gatecheck-mock/src/fixtures/seeds/embedded.rs",
        "the embedded catalog's seed (`fixtures/catalog.json`): a catalog model names its provider, the documented step `a catalog model`",
    ),
];

/// The suites outside `src` that must derive every platform from the registry too.
const SUITES: &[&str] = &[
    "crates/gatecheck-conformance/tests/it/planted_platforms.rs",
    "crates/gatecheck-conformance/tests/it/planted_veo.rs",
    "crates/gatecheck-conformance/tests/it/planted_native.rs",
    "crates/gatecheck-conformance/tests/it/mutation_proxy/native.rs",
];

/// The files a platform owns: its description and its hooks.
fn own_files(p: &Platform) -> [String; 2] {
    [
        format!("crates/gatecheck-schemas/src/rules/platforms/{}.rs", p.name),
        format!("crates/gatecheck-mock/src/tasks/platforms/{}.rs", p.name),
    ]
}

/// Every `.rs` file under `dir`, by its path from the root.
fn rust_files(dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let root = repo_root().canonicalize().expect("root");
            let full = path.canonicalize().expect("file");
            let rel = full.strip_prefix(&root).expect("under the root");
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The platform a literal names, if any.
fn named(literal: &str) -> Option<&'static Platform> {
    let check = literal.strip_prefix(CHECK_PREFIX);
    all()
        .iter()
        .copied()
        .find(|p| literal == p.name || literal == p.channel_type || check == Some(p.name))
}

#[test]
fn no_code_outside_a_platforms_files_names_it() {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(repo_root().join("crates")).expect("crates/") {
        rust_files(&entry.expect("entry").path().join("src"), &mut files);
    }
    files.extend(SUITES.iter().map(|s| (*s).to_owned()));
    let mut hits = Vec::new();
    let mut used = vec![false; EXEMPT.len()];
    for file in &files {
        let text = std::fs::read_to_string(repo_root().join(file)).expect(file);
        for (line, literal) in string_literals(&text) {
            let Some(p) = named(&literal) else { continue };
            if own_files(p).contains(file) || REGISTRY.contains(&file.as_str()) {
                continue;
            }
            if let Some(k) = EXEMPT.iter().position(|(f, _)| f == file) {
                used[k] = true;
                continue;
            }
            hits.push(format!("{file}:{line}: \"{literal}\" names {}", p.name));
        }
    }
    assert!(
        hits.is_empty(),
        "code outside a platform's own files names it (derive it from the registry, \
         `gatecheck_schemas::rules::platforms`):\n{}",
        hits.join("\n")
    );
    let stale: Vec<_> = EXEMPT
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|((f, _), _)| *f)
        .collect();
    assert!(stale.is_empty(), "exemptions no longer needed: {stale:?}");
}

#[test]
fn the_lexer_finds_literals_and_skips_comments() {
    let text = "// \"vidu\"\nlet a = \"52\"; /* \"35\" */ let b = 'x'; let c = \"a\\\"b\";";
    let found: Vec<_> = string_literals(text).into_iter().map(|(_, s)| s).collect();
    assert_eq!(found, ["52", "a\\\"b"]);
    let raw: Vec<_> = string_literals("let r = r#\"{\"m\": 1}\"#; let b = b\"52\";")
        .into_iter()
        .map(|(_, s)| s)
        .collect();
    assert_eq!(raw, ["{\"m\": 1}", "52"]);
    assert_eq!(named("52").map(|p| p.name), Some("vidu"));
    assert_eq!(named("task.platform.ali").map(|p| p.name), Some("ali"));
    assert!(named("D-PLAT-52").is_none());
}
