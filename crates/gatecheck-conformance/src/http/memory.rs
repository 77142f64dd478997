//! One memory budget for every response body in flight, and one byte budget for the whole
//! run ([`ByteBudget`]).
//!
//! Each response body is read under two bounds: the per-request cap
//! ([`crate::ClientConfig::max_body_bytes`], 64 MiB by default) and one budget shared by all
//! requests of a client ([`crate::ClientConfig::memory_budget`], [`DEFAULT_MEMORY_BUDGET`] by
//! default). Bytes are reserved from the budget as they arrive and given back when the body
//! has been handed over, so the runner's buffered bodies never exceed the budget whatever the
//! concurrency: a body that would pass it fails at once with
//! [`crate::ClientError::MemoryBudget`] instead of waiting (waiting could deadlock requests that
//! each hold part of the budget).

use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt as _;
use hyper::body::Body;
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The default budget of response bytes buffered at once, over all requests: 256 MiB.
pub const DEFAULT_MEMORY_BUDGET: usize = 256 << 20;

/// A budget of response bytes buffered at once, shared by the clones of one client.
#[derive(Debug, Clone)]
pub struct MemoryBudget {
    bytes: Arc<Semaphore>,
    total: usize,
}

impl Default for MemoryBudget {
    fn default() -> Self {
        Self::new(DEFAULT_MEMORY_BUDGET)
    }
}

/// Why a body could not be read.
#[derive(Debug)]
pub(crate) enum BodyError {
    /// Over the per-request cap.
    TooLarge,
    /// The shared budget is spent.
    OverBudget,
    /// The body failed.
    Read(String),
}

impl MemoryBudget {
    /// A budget of `total` bytes (at least 1, at most what a semaphore can count).
    ///
    /// ```
    /// let budget = gatecheck_conformance::internals::MemoryBudget::new(1 << 20);
    /// assert_eq!(budget.total(), 1 << 20);
    /// assert_eq!(budget.available(), 1 << 20);
    /// ```
    pub fn new(total: usize) -> Self {
        let total = total.clamp(1, Semaphore::MAX_PERMITS);
        Self {
            bytes: Arc::new(Semaphore::new(total)),
            total,
        }
    }

    /// The whole budget, bytes.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The bytes not reserved right now.
    pub fn available(&self) -> usize {
        self.bytes.available_permits()
    }

    /// Reads `body` to its end under the per-request cap `max` and this budget; the bytes
    /// reserved are given back when the returned guard is dropped.
    pub(crate) async fn read<B>(&self, body: B, max: usize) -> Result<(Bytes, Held), BodyError>
    where
        B: Body + Unpin,
        B::Error: std::fmt::Display,
    {
        let mut body = body;
        let mut held = Held(None);
        let mut buf = BytesMut::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| BodyError::Read(e.to_string()))?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            use bytes::Buf as _;
            let n = data.remaining();
            if buf.len().saturating_add(n) > max {
                return Err(BodyError::TooLarge);
            }
            if n == 0 {
                continue;
            }
            self.hold(&mut held, n)?;
            let mut data = data;
            while data.has_remaining() {
                let chunk = data.chunk();
                buf.extend_from_slice(chunk);
                let len = chunk.len();
                data.advance(len);
            }
        }
        Ok((buf.freeze(), held))
    }
}

impl MemoryBudget {
    /// Reserves `n` more bytes into `held`, at once or not at all.
    pub(crate) fn hold(&self, held: &mut Held, n: usize) -> Result<(), BodyError> {
        if n == 0 {
            return Ok(());
        }
        let permits = u32::try_from(n).map_err(|_| BodyError::OverBudget)?;
        let permit = self
            .bytes
            .clone()
            .try_acquire_many_owned(permits)
            .map_err(|_| BodyError::OverBudget)?;
        match &mut held.0 {
            Some(p) => p.merge(permit),
            None => held.0 = Some(permit),
        }
        Ok(())
    }
}

/// The default bytes of response bodies one run may read in all: 1 GiB (`--budget-bytes`).
pub const DEFAULT_RUN_BYTES: u64 = 1 << 30;

/// The bytes of response bodies a whole run may read, over every request and every transport
/// of the run (discovery, the checks): the per-body cap and the [`MemoryBudget`] bound what is
/// held at once, this bounds the run, so a target answering every request with a body at the
/// cap (or streams that never end) cannot make a run read, and keep, without end. The
/// [`Transport`](crate::internals::Transport) charges each answer's bytes as it comes and,
/// once the budget is spent, refuses the next request (`budget-spent`). Cheap to clone
/// (shared).
///
/// ```
/// use gatecheck_conformance::internals::ByteBudget;
/// let b = ByteBudget::new(Some(100));
/// b.charge(60);
/// assert!(b.check().is_ok());
/// b.charge(60);
/// assert!(b.check().is_err());
/// assert_eq!(b.read(), 120);
/// assert!(ByteBudget::unlimited().check().is_ok());
/// ```
#[derive(Debug, Clone, Default)]
pub struct ByteBudget {
    inner: Arc<RunBytes>,
}

#[derive(Debug, Default)]
struct RunBytes {
    max: Option<u64>,
    read: std::sync::atomic::AtomicU64,
}

impl ByteBudget {
    /// A budget of `max` bytes (`None`: unlimited).
    pub fn new(max: Option<u64>) -> Self {
        Self {
            inner: Arc::new(RunBytes {
                max,
                read: Default::default(),
            }),
        }
    }

    /// No bound (a transport outside a run: `diff`, `fixtures pull`, the key's restore).
    pub fn unlimited() -> Self {
        Self::new(None)
    }

    /// Counts `n` bytes read.
    pub fn charge(&self, n: u64) {
        self.inner
            .read
            .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    }

    /// The bytes read so far.
    pub fn read(&self) -> u64 {
        self.inner.read.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// `Err` once the bytes read reached the budget: no request is sent after that.
    pub fn check(&self) -> Result<(), crate::http::budget::BudgetExhausted> {
        match self.inner.max {
            Some(max) if self.read() >= max => {
                Err(crate::http::budget::BudgetExhausted::Bytes(max))
            }
            _ => Ok(()),
        }
    }
}

/// Bytes reserved from a [`MemoryBudget`]; given back on drop.
#[derive(Debug, Default)]
pub(crate) struct Held(Option<OwnedSemaphorePermit>);

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::Full;

    #[tokio::test]
    async fn a_body_within_both_bounds_is_read_and_given_back() {
        let budget = MemoryBudget::new(100);
        let (bytes, held) = budget
            .read(Full::new(Bytes::from(vec![1u8; 60])), 80)
            .await
            .unwrap();
        assert_eq!(bytes.len(), 60);
        assert_eq!(budget.available(), 40);
        // A second body that would pass the shared budget fails at once.
        let second = budget.read(Full::new(Bytes::from(vec![1u8; 60])), 80).await;
        assert!(matches!(second, Err(BodyError::OverBudget)));
        drop(held);
        assert_eq!(budget.available(), 100);
        let over = budget.read(Full::new(Bytes::from(vec![1u8; 90])), 80).await;
        assert!(matches!(over, Err(BodyError::TooLarge)));
        assert_eq!(budget.available(), 100);
    }
}
