//! The per-key rate limit: a fixed window per key, on the mock's clock.

use crate::config::RateLimit;
use parking_lot::Mutex;
use std::collections::HashMap;

/// Request counts per key and window.
#[derive(Debug)]
pub struct RateLimiter {
    limit: Option<RateLimit>,
    windows: Mutex<HashMap<i64, (i64, u32)>>,
}

impl RateLimiter {
    /// A limiter; `None` lets everything through.
    pub fn new(limit: Option<RateLimit>) -> Self {
        Self {
            limit,
            windows: Mutex::new(HashMap::new()),
        }
    }

    /// Counts a request of `key_id` at `now_ms`; `Err(retry_after_secs)` when over the limit.
    pub fn check(&self, key_id: i64, now_ms: i64) -> Result<(), u64> {
        let Some(limit) = self.limit else {
            return Ok(());
        };
        let window_ms = (limit.window.as_millis() as i64).max(1);
        let start = now_ms - now_ms.rem_euclid(window_ms);
        let mut windows = self.windows.lock();
        let entry = windows.entry(key_id).or_insert((start, 0));
        if entry.0 != start {
            *entry = (start, 0);
        }
        if entry.1 >= limit.requests {
            let left_ms = start + window_ms - now_ms;
            return Err(((left_ms + 999) / 1000).max(1) as u64);
        }
        entry.1 += 1;
        Ok(())
    }

    /// Forgets every count.
    pub fn clear(&self) {
        self.windows.lock().clear();
    }
}
