//! Tests of `gatecheck` (check).
