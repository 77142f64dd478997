//! The mock's clock: real (wall time) or virtual (moves only when told to).
//!
//! Video progress and key expiry read this clock. Both kinds can be advanced: the virtual
//! clock by exactly the amount asked, the real clock by adding an offset to wall time.
//! Streams paced by the clock wait for it ([`Clock::wait_until_ms`]): every move of the
//! clock wakes them.

use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::Notify;

/// The default start of a virtual clock: 2025-11-21T00:00:00Z.
pub const DEFAULT_VIRTUAL_EPOCH: i64 = 1_763_683_200;

/// Which clock the mock runs on.
///
/// ```
/// assert!(gatecheck_mock::ClockMode::parse("sundial").is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockMode {
    /// Wall time (plus any offset added by `advance`).
    Real,
    /// Starts at a fixed epoch (Unix seconds) and moves only through `advance`.
    Virtual {
        /// Unix seconds at start.
        epoch: i64,
    },
}

impl ClockMode {
    /// A virtual clock starting at [`DEFAULT_VIRTUAL_EPOCH`].
    ///
    /// ```
    /// use gatecheck_mock::{internals::DEFAULT_VIRTUAL_EPOCH, ClockMode};
    /// assert_eq!(ClockMode::virtual_default(), ClockMode::Virtual { epoch: DEFAULT_VIRTUAL_EPOCH });
    /// ```
    pub fn virtual_default() -> Self {
        Self::Virtual {
            epoch: DEFAULT_VIRTUAL_EPOCH,
        }
    }

    /// Parses `real` or `virtual` (optionally `virtual:<unix seconds>`).
    ///
    /// ```
    /// use gatecheck_mock::ClockMode;
    /// assert_eq!(ClockMode::parse("real"), Some(ClockMode::Real));
    /// assert_eq!(ClockMode::parse("virtual:100"), Some(ClockMode::Virtual { epoch: 100 }));
    /// ```
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "real" => Some(Self::Real),
            "virtual" => Some(Self::virtual_default()),
            other => other
                .strip_prefix("virtual:")
                .and_then(|e| e.parse().ok())
                .map(|epoch| Self::Virtual { epoch }),
        }
    }
}

/// A shared handle to the mock's clock (cheap to clone).
///
/// ```
/// use gatecheck_mock::{Clock, ClockMode};
/// let clock = Clock::new(ClockMode::virtual_default());
/// let shared = clock.clone();
/// shared.advance(std::time::Duration::from_secs(1));
/// assert_eq!(clock.now(), shared.now());
/// ```
#[derive(Debug, Clone)]
pub struct Clock {
    inner: Arc<ClockInner>,
}

#[derive(Debug)]
struct ClockInner {
    mode: ClockMode,
    /// Milliseconds added to the base time by `advance`.
    offset_ms: AtomicI64,
    /// Woken on every move of the offset (advance, reset, state load).
    moved: Notify,
}

impl Clock {
    /// A clock of the given mode.
    ///
    /// ```
    /// use gatecheck_mock::{Clock, ClockMode};
    /// let clock = Clock::new(ClockMode::Virtual { epoch: 1000 });
    /// assert_eq!(clock.now(), 1000);
    /// ```
    pub fn new(mode: ClockMode) -> Self {
        Self {
            inner: Arc::new(ClockInner {
                mode,
                offset_ms: AtomicI64::new(0),
                moved: Notify::new(),
            }),
        }
    }

    /// The clock's mode.
    ///
    /// ```
    /// use gatecheck_mock::{Clock, ClockMode};
    /// assert_eq!(Clock::new(ClockMode::Real).mode(), ClockMode::Real);
    /// ```
    pub fn mode(&self) -> ClockMode {
        self.inner.mode
    }

    /// Whether this is a virtual clock.
    ///
    /// ```
    /// use gatecheck_mock::{Clock, ClockMode};
    /// assert!(Clock::new(ClockMode::virtual_default()).is_virtual());
    /// ```
    pub fn is_virtual(&self) -> bool {
        matches!(self.inner.mode, ClockMode::Virtual { .. })
    }

    /// Now, in Unix milliseconds.
    ///
    /// ```
    /// use gatecheck_mock::{Clock, ClockMode};
    /// assert_eq!(Clock::new(ClockMode::Virtual { epoch: 2 }).now_ms(), 2000);
    /// ```
    pub fn now_ms(&self) -> i64 {
        let base = match self.inner.mode {
            ClockMode::Real => SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_millis() as i64)
                .unwrap_or(0),
            ClockMode::Virtual { epoch } => epoch.saturating_mul(1000),
        };
        base.saturating_add(self.inner.offset_ms.load(Ordering::SeqCst))
    }

    /// Now, in Unix seconds.
    ///
    /// ```
    /// use gatecheck_mock::{Clock, ClockMode};
    /// assert!(Clock::new(ClockMode::Real).now() > 1_700_000_000);
    /// ```
    pub fn now(&self) -> i64 {
        self.now_ms().div_euclid(1000)
    }

    /// Moves the clock forward by `by`.
    ///
    /// ```
    /// use gatecheck_mock::{Clock, ClockMode};
    /// use std::time::Duration;
    /// let clock = Clock::new(ClockMode::Virtual { epoch: 1000 });
    /// clock.advance(Duration::from_secs(60));
    /// assert_eq!(clock.now(), 1060);
    /// ```
    pub fn advance(&self, by: Duration) {
        let ms = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        let _ = self
            .inner
            .offset_ms
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |o| {
                Some(o.saturating_add(ms))
            });
        self.inner.moved.notify_waiters();
    }

    /// Waits until the clock reads `at_ms` (Unix milliseconds) or later: a virtual clock gets
    /// there only through [`Clock::advance`]; a real clock by the passing of time or an
    /// advance. Holds no lock while it waits.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// use gatecheck_mock::{Clock, ClockMode};
    /// use std::time::Duration;
    /// let clock = Clock::new(ClockMode::Virtual { epoch: 1000 });
    /// let waiter = tokio::spawn({
    ///     let clock = clock.clone();
    ///     async move { clock.wait_until_ms(1_000_500).await }
    /// });
    /// tokio::task::yield_now().await;
    /// assert!(!waiter.is_finished());
    /// clock.advance(Duration::from_millis(500));
    /// waiter.await.unwrap();
    /// # }
    /// ```
    pub async fn wait_until_ms(&self, at_ms: i64) {
        loop {
            let moved = self.inner.moved.notified();
            tokio::pin!(moved);
            // Registered before the clock is read: a move in between still wakes it.
            moved.as_mut().enable();
            let now = self.now_ms();
            if now >= at_ms {
                return;
            }
            match self.inner.mode {
                ClockMode::Virtual { .. } => moved.await,
                ClockMode::Real => {
                    let left = Duration::from_millis(u64::try_from(at_ms - now).unwrap_or(0));
                    tokio::select! {
                        _ = moved => {}
                        _ = tokio::time::sleep(left) => {}
                    }
                }
            }
        }
    }

    /// Sets the offset added to the base time (used by reset and state load).
    pub(crate) fn set_offset_ms(&self, offset_ms: i64) {
        self.inner.offset_ms.store(offset_ms, Ordering::SeqCst);
        self.inner.moved.notify_waiters();
    }

    /// The offset added to the base time.
    pub(crate) fn offset_ms(&self) -> i64 {
        self.inner.offset_ms.load(Ordering::SeqCst)
    }
}
