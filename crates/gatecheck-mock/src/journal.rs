//! The request journal: a bounded ring buffer of what the mock served.

use crate::ids::RequestId;
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

/// One served request as the journal keeps it: what a [`JournalEntry`] says, with the request
/// id and method held without allocating (the entry's strings are made when it is read).
#[derive(Debug)]
pub(crate) struct Record {
    pub(crate) at_ms: i64,
    pub(crate) request_id: RequestId,
    pub(crate) method: http::Method,
    pub(crate) path: String,
    pub(crate) query: Option<String>,
    pub(crate) client_ip: std::net::IpAddr,
    pub(crate) key_id: Option<i64>,
    pub(crate) status: u16,
    pub(crate) duration_us: u64,
    pub(crate) fault: Option<String>,
    pub(crate) body_len: Option<usize>,
    pub(crate) body: Option<String>,
}

impl Record {
    fn entry(&self, seq: u64) -> JournalEntry {
        JournalEntry {
            seq,
            at_ms: self.at_ms,
            request_id: self.request_id.as_str().to_owned(),
            method: self.method.as_str().to_owned(),
            path: self.path.clone(),
            query: self.query.clone(),
            client_ip: self.client_ip,
            key_id: self.key_id,
            status: self.status,
            duration_us: self.duration_us,
            fault: self.fault.clone(),
            body_len: self.body_len,
            body: self.body.clone(),
        }
    }
}

/// A bounded journal; pushing is O(1) under a short lock.
#[derive(Debug)]
pub struct Journal {
    capacity: usize,
    inner: Mutex<JournalInner>,
}

#[derive(Debug)]
struct JournalInner {
    /// Records with their sequence numbers, oldest first.
    entries: VecDeque<(u64, Record)>,
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

    /// Records a request (its sequence number is assigned here), evicting the oldest when
    /// full. The evicted record is dropped after the lock is released.
    pub(crate) fn push(&self, record: Record) {
        let evicted = {
            let mut inner = self.inner.lock();
            let seq = inner.next_seq;
            inner.next_seq += 1;
            let evicted = if inner.entries.len() == self.capacity {
                inner.entries.pop_front()
            } else {
                None
            };
            inner.entries.push_back((seq, record));
            evicted
        };
        drop(evicted);
    }

    /// The last `limit` entries (all when `None`), oldest first.
    pub fn recent(&self, limit: Option<usize>) -> Vec<JournalEntry> {
        let inner = self.inner.lock();
        let n = limit.unwrap_or(usize::MAX).min(inner.entries.len());
        inner
            .entries
            .iter()
            .skip(inner.entries.len() - n)
            .map(|(seq, record)| record.entry(*seq))
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
