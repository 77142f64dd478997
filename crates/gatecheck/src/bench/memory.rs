//! Resident memory of this process, or of another one (a `gatecheck serve` child).

use std::time::{Duration, Instant};

/// The resident set size of this process in bytes (Linux `/proc/self/status`; `None`
/// elsewhere).
pub fn rss_bytes() -> Option<u64> {
    rss_in("/proc/self/status")
}

/// The resident set size of process `pid` in bytes (Linux `/proc/<pid>/status`; `None`
/// elsewhere or once it has exited).
pub fn rss_of(pid: u32) -> Option<u64> {
    rss_in(&format!("/proc/{pid}/status"))
}

fn rss_in(path: &str) -> Option<u64> {
    let status = std::fs::read_to_string(path).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line
        .trim_start_matches("VmRSS:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// Samples the RSS every 100 ms for at most `within`, stopping early once it is under
/// `limit`: the last sample and how long it took to get under `limit` (if it did).
pub(crate) fn settle(
    rss_now: impl Fn() -> Option<u64>,
    limit: u64,
    within: Duration,
) -> (Option<u64>, Option<Duration>) {
    let started = Instant::now();
    loop {
        let rss = rss_now();
        if rss.is_some_and(|r| r < limit) {
            return (rss, Some(started.elapsed()));
        }
        if started.elapsed() >= within || rss.is_none() {
            return (rss, None);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
