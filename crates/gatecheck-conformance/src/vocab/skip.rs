//! Why a check was skipped: a fixed set of causes, each counted in the report.
//!
//! A skip is never a verdict on the contract. It says what the run lacked: a route the target
//! does not serve, credentials the user did not give, safety on a deployment, a budget. A
//! precondition the target acknowledged but did not apply is not a skip: it is a failure.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The cause of a skip.
///
/// ```
/// use gatecheck_conformance::SkipCause;
/// assert_eq!(SkipCause::RouteNotServed.as_str(), "route-not-served");
/// assert_eq!(SkipCause::RouteNotServed.to_string(), "route not served");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkipCause {
    /// The target does not serve a route the check needs (found by discovery).
    RouteNotServed,
    /// The user gave no credentials the check needs (`--api-key`, `--access-token`, a key).
    NoCredentials,
    /// The check would be unsafe or too costly on a deployment (a 26 MiB upload...).
    UnsafeOnDeployment,
    /// The check needs the mock's control API, and the target has not proven it is the mock.
    MockOnly,
    /// No model with known capabilities for the route (give `--model KIND=ID`).
    NoModel,
    /// Something the check judges was never observed (no task completed, no priced model).
    NotObserved,
    /// A request or quota budget ran out.
    BudgetSpent,
    /// The run's deadline passed.
    Deadline,
    /// Ctrl-C stopped the run.
    Interrupted,
    /// A dry run: nothing was sent.
    DryRun,
    /// The target failed during discovery, before any check ran.
    SetupFailed,
    /// The check ran no case: it did not pass.
    NoCase,
    /// The target is a strict replay of a recording (`gatecheck serve --replay DIR
    /// --replay-strict`) that holds no answer to a request the check sent.
    NotInRecording,
}

impl SkipCause {
    /// Every cause, in report order.
    pub const ALL: [SkipCause; 13] = [
        SkipCause::RouteNotServed,
        SkipCause::NoCredentials,
        SkipCause::UnsafeOnDeployment,
        SkipCause::MockOnly,
        SkipCause::NoModel,
        SkipCause::NotObserved,
        SkipCause::BudgetSpent,
        SkipCause::Deadline,
        SkipCause::Interrupted,
        SkipCause::DryRun,
        SkipCause::SetupFailed,
        SkipCause::NoCase,
        SkipCause::NotInRecording,
    ];

    /// Whether a skip of this cause leaves the run incomplete unless `--allow-skip` accepts it
    /// ([`crate::exit::INCOMPLETE`]): a skip for want of credentials the user could have given,
    /// or a check the deadline cut (a run that ran out of time did not check what was asked).
    /// The other causes are the target's (a route it does not serve), the run's safety rules,
    /// or budgets the user set.
    pub fn incomplete_by_default(self) -> bool {
        matches!(self, SkipCause::NoCredentials | SkipCause::Deadline)
    }

    /// Why a skip of a cause that leaves the run incomplete ([`Self::incomplete_by_default`])
    /// happened, in a few words: "for want of credentials".
    pub fn incomplete_why(self) -> &'static str {
        match self {
            SkipCause::Deadline => "cut by the run's deadline (give a longer --deadline)",
            _ => "for want of credentials",
        }
    }

    /// Parses a wire name (`no-credentials`), as `--allow-skip` takes it.
    pub fn parse(s: &str) -> Option<SkipCause> {
        SkipCause::ALL.into_iter().find(|c| c.as_str() == s.trim())
    }

    /// The wire name (the JSON report's `skip_cause`).
    pub fn as_str(self) -> &'static str {
        match self {
            SkipCause::RouteNotServed => "route-not-served",
            SkipCause::NoCredentials => "no-credentials",
            SkipCause::UnsafeOnDeployment => "unsafe-on-deployment",
            SkipCause::MockOnly => "mock-only",
            SkipCause::NoModel => "no-model",
            SkipCause::NotObserved => "not-observed",
            SkipCause::BudgetSpent => "budget-spent",
            SkipCause::Deadline => "deadline",
            SkipCause::Interrupted => "interrupted",
            SkipCause::DryRun => "dry-run",
            SkipCause::SetupFailed => "setup-failed",
            SkipCause::NoCase => "no-case",
            SkipCause::NotInRecording => "not-in-recording",
        }
    }
}

impl fmt::Display for SkipCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_str().replace('-', " "))
    }
}
