//! Integration tests of gatecheck-conformance (one test binary; one module per area).

mod acceptance;
mod against_mock;
mod client;
mod decisions;
mod diff;
mod diff_targets;
mod discovery;
mod fuzz_inputs;
mod healthy;
mod hostile;
mod mutation_proxy;
mod mutations;
mod normalize;
mod openapi_replay;
mod planted;
mod planted_coverage;
mod planted_tasks;
mod recording;
mod redaction;
mod reports;
mod rule_users;
mod safety;
mod snapshot;
mod snapshot_golden;
mod streams;
mod targets;
