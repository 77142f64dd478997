//! Every DECISIONS row a check cites, and every one prose names, exists in
//! `gatecheck_schemas::decisions`, the table docs/DECISIONS.md is generated from.

use gatecheck_conformance::{all_checks, Kind};
use gatecheck_schemas::decisions;

#[test]
fn every_deviation_check_cites_a_decision() {
    // The decision is a typed id (`decisions::id::D_VIDEO`): one the table lacks does not
    // compile. What types do not say: a deviation check names one, a failure check none.
    let mut cited = 0;
    for check in all_checks() {
        match check.kind {
            Kind::Deviation => {
                let d = check.decision.unwrap_or_else(|| {
                    panic!("deviation check {} cites no DECISIONS row", check.id)
                });
                assert!(decisions::get(d.as_str()).is_some(), "{}", check.id);
                cited += 1;
            }
            Kind::Failure => assert!(
                check.decision.is_none(),
                "failure check {} names a decision its verdicts never cite",
                check.id
            ),
        }
    }
    assert!(cited > 20, "only {cited} checks cite a row");
}

#[test]
fn every_decision_named_in_prose_exists() {
    // Code cites a decision by its typed id (`decisions::id::D_PLAT_4`): one the files lack
    // does not compile. Prose (comments, doc comments, messages, the docs, the rows
    // themselves) names rows as text; each `D-<SECTION>[-n]` and `NA<n>` it names is a row
    // or a section of the table.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    let mut dirs = vec![root.join("crates"), root.join("docs")];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).expect("dir") {
            let path = entry.expect("entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() && name != "target" && name != "snapshots" {
                dirs.push(path);
            } else if [".rs", ".md", ".toml"].iter().any(|e| name.ends_with(e)) {
                files.push(path);
            }
        }
    }
    files.push(root.join("README.md"));
    let (mut named, mut unknown) = (0, Vec::new());
    for path in &files {
        let text = std::fs::read_to_string(path).expect("read");
        for word in decision_words(&text) {
            named += 1;
            if decisions::Id::parse(word).is_none() && !FICTIONAL.contains(&word) {
                unknown.push(format!("{}: {word}", path.display()));
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "prose names decisions the table lacks:\n{}",
        unknown.join("\n")
    );
    assert!(named > 500, "only {named} mentions found");
}

/// Ids that prose names though no row has them: tests of unknown ids, and `D-PRICE-1`, the old
/// name of D-CATALOG-2 in the pricing and status schemas' descriptions (docs/schemas.md quotes
/// them): renaming it changes the OpenAPI document, which the table's move leaves as is.
const FICTIONAL: &[&str] = &["D-NOPE", "D-PLAT-52", "NA99", "D-ERRORS", "D-PRICE-1"];

/// Every word of `text` shaped like a decision id: `D-` and capitals, then an optional `-n`;
/// `NA` and digits.
fn decision_words(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let boundary = |i: usize| i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let end = if b[i..].starts_with(b"D-") && boundary(i) {
            let mut j = i + 2;
            while j < b.len() && b[j].is_ascii_uppercase() {
                j += 1;
            }
            if j == i + 2 {
                i += 1;
                continue;
            }
            if j + 1 < b.len() && b[j] == b'-' && b[j + 1].is_ascii_digit() {
                j += 1;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
            }
            j
        } else if b[i..].starts_with(b"NA")
            && boundary(i)
            && b.get(i + 2).is_some_and(u8::is_ascii_digit)
        {
            let mut j = i + 2;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            j
        } else {
            i += 1;
            continue;
        };
        // A word that goes on (`D-VIDEOx`, `NA5b`) is not an id.
        if b.get(end)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            i = end;
            continue;
        }
        out.push(&text[start..end]);
        i = end;
    }
    out
}
