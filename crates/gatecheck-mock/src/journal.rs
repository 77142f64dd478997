//! The request journal: a bounded ring buffer of what the mock served.

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// One served request.
///
/// ```
/// # async fn demo() {
/// let server = gatecheck_mock::MockServer::start().await;
/// for entry in server.received_requests() {
///     println!("{} {} {} -> {}", entry.seq, entry.method, entry.path, entry.status);
/// }
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// Sequence number, from 1, over the mock's life (not reset by eviction).
    pub seq: u64,
    /// Mock-clock time the request arrived, Unix milliseconds.
    pub at_ms: i64,
    /// The `X-Oneapi-Request-Id` answered.
    pub request_id: String,
    /// HTTP method.
    pub method: String,
    /// Path, without the query.
    pub path: String,
    /// Raw query string, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// The client IP the mock saw.
    pub client_ip: std::net::IpAddr,
    /// The key id that authenticated the request, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_id: Option<i64>,
    /// The status answered (0 when the connection was reset).
    pub status: u16,
    /// Wall-clock handling time, microseconds.
    pub duration_us: u64,
    /// The fault that shaped the answer, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
    /// Length of the request body, when the route read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_len: Option<usize>,
    /// The first 2 KiB of a JSON, form or text request body (lossy UTF-8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

/// A bounded journal; pushing is O(1) under a short lock.
#[derive(Debug)]
pub struct Journal {
    capacity: usize,
    inner: Mutex<JournalInner>,
}

#[derive(Debug)]
struct JournalInner {
    entries: VecDeque<JournalEntry>,
    next_seq: u64,
}

impl Journal {
    /// A journal holding at most `capacity` entries (at least 1).
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Self {
            capacity,
            inner: Mutex::new(JournalInner {
                // Grown as requests come: a fresh mock allocates (and touches) next to nothing.
                entries: VecDeque::new(),
                next_seq: 1,
            }),
        }
    }

    /// The most entries kept.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Records an entry (its `seq` is assigned here), evicting the oldest when full.
    pub fn push(&self, mut entry: JournalEntry) {
        let mut inner = self.inner.lock();
        entry.seq = inner.next_seq;
        inner.next_seq += 1;
        if inner.entries.len() == self.capacity {
            inner.entries.pop_front();
        }
        inner.entries.push_back(entry);
    }

    /// The last `limit` entries (all when `None`), oldest first.
    pub fn recent(&self, limit: Option<usize>) -> Vec<JournalEntry> {
        let inner = self.inner.lock();
        let n = limit.unwrap_or(usize::MAX).min(inner.entries.len());
        inner
            .entries
            .iter()
            .skip(inner.entries.len() - n)
            .cloned()
            .collect()
    }

    /// Number of entries held.
    pub fn len(&self) -> usize {
        self.inner.lock().entries.len()
    }

    /// Total requests recorded over the mock's life.
    pub fn total(&self) -> u64 {
        self.inner.lock().next_seq - 1
    }

    /// Forgets every entry.
    pub fn clear(&self) {
        self.inner.lock().entries.clear();
    }
}
