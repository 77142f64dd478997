//! The planted bugs of the images a client downloads
//! (`images.edits.result`): an edit whose URLs point at another host that serves no PNG, and an
//! edit that answers the upload unchanged. With the healthy variant: the edit's URLs on another
//! host that serves the real files. The URL bugs move a generation's URLs and a Midjourney
//! record's `imageUrl` as well (`images.png-matches-size`, `mj.task.lifecycle`; the tests in
//! `key_routes.rs`).

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

/// The path (and query) of an absolute URL: what follows its origin.
fn path_of(url: &str) -> Option<&str> {
    let rest = &url[url.find("://")? + 3..];
    Some(&rest[rest.find('/')?..])
}

/// The result URLs of an answer on `path` (an edit's or a generation's `data[].url`, a
/// Midjourney record's `imageUrl`), as the bug moves them.
fn result_urls<'a>(path: &str, v: &'a mut Value) -> Vec<&'a mut Value> {
    if path.starts_with("/mj/task/") && path.ends_with("/fetch") {
        return v
            .get_mut("imageUrl")
            .filter(|u| u.is_string())
            .into_iter()
            .collect();
    }
    match v.get_mut("data").and_then(Value::as_array_mut) {
        Some(items) => items
            .iter_mut()
            .filter_map(|i| i.get_mut("url").filter(|u| u.is_string()))
            .collect(),
        None => Vec::new(),
    }
}

/// The answer as the bug makes it: an edit's (`EditReturnsUpload`), or the result URLs of an
/// edit, a generation and a Midjourney record moved to `upstream`, the mock's own address,
/// another host than the proxy the runner talks to (`EditUrlElsewhere*`).
pub(crate) fn rewrite(
    bug: Bug,
    (path, status): (&str, u16),
    upload: Option<&(Vec<u8>, usize)>,
    upstream: &str,
    body: &Bytes,
) -> Option<Bytes> {
    let results = ["/v1/images/edits", "/v1/images/generations"].contains(&path)
        || (path.starts_with("/mj/task/") && path.ends_with("/fetch"));
    if !results || status != 200 {
        return None;
    }
    let mut v: Value = serde_json::from_slice(body).ok()?;
    match bug {
        Bug::EditReturnsUpload if path == "/v1/images/edits" => {
            let (png, n) = upload?;
            let item = json!({ "b64_json": STANDARD.encode(png) });
            v["data"] = Value::Array(vec![item; *n]);
        }
        Bug::EditUrlElsewhere | Bug::EditUrlElsewhereNotPng => {
            for url in result_urls(path, &mut v) {
                let Some(file) = url.as_str().and_then(path_of).map(str::to_owned) else {
                    continue;
                };
                *url = if bug == Bug::EditUrlElsewhere {
                    json!(format!("{upstream}{file}"))
                } else {
                    json!(format!("{upstream}/api/models"))
                };
            }
        }
        _ => return None,
    }
    Some(Bytes::from(v.to_string()))
}
