//! The classes of input a check claims to send (each boundary, each sub-path kind, each `n`
//! of an edit, ...): sent on every run, whatever the seed. A check that claims classes sends
//! one case of each first (its forced cases), and the property generation adds drawn cases on
//! top; [`CLAIMS`] names, for each such check, what it claims and the list of cases of its cases, the
//! forced ones and the drawn ones of a seed, as the check builds them. The list of cases is what the
//! check sends: its cases come from the same functions, so a test over many seeds (below) holds
//! every run to its claims without a target.

use super::image_edits::{self, EditModel};
use super::key;
use super::property::generate;
use super::v1;
use super::Halt;

/// What a list of cases is drawn for: the catalog and the probe's model, as a run learns them.
pub(crate) struct SendEnv {
    /// The image models that edit ([`image_edits`]).
    pub edit_models: Vec<EditModel>,
    /// The catalog's model ids.
    pub model_ids: Vec<String>,
    /// The model the key probes name (`auth::probe_model`).
    pub probe_model: String,
}

/// The classes of each case of a run, in the order sent.
type Sent = Result<Vec<Vec<String>>, Halt>;

/// One check's claims.
pub(crate) struct Claim {
    /// The check.
    pub check: &'static str,
    /// Every class the check claims to send on a run with this catalog.
    pub claimed: fn(&SendEnv) -> Vec<String>,
    /// The classes of each case the check sends on a run with this seed (the check's own,
    /// `CheckCtx::seed`) and `--cases`.
    pub sends: fn(&SendEnv, u64, u32) -> Sent,
}

/// Every check that claims classes.
pub(crate) const CLAIMS: &[Claim] = &[
    Claim {
        check: "images.edits.result",
        claimed: edits_claimed,
        sends: edits_sent,
    },
    Claim {
        check: "v1.unknown-subpath-404",
        claimed: |_| vec!["/<x>".to_owned(), "/content/<x>".to_owned()],
        sends: subpath_sent,
    },
    Claim {
        check: "key.model-limits",
        claimed: |_| {
            [
                "limits disabled",
                "limits enabled, empty",
                "limits enabled, model listed",
                "limits enabled, model not listed",
            ]
            .map(str::to_owned)
            .to_vec()
        },
        sends: limits_sent,
    },
];

fn edits_claimed(env: &SendEnv) -> Vec<String> {
    let mut out: Vec<String> = ["n=1", "n=2", "mask", "no mask", "image", "image[]"]
        .map(str::to_owned)
        .to_vec();
    for (_, _, output) in &env.edit_models {
        out.push(format!("output {output}"));
    }
    out.sort();
    out.dedup();
    out
}

fn edits_sent(env: &SendEnv, seed: u64, cases: u32) -> Sent {
    let models = &env.edit_models;
    let drawn = generate(&image_edits::cases(), seed, image_edits::drawn(cases))?;
    Ok(image_edits::forced(models.len())
        .iter()
        .chain(&drawn)
        .map(|c| image_edits::classes_of(c, models))
        .collect())
}

fn subpath_sent(_: &SendEnv, seed: u64, cases: u32) -> Sent {
    let drawn = generate(&v1::subpath_cases(), seed, v1::subpath_drawn(cases))?;
    Ok(v1::subpath_forced()
        .iter()
        .chain(&drawn)
        .map(v1::subpath_class)
        .collect())
}

fn limits_sent(env: &SendEnv, seed: u64, cases: u32) -> Sent {
    let model = &env.probe_model;
    let drawn = generate(&key::limits_cases(env.model_ids.clone()), seed, cases)?;
    Ok(key::limits_forced(model, &env.model_ids)
        .iter()
        .chain(&drawn)
        .map(|c| key::limits_class(c, model))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::models::known_capabilities;
    use gatecheck_schemas::rules::image_edit::edits_supported;
    use std::collections::BTreeSet;

    /// The list of cases environment of a run against the embedded mock: its catalog is the one the
    /// runner ships with.
    fn mock_env() -> SendEnv {
        let caps = known_capabilities();
        let edit_models = caps
            .iter()
            .filter(|(id, _)| edits_supported(id))
            .filter_map(|(id, c)| {
                let i = c.image.as_ref()?;
                Some((id.clone(), i.sizes.clone(), i.output.clone()))
            })
            .filter(|(_, sizes, _)| !sizes.is_empty())
            .collect();
        let probe_model = caps
            .iter()
            .find(|(_, c)| c.video.is_some())
            .map(|(id, _)| id.clone())
            .unwrap_or_default();
        SendEnv {
            edit_models,
            model_ids: caps.keys().cloned().collect(),
            probe_model,
        }
    }

    #[test]
    fn every_claimed_class_is_sent_on_every_seed() {
        let env = mock_env();
        assert!(
            env.edit_models.len() >= 2,
            "the mock has a b64 and a url edit model"
        );
        let ids: BTreeSet<&str> = crate::registry::registry().iter().map(|c| c.id).collect();
        for claim in CLAIMS {
            assert!(ids.contains(claim.check), "{} is not a check", claim.check);
            let claimed: BTreeSet<String> = (claim.claimed)(&env).into_iter().collect();
            assert!(claimed.len() >= 2, "{}: {claimed:?}", claim.check);
            // 64 seeds, at the cases of a CI run (4), the default (16) and the least (1); the
            // check's seed is the run's xor a hash of its id, so any u64 is one it may draw.
            for seed in (0..64u64).map(|s| s.wrapping_mul(0x9e37_79b9_7f4a_7c15)) {
                for cases in [1, 4, 16] {
                    let sent = (claim.sends)(&env, seed, cases).expect("the cases");
                    let sent: BTreeSet<String> = sent.into_iter().flatten().collect();
                    let missing: Vec<_> = claimed.difference(&sent).collect();
                    assert!(
                        missing.is_empty(),
                        "{} seed {seed} cases {cases}: {missing:?} not sent",
                        claim.check
                    );
                }
            }
        }
    }
}
