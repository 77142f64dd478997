//! What makes a replayed request match its recording: Unix times become a placeholder,
//! headers that vary from run to run are dropped, and the match key is method, path and body.

use serde_json::Value;
use std::collections::BTreeMap;

use super::body::{encode_body, multipart_boundary};
use super::redact::{redact_signed_urls, Substitutions};
use super::{RecordedBody, RecordedRequest, UNIX_TIME_PLACEHOLDER};
use gatecheck_schemas::rules::forwarding::is_passed_on;

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

/// [`echo_times`] on an answer kept as text because its JSON was not in compact form (as a
/// proxy re-serialized it): the recorded times its JSON echoes are written as the client's in
/// the text, whole numbers only, the rest of its bytes as recorded. `None` when the text is
/// not JSON or echoes none of `pairs`.
///
/// ```
/// use gatecheck_recording::echo_times_text;
/// let text = "{\n  \"expired_time\": 1795860090,\n  \"id\": 9\n}";
/// let echoed = echo_times_text(text, &[(1_795_860_090, 1_795_860_091)]).unwrap();
/// assert_eq!(echoed, "{\n  \"expired_time\": 1795860091,\n  \"id\": 9\n}");
/// assert_eq!(echo_times_text("not json 1795860090", &[(1_795_860_090, 1)]), None);
/// ```
pub fn echo_times_text(text: &str, pairs: &[(i64, i64)]) -> Option<String> {
    let value: Value = serde_json::from_str(text).ok()?;
    let mut used = Vec::new();
    echoed(&value, pairs, &mut used);
    if used.is_empty() {
        return None;
    }
    let mut out = text.to_owned();
    for (old, new) in used {
        out = replace_whole_number(&out, &old.to_string(), &new.to_string());
    }
    Some(out)
}

/// The pairs of `pairs` whose recorded time a Unix-time field of `value` holds.
fn echoed(value: &Value, pairs: &[(i64, i64)], used: &mut Vec<(i64, i64)>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                match unix_time(k, v) {
                    Some(t) => {
                        let pair = pairs.iter().find(|(old, new)| *old == t && old != new);
                        if let Some(p) = pair.filter(|p| !used.contains(p)) {
                            used.push(*p);
                        }
                    }
                    None => echoed(v, pairs, used),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| echoed(v, pairs, used)),
        _ => {}
    }
}

/// `text` with each `old` that is a whole number (no digit, `.` or `-` next to it) as `new`.
fn replace_whole_number(text: &str, old: &str, new: &str) -> String {
    let edge = |c: Option<char>| c.is_none_or(|c| !(c.is_ascii_digit() || c == '.' || c == '-'));
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(old) {
        let before = rest[..at]
            .chars()
            .next_back()
            .or_else(|| out.chars().next_back());
        let after = rest[at + old.len()..].chars().next();
        out.push_str(&rest[..at]);
        out.push_str(if edge(before) && edge(after) {
            new
        } else {
            old
        });
        rest = &rest[at + old.len()..];
    }
    out.push_str(rest);
    out
}

/// Request headers the recorder does not send upstream, besides those no intermediary passes
/// on ([`is_passed_on`]): the client's `Host` (the upstream has its own) and
/// `Proxy-Authorization` (the client's credentials for a proxy, not the target's).
pub const NOT_SENT_UPSTREAM: [&str; 2] = ["host", "proxy-authorization"];

/// Request headers sent upstream but not recorded: the client library's, not the request's.
const NOT_RECORDED: [&str; 2] = ["user-agent", "accept-encoding"];

/// Whether the recorder sends request header `name` (lowercase) upstream.
///
/// ```
/// use gatecheck_recording::sent_upstream;
/// assert!(sent_upstream("authorization") && sent_upstream("user-agent"));
/// assert!(!sent_upstream("host") && !sent_upstream("connection"));
/// ```
pub fn sent_upstream(name: &str) -> bool {
    is_passed_on(name) && !NOT_SENT_UPSTREAM.contains(&name)
}

/// Whether request header `name` (lowercase) is recorded: what is sent upstream but the
/// client library's `User-Agent` and `Accept-Encoding`.
fn records_request_header(name: &str) -> bool {
    sent_upstream(name) && !NOT_RECORDED.contains(&name)
}

/// Whether response header `name` (lowercase) is recorded: what an intermediary passes on, but
/// `Date` (the replay answers with its own).
///
/// ```
/// use gatecheck_recording::records_response_header;
/// assert!(records_response_header("content-type"));
/// assert!(!records_response_header("date") && !records_response_header("transfer-encoding"));
/// ```
pub fn records_response_header(name: &str) -> bool {
    is_passed_on(name) && name != "date"
}

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
        if !records_request_header(&name) {
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
