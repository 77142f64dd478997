//! Property-generated contract checks against any deployment of the service.
//!
//! - [`Runner`] and [`RunnerConfig`]: `Runner::new(config).run().await` runs the check
//!   [`catalog()`] against a target and returns a [`Report`].
//! - [`Client`], [`RequestSpec`], [`Exchange`]: one pinned HTTP exchange with a target.
//! - [`SseParser`], [`SseLimits`]: bounded reads of event streams ([`Client::send_stream`]).
//! - [`Transport`]: the client with budgets, pacing, retries and the deadline around it.
//! - [`Redactor`]: secrets never reach output, reports or snapshots.
//! - [`report`]: JSON, JUnit and the human summary; [`exit`]: the documented exit codes.
//! - `diff`, `normalize`, `sequence`, `snapshot`: differential runs and contract snapshots.
//! - [`recording`]: record a target's answers through a proxy, and replay them.

mod backoff;
mod budget;
mod checks;
mod client;
mod config;
mod client_error;
mod connector;
pub mod diff;
pub mod discovery;
mod evidence;
pub mod exit;
mod generators;
mod key_api;
mod memory;
mod mock_control;
mod models;
pub mod normalize;
pub mod pull;
pub mod recording;
mod redact;
mod registry;
pub mod report;
mod request;
mod runner;
pub mod sequence;
mod setup;
mod setup_error;
mod shard;
mod skip;
pub mod snapshot;
mod sse;
mod target;
mod transport;

pub use backoff::Backoff;
pub use budget::{Budget, BudgetExhausted, Pacer};
pub use checks::CheckInfo;
pub use evidence::{Evidence, Kind, Related};
pub use client::{Auth, Body, Client, ClientConfig, Exchange, Part, RequestSpec, StreamExchange};
pub use client_error::ClientError;
pub use config::{RunnerConfig, TargetMode};
pub use generators::media::wav;
pub use generators::test_runner;
pub use memory::MemoryBudget;
pub use redact::{truncate, Redactor, Secret, REDACTED};
pub use registry::{catalog, decision_id, find, markdown_table, text_list};
pub use report::{CheckResult, Report, Status, Summary};
pub use runner::{select_checks, ProgressFn, RunError, Runner};
pub use shard::{InvalidShard, Shard};
pub use skip::SkipCause;
pub use sse::{SseEnd, SseEvent, SseLimits, SseParser, SseRead};
pub use models::{known_capabilities, parse_capabilities};
pub use setup_error::SetupError;
pub use target::Target;
pub use transport::{Transport, TransportConfig, TransportError};
