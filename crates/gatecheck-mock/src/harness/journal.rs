//! The request journal: a bounded ring buffer of what the mock served.

use crate::ids::RequestId;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

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
    /// The key id that authenticated the request, or else the key an `/api/token/` request
    /// reads or writes (its id), if any.
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
    /// On a replaying mock: `matched` (answered from the recording) or `unmatched` (the
    /// recording holds no such request).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<String>,
}

/// How a replaying mock answered a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tag {
    /// From the recording.
    Matched,
    /// Not in the recording.
    Unmatched,
}

impl Tag {
    fn as_str(self) -> &'static str {
        match self {
            Tag::Matched => "matched",
            Tag::Unmatched => "unmatched",
        }
    }
}

/// One served request, as the server hands it to [`Journal::push`]: borrowed from the
/// request (the journal copies what it keeps into buffers it reuses).
#[derive(Debug)]
pub(crate) struct Record<'a> {
    pub(crate) at_ms: i64,
    pub(crate) request_id: RequestId,
    pub(crate) method: http::Method,
    /// The path (the journal keeps at most [`MAX_TEXT`] bytes of it).
    pub(crate) path: &'a str,
    /// The raw query, if any (at most [`MAX_TEXT`] bytes kept).
    pub(crate) query: Option<&'a str>,
    pub(crate) client_ip: std::net::IpAddr,
    pub(crate) key_id: Option<i64>,
    pub(crate) status: u16,
    pub(crate) duration_us: u64,
    pub(crate) fault: Option<String>,
    pub(crate) body_len: Option<usize>,
    /// The start of a textual body (kept as lossy UTF-8).
    pub(crate) body: Option<bytes::Bytes>,
}

/// The longest path or query the journal keeps (so its memory stays bounded).
const MAX_TEXT: usize = 1024;

/// `s` cut to at most [`MAX_TEXT`] bytes, on a character boundary.
fn clip(s: &str) -> &str {
    if s.len() <= MAX_TEXT {
        return s;
    }
    let mut end = MAX_TEXT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// A [`Record`] as the journal keeps it: the request id and method held without allocating,
/// and string buffers that the next record written into the same slot reuses (each is
/// bounded: [`MAX_TEXT`] for the path and the query, the body preview by its reader).
#[derive(Debug)]
struct Stored {
    at_ms: i64,
    request_id: RequestId,
    method: http::Method,
    path: String,
    query: Option<String>,
    client_ip: std::net::IpAddr,
    key_id: Option<i64>,
    status: u16,
    duration_us: u64,
    fault: Option<String>,
    body_len: Option<usize>,
    body: Option<String>,
    replay: Option<Tag>,
}

/// `text` into `slot`, reusing the buffer the slot already has.
fn put(slot: &mut Option<String>, text: Option<&str>) {
    match (slot.as_mut(), text) {
        (Some(buf), Some(t)) => {
            buf.clear();
            buf.push_str(t);
        }
        (None, Some(t)) => *slot = Some(t.to_owned()),
        (_, None) => *slot = None,
    }
}

/// Lossy UTF-8 of `bytes` into `slot` (the common valid case without a second copy).
fn put_lossy(slot: &mut Option<String>, bytes: Option<&[u8]>) {
    match bytes.map(std::str::from_utf8) {
        None => *slot = None,
        Some(Ok(text)) => put(slot, Some(text)),
        Some(Err(_)) => put(slot, bytes.map(String::from_utf8_lossy).as_deref()),
    }
}

impl Stored {
    fn new(r: Record<'_>) -> Self {
        let mut stored = Self {
            at_ms: 0,
            request_id: r.request_id,
            method: http::Method::GET,
            path: String::new(),
            query: None,
            client_ip: r.client_ip,
            key_id: None,
            status: 0,
            duration_us: 0,
            fault: None,
            body_len: None,
            body: None,
            replay: None,
        };
        stored.fill(r);
        stored
    }

    /// Overwrites this slot with `r`.
    fn fill(&mut self, r: Record<'_>) {
        self.at_ms = r.at_ms;
        self.request_id = r.request_id;
        self.method = r.method;
        self.path.clear();
        self.path.push_str(clip(r.path));
        put(&mut self.query, r.query.map(clip));
        self.client_ip = r.client_ip;
        self.key_id = r.key_id;
        self.status = r.status;
        self.duration_us = r.duration_us;
        self.fault = r.fault;
        self.body_len = r.body_len;
        put_lossy(&mut self.body, r.body.as_deref());
        self.replay = None;
    }

    fn entry(&self, seq: u64) -> JournalEntry {
        JournalEntry {
            seq,
            at_ms: self.at_ms,
            request_id: self.request_id.as_str().to_owned(),
            method: self.method.as_str().to_owned(),
            path: self.path.clone(),
            // URL credentials in a query or a body (a callback_url) are never shown.
            query: self
                .query
                .as_deref()
                .map(|q| crate::userinfo::redact(q).into_owned()),
            client_ip: self.client_ip,
            key_id: self.key_id,
            status: self.status,
            duration_us: self.duration_us,
            fault: self.fault.clone(),
            body_len: self.body_len,
            body: self
                .body
                .as_deref()
                .map(|b| crate::userinfo::redact(b).into_owned()),
            replay: self.replay.map(|t| t.as_str().to_owned()),
        }
    }
}

/// A bounded journal; pushing is O(1) under a short lock, and once the journal is full a
/// push allocates nothing for paths, queries and body previews that fit the buffers of the
/// slot it overwrites.
#[derive(Debug)]
pub struct Journal {
    capacity: usize,
    inner: Mutex<JournalInner>,
}

#[derive(Debug)]
struct JournalInner {
    /// A ring of records with their sequence numbers: the oldest is at `head` (0 until the
    /// ring is full), the newest just before it.
    slots: Vec<(u64, Stored)>,
    head: usize,
    next_seq: u64,
}

impl JournalInner {
    /// Oldest first.
    fn iter(&self) -> impl Iterator<Item = &(u64, Stored)> {
        self.slots[self.head..]
            .iter()
            .chain(self.slots[..self.head].iter())
    }
}

impl Journal {
    /// A journal holding at most `capacity` entries (at least 1).
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Self {
            capacity,
            inner: Mutex::new(JournalInner {
                // Grown as requests come: a fresh mock allocates (and touches) next to nothing.
                slots: Vec::new(),
                head: 0,
                next_seq: 1,
            }),
        }
    }

    /// The most entries kept.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Records a request (its sequence number is assigned here), overwriting the oldest when
    /// full.
    pub(crate) fn push(&self, record: Record<'_>) {
        let mut inner = self.inner.lock();
        let seq = inner.next_seq;
        inner.next_seq += 1;
        if inner.slots.len() < self.capacity {
            inner.slots.push((seq, Stored::new(record)));
        } else {
            let head = inner.head;
            let slot = &mut inner.slots[head];
            slot.0 = seq;
            slot.1.fill(record);
            inner.head = (head + 1) % self.capacity;
        }
    }

    /// Records a request a replaying mock answered itself, marked with how.
    pub(crate) fn push_tagged(&self, record: Record<'_>, tag: Tag) {
        let mut inner = self.inner.lock();
        let seq = inner.next_seq;
        inner.next_seq += 1;
        let mut stored = Stored::new(record);
        stored.replay = Some(tag);
        if inner.slots.len() < self.capacity {
            inner.slots.push((seq, stored));
        } else {
            let head = inner.head;
            inner.slots[head] = (seq, stored);
            inner.head = (head + 1) % self.capacity;
        }
    }

    /// Marks the newest entry with request id `id` (a request the replay relayed to the mock).
    pub(crate) fn tag(&self, id: &str, tag: Tag) {
        let mut inner = self.inner.lock();
        let head = inner.head;
        let n = inner.slots.len();
        for k in (0..n).rev() {
            let i = (head + k) % n;
            let slot = &mut inner.slots[i].1;
            if slot.request_id.as_str() == id {
                slot.replay = Some(tag);
                return;
            }
        }
    }

    /// The last `limit` entries (all when `None`), oldest first.
    pub fn recent(&self, limit: Option<usize>) -> Vec<JournalEntry> {
        let inner = self.inner.lock();
        let n = limit.unwrap_or(usize::MAX).min(inner.slots.len());
        inner
            .iter()
            .skip(inner.slots.len() - n)
            .map(|(seq, record)| record.entry(*seq))
            .collect()
    }

    /// Number of entries held.
    pub fn len(&self) -> usize {
        self.inner.lock().slots.len()
    }

    /// Total requests recorded over the mock's life.
    pub fn total(&self) -> u64 {
        self.inner.lock().next_seq - 1
    }

    /// Forgets every entry.
    pub fn clear(&self) {
        let mut inner = self.inner.lock();
        inner.slots.clear();
        inner.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{IpAddr, Ipv4Addr};

    fn record<'a>(ids: &crate::ids::Ids, path: &'a str, body: Option<&'static [u8]>) -> Record<'a> {
        Record {
            at_ms: 1,
            request_id: ids.request_id(1),
            method: http::Method::PUT,
            path,
            query: path.len().is_multiple_of(2).then_some("a=1"),
            client_ip: IpAddr::V4(Ipv4Addr::LOCALHOST),
            key_id: None,
            status: 200,
            duration_us: 3,
            fault: None,
            body_len: body.map(<[u8]>::len),
            body: body.map(bytes::Bytes::from_static),
        }
    }

    /// Past its capacity the ring keeps the newest entries, oldest first, with their own
    /// fields (a reused slot keeps nothing of the record it held).
    #[test]
    fn a_full_journal_keeps_the_newest_in_order() {
        let ids = crate::ids::Ids::new(1);
        let journal = Journal::new(3);
        let paths: Vec<String> = (0..8).map(|i| format!("/p/{}", "x".repeat(i))).collect();
        for (i, p) in paths.iter().enumerate() {
            let body: Option<&'static [u8]> = (i % 3 == 0).then_some(b"{\"a\":1}");
            journal.push(record(&ids, p, body));
            let held = journal.recent(None);
            assert_eq!(held.len(), (i + 1).min(3));
            let want: Vec<&str> = paths[..=i]
                .iter()
                .rev()
                .take(3)
                .rev()
                .map(String::as_str)
                .collect();
            let got: Vec<&str> = held.iter().map(|e| e.path.as_str()).collect();
            assert_eq!(got, want);
            let last = held.last().expect("newest");
            assert_eq!(last.seq, i as u64 + 1);
            assert_eq!(last.query.is_some(), p.len() % 2 == 0);
            assert_eq!(last.body.as_deref(), body.map(|_| "{\"a\":1}"));
        }
        assert_eq!(journal.total(), 8);
        assert_eq!(journal.recent(Some(2)).len(), 2);
        journal.clear();
        assert_eq!(journal.len(), 0);
        journal.push(record(&ids, "/after", None));
        assert_eq!(journal.recent(None)[0].path, "/after");
    }

    /// Paths and queries are cut at a character boundary; a body preview that is not UTF-8 is
    /// kept lossily.
    #[test]
    fn long_text_is_clipped_and_bad_utf8_is_lossy() {
        let ids = crate::ids::Ids::new(1);
        let journal = Journal::new(2);
        let long = format!("/{}", "é".repeat(MAX_TEXT));
        let mut r = record(&ids, &long, Some(b"ok \xff end"));
        r.query = Some(&long);
        journal.push(r);
        let e = &journal.recent(None)[0];
        assert!(e.path.len() <= MAX_TEXT && long.starts_with(&e.path));
        assert_eq!(e.query.as_deref(), Some(e.path.as_str()));
        assert_eq!(e.body.as_deref(), Some("ok \u{fffd} end"));
    }
}
