//! docs/ARCHITECTURE.md matches the tree: every folder and top file of each crate's
//! `src/` is named in that crate's section of the page, and every path the page names exists,
//! the tree diagram's included.

use super::support::repo_root;
use std::path::Path;

/// The page.
fn page() -> String {
    std::fs::read_to_string(repo_root().join("docs/ARCHITECTURE.md")).expect("docs/ARCHITECTURE.md")
}

/// The section of `page` whose heading names `krate` (up to the next `## `).
fn section<'a>(page: &'a str, krate: &str) -> &'a str {
    let heading = format!("\n## `crates/{krate}`");
    let start = page
        .find(&heading)
        .unwrap_or_else(|| panic!("docs/ARCHITECTURE.md has no section {heading:?}"));
    let rest = &page[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    &rest[..end]
}

/// The crates of the workspace.
fn crates() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(repo_root().join("crates"))
        .expect("crates/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| repo_root().join("crates").join(name).join("src").is_dir())
        .collect();
    out.sort();
    out
}

#[test]
fn every_folder_and_top_file_of_each_crate_is_named_in_its_section() {
    let page = page();
    let mut missing = Vec::new();
    for krate in crates() {
        let text = section(&page, &krate);
        let src = repo_root().join("crates").join(&krate).join("src");
        for entry in std::fs::read_dir(&src).expect("src/") {
            let path = entry.expect("entry").path();
            let name = path
                .file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned();
            let named = if path.is_dir() {
                text.contains(&format!("{name}/"))
            } else if name.ends_with(".rs") {
                text.contains(&name)
            } else {
                true
            };
            if !named {
                missing.push(format!("crates/{krate}/src/{name}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md does not name these in their crate's section:\n  {}",
        missing.join("\n  ")
    );
}

/// The paths of `text` that start with `crates/`, without trailing punctuation.
fn crate_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("crates/") {
        let tail = &rest[at..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || "_-./{}".contains(c)))
            .unwrap_or(tail.len());
        let path = tail[..end].trim_end_matches(['.', ',', ':']);
        if !path.contains('{') && !path.contains('*') {
            out.push(path.to_owned());
        }
        rest = &tail[end..];
    }
    out
}

#[test]
fn every_path_the_page_names_exists() {
    let page = page();
    let mut problems: Vec<String> = crate_paths(&page)
        .into_iter()
        .filter(|p| !repo_root().join(p).exists())
        .collect();
    // The tree diagram: each `src/...` under a `crates/<name>` line.
    let tree_start = page.find("<!-- tree:").expect("the tree diagram");
    let tree = &page[tree_start..];
    let tree = &tree[..tree[4..].find("```\n\n").map_or(tree.len(), |i| i + 4)];
    let mut krate: Option<String> = None;
    for line in tree.lines() {
        for word in line.split_whitespace() {
            if let Some(name) = word.strip_prefix("crates/") {
                krate = Some(name.to_owned());
            } else if word.starts_with("src/") {
                let Some(k) = &krate else { continue };
                let path = Path::new("crates").join(k).join(word);
                if !repo_root().join(&path).exists() {
                    problems.push(format!("{} (in the tree diagram)", path.display()));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "docs/ARCHITECTURE.md names paths that do not exist:\n  {}",
        problems.join("\n  ")
    );
}
