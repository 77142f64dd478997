//! The catalog of checks: stable ids, what each checks, its spec reference and its kind.

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

/// The whole catalog, sorted by id.
pub fn catalog() -> Vec<CheckInfo> {
    let mut all: Vec<CheckInfo> = crate::checks::registry().iter().map(|d| d.info).collect();
    all.sort_by(|a, b| a.id.cmp(b.id));
    all
}

/// The catalog entry of `id`.
pub fn find(id: &str) -> Option<CheckInfo> {
    crate::checks::registry()
        .iter()
        .find(|d| d.info.id == id)
        .map(|d| d.info)
}

/// The catalog as a Markdown table (the content of `docs/checks.md`).
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| Check id | What it checks | Route | Spec reference | Kind |\n|---|---|---|---|---|\n",
    );
    for c in catalog() {
        out.push_str(&format!(
            "| `{}` | {} | `{}` | {} | {} |\n",
            c.id,
            c.title.replace('|', "\\|"),
            c.route,
            c.spec.replace('|', "\\|"),
            c.kind
        ));
    }
    out
}

/// The catalog as plain text, one check a line (`gatecheck check --list`).
pub fn text_list() -> String {
    let all = catalog();
    let width = all.iter().map(|c| c.id.len()).max().unwrap_or(0);
    let mut out = String::new();
    for c in all {
        out.push_str(&format!(
            "{:<width$}  {:<9}  {}\n",
            c.id,
            c.kind.as_str(),
            c.title
        ));
    }
    out
}
