//! The run's report: JSON (valid against `schemas/report.schema.json`), JUnit XML, one
//! self-contained HTML page, a Markdown job summary, and the human summary table.

mod html;
mod human;
mod incomplete;
mod junit;
mod markdown;
mod repro_vars;

pub use crate::vocab::artifacts::{
    Artifacts, MediaSample, TaskTimeline, TimelinePoint, MAX_SAMPLES, MAX_SAMPLES_BYTES,
    MAX_SAMPLE_BYTES,
};
pub use crate::vocab::setup_error::SetupFailureKind;
pub use html::{diff_to_html, to_html};
pub use human::{progress_bar, summary_table, ProgressFn};
pub use junit::to_junit;
pub use markdown::{to_markdown, MAX_MARKDOWN_ROWS};
pub use repro_vars::{ReproVariable, WorkKeySource, UPLOADS_VAR};

use crate::evidence::{Evidence, Kind};
use crate::exit;
use crate::vocab::discovery::DiscoveryReport;
use crate::vocab::skip::SkipCause;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How one check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Every case held.
    Passed,
    /// A rule of the spec is broken.
    Failed,
    /// A choice of DECISIONS.md is not followed (fails only with `--strict`).
    Deviation,
    /// Not run (credentials, capabilities, budget, deadline, dry run).
    Skipped,
    /// Something else went wrong (connection lost...).
    Error,
}

impl Status {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Deviation => "deviation",
            Status::Skipped => "skipped",
            Status::Error => "error",
        }
    }
}

/// The result of one check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckResult {
    /// Stable check id.
    pub id: String,
    /// What it checks.
    pub title: String,
    /// Spec reference.
    pub spec: String,
    /// Failure or deviation: the verdict's kind (a check that may fail gets `deviation` when
    /// its finding is one of DECISIONS.md's choices, as its `status` says).
    pub kind: Kind,
    /// How it ended.
    pub status: Status,
    /// Generated cases run.
    pub cases: u32,
    /// Wall time.
    pub duration_ms: u64,
    /// Why it was skipped or errored, or a note.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Why it was skipped, from a fixed set (set exactly when `status` is `skipped`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip_cause: Option<SkipCause>,
    /// Evidence of a failure or deviation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
}

/// Counts by status.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Checks run or skipped.
    pub total: u32,
    /// Passed.
    pub passed: u32,
    /// Contract failures.
    pub failed: u32,
    /// Deviations.
    pub deviations: u32,
    /// Skipped.
    pub skipped: u32,
    /// Errored.
    pub errors: u32,
    /// The skips, counted by cause (they add up to `skipped`).
    pub skipped_by_cause: BTreeMap<SkipCause, u32>,
}

/// How the runner judged the target before its checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetKind {
    /// A gatecheck mock: its signature was seen, or `--target mock` was given.
    Mock,
    /// Anything else: no `/__mock/*` request is sent after the probe.
    Deployment,
    /// Not known: discovery did not get that far.
    Unknown,
}

/// The target failed before any check ran; the report says where and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetupFailure {
    /// What the runner was doing: `health probe`, `accounts`, `catalog`, `key setup`.
    pub stage: String,
    /// What kind of failure.
    pub kind: SetupFailureKind,
    /// What happened (redacted).
    pub message: String,
}

/// The report of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// The version of gatecheck that made it.
    pub gatecheck_version: String,
    /// The base URL checked.
    pub target: String,
    /// The mock's profile, when the target is a gatecheck mock.
    pub mock_profile: Option<String>,
    /// Whether the target was judged a mock (control API used) or a deployment.
    pub target_kind: TargetKind,
    /// The profile whose decided behaviour was expected (`--expect`).
    pub expect: String,
    /// The era of new-api's task layer judged by, and how it was told (`plugins (GET
    /// /api/status version v1.0.0-rc.34)`); absent when discovery did not get that far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub era: Option<String>,
    /// What the runner decided about the target, e.g. "no control API: virtual-clock checks
    /// skipped, real-time polling used".
    pub notes: Vec<String>,
    /// What discovery found: the routes served and the models' source (absent when
    /// discovery did not get that far, or in an offline dry run).
    pub discovery: Option<DiscoveryReport>,
    /// Set when discovery failed and no check ran.
    pub setup_failure: Option<SetupFailure>,
    /// The seed of every generator (pass it to `--seed` to replay).
    pub seed: u64,
    /// Cases per property.
    pub cases: u32,
    /// Whether deviations fail the run.
    pub strict: bool,
    /// Skip causes `--allow-skip` accepted: skips of a cause that would leave the run
    /// incomplete (`no-credentials`) do not, when listed here.
    pub allowed_skips: Vec<SkipCause>,
    /// The shard run, `k/n`.
    pub shard: Option<String>,
    /// Unix seconds at start.
    pub started_at: i64,
    /// Wall time of the run.
    pub duration_ms: u64,
    /// Requests sent (retries included).
    pub requests_sent: u64,
    /// Retries after 429/500/503.
    pub retries: u64,
    /// Most retries the run could make (a status that repeats is not retried at all).
    pub retry_budget: u64,
    /// Shrink steps taken, all failing properties together.
    pub shrink_steps: u32,
    /// Most shrink steps the run could take.
    pub shrink_budget: u32,
    /// Quota spent, estimated from catalog prices.
    pub quota_spent: i64,
    /// Ctrl-C stopped the run.
    pub interrupted: bool,
    /// The global deadline stopped the run.
    pub deadline_reached: bool,
    /// A dry run: `planned` lists the requests, nothing was sent to model routes.
    pub dry_run: bool,
    /// What happened to the working key at the end (restored, deleted...).
    pub key_cleanup: Option<String>,
    /// The run could not put the target's key back as it found it (a snapshot not restored, a
    /// scratch key not deleted, by the deadline or at all): the run is not green (exit 1).
    pub key_not_restored: bool,
    /// Counts by status.
    pub summary: Summary,
    /// One entry per selected check, by id.
    pub checks: Vec<CheckResult>,
    /// Dry run: the planned requests as curl commands (secrets redacted).
    pub planned: Vec<String>,
    /// The shell variables the repro lines name (`$GATECHECK_API_KEY`...), with where each
    /// value comes from: a repro runs as printed once they are exported.
    pub repro_variables: Vec<ReproVariable>,
    /// Dry run: the files the planned requests upload (not in the JSON report).
    #[serde(skip)]
    pub planned_uploads: Vec<crate::evidence::Upload>,
    /// Task timelines and media samples, for the HTML report (not in the JSON report).
    #[serde(skip)]
    pub artifacts: Artifacts,
}

impl Report {
    /// Recounts `summary` from `checks`.
    pub fn recount(&mut self) {
        let mut s = Summary::default();
        for c in &self.checks {
            s.total += 1;
            match c.status {
                Status::Passed => s.passed += 1,
                Status::Failed => s.failed += 1,
                Status::Deviation => s.deviations += 1,
                Status::Skipped => {
                    s.skipped += 1;
                    let cause = c.skip_cause.unwrap_or(SkipCause::NoCase);
                    *s.skipped_by_cause.entry(cause).or_default() += 1;
                }
                Status::Error => s.errors += 1,
            }
        }
        self.summary = s;
    }

    /// The exit code: [`exit::INTERRUPTED`] after Ctrl-C; [`exit::CONTRACT_FAILURES`] on
    /// failures, errors, a working key the run could not put back, or deviations with
    /// `--strict`; [`exit::INCOMPLETE`] when checks were skipped for want of credentials or
    /// cut by the deadline and `--allow-skip` did not accept it ([`Report::incomplete_note`]);
    /// [`exit::PASSED`] otherwise.
    ///
    /// A failed discovery gives [`exit::UNREACHABLE`] when the target could not be reached,
    /// [`exit::USAGE`] when the user's configuration cannot work, and
    /// [`exit::CONTRACT_FAILURES`] when the target misbehaved or the run stopped.
    pub fn exit_code(&self) -> u8 {
        let s = &self.summary;
        if let Some(f) = &self.setup_failure {
            return match f.kind {
                SetupFailureKind::Unreachable => exit::UNREACHABLE,
                SetupFailureKind::Config => exit::USAGE,
                SetupFailureKind::Misbehaved | SetupFailureKind::Stopped => exit::CONTRACT_FAILURES,
            };
        }
        if self.interrupted {
            exit::INTERRUPTED
        } else if s.failed > 0
            || s.errors > 0
            || (self.strict && s.deviations > 0)
            || self.key_not_restored
        {
            exit::CONTRACT_FAILURES
        } else if self.incomplete() {
            exit::INCOMPLETE
        } else {
            exit::PASSED
        }
    }

    /// The ids of checks with this status.
    pub fn ids_with(&self, status: Status) -> Vec<&str> {
        self.checks
            .iter()
            .filter(|c| c.status == status)
            .map(|c| c.id.as_str())
            .collect()
    }

    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        let json = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".into());
        // JSON escapes C0 but not DEL or C1 (U+009B is a CSI): the same value, escaped, so
        // that a report shown in a terminal or a CI log cannot drive it.
        crate::terminal::escape_lines(&json).into_owned()
    }
}
