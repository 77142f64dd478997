//! Tests of `gatecheck` (diff).
