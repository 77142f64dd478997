//! No names of the project's own issues or branches in code, tests, scripts or generated
//! output: a comment says what the code does, not which issue or worktree brought it (the
//! history holds that). Citations of upstream issues and pull requests are sources and stay:
//! a number of four digits or more (new-api's, as `PR #7076`) or one with its repository
//! (`owner/repo#N`).
//!
//! What counts as a reference (see [`references`]): the word issue followed by a number of at
//! most three digits, a `#` with such a number after a space or an opening bracket, an
//! identifier made of the word and a number, and, in comment text, a branch-shaped word
//! (lowercase letters and a two-digit session number).

use super::support::repo_root;
use std::path::Path;

/// The folders scanned, from the repository's root: code, tests, scripts, CI, the examples and
/// the golden snapshots (generated output).
const ROOTS: &[&str] = &[
    "crates",
    "scripts",
    ".ci",
    "python",
    "npm",
    "tests",
    "fuzz",
    "examples",
    "snapshots",
];

/// The generated documents scanned beside them (their generators' output).
const GENERATED: &[&str] = &["docs/DECISIONS.md", "docs/checks.md"];

/// Folders of build output and installed packages, never the project's own text.
const SKIPPED_DIRS: &[&str] = &["target", "node_modules", ".venv", "__pycache__", "dist"];

/// Whether `c` continues a word.
fn word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The length of the run of ASCII digits at the start of `s`.
fn digits(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_digit).count()
}

/// Whether a `#` followed by `rest` (the text after it) cites one of our issues: one to three
/// digits ending there, and not the index of a recorded exchange (`#2 POST /v1/videos`).
fn own_hash_number(rest: &str) -> bool {
    let n = digits(rest);
    let after = &rest[n..];
    let method = ["POST ", "GET ", "PUT ", "PATCH ", "DELETE ", "HEAD "]
        .iter()
        .any(|m| after.strip_prefix(' ').is_some_and(|a| a.starts_with(m)));
    (1..=3).contains(&n) && !after.starts_with(|c: char| word_char(c)) && !method
}

/// The comment text of `line` in a file of extension `ext` (all of it in Markdown).
fn comment_of<'a>(line: &'a str, ext: &str) -> Option<&'a str> {
    let marker = match ext {
        "md" => return Some(line),
        "rs" | "ts" | "js" | "mjs" | "cjs" => "//",
        _ => "#",
    };
    // Not the `//` of a URL (`http://host/path`).
    line.match_indices(marker)
        .find(|(i, _)| marker != "//" || !line[..*i].ends_with(':'))
        .map(|(i, _)| &line[i..])
}

/// Whether `word` is branch-shaped: lowercase letters, then a two-digit session number from
/// 37 on (the first such branch), then at most one letter; 64 (a bit width) is not one.
fn branch_shaped(word: &str) -> bool {
    let letters = word.bytes().take_while(u8::is_ascii_lowercase).count();
    let rest = &word[letters..];
    let n = digits(rest);
    let tail = &rest[n..];
    let number: u32 = rest[..n].parse().unwrap_or(0);
    letters >= 2
        && n == 2
        && (37..=99).contains(&number)
        && number != 64
        && tail.len() <= 1
        && tail.bytes().all(|b| b.is_ascii_lowercase())
}

/// The references to our own issues and branches in `line` of a file of extension `ext`.
fn references(line: &str, ext: &str) -> Vec<String> {
    let mut found = Vec::new();
    let lower = line.to_ascii_lowercase();
    for (i, _) in lower.match_indices("issue") {
        if i > 0 && lower[..i].ends_with(word_char) {
            continue;
        }
        let rest = &lower[i + "issue".len()..];
        let rest = rest.strip_prefix('s').unwrap_or(rest);
        let spaced = rest.trim_start_matches(' ').trim_start_matches('#');
        let n = digits(spaced);
        if (1..=3).contains(&n) && !spaced[n..].starts_with(|c: char| c.is_ascii_digit()) {
            found.push(line[i..].chars().take(12).collect());
        }
    }
    for (i, _) in line.match_indices('#') {
        let before = line[..i].chars().next_back();
        let opens = before.is_none_or(|c| c == ' ' || c == '(' || c == '[' || c == ',');
        if ext != "css" && opens && own_hash_number(&line[i + 1..]) {
            found.push(line[i..].chars().take(5).collect());
        }
    }
    if let Some(comment) = comment_of(line, ext) {
        for word in comment.split(|c: char| !word_char(c)) {
            if branch_shaped(word) {
                found.push(word.to_owned());
            }
        }
    }
    found
}

/// Every file under `dir`, by its path from the root, skipping build output.
fn files(dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        if path.is_dir() {
            if !name.is_some_and(|n| SKIPPED_DIRS.contains(&n.as_str())) {
                files(&path, out);
            }
        } else if let Ok(rel) = path.strip_prefix(repo_root()) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

#[test]
fn no_code_or_output_names_our_own_issues_or_branches() {
    let mut paths: Vec<String> = GENERATED.iter().map(|p| (*p).to_owned()).collect();
    for root in ROOTS {
        files(&repo_root().join(root), &mut paths);
    }
    assert!(paths.len() > 300, "the scan found {} files", paths.len());
    let mut hits = Vec::new();
    for path in &paths {
        // Binary files (images, media, archives) are no text to read.
        let Ok(text) = std::fs::read_to_string(repo_root().join(path)) else {
            continue;
        };
        let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
        for (n, line) in text.lines().enumerate() {
            for r in references(line, ext) {
                hits.push(format!("{path}:{}: {r:?} in: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "say what the code does, not which issue or branch brought it (the history keeps \
         that; upstream citations have four digits or their repository):\n{}",
        hits.join("\n")
    );
}

#[test]
fn the_scan_tells_our_references_from_upstream_citations() {
    let word = "issue";
    let ours = [
        format!("// the acceptance runs of {word} #{}", 11),
        format!("/// (Iss{} 46, section 8: a deadline)", "ue"),
        format!("// ({word}s 27, 28 and 30)"),
        format!("# --- #{}: browser tests", 29),
        format!("// the packages' stage (#{})", 40),
        format!("fn {word}37() {{}}"),
        format!("// a failure ({}50)", "verdicts"),
        format!("// seen in CI ({}51)", "ci"),
    ];
    for line in &ours {
        assert!(!references(line, "rs").is_empty(), "not found in {line:?}");
    }
    let upstream = [
        "/// new-api's task plugins (PR #7076 on, 2026-08-29)",
        "// (stoplightio/prism#1321, #2376): the PNG arrives broken",
        "//! run the Go adaptors (issue #6358, 2026-07-20)",
        "assert_eq!(err[\"closest\"], \"#2 POST /v1/videos\");",
        "let b = base64::encode(x); // base64 of an arm64 build, f64 and u32",
        "let (choose40, deploymentsecret42) = (1, 2);",
        "#[derive(Debug)]",
        "assert!(allowed(&url(\"http://[fe80::1]/x\")).is_err());",
    ];
    for line in upstream {
        assert!(
            references(line, "rs").is_empty(),
            "{line:?}: {:?}",
            references(line, "rs")
        );
    }
    assert!(references(".verdict{color:#000}", "css").is_empty());
}
