//! Request and quota budgets, and request pacing (`--rate`).

use parking_lot::Mutex;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;
use tokio::time::Instant;

/// Caps on what a run may spend on the target.
#[derive(Debug, Default)]
pub struct Budget {
    max_requests: Option<u64>,
    max_quota: Option<i64>,
    requests: AtomicU64,
    quota: AtomicI64,
}

/// A budget cap was reached.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BudgetExhausted {
    /// `--budget-requests` reached.
    #[error("request budget of {0} requests exhausted")]
    Requests(u64),
    /// `--budget-quota` reached.
    #[error("quota budget of {0} units exhausted")]
    Quota(i64),
    /// `--budget-bytes` reached: the run read that many bytes of answers.
    #[error("byte budget of {0} response bytes exhausted")]
    Bytes(u64),
}

impl Budget {
    /// A budget with the given caps (`None`: unlimited).
    pub fn new(max_requests: Option<u64>, max_quota: Option<i64>) -> Self {
        Self {
            max_requests,
            max_quota,
            ..Self::default()
        }
    }

    /// Reserves one request that may consume up to `quota` units. Nothing is reserved when a
    /// cap would be passed.
    pub fn acquire(&self, quota: i64) -> Result<(), BudgetExhausted> {
        if let Some(max) = self.max_requests {
            let prev = self.requests.fetch_add(1, Ordering::SeqCst);
            if prev >= max {
                self.requests.fetch_sub(1, Ordering::SeqCst);
                return Err(BudgetExhausted::Requests(max));
            }
        } else {
            self.requests.fetch_add(1, Ordering::SeqCst);
        }
        let quota = quota.max(0);
        if let Some(max) = self.max_quota {
            let prev = self.quota.fetch_add(quota, Ordering::SeqCst);
            if quota > 0 && prev + quota > max {
                self.quota.fetch_sub(quota, Ordering::SeqCst);
                self.requests.fetch_sub(1, Ordering::SeqCst);
                return Err(BudgetExhausted::Quota(max));
            }
        } else {
            self.quota.fetch_add(quota, Ordering::SeqCst);
        }
        Ok(())
    }

    /// Requests spent so far.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::SeqCst)
    }

    /// Quota spent so far (estimated from catalog prices).
    pub fn quota(&self) -> i64 {
        self.quota.load(Ordering::SeqCst)
    }
}

/// Spaces requests at most `rate` per second across the whole run.
#[derive(Debug)]
pub struct Pacer {
    interval: Option<Duration>,
    next: Mutex<Option<Instant>>,
}

impl Pacer {
    /// A pacer for `rate` requests per second (`None` or non-positive: unpaced).
    pub fn new(rate: Option<f64>) -> Self {
        let interval = rate
            .filter(|r| r.is_finite() && *r > 0.0)
            .map(|r| Duration::from_secs_f64(1.0 / r));
        Self {
            interval,
            next: Mutex::new(None),
        }
    }

    /// Waits for the next free slot.
    pub async fn wait(&self) {
        let Some(interval) = self.interval else {
            return;
        };
        let slot = {
            let mut next = self.next.lock();
            let now = Instant::now();
            let slot = next.map_or(now, |n| n.max(now));
            *next = Some(slot + interval);
            slot
        };
        tokio::time::sleep_until(slot).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_pacer_spaces_requests() {
        let p = Pacer::new(Some(4.0));
        let start = Instant::now();
        for _ in 0..5 {
            p.wait().await;
        }
        // Five slots at 4 per second: the fifth is a second after the first.
        assert_eq!(start.elapsed(), Duration::from_millis(1000));
        let unpaced = Pacer::new(None);
        let t = Instant::now();
        unpaced.wait().await;
        assert_eq!(t.elapsed(), Duration::ZERO);
    }

    #[test]
    fn caps_hold() {
        let b = Budget::new(Some(2), Some(10));
        assert!(b.acquire(4).is_ok());
        assert_eq!(b.acquire(7), Err(BudgetExhausted::Quota(10)));
        assert!(b.acquire(6).is_ok());
        assert_eq!(b.acquire(0), Err(BudgetExhausted::Requests(2)));
        assert_eq!((b.requests(), b.quota()), (2, 10));
    }
}
