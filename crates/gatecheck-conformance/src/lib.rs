//! Contract checks against any deployment of the new-api model gateway: property-generated
//! requests, each answer judged by the spec's rules (`gatecheck-schemas::rules`), and a report
//! that says which rule broke, with the request as curl and the answer.
//!
//! # A first run
//!
//! Point a [`Runner`] at a target with a [`RunnerConfig`]. Here the target is the crate's own
//! mock, started in-process; a real deployment takes its base URL and credentials instead
//! (on [`RunnerConfig::target`]: [`Target::api_key`], [`Target::access_token`]...).
//!
//! ```
//! use gatecheck_conformance::{Runner, RunnerConfig, Status};
//! use gatecheck_mock::MockServer;
//!
//! # #[tokio::main(flavor = "multi_thread", worker_threads = 2)]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server = MockServer::start().await;
//! let mut config = RunnerConfig::new(server.uri().parse()?);
//! config.scope.only = vec!["catalog.*".into()];
//! config.scope.cases = 4;
//! let report = Runner::new(config).run().await?;
//! assert!(report.checks.iter().all(|r| r.status != Status::Failed));
//! println!("{}", gatecheck_conformance::report::summary_table(&report));
//! server.shutdown().await;
//! # Ok(()) }
//! ```
//!
//! # The names a user needs
//!
//! - Running: [`Runner`], [`RunnerConfig`] (its parts [`TargetFacts`] with [`TargetMode`],
//!   [`Scope`] with [`Shard`], [`Limits`] and [`Judging`]), the [`Target`] and its [`Secret`]
//!   credentials; [`RunError`] and [`SetupError`] when a run
//!   cannot start.
//! - Reading the result: [`Report`] of [`CheckResult`]s, each with a [`Status`], a [`Kind`]
//!   (failure or deviation), [`Evidence`], and a [`SkipCause`] when skipped; [`Summary`].
//! - What is checked: [`all_checks`], one [`CheckInfo`] per check (also `gatecheck check
//!   --list`).
//! - One request by hand: [`Client`] with a [`ClientConfig`], a [`RequestSpec`] with its
//!   [`Auth`], [`Body`] and [`Part`]s, answered by an [`Exchange`] or a [`ClientError`].
//! - Keeping secrets out of output: [`Redactor`].
//!
//! # Modules
//!
//! - [`report`]: JSON, JUnit, HTML and the human summary; [`exit`]: the documented exit codes;
//!   [`terminal`]: a target's control characters escaped in every human output.
//! - [`diff`], [`normalize`], [`sequence`], [`snapshot`]: differential runs and contract
//!   snapshots; [`recording`]: record a target's answers through a proxy, and replay them;
//!   [`discovery`], [`pull`]: what a target serves, and its catalog pulled to fixtures.
//! - [`internals`]: the building blocks the CLI and the tests reach for (transport, budgets,
//!   event streams, the check registry's views...). **Unstable**: they change without notice.

mod checks;
pub mod diff;
mod evidence;
pub mod exit;
mod generators;
mod http;
pub mod normalize;
pub mod pull;
pub mod recording;
mod redact;
mod registry;
pub mod report;
mod run;
pub mod sequence;
pub mod snapshot;
pub mod terminal;
mod vocab;

pub use checks::{CheckInfo, MockOnly};
pub use evidence::{Evidence, Kind};
pub use http::client::{Auth, Body, Client, ClientConfig, Exchange, Part, RequestSpec};
pub use http::client_error::ClientError;
pub use http::target::Target;
pub use redact::{Redactor, Secret};
pub use registry::all_checks;
pub use report::{CheckResult, Report, Status, Summary};
pub use run::runner::{RunError, Runner};
pub use vocab::config::{EraChoice, Judging, Limits, RunnerConfig, Scope, TargetFacts, TargetMode};
pub use vocab::discovery;
pub use vocab::setup_error::SetupError;
pub use vocab::shard::Shard;
pub use vocab::skip::SkipCause;

/// The crate's README, its example compiled as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;

/// Building blocks below the [`Runner`]: the transport with its budgets, pacing and retries,
/// bounded event streams, seeded generators, and the views of the check registry the CLI
/// prints.
///
/// **Unstable**: these are public for the `gatecheck` CLI, the tests and the fuzz targets;
/// they change without notice and follow no semver promise.
pub mod internals {
    pub use crate::evidence::Related;
    pub use crate::generators::media::wav;
    pub use crate::generators::test_runner;
    pub use crate::http::backoff::Backoff;
    pub use crate::http::budget::{Budget, BudgetExhausted, Pacer};
    pub use crate::http::client::StreamExchange;
    pub use crate::http::memory::{ByteBudget, MemoryBudget, DEFAULT_RUN_BYTES};
    pub use crate::http::models::{known_capabilities, parse_capabilities};
    pub use crate::http::sse::{SseEnd, SseEvent, SseLimits, SseParser, SseRead};
    pub use crate::http::transport::{Transport, TransportConfig, TransportError};
    pub use crate::redact::{truncate, REDACTED};
    pub use crate::registry::{find, markdown_table, text_list};
    pub use crate::run::runner::{select_checks, ProgressFn};
    pub use crate::vocab::shard::InvalidShard;
}
