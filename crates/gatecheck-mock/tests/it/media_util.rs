//! Helpers of the media tests: multipart bodies, a WAV to upload, quota readings.

#![allow(dead_code)]

use crate::support::*;
use gatecheck_mock::MockServer;

pub const BOUNDARY: &str = "gatecheck-media-test-boundary";

/// One part of a multipart body: (name, filename, bytes).
pub type Part<'a> = (&'a str, Option<&'a str>, &'a [u8]);

/// A `multipart/form-data` body with [`BOUNDARY`].
pub fn multipart(parts: &[Part<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, filename, data) in parts {
        out.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        match filename {
            Some(f) => out.extend_from_slice(
                format!(
                    "Content-Disposition: form-data; name=\"{name}\"; filename=\"{f}\"\r\n\
                     Content-Type: application/octet-stream\r\n\r\n"
                )
                .as_bytes(),
            ),
            None => out.extend_from_slice(
                format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes(),
            ),
        }
        out.extend_from_slice(data);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    out
}

/// POSTs a multipart body with the demo key (or `key`).
pub async fn post_multipart(
    server: &MockServer,
    path: &str,
    key: &str,
    parts: &[Part<'_>],
) -> Resp {
    let ct = format!("multipart/form-data; boundary={BOUNDARY}");
    let auth = bearer(key);
    Http::new(server.uri())
        .send(
            "POST",
            path,
            &[
                ("content-type", ct.as_str()),
                ("authorization", auth.as_str()),
            ],
            multipart(parts),
        )
        .await
}

/// POSTs JSON with `key`.
pub async fn post_json(
    server: &MockServer,
    path: &str,
    key: &str,
    body: serde_json::Value,
) -> Resp {
    let auth = bearer(key);
    Http::new(server.uri())
        .json("POST", path, &[("authorization", auth.as_str())], body)
        .await
}

/// GETs with `key`.
pub async fn get_with(server: &MockServer, path: &str, key: &str) -> Resp {
    let auth = bearer(key);
    Http::new(server.uri())
        .get(path, &[("authorization", auth.as_str())])
        .await
}

/// A mono 16-bit 24 kHz WAV of `ms` milliseconds.
pub fn wav_of(ms: u64) -> Vec<u8> {
    gatecheck_mock::internals::media::wav(
        &gatecheck_mock::internals::media::tone(ms, 24_000, 9),
        24_000,
    )
    .to_vec()
}

/// The demo key's remaining quota (key id 1).
pub fn remain(server: &MockServer) -> i64 {
    server.key(1).map(|k| k.remain_quota).unwrap_or(-1)
}

/// Asserts a validation failure of an audio or image route: 400 (`documented`).
pub fn assert_400(resp: &Resp, what: &str) {
    assert_eq!(resp.status, 400, "{what}: {}", resp.text());
    v1_error(resp);
}
