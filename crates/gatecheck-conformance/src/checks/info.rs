//! What a check is, as the check list shows it: its [`CheckInfo`].

use crate::evidence::Kind;
use serde::Serialize;

/// One row of the check list (`gatecheck check --list`, [`crate::all_checks`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CheckInfo {
    /// Stable id, e.g. `token.update.name-50-chars`.
    pub id: &'static str,
    /// What it checks, in one sentence.
    pub title: &'static str,
    /// Where the rule comes from: a section of the spec, or of DECISIONS.md.
    pub spec: &'static str,
    /// Failure or deviation.
    pub kind: Kind,
    /// The route family it exercises, e.g. `PUT /api/token/`.
    pub route: &'static str,
}
