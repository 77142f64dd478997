//! An incomplete run: checks skipped for a cause the user could have removed (credentials
//! not given, a deadline too short) and did not accept with `--allow-skip`. Such a run exits
//! [`crate::exit::INCOMPLETE`], never 0: a CI job whose secret is empty is not green.

use super::{Report, Status};
use crate::vocab::skip::SkipCause;
use std::collections::BTreeMap;

impl Report {
    /// The skips that leave this run incomplete, by cause and then by message (the message
    /// names the missing flag: "no API key: give --api-key"), with their counts. Empty on a dry
    /// run and when `--allow-skip` accepted every such cause.
    pub fn incomplete_skips(&self) -> BTreeMap<SkipCause, BTreeMap<String, u32>> {
        let mut out: BTreeMap<SkipCause, BTreeMap<String, u32>> = BTreeMap::new();
        if self.dry_run {
            return out;
        }
        for c in self.checks.iter().filter(|c| c.status == Status::Skipped) {
            let Some(cause) = c.skip_cause else { continue };
            if !cause.incomplete_by_default() || self.allowed_skips.contains(&cause) {
                continue;
            }
            let message = c.message.clone().unwrap_or_default();
            *out.entry(cause).or_default().entry(message).or_default() += 1;
        }
        out
    }

    /// Whether the run is incomplete ([`Report::incomplete_skips`] is not empty).
    pub fn incomplete(&self) -> bool {
        !self.incomplete_skips().is_empty()
    }

    /// The lines that explain an incomplete run: what was skipped, which flag each group
    /// lacks, and how to accept a partial run on purpose. `None` for a complete run.
    pub fn incomplete_note(&self) -> Option<String> {
        let skips = self.incomplete_skips();
        if skips.is_empty() {
            return None;
        }
        let total: u32 = skips.values().flat_map(|m| m.values()).sum();
        let one_cause = (skips.len() == 1)
            .then(|| skips.keys().next().map(|c| c.incomplete_why()))
            .flatten();
        let mut out = format!(
            "incomplete (exit {}, not 0): {total} check{} skipped{}:\n",
            crate::exit::INCOMPLETE,
            if total == 1 { "" } else { "s" },
            one_cause.map(|w| format!(" {w}")).unwrap_or_default(),
        );
        for (cause, by_message) in &skips {
            if one_cause.is_none() {
                out.push_str(&format!("  {}:\n", cause.incomplete_why()));
            }
            for (message, n) in by_message {
                out.push_str(&format!("  {n:>4} × {message}\n"));
            }
        }
        let causes: Vec<&str> = skips.keys().map(|c| c.as_str()).collect();
        out.push_str(&format!(
            "  give the flags named above, or accept a partial run on purpose with \
             --allow-skip {}\n",
            causes.join(",")
        ));
        Some(out)
    }
}
