//! Integration tests of gatecheck-conformance (one test binary; one module per area).

mod against_mock;
mod client;
mod diff;
mod mutations;
mod normalize;
mod reports;
mod safety;
mod snapshot;
mod snapshot_golden;
