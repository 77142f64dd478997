//! What a check is, as the catalog lists it: its [`CheckInfo`] and its [`Kind`].

use serde::{Deserialize, Serialize};
use std::fmt;

/// Whether breaking a check breaks the spec's letter or only a choice of DECISIONS.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The spec states the rule: breaking it is a contract failure.
    Failure,
    /// DECISIONS.md fixes the behaviour where the spec is silent: breaking it is a deviation,
    /// reported, and failing the run only with `--strict`.
    Deviation,
}

impl Kind {
    /// `failure` or `deviation`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Failure => "failure",
            Kind::Deviation => "deviation",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One entry of the catalog.
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
