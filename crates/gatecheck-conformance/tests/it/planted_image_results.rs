//! The planted bugs of the images a client downloads (issue 46 sections 4 and 6,
//! `images.edits.result`): an edit whose URLs point at another host that serves no PNG, and an
//! edit that answers the upload unchanged. With the healthy variant: the edit's URLs on another
//! host that serves the real files.

use super::planted::{Bug, Planted};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use bytes::Bytes;
use gatecheck_conformance::Status;
use serde_json::{json, Value};

/// This surface's rows of [`planted`](super::planted::planted).
pub(crate) fn rows() -> Vec<Planted> {
    vec![
        (
            Bug::EditUrlElsewhereNotPng,
            "images.edits.result",
            Status::Failed,
            "media::parse_png on the file of an edit's URL on another host (D-EDIT-6)",
        ),
        (
            Bug::EditReturnsUpload,
            "images.edits.result",
            Status::Failed,
            "D-EDIT-6 (an edit changes the image where its mask asks)",
        ),
    ]
}

/// Whether `bug` is one of this surface's, or its healthy variant.
pub(crate) fn plants(bug: Bug) -> bool {
    bug == Bug::EditUrlElsewhere || rows().iter().any(|r| r.0 == bug)
}

/// The upload of an edit request (the first PNG of its multipart body) and its `n`.
pub(crate) fn upload(body: &[u8]) -> Option<(Vec<u8>, usize)> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    const IEND: &[u8] = b"IEND";
    let start = body.windows(SIGNATURE.len()).position(|w| w == SIGNATURE)?;
    let end = start + body[start..].windows(IEND.len()).position(|w| w == IEND)? + 8;
    let text = String::from_utf8_lossy(body);
    let n = regex::Regex::new(r#"name="n"\r\n\r\n(\d+)\r\n"#)
        .ok()?
        .captures(&text)
        .and_then(|c| c[1].parse().ok())
        .unwrap_or(1);
    Some((body.get(start..end)?.to_vec(), n))
}

/// The edit answer as the bug makes it: `upstream` is the mock's own address, another host
/// than the proxy the runner talks to.
pub(crate) fn rewrite(
    bug: Bug,
    (path, status): (&str, u16),
    upload: Option<&(Vec<u8>, usize)>,
    upstream: &str,
    body: &Bytes,
) -> Option<Bytes> {
    if path != "/v1/images/edits" || status != 200 {
        return None;
    }
    let mut v: Value = serde_json::from_slice(body).ok()?;
    match bug {
        Bug::EditReturnsUpload => {
            let (png, n) = upload?;
            let item = json!({ "b64_json": STANDARD.encode(png) });
            v["data"] = Value::Array(vec![item; *n]);
        }
        Bug::EditUrlElsewhere | Bug::EditUrlElsewhereNotPng => {
            for item in v.get_mut("data")?.as_array_mut()? {
                let Some(url) = item.get("url").and_then(Value::as_str) else {
                    continue;
                };
                let file = url.find("/media/").map(|at| &url[at..])?;
                let moved = if bug == Bug::EditUrlElsewhere {
                    format!("{upstream}{file}")
                } else {
                    format!("{upstream}/api/models")
                };
                item["url"] = json!(moved);
            }
        }
        _ => return None,
    }
    Some(Bytes::from(v.to_string()))
}
