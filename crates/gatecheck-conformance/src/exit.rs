//! The documented exit codes of `gatecheck check`.

/// Every selected check passed (deviations allowed unless `--strict`).
pub const PASSED: u8 = 0;
/// At least one contract failure (or, with `--strict`, a deviation), or a check errored.
pub const CONTRACT_FAILURES: u8 = 1;
/// A usage or configuration error: bad flags, a bad URL, missing credentials.
pub const USAGE: u8 = 2;
/// The target could not be reached.
pub const UNREACHABLE: u8 = 3;
/// The run was interrupted (Ctrl-C) before every check ran; the working key was restored.
pub const INTERRUPTED: u8 = 130;
