//! The one way a subcommand runs async code and turns its outcome into an exit code.

use gatecheck_conformance::exit;
use std::future::Future;

/// Runs `future` on a new multi-threaded tokio runtime and returns its exit code. When the
/// runtime cannot start, prints `gatecheck <command>: ...` and returns [`exit::ERROR`].
pub fn block_on<F: Future<Output = u8>>(command: &str, future: F) -> u8 {
    block_on_threads(command, 0, future)
}

/// [`block_on`] on `threads` runtime threads: 1 runs everything on the calling thread (a
/// current-thread runtime: no thread to start, nothing to hand over between threads); more
/// start a multi-threaded runtime with that many workers; 0, one worker per core.
pub fn block_on_threads<F: Future<Output = u8>>(command: &str, threads: usize, future: F) -> u8 {
    let mut builder = match threads {
        1 => tokio::runtime::Builder::new_current_thread(),
        n => {
            let mut builder = tokio::runtime::Builder::new_multi_thread();
            if n > 1 {
                builder.worker_threads(n);
            }
            builder
        }
    };
    match builder.enable_all().build() {
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
