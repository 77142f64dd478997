//! Property-generated contract checks against any deployment of the service.
//!
//! - [`Runner`] and [`RunnerConfig`]: `Runner::new(config).run().await` runs the check
//!   [`catalog()`] against a target and returns a [`Report`].
//! - [`Client`], [`RequestSpec`], [`Exchange`]: one pinned HTTP exchange with a target.
//! - [`Transport`]: the client with budgets, pacing, retries and the deadline around it.
//! - [`Redactor`]: secrets never reach output, reports or snapshots.
//! - [`report`]: JSON, JUnit and the human summary; [`exit`]: the documented exit codes.
//! - `diff`, `normalize`, `sequence`, `snapshot`: differential runs and contract snapshots.

mod backoff;
mod budget;
mod catalog;
mod checks;
mod client;
mod config;
mod connector;
pub mod diff;
pub mod exit;
mod gen;
pub mod normalize;
mod redact;
pub mod report;
mod request;
mod runner;
pub mod sequence;
mod shard;
pub mod snapshot;
mod target;
mod transport;

pub use backoff::{is_retryable, parse_retry_after, Backoff};
pub use budget::{Budget, BudgetExhausted, Pacer};
pub use catalog::{catalog, find, markdown_table, text_list, CheckInfo, Kind};
pub use checks::Evidence;
pub use client::{
    shell_quote, Auth, Body, Client, ClientConfig, ClientError, Exchange, Part, RequestSpec,
    Target, MULTIPART_BOUNDARY,
};
pub use config::RunnerConfig;
pub use gen::media::wav;
pub use gen::test_runner;
pub use redact::{truncate, Redactor, Secret, REDACTED, SECRET_FIELDS};
pub use report::{CheckResult, Report, Status, Summary};
pub use runner::{select_checks, ProgressFn, RunError, Runner};
pub use shard::{fnv1a, InvalidShard, Shard};
pub use target::{known_capabilities, parse_capabilities, MockControl, SetupError};
pub use transport::{deadline_in, Transport, TransportConfig, TransportError};
