//! Preconditions in lockstep: a step that needs a value an earlier step captures, or the effect
//! an earlier step had (a key disabled before a request with it), runs only when that earlier
//! step delivered on both sides; otherwise it is skipped on both, with the cause.

use crate::sequence::{EffectState, Outcome, Sequence, SideRunner, Step};
use std::collections::{HashMap, HashSet};

/// What the steps run so far delivered on each side.
#[derive(Debug, Default)]
pub(super) struct Ledger {
    /// How each step went on each side, in a few words (`answered 404`), by step id.
    went: HashMap<String, [String; 2]>,
    /// The effect of each step that later steps depend on (or that has an effect to check).
    effects: HashMap<String, [EffectState; 2]>,
    /// The ids of the steps some step of the sequence runs after.
    depended_on: HashSet<String>,
}

const SIDES: [&str; 2] = ["left", "right"];

/// How an outcome went, for people.
fn went(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Response { exchange, .. } => format!("it answered {}", exchange.status.as_u16()),
        Outcome::Skipped(reason) => format!("it was skipped: {reason}"),
        Outcome::Failed { .. } => "its request failed on the way".to_owned(),
    }
}

impl Ledger {
    /// A ledger for `sequence`.
    pub(super) fn new(sequence: &Sequence) -> Self {
        Self {
            depended_on: sequence
                .steps
                .iter()
                .flat_map(|s| s.after.iter().cloned())
                .collect(),
            ..Self::default()
        }
    }

    /// Why step `index` of `sequence` cannot run on both sides, or `None` when it can.
    pub(super) fn precondition_unmet(
        &self,
        sequence: &Sequence,
        index: usize,
        sides: [&SideRunner; 2],
    ) -> Option<String> {
        let step = &sequence.steps[index];
        for var in &step.needs {
            for (side, runner) in SIDES.iter().zip(sides) {
                if runner.vars().contains_key(var) {
                    continue;
                }
                let source = sequence.steps[..index]
                    .iter()
                    .rev()
                    .find(|s| s.captures.iter().any(|c| &c.var == var));
                return Some(match source {
                    Some(s) => format!(
                        "needs `{var}` from step {}, which did not capture it on the {side} side ({})",
                        s.id,
                        self.how_it_went(&s.id, side)
                    ),
                    None => format!("needs `{var}`, which no earlier step of this run captures"),
                });
            }
        }
        for id in &step.after {
            let Some(states) = self.effects.get(id) else {
                return Some(format!("runs after step {id}, which is not in this run"));
            };
            if let Some((side, state)) = SIDES.iter().zip(states).find(|(_, s)| !s.achieved()) {
                let what = sequence
                    .position(id)
                    .and_then(|i| sequence.steps[i].effect.as_ref())
                    .map(|e| format!(" (to {})", e.what))
                    .unwrap_or_default();
                return Some(format!(
                    "runs after step {id}{what}, which did not take effect on the {side} side: {}",
                    state.reason()
                ));
            }
        }
        None
    }

    fn how_it_went(&self, id: &str, side: &str) -> String {
        let i = usize::from(side == "right");
        self.went
            .get(id)
            .map(|w| w[i].clone())
            .unwrap_or_else(|| "it did not run".to_owned())
    }

    /// Records how `step` went on both sides and, when a later step depends on it or it has an
    /// effect to check, whether it took effect (sending the effect's read-backs). Returns the
    /// findings: each side that acknowledged the step's write and did not apply it.
    pub(super) async fn record(
        &mut self,
        step: &Step,
        outcomes: [&Outcome; 2],
        left: &mut SideRunner,
        right: &mut SideRunner,
    ) -> Vec<String> {
        self.went
            .insert(step.id.clone(), [went(outcomes[0]), went(outcomes[1])]);
        if step.effect.is_none() && !self.depended_on.contains(&step.id) {
            return Vec::new();
        }
        let (l, r) = tokio::join!(
            left.effect_of(step, outcomes[0]),
            right.effect_of(step, outcomes[1])
        );
        let findings = SIDES
            .iter()
            .zip([&l, &r])
            .filter_map(|(side, state)| match state {
                EffectState::NotApplied(why) => Some(format!("{side}: {why}")),
                _ => None,
            })
            .collect();
        self.effects.insert(step.id.clone(), [l, r]);
        findings
    }
}
