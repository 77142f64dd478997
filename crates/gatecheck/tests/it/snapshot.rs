//! Tests of `gatecheck` (snapshot).
