//! The documented exit codes of `gatecheck check` (and the other subcommands).
//!
//! Whenever a run gets as far as sending a request, `--report` and `--junit` are written,
//! whatever the exit code: a target that fails during discovery is named in the report's
//! `setup_failure` and in a JUnit test case `target.setup`.

/// Every selected check passed (deviations allowed unless `--strict`).
pub const PASSED: u8 = 0;
/// At least one contract failure (or, with `--strict`, a deviation), or a check errored, or
/// the run could not put the target's key back, or the target misbehaved during discovery
/// (answers the runner cannot use, a budget or the deadline ran out before any check).
pub const CONTRACT_FAILURES: u8 = 1;
/// The user's own configuration error: bad flags, a bad URL, an unreadable file, missing or
/// refused credentials. Never used for a target's misbehaviour.
pub const USAGE: u8 = 2;
/// The target could not be reached (connection refused or reset, timeouts), in discovery. A
/// target that answered and broke HTTP (a header flood, a body cut short) was reached: that is
/// [`CONTRACT_FAILURES`].
/// The report and JUnit are written and name the failure.
pub const UNREACHABLE: u8 = 3;
/// The run was incomplete: no check failed, but checks were skipped for a cause that leaves
/// the contract unchecked and that `--allow-skip` did not accept (by default `no-credentials`:
/// a run without `--api-key` or `--access-token` checked almost nothing; and `deadline`: checks
/// the run's deadline cut). The summary names the missing flags and what they unlock.
pub const INCOMPLETE: u8 = 4;
/// The run was interrupted (Ctrl-C) before every check ran; the working key was restored.
pub const INTERRUPTED: u8 = 130;

/// Every exit code of `gatecheck check`: the code, its constant's name, and what it means in
/// a few words. `check --help` prints them; tests hold docs/check.md's and docs/verdicts.md's
/// tables to this list.
pub const CHECK_CODES: [(u8, &str, &str); 6] = [
    (PASSED, "PASSED", "every selected check passed"),
    (CONTRACT_FAILURES, "CONTRACT_FAILURES", "contract failures"),
    (USAGE, "USAGE", "usage or configuration error"),
    (UNREACHABLE, "UNREACHABLE", "target unreachable"),
    (
        INCOMPLETE,
        "INCOMPLETE",
        "incomplete: checks skipped for want of credentials or cut by the deadline (see --allow-skip)",
    ),
    (INTERRUPTED, "INTERRUPTED", "interrupted (Ctrl-C)"),
];

/// `diff`: the two targets answered differently; `snapshot verify`: the target drifted from its
/// snapshots; `schemas validate`: the instance is invalid. The same code as
/// [`CONTRACT_FAILURES`].
pub const DIFFERENCES: u8 = CONTRACT_FAILURES;
/// `diff`, `snapshot`, `schemas`, `serve`: the command could not do its job (bad flags, an
/// unreadable file, a port already taken, a request that failed on the way). The same code as
/// [`USAGE`].
pub const ERROR: u8 = USAGE;
