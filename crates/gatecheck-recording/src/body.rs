//! A body as it is stored: JSON when that is exact, else text, else base64; a multipart body
//! as its parts; a large request body as a length and a digest.

use base64::Engine as _;
use serde_json::Value;

use super::redact::{find, Substitutions};
use super::{fnv1a64, RecordedBody, RecordedPart};

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
        && let Some(parts) = parse_multipart(bytes, &boundary, limit, subs)
    {
        return RecordedBody::Multipart { parts };
    }
    if limit.is_some_and(|l| bytes.len() > l) {
        return RecordedBody::Digest {
            len: bytes.len() as u64,
            fnv1a64: format!("{:016x}", fnv1a64(bytes)),
        };
    }
    let bytes = &subs.apply(bytes)[..];
    if let Ok(json) = serde_json::from_slice::<Value>(bytes)
        && serde_json::to_vec(&json).is_ok_and(|v| v == bytes)
    {
        return RecordedBody::Json { json };
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
