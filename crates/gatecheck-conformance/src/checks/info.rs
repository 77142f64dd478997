//! What a check is, as the check list shows it: its [`CheckInfo`].

use crate::evidence::Kind;
use crate::vocab::discovery::Needs;
use gatecheck_schemas::decisions::Id;
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
    /// The route families the target must serve for it to run (not in the printed list).
    #[serde(skip)]
    pub needs: Needs,
    /// Whether it runs only against the mock, and its skip elsewhere (not in the printed list).
    #[serde(skip)]
    pub mock_only: Option<super::MockOnly>,
    /// The DECISIONS row a deviation of it cites (not in the printed list).
    #[serde(skip)]
    pub decision: Option<Id>,
}
