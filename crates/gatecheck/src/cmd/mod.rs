//! One module per subcommand. Each exposes its clap arguments and `run(args) -> u8` (the exit code).

pub mod check;
pub mod diff;
pub mod schemas;
pub mod serve;
pub mod snapshot;
pub mod target_args;
