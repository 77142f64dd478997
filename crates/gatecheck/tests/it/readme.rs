//! Tests of `gatecheck` (readme).
