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
pub(crate) mod report;
mod structural;

pub use known::{known_row, KnownDifference};
pub use render::{render_text, to_junit, Style};
pub use structural::{diff_values, Difference};

use crate::normalize::Normalizer;
use crate::redact::Redactor;
use crate::sequence::{NormalizedOutcome, Outcome, Sequence, SideRunner, Step};

pub use report::{DiffReport, StepDiff};

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
            targets: String::new(),
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
