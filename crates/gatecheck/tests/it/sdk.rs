//! Tests of `gatecheck` (sdk).
