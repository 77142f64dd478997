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

/// Readies the calling thread for its first requests while the main thread is still setting
/// up: one allocation of each small size class gives the thread its allocator cache, and the
/// CPU feature probe that `httparse` and `memchr` make on first use is made here.
///
/// A new thread's first allocations map and copy fresh pages. When another thread of the
/// process is running on the other core, each copy also interrupts that core to flush its
/// TLB, which in this VM is a round trip through the hypervisor: 100-140 µs on the way to
/// `serve`'s first 200, spent by the worker that answers it (BENCHMARKS.md, "Tenth session").
/// The runtime's threads call this when they start (`runtime::block_on`).
pub fn warm_thread() {
    let mut held = Vec::with_capacity(48);
    let mut size = 8;
    while size <= 4096 {
        held.push(std::hint::black_box(Vec::<u8>::with_capacity(size)));
        size += (size / 4).max(8);
    }
    drop(std::hint::black_box(held));
    #[cfg(target_arch = "x86_64")]
    std::hint::black_box(std::arch::is_x86_feature_detected!("avx2"));
}
