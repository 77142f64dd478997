//! Contract snapshots: the normalized responses of a fixed, seeded sequence, one insta `.snap`
//! file per step (named by the step's check id), plus a manifest (`gatecheck-snapshots.json`:
//! the seed and the step list).
//!
//! `record` writes them; `verify` runs the sequence again, compares each step with its file
//! (as JSON, so formatting does not matter), and on a mismatch writes `<id>.snap.new` beside the
//! file, so that `cargo insta review` can accept it, and reports the step and the JSON paths
//! that changed.

mod format;

pub use format::{SnapFile, SnapFormatError};

use crate::diff::{diff_values, render::unified, Difference, Style};
use crate::normalize::Normalizer;
use crate::redact::Redactor;
use crate::sequence::{NormalizedOutcome, Sequence, SideRunner};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The manifest's file name.
pub const MANIFEST: &str = "gatecheck-snapshots.json";
/// The `source` written into every snapshot.
pub const SOURCE: &str = "gatecheck snapshot record";

/// One step's normalized outcome, ready to snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// Position in the sequence.
    pub index: usize,
    /// The step's id (the file name).
    pub step: String,
    /// The check it exercises.
    pub check: String,
    /// `METHOD path`, or why nothing was sent.
    pub request: String,
    /// What the step shows.
    pub title: String,
    /// The normalized outcome.
    pub outcome: NormalizedOutcome,
    /// The transport error, when the request failed on the way.
    pub error: Option<String>,
}

impl Recorded {
    fn description(&self) -> String {
        // No step index here: inserting a step must not touch the other files.
        format!("{} ({}; check {})", self.request, self.title, self.check)
    }

    /// Redacts the known secrets of `redactor` in every form, in the request line, the error
    /// and every string of the normalized outcome, before the step is written or compared.
    ///
    /// ```
    /// use gatecheck_conformance::sequence::NormalizedOutcome;
    /// use gatecheck_conformance::snapshot::Recorded;
    /// use gatecheck_conformance::Redactor;
    /// let r = Redactor::new();
    /// r.add("sk-hunter2hunter2");
    /// let mut step = Recorded {
    ///     index: 0,
    ///     step: "s".into(),
    ///     check: "c".into(),
    ///     request: "GET /v1/x?key=sk-hunter2hunter2".into(),
    ///     title: "t".into(),
    ///     outcome: NormalizedOutcome::NotAnswered { not_answered: "hunter2hunter2".into() },
    ///     error: None,
    /// };
    /// step.redact(&r);
    /// assert_eq!(step.request, "GET /v1/x?key=<redacted>");
    /// assert_eq!(step.outcome, NormalizedOutcome::NotAnswered { not_answered: "<redacted>".into() });
    /// ```
    pub fn redact(&mut self, redactor: &Redactor) {
        self.request = redactor.text(&self.request);
        self.title = redactor.text(&self.title);
        self.error = self.error.as_deref().map(|e| redactor.text(e));
        let value = self.outcome.to_value();
        let redacted = redactor.json_strings(&value);
        if redacted != value {
            // A redacted outcome keeps its shape (only strings changed), so it reads back;
            // should it not, nothing of it is kept.
            self.outcome = serde_json::from_value(redacted).unwrap_or_else(|_| {
                NormalizedOutcome::NotAnswered {
                    not_answered: format!(
                        "{} (the response held a secret)",
                        crate::redact::REDACTED
                    ),
                }
            });
        }
    }

    fn content(&self) -> String {
        serde_json::to_string_pretty(&self.outcome.to_value()).unwrap_or_default()
    }
}

/// The manifest of a snapshot directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// The sequence's seed.
    pub seed: u64,
    /// The check ids, in order.
    pub steps: Vec<String>,
}

/// An I/O or format error.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// Reading or writing failed.
    #[error("{path}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A file is not a snapshot, or its content is not JSON.
    #[error("{path}: {reason}")]
    Format {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> SnapshotError + '_ {
    move |source| SnapshotError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Runs a sequence against one target and normalizes each step.
pub async fn run_sequence(
    sequence: &Sequence,
    runner: &mut SideRunner,
    normalizer: &Normalizer,
) -> Vec<Recorded> {
    let mut normalizer = normalizer.fresh();
    let mut out = Vec::with_capacity(sequence.steps.len());
    for (index, step) in sequence.steps.iter().enumerate() {
        let outcome = runner.run(step).await;
        let normalized = outcome.normalize(&mut normalizer);
        // The request line is normalized too (after the response, so ids keep their numbers).
        let request = match (outcome.request(), &normalized) {
            (Some(r), _) => normalizer.normalize_text(&r.summary()).join(" "),
            (None, NormalizedOutcome::NotAnswered { not_answered }) => not_answered.clone(),
            (None, _) => String::new(),
        };
        out.push(Recorded {
            index,
            step: step.id.clone(),
            check: step.check.clone(),
            request,
            title: step.title.clone(),
            error: outcome.error().map(str::to_owned),
            outcome: normalized,
        });
    }
    out
}

/// The path of a step's snapshot.
pub fn snap_path(dir: &Path, step: &str) -> PathBuf {
    dir.join(format!("{step}.snap"))
}

/// Reads a directory's manifest, if it has one.
pub fn read_manifest(dir: &Path) -> Result<Option<Manifest>, SnapshotError> {
    let path = dir.join(MANIFEST);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| SnapshotError::Format {
                path: path.display().to_string(),
                reason: e.to_string(),
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err(&path)(e)),
    }
}

/// Writes every step's snapshot and the manifest; removes stale `.snap.new` files of these
/// steps and `.snap` files of steps no longer in the sequence. Returns the files written.
pub fn record(dir: &Path, seed: u64, steps: &[Recorded]) -> Result<Vec<PathBuf>, SnapshotError> {
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let mut written = Vec::new();
    for step in steps {
        let path = snap_path(dir, &step.step);
        let snap = SnapFile::new(SOURCE, &step.description(), &step.step, step.content());
        std::fs::write(&path, snap.render()).map_err(io_err(&path))?;
        let _ = std::fs::remove_file(path.with_extension("snap.new"));
        written.push(path);
    }
    if let Some(old) = read_manifest(dir)? {
        for id in old.steps {
            if !steps.iter().any(|s| s.step == id) {
                let _ = std::fs::remove_file(snap_path(dir, &id));
            }
        }
    }
    let manifest = Manifest {
        seed,
        steps: steps.iter().map(|s| s.step.clone()).collect(),
    };
    let path = dir.join(MANIFEST);
    let text = serde_json::to_string_pretty(&manifest).unwrap_or_default() + "\n";
    std::fs::write(&path, text).map_err(io_err(&path))?;
    written.push(path);
    Ok(written)
}

/// What to do with a mismatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UpdateMode {
    /// Write `<id>.snap.new` beside the file (insta's default).
    #[default]
    New,
    /// Overwrite the `.snap` file (`INSTA_UPDATE=always`).
    Always,
    /// Write nothing (`INSTA_UPDATE=no`, and on CI).
    No,
}

impl UpdateMode {
    /// From `INSTA_UPDATE` (`always`, `new`, `no`, `auto`) and `CI`, as insta reads them.
    pub fn from_env() -> Self {
        match std::env::var("INSTA_UPDATE").as_deref() {
            Ok("always") | Ok("overwrite") => Self::Always,
            Ok("no") => Self::No,
            Ok("new") => Self::New,
            _ if std::env::var_os("CI").is_some() => Self::No,
            _ => Self::New,
        }
    }
}

/// One step whose response no longer matches its snapshot.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mismatch {
    /// The step.
    pub index: usize,
    /// Its id.
    pub step: String,
    /// The check it exercises.
    pub check: String,
    /// `METHOD path`.
    pub request: String,
    /// The snapshot file.
    pub file: PathBuf,
    /// Where the new response differs (left: snapshot, right: now). Empty when the snapshot
    /// file is missing.
    pub differences: Vec<Difference>,
    /// The snapshot's content (`None`: no snapshot yet).
    pub expected: Option<Value>,
    /// The new content.
    pub actual: Value,
    /// The `.snap.new` or updated file written, if any.
    pub written: Option<PathBuf>,
}

/// The result of `verify`.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct VerifyReport {
    /// Steps that match.
    pub matched: usize,
    /// Every step compared: (step id, check id), in order.
    pub steps: Vec<(String, String)>,
    /// Steps that do not (or have no snapshot).
    pub mismatches: Vec<Mismatch>,
    /// Snapshot files of steps no longer in the sequence.
    pub stale: Vec<PathBuf>,
}

impl VerifyReport {
    /// Whether every step matched.
    pub fn passed(&self) -> bool {
        self.mismatches.is_empty()
    }

    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The report as JUnit XML: one test case per step (classname: its check), a drifted step
    /// being a failure whose message lists the changed JSON paths.
    pub fn to_junit(&self) -> String {
        use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
        let mut suite = TestSuite::new("gatecheck snapshot verify");
        for (step, check) in &self.steps {
            let status = match self.mismatches.iter().find(|m| &m.step == step) {
                None => TestCaseStatus::success(),
                Some(m) => {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    let paths: Vec<&str> = m.differences.iter().map(|d| d.path.as_str()).collect();
                    s.set_message(if m.expected.is_none() {
                        "no snapshot recorded".to_owned()
                    } else {
                        format!("drifted at {}", paths.join(", "))
                    });
                    let described: Vec<String> =
                        m.differences.iter().map(|d| d.describe()).collect();
                    s.set_description(described.join("\n"));
                    s
                }
            };
            let mut case = TestCase::new(step.clone(), status);
            case.set_classname(check.clone());
            suite.add_test_case(case);
        }
        let mut junit = Report::new("gatecheck");
        junit.add_test_suite(suite);
        junit.to_string().unwrap_or_default()
    }

    /// A readable account: each mismatch with its step, JSON paths and a unified diff.
    pub fn render(&self, style: Style) -> String {
        let mut out = String::new();
        for m in &self.mismatches {
            let _ = writeln!(
                out,
                "✗ step {} {} ({}; check {}): {}",
                m.index,
                m.step,
                m.request,
                m.check,
                m.file.display()
            );
            match &m.expected {
                None => {
                    let _ = writeln!(out, "  no snapshot recorded for this step");
                }
                Some(expected) => {
                    for d in &m.differences {
                        let _ = writeln!(out, "  {}", crate::terminal::escape(&d.describe()));
                    }
                    for line in unified(expected, &m.actual, style).lines() {
                        let _ = writeln!(out, "    {line}");
                    }
                }
            }
            if let Some(w) = &m.written {
                let _ = writeln!(
                    out,
                    "  wrote {} (accept with `cargo insta review`, or re-record)",
                    w.display()
                );
            }
        }
        for s in &self.stale {
            let _ = writeln!(out, "! stale snapshot (no such step): {}", s.display());
        }
        let _ = writeln!(
            out,
            "{} steps match, {} differ",
            self.matched,
            self.mismatches.len()
        );
        out
    }
}

/// Compares each step with its snapshot in `dir`.
pub fn verify(
    dir: &Path,
    steps: &[Recorded],
    mode: UpdateMode,
) -> Result<VerifyReport, SnapshotError> {
    let mut report = VerifyReport::default();
    for step in steps {
        report.steps.push((step.step.clone(), step.check.clone()));
        let file = snap_path(dir, &step.step);
        let actual = step.outcome.to_value();
        let expected = match std::fs::read_to_string(&file) {
            Ok(text) => {
                let snap = SnapFile::parse(&text).map_err(|e| SnapshotError::Format {
                    path: file.display().to_string(),
                    reason: e.to_string(),
                })?;
                let value: Value =
                    serde_json::from_str(&snap.content).map_err(|e| SnapshotError::Format {
                        path: file.display().to_string(),
                        reason: format!("content is not JSON: {e}"),
                    })?;
                Some(value)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(io_err(&file)(e)),
        };
        let differences = match &expected {
            Some(v) => diff_values(v, &actual),
            None => Vec::new(),
        };
        if expected.is_some() && differences.is_empty() {
            report.matched += 1;
            let _ = std::fs::remove_file(file.with_extension("snap.new"));
            continue;
        }
        let snap = SnapFile::new(SOURCE, &step.description(), &step.step, step.content());
        let written = match mode {
            UpdateMode::No => None,
            UpdateMode::New => Some(file.with_extension("snap.new")),
            UpdateMode::Always => Some(file.clone()),
        };
        if let Some(path) = &written {
            std::fs::create_dir_all(dir).map_err(io_err(dir))?;
            std::fs::write(path, snap.render()).map_err(io_err(path))?;
        }
        report.mismatches.push(Mismatch {
            index: step.index,
            step: step.step.clone(),
            check: step.check.clone(),
            request: step.request.clone(),
            file,
            differences,
            expected,
            actual,
            written,
        });
    }
    if let Some(manifest) = read_manifest(dir)? {
        for id in manifest.steps {
            if !steps.iter().any(|s| s.step == id) {
                report.stale.push(snap_path(dir, &id));
            }
        }
    }
    Ok(report)
}
