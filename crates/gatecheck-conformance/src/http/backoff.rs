//! Exponential backoff with full jitter, honouring `Retry-After`.

use gatecheck_codecs::draw::Draw;
use http::StatusCode;
use std::time::Duration;

/// Retry policy for transient answers (429, 500, 503) and connection failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// First delay ceiling.
    pub base: Duration,
    /// Largest delay ceiling.
    pub max: Duration,
    /// Retries after the first attempt.
    pub max_retries: u32,
}

impl Default for Backoff {
    fn default() -> Self {
        Self {
            base: Duration::from_millis(200),
            max: Duration::from_secs(10),
            max_retries: 4,
        }
    }
}

impl Backoff {
    /// No retries at all.
    pub fn none() -> Self {
        Self {
            max_retries: 0,
            ..Self::default()
        }
    }

    /// The ceiling of the delay before retry number `attempt` (0-based): `base * 2^attempt`,
    /// capped at `max`.
    pub fn ceiling(&self, attempt: u32) -> Duration {
        let factor = 1u32.checked_shl(attempt.min(20)).unwrap_or(u32::MAX);
        self.base.saturating_mul(factor).min(self.max)
    }

    /// The delay before retry number `attempt`: uniform in `[ceiling/2, ceiling]` (jitter), and
    /// never shorter than `Retry-After` (itself capped at `max`).
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>, rng: &mut Draw) -> Duration {
        let ceiling = self.ceiling(attempt);
        let half = ceiling / 2;
        let span = (ceiling - half).as_millis() as u64;
        let jittered = half + Duration::from_millis(if span == 0 { 0 } else { rng.up_to(span) });
        match retry_after {
            Some(ra) => jittered.max(ra.min(self.max)),
            None => jittered,
        }
    }
}

/// Whether a status is transient and worth retrying: 429, 500, 503.
pub fn is_retryable(status: StatusCode) -> bool {
    matches!(status.as_u16(), 429 | 500 | 503)
}

/// Parses `Retry-After` given in seconds (the HTTP-date form is ignored).
pub fn parse_retry_after(value: Option<&str>) -> Option<Duration> {
    let v = value?.trim();
    v.parse::<u64>().ok().map(Duration::from_secs).or_else(|| {
        v.parse::<f64>()
            .ok()
            .filter(|f| f.is_finite() && *f >= 0.0)
            .map(Duration::from_secs_f64)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_grow_are_jittered_and_respect_retry_after() {
        let b = Backoff::default();
        let mut rng = Draw::seeded(7);
        for attempt in 0..8 {
            let d = b.delay(attempt, None, &mut rng);
            assert!(d <= b.ceiling(attempt) && d >= b.ceiling(attempt) / 2);
        }
        assert_eq!(b.ceiling(30), b.max);
        let d = b.delay(0, Some(Duration::from_secs(3)), &mut rng);
        assert!(d >= Duration::from_secs(3));
        assert_eq!(parse_retry_after(Some("2")), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after(Some("soon")), None);
    }
}
