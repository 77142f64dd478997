//! Differential runs: one seeded sequence against two targets in lockstep, each response
//! normalized, then diffed structurally (status, chosen headers, body).
//!
//! The report groups differences by the step's check id, labels each difference that a row of
//! docs/DECISIONS.md explains with the row id ([`known_row`]), and gives for each a reproduction: the seed,
//! the minimal list of steps (the step and the steps it takes values from) and a curl command
//! per side.

mod known;
pub mod render;
mod structural;

pub use known::{known_row, KnownDifference};
pub use render::{render_text, to_junit, Style};
pub use structural::{diff_values, Difference};

use crate::normalize::Normalizer;
use crate::redact::Redactor;
use crate::sequence::{NormalizedOutcome, Sequence, SideRunner};
use serde::Serialize;
use serde_json::Value;

/// One step of a differential run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepDiff {
    /// Position in the sequence, from 0.
    pub index: usize,
    /// The step's id (unique in the sequence).
    pub step: String,
    /// The check of the runner's catalog the step exercises: differences are grouped by it.
    pub check_id: String,
    /// What the step shows.
    pub title: String,
    /// `METHOD path` as sent to the left target (or why it was not sent).
    pub request: String,
    /// The left side, normalized.
    pub left: Value,
    /// The right side, normalized.
    pub right: Value,
    /// Where they differ; empty when equal.
    pub differences: Vec<Difference>,
    /// The DECISIONS rows its differences show, in order of first appearance (each
    /// difference carries its own row id in [`Difference::known`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub known: Vec<KnownDifference>,
    /// The steps that reproduce this one (indices), when it differs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub minimal_steps: Vec<usize>,
    /// The left request's transport error (redacted), when it failed on the way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_error: Option<String>,
    /// The right request's transport error (redacted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right_error: Option<String>,
    /// Whether replaying `minimal_steps` alone on reset targets showed the same differing
    /// paths (`None`: not tried; see [`DiffRun::confirm`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repro_confirmed: Option<bool>,
    /// curl for the left side (secrets as shell variables or redacted), when it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curl_left: Option<String>,
    /// curl for the right side, when it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curl_right: Option<String>,
}

impl StepDiff {
    /// Whether the two sides differ.
    pub fn differs(&self) -> bool {
        !self.differences.is_empty()
    }
}

/// The result of a differential run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffReport {
    /// The sequence's seed.
    pub seed: u64,
    /// The left target (a URL, or `mock (<profile>)`).
    pub left: String,
    /// The right target.
    pub right: String,
    /// Every step, equal or not.
    pub steps: Vec<StepDiff>,
}

impl DiffReport {
    /// The steps that differ.
    pub fn differing(&self) -> impl Iterator<Item = &StepDiff> {
        self.steps.iter().filter(|s| s.differs())
    }

    /// Whether no step differs.
    pub fn is_empty(&self) -> bool {
        self.differing().next().is_none()
    }

    /// The rows of DECISIONS.md's profile table that some differing step shows.
    pub fn known_rows(&self) -> Vec<KnownDifference> {
        let mut rows: Vec<KnownDifference> = Vec::new();
        for &k in self.differing().flat_map(|s| &s.known) {
            if !rows.contains(&k) {
                rows.push(k);
            }
        }
        rows
    }

    /// The ids of differing steps with a difference no DECISIONS row explains.
    pub fn unexplained(&self) -> Vec<&str> {
        self.differing()
            .filter(|s| s.differences.iter().any(|d| d.known.is_none()))
            .map(|s| s.step.as_str())
            .collect()
    }

    /// The differing steps grouped by check id, in the order checks first appear.
    pub fn groups(&self) -> Vec<(&str, Vec<&StepDiff>)> {
        let mut groups: Vec<(&str, Vec<&StepDiff>)> = Vec::new();
        for step in self.differing() {
            match groups.iter_mut().find(|(c, _)| *c == step.check_id) {
                Some((_, steps)) => steps.push(step),
                None => groups.push((step.check_id.as_str(), vec![step])),
            }
        }
        groups
    }

    /// Whether some request failed on the way (the comparison is incomplete).
    pub fn has_errors(&self) -> bool {
        self.steps
            .iter()
            .any(|s| s.left_error.is_some() || s.right_error.is_some())
    }

    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// Two sides and how to compare them.
#[derive(Debug)]
pub struct DiffRun<'a> {
    /// The sequence, run in full (or the subset kept by `--only`).
    pub sequence: &'a Sequence,
    /// Left label.
    pub left_label: String,
    /// Right label.
    pub right_label: String,
    /// The normalization rules (each side gets its own copy, so ids number independently).
    pub normalizer: &'a Normalizer,
    /// Redacts secrets in the curl commands.
    pub redactor: &'a Redactor,
}

impl DiffRun<'_> {
    /// Runs the sequence against both sides in lockstep and diffs each step.
    pub async fn run(&self, left: &mut SideRunner, right: &mut SideRunner) -> DiffReport {
        for t in [left.target(), right.target()] {
            for secret in [&t.api_key, &t.access_token].into_iter().flatten() {
                self.redactor.add_secret(secret);
            }
        }
        let mut left_norm = self.normalizer.fresh();
        let mut right_norm = self.normalizer.fresh();
        let mut steps = Vec::with_capacity(self.sequence.steps.len());
        for (index, step) in self.sequence.steps.iter().enumerate() {
            let (lo, ro) = tokio::join!(left.run(step), right.run(step));
            let ln = lo.normalize(&mut left_norm);
            let rn = ro.normalize(&mut right_norm);
            let (lv, rv) = (ln.to_value(), rn.to_value());
            let mut differences = diff_values(&lv, &rv);
            let mut known: Vec<KnownDifference> = Vec::new();
            for d in &mut differences {
                let Some(row) = known_row(&step.id, d).and_then(KnownDifference::row) else {
                    continue;
                };
                d.known = Some(row.id.to_owned());
                if !known.contains(&row) {
                    known.push(row);
                }
            }
            let differs = !differences.is_empty();
            let request = lo
                .request()
                .or(ro.request())
                .map(|r| r.summary())
                .unwrap_or_else(|| match &ln {
                    NormalizedOutcome::NotAnswered { not_answered } => not_answered.clone(),
                    NormalizedOutcome::Response(_) => String::new(),
                });
            steps.push(StepDiff {
                index,
                step: step.id.clone(),
                check_id: step.check.clone(),
                title: step.title.clone(),
                repro_confirmed: None,
                left_error: lo.error().map(|e| self.redactor.text(e)),
                right_error: ro.error().map(|e| self.redactor.text(e)),
                request,
                left: lv,
                right: rv,
                known,
                minimal_steps: if differs {
                    self.sequence.minimal_for(index)
                } else {
                    Vec::new()
                },
                curl_left: differs
                    .then(|| {
                        lo.request()
                            .map(|r| r.to_curl(left.target(), self.redactor))
                    })
                    .flatten(),
                curl_right: differs
                    .then(|| {
                        ro.request()
                            .map(|r| r.to_curl(right.target(), self.redactor))
                    })
                    .flatten(),
                differences,
            });
        }
        DiffReport {
            seed: self.sequence.seed,
            left: self.left_label.clone(),
            right: self.right_label.clone(),
            steps,
        }
    }

    /// Confirms each difference's reproduction: resets both targets through the mock control
    /// API, replays the step's minimal steps alone and records whether the same paths differ.
    /// Returns false, confirming nothing more, as soon as a side cannot be reset (no control
    /// API). Leaves both targets reset.
    pub async fn confirm(
        &self,
        report: &mut DiffReport,
        left: &mut SideRunner,
        right: &mut SideRunner,
    ) -> bool {
        let differing: Vec<usize> = report
            .steps
            .iter()
            .filter(|s| s.differs())
            .map(|s| s.index)
            .collect();
        for index in differing {
            if !(left.reset().await && right.reset().await) {
                return false;
            }
            let minimal = self.sequence.minimal_for(index);
            let mut sub = self.sequence.clone();
            sub.retain_indices(&minimal);
            let replay = DiffRun {
                sequence: &sub,
                left_label: self.left_label.clone(),
                right_label: self.right_label.clone(),
                normalizer: self.normalizer,
                redactor: self.redactor,
            }
            .run(left, right)
            .await;
            let paths = |s: &StepDiff| -> Vec<String> {
                s.differences.iter().map(|d| d.path.clone()).collect()
            };
            if let Some(step) = report.steps.iter_mut().find(|s| s.index == index) {
                let confirmed = replay
                    .steps
                    .last()
                    .is_some_and(|last| last.step == step.step && paths(last) == paths(step));
                step.repro_confirmed = Some(confirmed);
            }
        }
        left.reset().await && right.reset().await
    }
}
