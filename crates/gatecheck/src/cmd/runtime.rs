//! The one way a subcommand runs async code and turns its outcome into an exit code.

use gatecheck_conformance::exit;
use std::future::Future;

/// Runs `future` on a new multi-threaded tokio runtime and returns its exit code. When the
/// runtime cannot start, prints `gatecheck <command>: ...` and returns [`exit::ERROR`].
pub fn block_on<F: Future<Output = u8>>(command: &str, future: F) -> u8 {
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime.block_on(future),
        Err(e) => {
            eprintln!("gatecheck {command}: cannot start the runtime: {e}");
            exit::ERROR
        }
    }
}

/// The exit code of a command's result: its own, or [`exit::ERROR`] after printing the error
/// with its causes as `gatecheck <command>: ...`.
pub fn exit_code(command: &str, result: anyhow::Result<u8>) -> u8 {
    result.unwrap_or_else(|e| {
        eprintln!("gatecheck {command}: {e:#}");
        exit::ERROR
    })
}
