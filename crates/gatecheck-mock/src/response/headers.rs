//! The header names the mock itself defines or sets on every answer.

/// The answer header carrying the request id (the contract's, `rules::time`).
pub use gatecheck_schemas::rules::time::REQUEST_ID_HEADER;

/// The header carrying the control token.
pub const CONTROL_TOKEN_HEADER: &str = "x-mock-control-token";
