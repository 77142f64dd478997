//! The runner's vocabulary, below `run/`, `checks/` and `report/` (all three import it, it
//! imports none of them): what a run is asked and what it found, in the words a verdict uses.
//!
//! - `config`: the runner's configuration (`RunnerConfig` and its parts).
//! - `shard`: `--shard k/n`, a deterministic split of the checks across CI jobs.
//! - `skip`: why a check was skipped, a fixed set of causes (`SkipCause`).
//! - `discovery`: what the target serves, learned once with safe probes (`RouteFamily`,
//!   `RouteProbe`, `DiscoveryReport`, the models and where they came from).
//! - `setup_error`: why setting up the target failed, and its kind as the report writes it
//!   (`SetupError`, `SetupFailureKind`).
//! - `fixture_catalog`: the models of the runner's own fixtures (`fixtures/catalog.json`).
//! - `artifacts`: the task timelines and media samples the checks collect for the HTML report.

pub(crate) mod artifacts;
pub(crate) mod config;
pub mod discovery;
pub(crate) mod era;
pub(crate) mod fixture_catalog;
pub(crate) mod setup_error;
pub(crate) mod shard;
pub(crate) mod skip;
