//! The usage log: one entry per charge the mock made (new-api's consume log, model/log.go
//! `LogTypeConsume`), and one per task refund (`LogTypeRefund`), newest last, at most
//! [`CAPACITY`] (the oldest go first: memory stays flat). A charge given back before its answer
//! (a request that failed after it was charged) takes its entry back, as new-api writes the
//! consume log only once a request has succeeded. `/api/log/self`, `/api/log/self/stat` and
//! `/api/data/self` read it. It is not part of the state dump: a loaded state starts with an
//! empty log, and [`UsageLog::clear`] empties it on reset.

use crate::ids::RequestId;
use parking_lot::Mutex;
use std::collections::VecDeque;

/// The most entries kept.
pub(crate) const CAPACITY: usize = 4096;

/// new-api's log type of a consume (model/log.go `LogTypeConsume`).
pub(crate) const TYPE_CONSUME: i64 = 2;
/// new-api's log type of a refund (model/log.go `LogTypeRefund`).
pub(crate) const TYPE_REFUND: i64 = 6;

/// One entry.
#[derive(Debug, Clone)]
pub(crate) struct UsageEntry {
    /// Its id, in the order written (1, 2, ...).
    pub(crate) id: i64,
    /// The account charged.
    pub(crate) user_id: i64,
    /// The key charged.
    pub(crate) key_id: i64,
    /// Unix seconds on the mock's clock.
    pub(crate) created_at: i64,
    /// [`TYPE_CONSUME`] or [`TYPE_REFUND`].
    pub(crate) kind: i64,
    /// The catalog index of the model priced (`None`: not in the catalog); the catalog never
    /// changes, so the name is read from it when the log is.
    pub(crate) model: Option<usize>,
    /// The quota charged or given back.
    pub(crate) quota: i64,
    /// The request's id (consumes only).
    pub(crate) request_id: Option<RequestId>,
}

/// The log.
#[derive(Debug, Default)]
pub(crate) struct UsageLog {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    next_id: i64,
    entries: VecDeque<UsageEntry>,
}

impl UsageLog {
    /// Writes `entry` (its id is set here) and returns its id.
    pub(crate) fn push(&self, mut entry: UsageEntry) -> i64 {
        let mut inner = self.inner.lock();
        inner.next_id += 1;
        entry.id = inner.next_id;
        if inner.entries.len() >= CAPACITY {
            inner.entries.pop_front();
        }
        inner.entries.push_back(entry);
        inner.next_id
    }

    /// Takes back entry `id` (a charge given back before its answer).
    pub(crate) fn remove(&self, id: i64) {
        let mut inner = self.inner.lock();
        // The entry is among the newest: search from the back.
        if let Some(at) = inner.entries.iter().rposition(|e| e.id == id) {
            inner.entries.remove(at);
        }
    }

    /// The entries of account `user_id` that `keep` keeps, newest first.
    pub(crate) fn of_user(
        &self,
        user_id: i64,
        keep: impl Fn(&UsageEntry) -> bool,
    ) -> Vec<UsageEntry> {
        self.inner
            .lock()
            .entries
            .iter()
            .rev()
            .filter(|e| e.user_id == user_id && keep(e))
            .cloned()
            .collect()
    }

    /// Empties the log.
    pub(crate) fn clear(&self) {
        let mut inner = self.inner.lock();
        inner.entries.clear();
        inner.next_id = 0;
    }
}
