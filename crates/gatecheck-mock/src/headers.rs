//! The header names the mock itself defines or sets on every answer.

/// The answer header carrying the request id.
pub const REQUEST_ID_HEADER: &str = "x-oneapi-request-id";

/// The header carrying the control token.
pub const CONTROL_TOKEN_HEADER: &str = "x-mock-control-token";
