//! The recording format, version 2, shared by the recorder (`gatecheck-conformance`) and the
//! replay (this crate's [`crate::replay`]) (docs/recording.md): a directory with `manifest.json` and
//! `exchanges/NNNNN-METHOD-path.json`, one readable JSON file per exchange.
//!
//! What is stored is normalized so that the same request matches on replay: secrets become
//! placeholders (`{{NAME}}`, `{{NAME:base64-colon}}`, ...), a multipart body is stored as its
//! parts (its boundary is not kept), Unix times in JSON request fields named `*_time`/`*_at`
//! become `{{UNIX_TIME}}`, and request bodies larger than a limit are stored as a length and a
//! digest.

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The version written in `manifest.json`; a recording of another version is refused.
pub const FORMAT_VERSION: u32 = 2;

/// The placeholder of the recorder's own base URL in recorded responses; the replay server
/// puts its own base URL there.
pub const BASE_URL_PLACEHOLDER: &str = "{{BASE_URL}}";

/// The placeholder of a Unix time in a JSON request field (`expired_time`, `created_at`).
pub const UNIX_TIME_PLACEHOLDER: &str = "{{UNIX_TIME}}";

/// Request bodies (and multipart parts) larger than this are stored as a length and a digest.
pub const DEFAULT_BODY_LIMIT: usize = 256 << 10;

/// Secrets shorter than this are not searched for (they would match ordinary text).
const MIN_SECRET_LEN: usize = 8;

/// What can go wrong reading or writing a recording.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A file is not what the format says.
    #[error("{path}: not a recording file of format {FORMAT_VERSION}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The manifest names another format version.
    #[error(
        "{path}: recording format version {found}, this gatecheck reads version {FORMAT_VERSION} \
         only: record it again"
    )]
    Version {
        /// The manifest.
        path: PathBuf,
        /// The version it names.
        found: u64,
    },
    /// The recorder or the replay server could not start.
    #[error("{0}")]
    Start(String),
}

/// A [`RecordingError::Io`] naming `path`.
pub fn io_error(path: &Path, source: std::io::Error) -> RecordingError {
    RecordingError::Io {
        path: path.to_owned(),
        source,
    }
}

/// What was recorded, and how (`manifest.json`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// The recorded target.
    pub target: TargetInfo,
    /// When the recording started, RFC 3339 (UTC).
    pub recorded_at: String,
    /// The version of gatecheck that recorded it.
    pub gatecheck_version: String,
    /// How it was recorded: `proxy` (between a client and the target).
    pub mode: String,
    /// The names of the secrets replaced by placeholders (never their values).
    pub secrets: Vec<String>,
    /// What the recorded client ran (for a gatecheck run: its seed and flags), as given to
    /// the recorder.
    #[serde(default)]
    pub run: Value,
    /// The profile the recording ran under (`documented`, `new-api`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Exchanges recorded (`None` while the recorder runs).
    pub exchanges: Option<u64>,
}

/// The recorded target.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct TargetInfo {
    /// Its kind (`litellm`, `new-api`, `gatecheck-mock`, ...).
    pub kind: String,
    /// Its name and version (`litellm 1.108.5`).
    pub name: String,
}

/// One exchange (`exchanges/NNNNN-METHOD-path.json`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RecordedExchange {
    /// Order of arrival at the recorder, from 1.
    pub seq: u64,
    /// The request, normalized.
    pub request: RecordedRequest,
    /// The target's answer.
    pub response: RecordedResponse,
    /// Time the target took, milliseconds.
    pub elapsed_ms: u64,
    /// When the request arrived, milliseconds after the recording started (replays task
    /// states on the clock; absent in recordings made before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_ms: Option<u64>,
}

/// A normalized request.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RecordedRequest {
    /// Method.
    pub method: String,
    /// Path and query.
    pub path: String,
    /// Headers (lowercase names; hop-by-hop, `host`, `content-length`, `user-agent` and
    /// `accept-encoding` left out).
    pub headers: BTreeMap<String, String>,
    /// The body.
    pub body: RecordedBody,
    /// The Unix times the body carried where it now says `{{UNIX_TIME}}`, in order (not
    /// matched on: the replay writes the client's own times where the answer echoes these).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub times: Vec<i64>,
}

/// A recorded response.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RecordedResponse {
    /// Status.
    pub status: u16,
    /// Headers in order, `[name, value]` (hop-by-hop, `content-length` and `date` left out).
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: RecordedBody,
}

/// A body, stored in its most readable exact form.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RecordedBody {
    /// No body.
    Empty,
    /// JSON whose compact serialization is the body (requests: after normalization).
    Json {
        /// The value.
        json: Value,
    },
    /// UTF-8 text.
    Text {
        /// The text.
        text: String,
    },
    /// Any other bytes.
    Base64 {
        /// Standard base64.
        base64: String,
    },
    /// A `multipart/form-data` request body, part by part (the boundary is not kept).
    Multipart {
        /// The parts in order.
        parts: Vec<RecordedPart>,
    },
    /// A request body (or part) over the size limit: its length and FNV-1a 64 digest.
    Digest {
        /// Length in bytes.
        len: u64,
        /// FNV-1a 64 of the bytes, hex.
        fnv1a64: String,
    },
}

/// One part of a multipart body.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RecordedPart {
    /// Field name.
    pub name: String,
    /// File name, for file parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// Content type, for file parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// The data.
    pub data: RecordedBody,
}

impl RecordedBody {
    /// The bytes of a body stored whole (`None` for a digest or multipart body).
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        match self {
            RecordedBody::Empty => Some(Vec::new()),
            RecordedBody::Json { json } => serde_json::to_vec(json).ok(),
            RecordedBody::Text { text } => Some(text.clone().into_bytes()),
            RecordedBody::Base64 { base64 } => base64::engine::general_purpose::STANDARD
                .decode(base64)
                .ok(),
            RecordedBody::Multipart { .. } | RecordedBody::Digest { .. } => None,
        }
    }

    /// A one-line summary, at most `max` characters.
    pub fn summary(&self, max: usize) -> String {
        let text = serde_json::to_string(self).unwrap_or_default();
        if text.chars().count() <= max {
            return text;
        }
        let cut: String = text.chars().take(max).collect();
        format!("{cut}… ({} chars in all)", text.chars().count())
    }
}

/// FNV-1a 64 (a digest for matching, not for security).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Secrets and the placeholders they become, in every form a client or a target may write them.
#[derive(Debug, Clone, Default)]
pub struct Substitutions {
    /// `(needle, placeholder)`, longest needle first.
    pairs: Vec<(Vec<u8>, String)>,
    names: Vec<String>,
}

impl Substitutions {
    /// The forms of secret `value` named `name`: raw (`{{NAME}}`); without an `sk-` prefix
    /// (`{{NAME:bare}}`); base64 (standard and URL-safe, padded or not) of `value:` and of
    /// `value` (`{{NAME:base64-colon}}`, `{{NAME:base64}}`), and of the other spelling (with
    /// `sk-` added or removed: `{{NAME:other-base64-colon}}`, `{{NAME:other-base64}}`); percent-encoded (`{{NAME:pct}}`);
    /// JSON-escaped (`{{NAME:json}}`). Forms equal to another are listed once.
    pub fn forms(name: &str, value: &str) -> Vec<(String, String)> {
        use base64::engine::general_purpose::{
            STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD,
        };
        let mut out: Vec<(String, String)> = vec![(value.to_owned(), format!("{{{{{name}}}}}"))];
        if let Some(bare) = value.strip_prefix("sk-") {
            out.push((bare.to_owned(), format!("{{{{{name}:bare}}}}")));
        }
        // A key is sent with and without its `sk-` prefix: the base64 forms of the other
        // spelling too (`Basic` of `sk-KEY:` when the secret is the bare key, and back).
        let other = match value.strip_prefix("sk-") {
            Some(bare) => bare.to_owned(),
            None => format!("sk-{value}"),
        };
        for (input, label) in [
            (format!("{value}:"), "base64-colon"),
            (value.to_owned(), "base64"),
            (format!("{other}:"), "other-base64-colon"),
            (other.clone(), "other-base64"),
        ] {
            for engine in [STANDARD, URL_SAFE, STANDARD_NO_PAD, URL_SAFE_NO_PAD] {
                out.push((engine.encode(&input), format!("{{{{{name}:{label}}}}}")));
            }
        }
        let pct: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
        out.push((pct, format!("{{{{{name}:pct}}}}")));
        let json = serde_json::to_string(value).unwrap_or_default();
        out.push((
            json.trim_matches('"').to_owned(),
            format!("{{{{{name}:json}}}}"),
        ));
        let mut seen = std::collections::HashSet::new();
        out.retain(|(needle, _)| needle.len() >= MIN_SECRET_LEN && seen.insert(needle.clone()));
        out
    }

    /// Adds secret `value` as `name`, in every form of [`Substitutions::forms`].
    pub fn add_secret(&mut self, name: &str, value: &str) {
        for (needle, placeholder) in Self::forms(name, value) {
            self.pairs.push((needle.into_bytes(), placeholder));
        }
        self.names.push(name.to_owned());
        self.sort();
    }

    /// Adds one literal replacement (a URL that changes from run to run).
    pub fn add_literal(&mut self, needle: &str, placeholder: &str) {
        if !needle.is_empty() {
            self.pairs
                .push((needle.as_bytes().to_vec(), placeholder.to_owned()));
            self.sort();
        }
    }

    fn sort(&mut self) {
        self.pairs.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
    }

    /// The names of the secrets added.
    pub fn secret_names(&self) -> &[String] {
        &self.names
    }

    /// `bytes` with every needle replaced by its placeholder.
    pub fn apply(&self, bytes: &[u8]) -> Vec<u8> {
        let mut out = bytes.to_vec();
        for (needle, placeholder) in &self.pairs {
            if contains(&out, needle) {
                out = replace(&out, needle, placeholder.as_bytes());
            }
        }
        out
    }

    /// `text` with every needle replaced by its placeholder.
    pub fn apply_str(&self, text: &str) -> String {
        String::from_utf8_lossy(&self.apply(text.as_bytes())).into_owned()
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    find(haystack, needle, 0).is_some()
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if needle.is_empty() || haystack.len() < needle.len() {
        return None;
    }
    (from..=haystack.len() - needle.len())
        .find(|&i| haystack[i] == needle[0] && &haystack[i..i + needle.len()] == needle)
}

/// `haystack` with every `needle` replaced by `with`.
pub fn replace(haystack: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut at = 0;
    while let Some(i) = find(haystack, needle, at) {
        out.extend_from_slice(&haystack[at..i]);
        out.extend_from_slice(with);
        at = i + needle.len();
    }
    out.extend_from_slice(&haystack[at..]);
    out
}

/// Encodes a body in its most readable exact form, with `subs` applied: JSON when its compact
/// serialization is the body, else text, else base64. `limit`: bodies over it become a
/// [`RecordedBody::Digest`] of the bytes as sent (requests). `multipart`: parse
/// `multipart/form-data` into parts (requests).
pub fn encode_body(
    content_type: Option<&str>,
    bytes: &[u8],
    limit: Option<usize>,
    multipart: bool,
    subs: &Substitutions,
) -> RecordedBody {
    if bytes.is_empty() {
        return RecordedBody::Empty;
    }
    if let Some(boundary) = content_type
        .filter(|_| multipart)
        .and_then(multipart_boundary)
    {
        if let Some(parts) = parse_multipart(bytes, &boundary, limit, subs) {
            return RecordedBody::Multipart { parts };
        }
    }
    if limit.is_some_and(|l| bytes.len() > l) {
        return RecordedBody::Digest {
            len: bytes.len() as u64,
            fnv1a64: format!("{:016x}", fnv1a64(bytes)),
        };
    }
    let bytes = &subs.apply(bytes)[..];
    if let Ok(json) = serde_json::from_slice::<Value>(bytes) {
        if serde_json::to_vec(&json).is_ok_and(|v| v == bytes) {
            return RecordedBody::Json { json };
        }
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => RecordedBody::Text {
            text: text.to_owned(),
        },
        Err(_) => RecordedBody::Base64 {
            base64: base64::engine::general_purpose::STANDARD.encode(bytes),
        },
    }
}

/// The `boundary` parameter of a `multipart/form-data` content type.
pub fn multipart_boundary(content_type: &str) -> Option<String> {
    let mut params = content_type.split(';');
    let media = params.next()?.trim();
    if !media.eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    params.find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| v.trim().trim_matches('"').to_owned())
    })
}

/// The parts of a multipart body, or `None` when it does not parse.
fn parse_multipart(
    body: &[u8],
    boundary: &str,
    limit: Option<usize>,
    subs: &Substitutions,
) -> Option<Vec<RecordedPart>> {
    let delimiter = format!("--{boundary}").into_bytes();
    let mut at = find(body, &delimiter, 0)? + delimiter.len();
    let mut parts = Vec::new();
    loop {
        if body.get(at..at + 2) == Some(b"--") {
            return Some(parts);
        }
        at += 2; // CRLF after the delimiter
        let head_end = find(body, b"\r\n\r\n", at)?;
        let head = std::str::from_utf8(body.get(at..head_end)?).ok()?;
        let data_start = head_end + 4;
        let next = find(body, &[b"\r\n".as_slice(), &delimiter].concat(), data_start)?;
        parts.push(part(head, &body[data_start..next], limit, subs)?);
        at = next + 2 + delimiter.len();
    }
}

fn part(
    head: &str,
    data: &[u8],
    limit: Option<usize>,
    subs: &Substitutions,
) -> Option<RecordedPart> {
    let mut name = None;
    let mut filename = None;
    let mut content_type = None;
    for line in head.split("\r\n") {
        let (k, v) = line.split_once(':')?;
        if k.trim().eq_ignore_ascii_case("content-type") {
            content_type = Some(v.trim().to_owned());
        } else if k.trim().eq_ignore_ascii_case("content-disposition") {
            for p in v.split(';').skip(1) {
                if let Some((pk, pv)) = p.split_once('=') {
                    let pv = pv.trim().trim_matches('"').to_owned();
                    match pk.trim() {
                        "name" => name = Some(pv),
                        "filename" => filename = Some(pv),
                        _ => {}
                    }
                }
            }
        }
    }
    Some(RecordedPart {
        name: subs.apply_str(&name?),
        filename: filename.map(|f| subs.apply_str(&f)),
        data: encode_body(content_type.as_deref(), data, limit, false, subs),
        content_type,
    })
}

/// The placeholder of a signature in a signed media URL's query (URL-safe: a client may
/// follow the recorded URL, and the replay matches it).
pub const SIGNED_PLACEHOLDER: &str = "REDACTED-SIGNATURE";

/// Query parameters that sign a media URL (S3, GCS, Azure, CloudFront, generic), matched
/// without regard to case: their values become [`SIGNED_PLACEHOLDER`].
const SIGNING_PARAMS: [&str; 12] = [
    "x-amz-signature",
    "x-amz-credential",
    "x-amz-security-token",
    "x-goog-signature",
    "x-goog-credential",
    "signature",
    "sig",
    "token",
    "access_token",
    "key-pair-id",
    "policy",
    "auth_key",
];

/// `bytes` with the values of signing query parameters (`?X-Amz-Signature=...`, `&sig=...`)
/// replaced by [`SIGNED_PLACEHOLDER`]: a parameter counts after `?` or `&` and ends at `&`,
/// `"`, `'`, `#`, `\`, `<`, whitespace or the end.
pub fn redact_signed_urls(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        out.push(b);
        i += 1;
        if b != b'?' && b != b'&' {
            continue;
        }
        let Some(name) = SIGNING_PARAMS.iter().find(|p| {
            let end = i + p.len();
            bytes.len() > end
                && bytes[end] == b'='
                && bytes[i..end].eq_ignore_ascii_case(p.as_bytes())
        }) else {
            continue;
        };
        let value_start = i + name.len() + 1;
        let value_end = bytes[value_start..]
            .iter()
            .position(|c| b"&\"'#\\<".contains(c) || c.is_ascii_whitespace())
            .map_or(bytes.len(), |n| value_start + n);
        if value_end > value_start {
            out.extend_from_slice(&bytes[i..value_start]);
            out.extend_from_slice(SIGNED_PLACEHOLDER.as_bytes());
            i = value_end;
        }
    }
    out
}

/// Whether a JSON field `key` holding `v` is a Unix time: an integer from 10^9 to 10^10 in a
/// field named `time`, `*_time` or `*_at`.
fn unix_time(key: &str, v: &Value) -> Option<i64> {
    let timey = key == "time" || key.ends_with("_time") || key.ends_with("_at");
    v.as_i64()
        .filter(|n| timey && (1_000_000_000..10_000_000_000).contains(n))
}

/// Replaces Unix times (integers from 10^9 to 10^10) in JSON fields named `*_time`, `*_at`
/// or `time` by [`UNIX_TIME_PLACEHOLDER`], at any depth.
pub fn normalize_times(value: &mut Value) {
    normalize_times_into(value, &mut Vec::new());
}

/// [`normalize_times`], collecting the times replaced, in order.
pub fn normalize_times_into(value: &mut Value, times: &mut Vec<i64>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                if let Some(t) = unix_time(k, v) {
                    times.push(t);
                    *v = Value::String(UNIX_TIME_PLACEHOLDER.into());
                } else {
                    normalize_times_into(v, times);
                }
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| normalize_times_into(v, times)),
        _ => {}
    }
}

/// Writes the client's times where an answer echoes the recorded request's: each Unix-time
/// field of `value` equal to a recorded time `pairs[i].0` becomes `pairs[i].1`. Whether
/// anything changed.
pub fn echo_times(value: &mut Value, pairs: &[(i64, i64)]) -> bool {
    let mut changed = false;
    match value {
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                if let Some(t) = unix_time(k, v) {
                    if let Some((_, new)) = pairs.iter().find(|(old, new)| *old == t && old != new)
                    {
                        *v = Value::from(*new);
                        changed = true;
                    }
                } else {
                    changed |= echo_times(v, pairs);
                }
            }
        }
        Value::Array(items) => {
            for v in items {
                changed |= echo_times(v, pairs);
            }
        }
        _ => {}
    }
    changed
}

/// Request headers that are not recorded (hop-by-hop, or set by the transport).
const SKIPPED_REQUEST_HEADERS: [&str; 13] = [
    "host",
    "content-length",
    "user-agent",
    "accept-encoding",
    "connection",
    "keep-alive",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "expect",
];

/// Response headers that are not recorded.
pub const SKIPPED_RESPONSE_HEADERS: [&str; 7] = [
    "content-length",
    "date",
    "connection",
    "keep-alive",
    "transfer-encoding",
    "trailer",
    "upgrade",
];

/// Normalizes a request for storing and matching: secrets to placeholders (in the path, the
/// headers and the body), the multipart boundary dropped, Unix times in JSON fields replaced.
pub fn normalize_request(
    method: &str,
    path: &str,
    headers: &http::HeaderMap,
    body: &[u8],
    subs: &Substitutions,
    limit: usize,
) -> RecordedRequest {
    let mut out = BTreeMap::new();
    for (name, value) in headers {
        let name = name.as_str().to_ascii_lowercase();
        if SKIPPED_REQUEST_HEADERS.contains(&name.as_str()) {
            continue;
        }
        let mut value = subs.apply_str(&String::from_utf8_lossy(value.as_bytes()));
        if name == "content-type" && multipart_boundary(&value).is_some() {
            value = "multipart/form-data; boundary={{BOUNDARY}}".into();
        }
        out.entry(name)
            .and_modify(|v: &mut String| {
                v.push_str(", ");
                v.push_str(&value);
            })
            .or_insert(value);
    }
    let content_type = headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    let mut body = encode_body(content_type, body, Some(limit), true, subs);
    let mut times = Vec::new();
    if let RecordedBody::Json { json } = &mut body {
        normalize_times_into(json, &mut times);
    }
    RecordedRequest {
        method: method.to_owned(),
        path: subs.apply_str(&String::from_utf8_lossy(&redact_signed_urls(
            path.as_bytes(),
        ))),
        headers: out,
        body,
        times,
    }
}

/// What a request is matched on: method, path and query, `Authorization`, body.
pub fn match_key(req: &RecordedRequest) -> String {
    format!(
        "{} {}\n{}\n{}",
        req.method,
        req.path,
        req.headers
            .get("authorization")
            .map(String::as_str)
            .unwrap_or(""),
        serde_json::to_string(&req.body).unwrap_or_default()
    )
}

/// The file name of an exchange: `00042-POST-v1-videos.json`.
pub fn exchange_file_name(seq: u64, method: &str, path: &str) -> String {
    let path = path.split('?').next().unwrap_or_default();
    let mut slug: String = path
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    slug = slug.trim_matches('-').to_owned();
    while slug.contains("--") {
        slug = slug.replace("--", "-");
    }
    slug.truncate(60);
    format!("{seq:05}-{method}-{slug}.json")
}

/// The current time as RFC 3339 UTC (`2025-11-25T08:20:00Z`).
pub fn rfc3339_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (y, m, d, h, mi, sec) = gatecheck_schemas::rules::time::utc_parts(secs);
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{sec:02}Z")
}

/// Writes `value` as pretty JSON to `path` (through a temporary file, so it appears whole).
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), RecordingError> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| RecordingError::Invalid {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    text.push('\n');
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text).map_err(|e| io_error(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| io_error(path, e))
}

/// A recording read from its directory.
#[derive(Debug, Clone)]
pub struct Recording {
    /// Its manifest.
    pub manifest: Manifest,
    /// Its exchanges, in `seq` order.
    pub exchanges: Vec<RecordedExchange>,
}

impl Recording {
    /// Reads `dir/manifest.json` and `dir/exchanges/*.json`. A manifest of another format
    /// version is refused ([`RecordingError::Version`]).
    pub fn load(dir: &Path) -> Result<Self, RecordingError> {
        let path = dir.join("manifest.json");
        let text = std::fs::read_to_string(&path).map_err(|e| io_error(&path, e))?;
        let raw: Value = serde_json::from_str(&text).map_err(|e| RecordingError::Invalid {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let found = raw
            .get("format_version")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        if found != u64::from(FORMAT_VERSION) {
            return Err(RecordingError::Version { path, found });
        }
        let manifest: Manifest =
            serde_json::from_value(raw).map_err(|e| RecordingError::Invalid {
                path: path.clone(),
                message: e.to_string(),
            })?;
        let ex_dir = dir.join("exchanges");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&ex_dir)
            .map_err(|e| io_error(&ex_dir, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        let mut exchanges = Vec::with_capacity(files.len());
        for file in files {
            let text = std::fs::read_to_string(&file).map_err(|e| io_error(&file, e))?;
            let ex: RecordedExchange =
                serde_json::from_str(&text).map_err(|e| RecordingError::Invalid {
                    path: file.clone(),
                    message: e.to_string(),
                })?;
            exchanges.push(ex);
        }
        exchanges.sort_by_key(|e| e.seq);
        Ok(Self {
            manifest,
            exchanges,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_of_a_secret_becomes_a_placeholder() {
        let mut subs = Substitutions::default();
        subs.add_secret("API_KEY", "sk-abc123DEF456+/x");
        let b64 = base64::engine::general_purpose::STANDARD.encode("sk-abc123DEF456+/x:");
        let text = format!(
            "Bearer sk-abc123DEF456+/x; Basic {b64}; bare abc123DEF456+/x; q=sk-abc123DEF456%2B%2Fx"
        );
        let out = subs.apply_str(&text);
        assert_eq!(
            out,
            "Bearer {{API_KEY}}; Basic {{API_KEY:base64-colon}}; bare {{API_KEY:bare}}; \
             q={{API_KEY:pct}}"
        );
    }

    #[test]
    fn multipart_bodies_lose_their_boundary() {
        let body = |b: &str| {
            format!(
                "--{b}\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n\
                 --{b}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\n\
                 Content-Type: audio/wav\r\n\r\nRIFF\x01\r\n--{b}--\r\n"
            )
        };
        let enc = |b: &str| {
            encode_body(
                Some(&format!("multipart/form-data; boundary={b}")),
                body(b).as_bytes(),
                Some(1024),
                true,
                &Substitutions::default(),
            )
        };
        let a = enc("xyz");
        assert_eq!(a, enc("other-boundary-123"));
        let RecordedBody::Multipart { parts } = a else {
            panic!("not multipart: {a:?}");
        };
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[1].filename.as_deref(), Some("a.wav"));
    }

    #[test]
    fn json_is_kept_readable_only_when_exact_and_times_are_normalized() {
        assert!(matches!(
            encode_body(None, br#"{"a":1}"#, None, false, &Substitutions::default()),
            RecordedBody::Json { .. }
        ));
        assert!(matches!(
            encode_body(None, br#"{"a": 1}"#, None, false, &Substitutions::default()),
            RecordedBody::Text { .. }
        ));
        let mut v = serde_json::json!({"expired_time": 1_795_593_861_i64, "remain_quota": 1_795_593_861_i64});
        normalize_times(&mut v);
        assert_eq!(v["expired_time"], UNIX_TIME_PLACEHOLDER);
        assert_eq!(v["remain_quota"], 1_795_593_861_i64);
    }

    #[test]
    fn signed_url_signatures_are_replaced() {
        let text = br#"{"url":"https://b.s3.amazonaws.com/v.mp4?X-Amz-Credential=AK%2F1&X-Amz-Signature=abcd&x=1","u2":"http://h/a?sig=zz"}"#;
        let out = String::from_utf8(redact_signed_urls(text)).expect("utf8");
        assert_eq!(
            out,
            r#"{"url":"https://b.s3.amazonaws.com/v.mp4?X-Amz-Credential=REDACTED-SIGNATURE&X-Amz-Signature=REDACTED-SIGNATURE&x=1","u2":"http://h/a?sig=REDACTED-SIGNATURE"}"#
        );
        assert_eq!(redact_signed_urls(b"a?b=1&c"), b"a?b=1&c");
    }

    #[test]
    fn file_names_and_dates() {
        assert_eq!(
            exchange_file_name(7, "GET", "/v1/videos/abc?x=1"),
            "00007-GET-v1-videos-abc.json"
        );
        assert_eq!(rfc3339_now().len(), 20);
    }
}
