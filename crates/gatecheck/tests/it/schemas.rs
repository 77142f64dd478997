//! Tests of `gatecheck` (schemas).
