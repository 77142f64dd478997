//! Every DECISIONS row a check cites exists in `gatecheck_schemas::decisions`, the table that
//! docs/DECISIONS.md is generated from: a deviation never points at a row that is not there.

use gatecheck_conformance::internals::decision_id;
use gatecheck_conformance::{all_checks, Kind};
use gatecheck_schemas::decisions;

#[test]
fn every_deviation_check_cites_an_existing_decision_row() {
    let mut cited = 0;
    for check in all_checks() {
        let Some(id) = decision_id(check.id, check.spec) else {
            assert!(
                check.kind != Kind::Deviation,
                "deviation check {} cites no DECISIONS row",
                check.id
            );
            continue;
        };
        assert!(
            decisions::get(id).is_some(),
            "check {} cites {id}, which docs/DECISIONS.md does not have",
            check.id
        );
        cited += 1;
    }
    assert!(cited > 20, "only {cited} checks cite a row");
}

#[test]
fn the_ids_cited_in_check_bodies_exist() {
    // Checks that deviate with an explicit row id (`ctx.deviate("…", …)`, or
    // `ctx.known_difference("NA5", …)` for a new-api row), read from the source; a call whose
    // first argument is not a literal (the helpers themselves) is skipped.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/checks");
    let mut found = 0;
    // Every source file under src/checks, its folders (a family split into files) included.
    let mut files = Vec::new();
    let mut dirs = vec![dir];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).expect("src/checks") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    for path in files {
        let text = std::fs::read_to_string(&path).expect("read");
        for call in [".deviate(", ".known_difference("] {
            let mut rest = text.as_str();
            while let Some(at) = rest.find(call) {
                rest = &rest[at + call.len()..];
                let Some(tail) = rest.trim_start().strip_prefix('"') else {
                    continue;
                };
                let id = &tail[..tail.find('"').expect("closing quote")];
                assert!(
                    decisions::get(id).is_some(),
                    "{} deviates with {id}, which docs/DECISIONS.md does not have",
                    path.display()
                );
                found += 1;
            }
        }
    }
    assert!(found >= 2, "the explicit deviations were not found");
}
