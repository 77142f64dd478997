//! Integration tests of gatecheck-conformance (one test binary; one module per area).

mod normalize;
