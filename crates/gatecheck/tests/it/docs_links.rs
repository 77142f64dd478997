//! Every relative link in README.md, docs/*.md and examples/README.md resolves: the file
//! exists and, for `#anchor`s into Markdown, a heading of the target has that anchor (GitHub's
//! rule: lower case; letters, digits, spaces, `-` and `_` kept; spaces become `-`).

use super::support::repo_root;
use std::path::PathBuf;

/// The text outside fenced code blocks and inline code spans.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
            } else if !in_code {
                out.push(c);
            }
        }
        out.push('\n');
    }
    out
}

/// The targets of `[text](target)` links.
fn links(text: &str) -> Vec<String> {
    let prose = prose(text);
    let mut out = Vec::new();
    let mut rest = prose.as_str();
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        match after.find(')') {
            Some(j) => {
                out.push(after[..j].trim().to_owned());
                rest = &after[j + 1..];
            }
            None => break,
        }
    }
    out
}

fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file's headings (code spans kept as text, as GitHub does).
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(slug(line.trim_start_matches('#')));
        }
    }
    out
}

fn pages() -> Vec<PathBuf> {
    let root = repo_root();
    let mut pages = vec![root.join("README.md"), root.join("examples/README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

#[test]
fn every_relative_link_in_the_docs_resolves() {
    let root = repo_root().canonicalize().expect("repo root");
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("read page");
        let dir = page.parent().expect("page dir").to_path_buf();
        for link in links(&text) {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, anchor) = match link.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (link.as_str(), None),
            };
            let target = if file.is_empty() {
                page.clone()
            } else {
                dir.join(file)
            };
            let shown = format!("{}: ({link})", page.display());
            let Ok(target) = target.canonicalize() else {
                broken.push(format!("{shown}: no such file"));
                continue;
            };
            if !target.starts_with(&root) {
                broken.push(format!("{shown}: outside the repository"));
                continue;
            }
            if let Some(anchor) = anchor {
                let is_md = target.extension().is_some_and(|x| x == "md");
                let text = std::fs::read_to_string(&target).unwrap_or_default();
                if !is_md || !anchors(&text).iter().any(|a| a == anchor) {
                    broken.push(format!("{shown}: no heading with anchor #{anchor}"));
                }
            }
        }
    }
    assert!(
        checked > 30,
        "only {checked} links found: is the parser broken?"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_checker_sees_broken_links_and_anchors() {
    let text = "See [a](x.md#one) and `[not](a link)`.\n```\n[no](code)\n```\n# One `two`\n";
    assert_eq!(links(text), vec!["x.md#one".to_owned()]);
    assert_eq!(anchors(text), vec!["one-two".to_owned()]);
    assert_eq!(slug(" Control API (`/__mock/*`)"), "control-api-__mock");
    assert_eq!(slug(" The mock's two profiles"), "the-mocks-two-profiles");
}
