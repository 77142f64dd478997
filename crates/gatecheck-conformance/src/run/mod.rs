//! One run, from discovery to clean-up. Its vocabulary (configuration, skip causes, what
//! discovery found, setup failures) is in `crate::vocab`, below this folder and the checks.
//!
//! - `runner`: discovers the target, runs the selected checks, cleans up, and reports.
//! - `setup`: set-up and clean-up around the checks (mock or not, what is served, the key).

pub(crate) mod era;
pub(crate) mod runner;
pub(crate) mod setup;
