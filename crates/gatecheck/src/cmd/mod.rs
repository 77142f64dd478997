//! One module per subcommand. Each exposes its clap arguments and `run(args) -> u8` (the exit code).

pub mod bench;
pub mod check;
pub mod diff;
pub mod diff_side;
pub mod duration_arg;
pub mod fixtures;
pub mod output_path;
pub mod profiles;
pub mod record;
pub mod record_args;
pub mod record_drive;
pub mod report_arg;
pub mod runtime;
pub mod schemas;
pub mod serve;
pub mod snapshot;
pub mod target_args;
pub mod uploads;
