//! The request journal: a bounded ring buffer of what the mock served.

use crate::ids::RequestId;
use gatecheck_codecs::multipart::Rope;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

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
    /// The request's headers by lowercase name (repeated headers joined with `, `), at most
    /// 4 KiB of them. Credentials are redacted: `authorization`, `proxy-authorization`,
    /// `cookie`, `mj-api-secret`, `x-mock-control-token`, `x-api-key`, `api-key` and
    /// `x-goog-api-key` keep only their scheme (`Bearer ***`), and URL credentials in any value
    /// are `***`, as in the query and the body.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// The parts of a `multipart/form-data` body the route read, in order (at most 32): text
    /// parts with their value, file parts by file name, content type and size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<Vec<FormPart>>,
}

/// One part of a multipart request body, as the journal shows it.
///
/// ```
/// use gatecheck_mock::FormPart;
/// let model = FormPart::text("model", b"whisper-1");
/// assert_eq!(model.value.as_deref(), Some("whisper-1"));
/// let file = FormPart::file("file", Some("a.wav"), Some("audio/wav"), 44);
/// assert_eq!((file.size, file.value), (Some(44), None));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormPart {
    /// The part's field name.
    pub name: String,
    /// A text part's value (its first 256 bytes, lossy UTF-8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// A file part's file name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// The part's `Content-Type`, if it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// A file part's size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<usize>,
}

impl FormPart {
    /// A text part.
    pub fn text(name: &str, data: &[u8]) -> Self {
        let end = data.len().min(MAX_FORM_VALUE);
        Self {
            name: clip(name).to_owned(),
            value: Some(String::from_utf8_lossy(&data[..end]).into_owned()),
            filename: None,
            content_type: None,
            size: None,
        }
    }

    /// A file part.
    pub fn file(
        name: &str,
        filename: Option<&str>,
        content_type: Option<&str>,
        size: usize,
    ) -> Self {
        Self {
            name: clip(name).to_owned(),
            value: None,
            filename: filename.map(|f| clip(f).to_owned()),
            content_type: content_type.map(|c| clip(c).to_owned()),
            size: Some(size),
        }
    }

    /// The part as a route read it: a file part when it has a file name (its bytes not read,
    /// or joined from the frames they came in) or its data is not UTF-8, else a text part
    /// (with its content type, when it had one).
    pub(crate) fn of(
        name: &str,
        filename: Option<&str>,
        content_type: Option<&str>,
        data: &Rope,
    ) -> Self {
        if filename.is_some() {
            return Self::file(name, filename, content_type, data.len());
        }
        let bytes = data.prefix(data.len());
        if std::str::from_utf8(&bytes).is_err() {
            return Self::file(name, filename, content_type, data.len());
        }
        let mut part = Self::text(name, &bytes);
        part.content_type = content_type.map(|c| clip(c).to_owned());
        part
    }
}

/// The most parts of one multipart body the journal keeps.
pub const MAX_FORM_PARTS: usize = 32;
/// The most bytes of a text part's value the journal keeps.
pub const MAX_FORM_VALUE: usize = 256;
/// The most bytes of request headers the journal keeps per request (the headers after that
/// are left out).
pub const MAX_HEADERS_TEXT: usize = 4096;

/// Headers whose values are credentials: the journal keeps only their scheme.
pub const SECRET_HEADERS: [&str; 8] = [
    "authorization",
    "proxy-authorization",
    "cookie",
    gatecheck_schemas::rules::midjourney::MJ_SECRET_HEADER,
    // `CONTROL_TOKEN_HEADER` (response/headers.rs, a floor above: tests/it/journal.rs sends it).
    "x-mock-control-token",
    "x-api-key",
    "api-key",
    "x-goog-api-key",
];

/// The request's headers as the journal stores them, written into `out`: one `name: value`
/// line each, at most [`MAX_HEADERS_TEXT`] bytes (the whole lines that fit). Redacted when
/// read ([`JournalEntry::headers`]).
fn write_header_lines(out: &mut String, headers: &http::HeaderMap) {
    out.clear();
    for (name, value) in headers {
        let value = String::from_utf8_lossy(value.as_bytes());
        if out.len() + name.as_str().len() + value.len() + 3 > MAX_HEADERS_TEXT {
            break;
        }
        out.push_str(name.as_str());
        out.push_str(": ");
        out.push_str(&value);
        out.push('\n');
    }
}

/// [`Journal::header_lines`] back into the journal's map, credentials redacted.
fn header_map(lines: &str) -> BTreeMap<String, String> {
    let mut map: BTreeMap<String, String> = BTreeMap::new();
    for line in lines.lines() {
        let Some((name, value)) = line.split_once(": ") else {
            continue;
        };
        let value = if SECRET_HEADERS.contains(&name) {
            redact_credential(value)
        } else {
            crate::userinfo::redact(value).into_owned()
        };
        map.entry(name.to_owned())
            .and_modify(|v| {
                v.push_str(", ");
                v.push_str(&value);
            })
            .or_insert(value);
    }
    map
}

/// A credential's value with only its scheme left: `Bearer ***`, or `***`.
fn redact_credential(value: &str) -> String {
    let redacted = crate::userinfo::REDACTED;
    match value.split_once(' ') {
        Some((scheme, _)) if scheme.chars().all(|c| c.is_ascii_alphabetic()) => {
            format!("{scheme} {redacted}")
        }
        _ => redacted.to_owned(),
    }
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
    /// The journal's generation when the request arrived ([`Journal::generation`]): a record
    /// of an older one (a request in flight across a reset) is not kept.
    pub(crate) generation: u64,
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
    /// The request's headers, from [`Journal::header_lines`] (empty when not recorded).
    pub(crate) headers: String,
    /// The multipart parts the route read.
    pub(crate) form: Option<Vec<FormPart>>,
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
    headers: String,
    form: Option<Vec<FormPart>>,
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
            headers: String::new(),
            form: None,
        };
        stored.fill(r);
        stored
    }

    /// Overwrites this slot with `r`; returns the slot's old header buffer.
    fn fill(&mut self, mut r: Record<'_>) -> String {
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
        // The record's own buffer (made for it) replaces the slot's, which goes back to the
        // spares ([`Journal::header_lines`]): no copy, no allocation once the ring is full.
        std::mem::swap(&mut self.headers, &mut r.headers);
        self.form = r.form;
        r.headers
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
            headers: header_map(&self.headers),
            form: self.form.clone(),
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
    /// How many times the journal was cleared: a request takes it when it arrives, and its
    /// record is kept only if no clear came between ([`Journal::push`]).
    generation: AtomicU64,
}

#[derive(Debug)]
struct JournalInner {
    /// A ring of records with their sequence numbers: the oldest is at `head` (0 until the
    /// ring is full), the newest just before it.
    slots: Vec<(u64, Stored)>,
    head: usize,
    next_seq: u64,
    /// Header buffers of overwritten slots, handed to the next requests
    /// ([`Journal::header_lines`]); at most [`MAX_SPARE_BUFFERS`].
    spare: Vec<String>,
}

/// The most header buffers the journal keeps for reuse (one per request in flight is enough).
const MAX_SPARE_BUFFERS: usize = 256;

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
                spare: Vec::new(),
            }),
            generation: AtomicU64::new(0),
        }
    }

    /// The journal's generation, which [`Journal::clear`] moves on: taken when a request
    /// arrives, into its [`Record`].
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The most entries kept.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The request's headers as the journal stores them ([`JournalEntry::headers`] reads them
    /// back): one `name: value` line each, at most [`MAX_HEADERS_TEXT`] bytes, written into a
    /// buffer of an overwritten slot, so that a full journal allocates nothing for them.
    pub(crate) fn header_lines(&self, headers: &http::HeaderMap) -> String {
        let mut out = self.inner.lock().spare.pop().unwrap_or_default();
        write_header_lines(&mut out, headers);
        out
    }

    /// Records a request (its sequence number is assigned here), overwriting the oldest when
    /// full; a request that arrived before the last [`Journal::clear`] is left out (the
    /// cleared journal holds only what came after).
    pub(crate) fn push(&self, record: Record<'_>) {
        let mut inner = self.inner.lock();
        if self.stale(&record) {
            if inner.spare.len() < MAX_SPARE_BUFFERS {
                inner.spare.push(record.headers);
            }
            return;
        }
        let seq = inner.next_seq;
        inner.next_seq += 1;
        if inner.slots.len() < self.capacity {
            inner.slots.push((seq, Stored::new(record)));
        } else {
            let head = inner.head;
            let slot = &mut inner.slots[head];
            slot.0 = seq;
            let old = slot.1.fill(record);
            inner.head = (head + 1) % self.capacity;
            if inner.spare.len() < MAX_SPARE_BUFFERS {
                inner.spare.push(old);
            }
        }
    }

    /// Records a request a replaying mock answered itself, marked with how.
    pub(crate) fn push_tagged(&self, record: Record<'_>, tag: Tag) {
        let mut inner = self.inner.lock();
        if self.stale(&record) {
            return;
        }
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

    /// Whether `record` is of a request that arrived before the last clear (read under the
    /// lock [`Journal::clear`] moves the generation under).
    fn stale(&self, record: &Record<'_>) -> bool {
        record.generation != self.generation.load(Ordering::Acquire)
    }

    /// Forgets every entry, and the requests in flight: their records are not kept.
    pub fn clear(&self) {
        let mut inner = self.inner.lock();
        inner.slots.clear();
        inner.head = 0;
        self.generation.fetch_add(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{IpAddr, Ipv4Addr};

    fn rope(bytes: &[u8]) -> Rope {
        Rope::from(bytes::Bytes::copy_from_slice(bytes))
    }

    fn record<'a>(ids: &crate::ids::Ids, path: &'a str, body: Option<&'static [u8]>) -> Record<'a> {
        Record {
            generation: 0,
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
            headers: String::new(),
            form: None,
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
        // A request that arrived before the clear (generation 0) is left out, one after it
        // is kept.
        journal.clear();
        assert_eq!(journal.len(), 0);
        journal.push(record(&ids, "/in-flight", None));
        assert_eq!(journal.len(), 0);
        let mut after = record(&ids, "/after", None);
        after.generation = journal.generation();
        journal.push(after);
        assert_eq!(journal.recent(None)[0].path, "/after");
        assert_eq!(journal.total(), 9);
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

    /// Headers are kept by name, repeated ones joined; credentials keep only their scheme,
    /// URL credentials in any value are starred; what passes the bound is left out.
    #[test]
    fn headers_are_kept_with_credentials_redacted() {
        let mut h = http::HeaderMap::new();
        h.insert("authorization", "Bearer sk-secret123".parse().unwrap());
        h.insert("mj-api-secret", "sk-secret123".parse().unwrap());
        h.insert("content-type", "application/json".parse().unwrap());
        h.append("x-multi", "a".parse().unwrap());
        h.append("x-multi", "b".parse().unwrap());
        h.insert("referer", "http://u:pw@h/x".parse().unwrap());
        let ids = crate::ids::Ids::new(1);
        let journal = Journal::new(2);
        let mut r = record(&ids, "/v1/x", None);
        r.headers = journal.header_lines(&h);
        journal.push(r);
        let e = &journal.recent(None)[0];
        assert_eq!(e.headers["authorization"], "Bearer ***");
        assert_eq!(e.headers["mj-api-secret"], "***");
        assert_eq!(e.headers["content-type"], "application/json");
        assert_eq!(e.headers["x-multi"], "a, b");
        assert_eq!(e.headers["referer"], "http://***@h/x");
        let json = serde_json::to_string(e).unwrap();
        assert!(!json.contains("secret123"), "{json}");
        let mut big = http::HeaderMap::new();
        for i in 0..200 {
            let name = http::HeaderName::from_bytes(format!("x-h{i}").as_bytes()).unwrap();
            big.insert(name, "v".repeat(40).parse().unwrap());
        }
        assert!(journal.header_lines(&big).len() <= MAX_HEADERS_TEXT);
    }

    /// A part with a file name (or bytes that are not text) is shown by its size; a text
    /// part by its value, clipped.
    #[test]
    fn form_parts_are_text_or_files() {
        let p = FormPart::of("file", Some("a.wav"), Some("audio/wav"), &rope(b"RIFF"));
        assert_eq!(
            p,
            FormPart::file("file", Some("a.wav"), Some("audio/wav"), 4)
        );
        let p = FormPart::of("blob", None, None, &rope(b"\xff\xfe"));
        assert_eq!(p.size, Some(2));
        let long = vec![b'a'; 1000];
        let p = FormPart::of("prompt", None, None, &rope(&long));
        assert_eq!(p.value.as_deref().map(str::len), Some(MAX_FORM_VALUE));
    }
}
