//! Differential runs: one seeded sequence against two targets in lockstep, each response
//! normalized, then diffed structurally (status, chosen headers, body).
//!
//! The report groups differences by the step's check id, labels each difference that a row of
//! docs/DECISIONS.md explains with the row id ([`known_row`]), and gives for each a reproduction: the seed,
//! the minimal list of steps (the step and the steps it takes values from) and a curl command
//! per side.

mod known;
mod lockstep;
pub mod render;
mod structural;

pub use known::{known_row, KnownDifference};
pub use render::{render_text, to_junit, Style};
pub use structural::{diff_values, Difference};

use crate::normalize::Normalizer;
use crate::redact::Redactor;
use crate::sequence::{NormalizedOutcome, Outcome, Sequence, SideRunner, Step};
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
    /// Why the step was skipped on both sides: an earlier step it depends on did not deliver
    /// (did not capture a value it needs, or did not take the effect it runs after).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Findings on the step itself, one per side (`right: acknowledged (HTTP 200) but not
    /// applied: the read-back GET /api/token/1 shows /data/status = 1, expected 2`): the side
    /// acknowledged the step's write and the read-back shows it was not applied.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_applied: Vec<String>,
}

impl StepDiff {
    /// Whether the step is reported: the two sides differ, or a side acknowledged a write it
    /// did not apply.
    pub fn differs(&self) -> bool {
        !self.differences.is_empty() || !self.not_applied.is_empty()
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
    /// What each side was taken for (the mock or not) and how that was learnt.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
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

    /// The steps skipped on both sides because a precondition was not met.
    pub fn skipped(&self) -> impl Iterator<Item = &StepDiff> {
        self.steps.iter().filter(|s| s.skipped.is_some())
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

    /// The report as pretty JSON with every secret `redactor` knows redacted: in each string
    /// before it is escaped, and in the text written.
    pub fn to_json_redacted(&self, redactor: &Redactor) -> String {
        let value = serde_json::to_value(self).unwrap_or(Value::Null);
        redactor
            .text(&serde_json::to_string_pretty(&redactor.json_strings(&value)).unwrap_or_default())
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

/// The cause of a step that one side skipped (missing credentials...), said for people.
fn one_sided_skip(left: &Outcome, right: &Outcome) -> Option<String> {
    match (left, right) {
        (Outcome::Skipped(reason), _) => Some(format!("skipped on the left side: {reason}")),
        (_, Outcome::Skipped(reason)) => Some(format!("skipped on the right side: {reason}")),
        _ => None,
    }
}

impl DiffRun<'_> {
    /// Runs the sequence against both sides in lockstep and diffs each step. A step whose
    /// precondition an earlier step did not deliver on either side is skipped on both.
    pub async fn run(&self, left: &mut SideRunner, right: &mut SideRunner) -> DiffReport {
        for t in [left.target(), right.target()] {
            for secret in [&t.api_key, &t.access_token].into_iter().flatten() {
                self.redactor.add_secret(secret);
            }
        }
        let mut norms = [self.normalizer.fresh(), self.normalizer.fresh()];
        let mut ledger = lockstep::Ledger::new(self.sequence);
        let mut steps = Vec::with_capacity(self.sequence.steps.len());
        for (index, step) in self.sequence.steps.iter().enumerate() {
            let unmet = ledger.precondition_unmet(self.sequence, index, [&*left, &*right]);
            let (lo, ro) = match &unmet {
                Some(cause) => (
                    Outcome::Skipped(cause.clone()),
                    Outcome::Skipped(cause.clone()),
                ),
                None => tokio::join!(left.run(step), right.run(step)),
            };
            let not_applied = ledger.record(step, [&lo, &ro], left, right).await;
            let mut diff = self.step_diff(index, step, [&lo, &ro], &mut norms, [left, right]);
            diff.skipped = unmet.or_else(|| one_sided_skip(&lo, &ro));
            if diff.skipped.is_some() {
                // A step one side could not send is not compared: its absence is no answer.
                diff.differences.clear();
                diff.known.clear();
                diff.minimal_steps.clear();
                diff.curl_left = None;
                diff.curl_right = None;
            }
            if !not_applied.is_empty() && diff.minimal_steps.is_empty() {
                diff.minimal_steps = self.sequence.minimal_for(index);
            }
            diff.not_applied = not_applied;
            steps.push(diff);
        }
        DiffReport {
            seed: self.sequence.seed,
            left: self.left_label.clone(),
            right: self.right_label.clone(),
            notes: Vec::new(),
            steps,
        }
    }

    /// Normalizes and diffs one step's two outcomes.
    fn step_diff(
        &self,
        index: usize,
        step: &Step,
        outcomes: [&Outcome; 2],
        norms: &mut [Normalizer; 2],
        sides: [&SideRunner; 2],
    ) -> StepDiff {
        let [lo, ro] = outcomes;
        let ln = lo.normalize(&mut norms[0]);
        let rn = ro.normalize(&mut norms[1]);
        let (lv, rv) = (ln.to_value(), rn.to_value());
        let mut differences = diff_values(&lv, &rv);
        let known = known::label(&step.id, &mut differences);
        let differs = !differences.is_empty();
        let request = lo
            .request()
            .or(ro.request())
            .map(|r| r.summary())
            .unwrap_or_else(|| match &ln {
                NormalizedOutcome::NotAnswered { not_answered } => not_answered.clone(),
                NormalizedOutcome::Response(_) => String::new(),
            });
        let curl = |o: &Outcome, side: &SideRunner| {
            o.request().map(|r| r.to_curl(side.target(), self.redactor))
        };
        StepDiff {
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
            curl_left: differs.then(|| curl(lo, sides[0])).flatten(),
            curl_right: differs.then(|| curl(ro, sides[1])).flatten(),
            differences,
            skipped: None,
            not_applied: Vec::new(),
        }
    }

    /// Confirms each difference's reproduction: resets both targets through the mock control
    /// API, replays the step's minimal steps alone and records whether the same paths differ.
    /// Leaves both targets reset.
    ///
    /// Refuses, sending nothing, when a side is not proven the mock
    /// ([`SideRunner::mock_control`]); stops, confirming nothing more, when a reset is
    /// refused. The error says which side and why, for people.
    pub async fn confirm(
        &self,
        report: &mut DiffReport,
        left: &mut SideRunner,
        right: &mut SideRunner,
    ) -> Result<(), String> {
        for (side, runner) in [("left", &*left), ("right", &*right)] {
            if !runner.mock_control() {
                return Err(format!(
                    "--confirm resets both targets through the mock control API, and the {side} \
                     target is not proven a gatecheck mock: nothing was reset"
                ));
            }
        }
        let differing: Vec<usize> = report.differing().map(|s| s.index).collect();
        for index in differing {
            reset_both(left, right).await?;
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
                let confirmed = replay.steps.last().is_some_and(|last| {
                    last.step == step.step
                        && paths(last) == paths(step)
                        && last.not_applied.len() == step.not_applied.len()
                });
                step.repro_confirmed = Some(confirmed);
            }
        }
        reset_both(left, right).await
    }
}

/// Resets both sides through the mock control API; the error names the side that refused.
async fn reset_both(left: &mut SideRunner, right: &mut SideRunner) -> Result<(), String> {
    for (side, runner) in [("left", left), ("right", right)] {
        if !runner.reset().await {
            return Err(format!(
                "the {side} target refused POST /__mock/reset: the remaining differences are not confirmed"
            ));
        }
    }
    Ok(())
}
