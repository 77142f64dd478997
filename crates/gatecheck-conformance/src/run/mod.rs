//! One run, from discovery to clean-up.
//!
//! - `runner`: discovers the target, runs the selected checks, cleans up, and reports.
//! - `config`: the runner's configuration, with a builder.
//! - `setup`: set-up and clean-up around the checks (mock or not, what is served, the key).
//! - `setup_error`: why setting up the target failed, and its kind as the report writes it.
//! - `discovery`: what the target serves, learned once with safe probes.
//! - `shard`: `--shard k/n`, a deterministic split of the checks across CI jobs.
//! - `skip`: why a check was skipped, a fixed set of causes.
//! - `embedded`: a gatecheck mock started in this process as one side of a sequence.

pub(crate) mod config;
pub mod discovery;
pub(crate) mod embedded;
pub(crate) mod runner;
pub(crate) mod setup;
pub(crate) mod setup_error;
pub(crate) mod shard;
pub(crate) mod skip;
