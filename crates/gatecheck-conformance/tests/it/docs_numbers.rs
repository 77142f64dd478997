//! The numbers the docs give about a run come from a run: each is written between
//! `<!-- counts:NAME -->` and `<!-- /counts -->` in README.md or docs/*.md, and the test that
//! makes the run NAME names (`against_mock.rs`) compares them with its report. A change that
//! moves a count fails that test until the docs say the new one.
//!
//! Inside a marked span, every `<number> <word>` counts: `checks` (all the run's checks),
//! `passed`, `failed` or `failures`, `deviations` or `deviation`, `skipped`, `errors`.

use gatecheck_conformance::Report;
use std::path::{Path, PathBuf};

/// The run names the docs cite, with the command each stands for (for the messages).
pub(crate) const DOCUMENTED: &str = "documented";
pub(crate) const NEW_API: &str = "new-api";
pub(crate) const NEW_API_EXPECT_DOCUMENTED: &str = "new-api-expect-documented";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// README.md and every docs/*.md, with their text.
fn docs() -> Vec<(PathBuf, String)> {
    let root = repo_root();
    let mut files = vec![root.join("README.md")];
    let mut in_docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    in_docs.sort();
    files.extend(in_docs);
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("read doc");
            (p, text)
        })
        .collect()
}

/// Every marked span of run `name`: (file, the span's text).
pub(crate) fn spans(name: &str) -> Vec<(PathBuf, String)> {
    let open = format!("<!-- counts:{name} -->");
    let mut out = Vec::new();
    for (path, text) in docs() {
        let mut rest = text.as_str();
        while let Some(at) = rest.find(&open) {
            rest = &rest[at + open.len()..];
            let end = rest
                .find("<!-- /counts -->")
                .unwrap_or_else(|| panic!("{}: {open} without <!-- /counts -->", path.display()));
            out.push((path.clone(), rest[..end].to_owned()));
            rest = &rest[end..];
        }
    }
    out
}

/// The `(number, word)` pairs of a span.
fn numbers(span: &str) -> Vec<(u32, String)> {
    let words: Vec<&str> = span
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    words
        .windows(2)
        .filter_map(|w| Some((w[0].parse::<u32>().ok()?, w[1].to_owned())))
        .collect()
}

/// What `report` says for `word`, or `None` for a word that is not a count.
fn count(report: &Report, word: &str) -> Option<u32> {
    let s = &report.summary;
    Some(match word {
        "checks" => s.total,
        "passed" => s.passed,
        "failed" | "failures" | "failure" => s.failed,
        "deviations" | "deviation" => s.deviations,
        "skipped" => s.skipped,
        "errors" => s.errors,
        _ => return None,
    })
}

/// Fails unless every number the docs give for run `name` is `report`'s, and the docs give at
/// least one.
pub(crate) fn assert_docs_agree(name: &str, report: &Report) {
    let spans = spans(name);
    assert!(
        !spans.is_empty(),
        "no doc marks the counts of run {name} (<!-- counts:{name} -->)"
    );
    let mut wrong = Vec::new();
    for (path, span) in &spans {
        let pairs = numbers(span);
        assert!(
            !pairs.is_empty(),
            "{}: no count in {span:?}",
            path.display()
        );
        for (n, word) in pairs {
            match count(report, &word) {
                Some(real) if real != n => wrong.push(format!(
                    "{}: {n} {word}, the run of {name} gives {real} {word}",
                    path.display()
                )),
                Some(_) => {}
                None => panic!("{}: {n} {word:?} is not a count", path.display()),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the docs disagree with the run (update them):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn every_marked_span_names_a_run_a_test_keeps() {
    for (path, text) in docs() {
        for part in text.split("<!-- counts:").skip(1) {
            let name = part.split(" -->").next().unwrap_or("");
            assert!(
                [DOCUMENTED, NEW_API, NEW_API_EXPECT_DOCUMENTED].contains(&name),
                "{}: counts of {name:?}, a run no test makes",
                path.display()
            );
        }
    }
}

#[test]
fn numbers_are_read_with_their_words() {
    let pairs = numbers("129 checks: 121 passed, 7 failures and 1 deviation");
    let words: Vec<_> = pairs.iter().map(|(n, w)| format!("{n} {w}")).collect();
    assert_eq!(
        words,
        ["129 checks", "121 passed", "7 failures", "1 deviation"]
    );
}
