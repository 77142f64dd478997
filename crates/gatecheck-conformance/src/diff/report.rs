//! The result of a differential run, step by step: the types the text, JUnit and HTML
//! renderers read (a leaf: nothing here reaches the runner or the checks).

use super::known::KnownDifference;
use super::structural::Difference;
use crate::redact::Redactor;
use serde::Serialize;
use serde_json::Value;

/// Reads one side of a step: its normalized answer and its transport error.
type SideOf = fn(&StepDiff) -> (&Value, &Option<String>);

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
    /// paths (`None`: not tried; see [`DiffRun::confirm`](super::DiffRun::confirm)).
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
    /// The `gatecheck diff` flags that name both targets (secrets as environment variables):
    /// the repro lines start with them, so each runs alone. Empty when not known.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub targets: String,
}

impl DiffReport {
    /// The command that replays `steps` of this run (all of it when empty).
    pub fn repro_command(&self, steps: &[usize]) -> String {
        let mut cmd = String::from("gatecheck diff");
        if !self.targets.is_empty() {
            cmd.push(' ');
            cmd.push_str(&self.targets);
        }
        cmd.push_str(&format!(" --seed {}", self.seed));
        if !steps.is_empty() {
            let list: Vec<String> = steps.iter().map(usize::to_string).collect();
            cmd.push_str(&format!(" --only {}", list.join(",")));
        }
        cmd
    }
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

    /// A side none of whose requests got an answer, with the first transport error: the
    /// target could not be reached (`("right", label, error)`).
    pub fn unreachable_side(&self) -> Option<(&'static str, &str, &str)> {
        let left = self.side_unreached(|s| (&s.left, &s.left_error));
        let right = self.side_unreached(|s| (&s.right, &s.right_error));
        left.map(|e| ("left", self.left.as_str(), e))
            .or(right.map(|e| ("right", self.right.as_str(), e)))
    }

    /// The first transport error of a side (read by `side`) none of whose requests got an
    /// answer.
    fn side_unreached(&self, side: SideOf) -> Option<&str> {
        let answered = self.steps.iter().any(|s| side(s).0.get("status").is_some());
        let first = self.steps.iter().find_map(|s| side(s).1.as_deref())?;
        (!answered).then_some(first)
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
