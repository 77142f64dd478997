//! Tests of `gatecheck` (serve).
