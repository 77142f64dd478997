//! The recording format, version 2, shared by the recorder
//! (`gatecheck record`, in `gatecheck-conformance`) and the replays (`gatecheck serve --replay`
//! in `gatecheck-mock`, the runner's `ReplayServer`) (docs/recording.md): a directory with
//! `manifest.json` and `exchanges/NNNNN-METHOD-path.json`, one readable JSON file per exchange.
//! The [`Matcher`] finds the recorded answer of a request.
//!
//! Only [`files`] touches the file system (reading a recording inside its folder, atomic
//! writes); the crate does no network I/O and nothing async.
//!
//! What is stored is normalized so that the same request matches on replay: secrets become
//! placeholders (`{{NAME}}`, `{{NAME:base64-colon}}`, ...), a multipart body is stored as its
//! parts (its boundary is not kept), Unix times in JSON request fields named `*_time`/`*_at`
//! become `{{UNIX_TIME}}`, and request bodies larger than a limit are stored as a length and a
//! digest.

mod body;
pub mod files;
mod matcher;
mod normalize;
mod redact;

pub use body::{encode_body, multipart_boundary};
pub use matcher::{times_fit, Gate, Matcher, Unmatched, TIME_SLACK_SECS};
pub use normalize::{
    echo_times, echo_times_text, match_key, normalize_request, normalize_times,
    normalize_times_into, records_response_header, sent_upstream, NOT_SENT_UPSTREAM,
};
pub use redact::{redact_signed_urls, replace, Substitutions, SIGNED_PLACEHOLDER};

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
    /// The Unix times the body carried where it now says `{{UNIX_TIME}}`, in order: matched
    /// within [`TIME_SLACK_SECS`] ([`times_fit`]), and the replay writes the client's own
    /// times where the answer echoes these.
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
    files::write_atomic(path, text.as_bytes())
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
        let root = files::root(dir)?;
        let path = dir.join("manifest.json");
        let text = files::read_capped(&root, &path, files::MAX_MANIFEST_BYTES)?;
        let raw: Value =
            serde_json::from_slice(&text).map_err(|e| files::parse_error(&path, &e))?;
        let found = raw
            .get("format_version")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        if found != u64::from(FORMAT_VERSION) {
            return Err(RecordingError::Version { path, found });
        }
        let manifest: Manifest =
            serde_json::from_value(raw).map_err(|e| files::parse_error(&path, &e))?;
        let ex_dir = dir.join("exchanges");
        let ex_root = files::inside(&root, &ex_dir)?;
        let mut names: Vec<PathBuf> = std::fs::read_dir(&ex_root)
            .map_err(|e| io_error(&ex_dir, e))?
            .filter_map(|e| e.ok().map(|e| ex_dir.join(e.file_name())))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        names.sort();
        let mut exchanges = Vec::with_capacity(names.len());
        for file in names {
            let text = files::read_capped(&root, &file, files::MAX_EXCHANGE_BYTES)?;
            let ex: RecordedExchange =
                serde_json::from_slice(&text).map_err(|e| files::parse_error(&file, &e))?;
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
    fn the_headers_left_out_are_those_recordings_always_left_out() {
        // A request: host, proxy-authorization, the client library's two, and what no
        // intermediary passes on (rules::forwarding).
        let dropped = [
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
        let kept = ["authorization", "content-type", "x-kept"];
        let mut headers = http::HeaderMap::new();
        for name in dropped.iter().chain(&kept) {
            headers.insert(*name, http::HeaderValue::from_static("v"));
        }
        let req = normalize_request("GET", "/", &headers, b"", &Substitutions::default(), 10);
        assert_eq!(req.headers.keys().collect::<Vec<_>>(), kept);
        // Upstream, the recorder sends the client library's two only.
        let sent: Vec<_> = dropped.iter().filter(|n| sent_upstream(n)).collect();
        assert_eq!(sent, [&"user-agent", &"accept-encoding"]);
        // A response: `date` and the same list.
        for name in [
            "date",
            "content-length",
            "connection",
            "keep-alive",
            "transfer-encoding",
        ] {
            assert!(!records_response_header(name), "{name}");
        }
        for name in ["trailer", "upgrade", "te", "proxy-connection"] {
            assert!(!records_response_header(name), "{name}");
        }
        assert!(records_response_header("content-type"));
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
