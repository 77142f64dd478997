//! Integration tests of gatecheck-schemas.

mod registry;
