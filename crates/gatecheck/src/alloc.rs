//! The binary's allocator: jemalloc, whose freed pages go back to the system after a
//! connection burst (BENCHMARKS.md, "Allocator").
//!
//! Its build-time options (`.cargo/config.toml`) keep one arena for all threads and leave the
//! background purging thread off: a second arena per thread and the purging threads, started
//! before `main`, were about 60 of the 420 page faults and 0.25 ms of `gatecheck serve`'s way
//! to its first 200 (BENCHMARKS.md, "Ninth session"). [`start_background_purge`] starts the
//! purging once the work that needs a quick start is done.
//!
//! A build with `--cfg gatecheck_system_allocator` in `RUSTFLAGS` (`.ci/run`'s) keeps the
//! system allocator. Not documented: rustdoc does not see `RUSTFLAGS`, and without the
//! dependency it would fail.

#[cfg(all(
    unix,
    not(target_env = "musl"),
    not(gatecheck_system_allocator),
    not(doc)
))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Starts jemalloc's background thread, which purges freed pages within about a second
/// (`dirty_decay_ms`), so the RSS goes back down after a burst even while the process is idle.
/// A no-op with the system allocator, and when it is already running.
pub fn start_background_purge() {
    #[cfg(all(
        unix,
        not(target_env = "musl"),
        not(gatecheck_system_allocator),
        not(doc)
    ))]
    if let Err(e) = tikv_jemalloc_ctl::background_thread::write(true) {
        tracing::warn!("jemalloc's background purging did not start: {e}");
    }
}
