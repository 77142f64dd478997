//! The behaviour model of the service: pure functions, no I/O.
//!
//! The mock runs these to decide what to answer; the conformance runner runs the same functions
//! to predict what a target must answer. Keeping one copy means the two cannot drift apart.
