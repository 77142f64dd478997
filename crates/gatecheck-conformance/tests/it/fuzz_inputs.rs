//! Replays the fuzz seeds and every input a fuzz run ever crashed on (`fuzz/seeds/<target>/`,
//! `fuzz/regressions/<target>/`) through the fuzz targets' own drivers (`fuzz/drivers.rs`),
//! so they stay regression tests under plain `cargo test` on stable.

#[path = "../../../../fuzz/drivers.rs"]
mod drivers;

use std::path::{Path, PathBuf};

fn inputs(kind: &str, target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz")
        .join(kind)
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_seed_and_regression_input_runs_clean() {
    let mut seeds = 0;
    for target in drivers::TARGETS {
        let seed_files = inputs("seeds", target);
        assert!(!seed_files.is_empty(), "no seeds for fuzz target {target}");
        seeds += seed_files.len();
        for file in seed_files.iter().chain(&inputs("regressions", target)) {
            let data = std::fs::read(file).expect("readable input");
            let outcome = std::panic::catch_unwind(|| drivers::run(target, &data));
            assert!(outcome.is_ok(), "{target} panicked on {}", file.display());
        }
    }
    assert!(seeds >= drivers::TARGETS.len());
}
