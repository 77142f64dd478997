//! Integration tests of the `gatecheck` binary (one test binary; one module per subcommand).

mod check;
mod diff;
mod readme;
mod schemas;
mod sdk;
mod serve;
mod snapshot;
