//! One driver per fuzz target: how raw input bytes reach the project's real entry points.
//! Shared by the fuzz targets (`fuzz_targets/*.rs`) and the regression test that replays
//! `fuzz/seeds/` and `fuzz/regressions/` under `cargo test`
//! (crates/gatecheck-conformance/tests/it/fuzz_inputs.rs). Each driver may only return;
//! a panic is a bug in the project.

// The runner's normalizer, compiled from its source in gatecheck-conformance without the rest of
// that crate (its HTTP and TLS client, reports and generators): the instrumented fuzz build is
// a fraction of the size. The module depends only on serde, serde_json and base64.
#[path = "../crates/gatecheck-conformance/src/normalize/mod.rs"]
#[allow(dead_code, unused_imports)]
mod normalize;
use gatecheck_schemas::rules::catalog::{page, query_pairs, CatalogQuery};
use gatecheck_schemas::rules::ip;
use gatecheck_schemas::rules::token::{apply_update, check_request, UpdateContext};
use gatecheck_schemas::types::{KeyRecord, ModelRecord};
use gatecheck_schemas::Profile;
use normalize::{summarize_base64, Normalizer, Selector};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::OnceLock;

/// The targets, by name (the directory names under `fuzz/seeds/` and `fuzz/regressions/`).
pub const TARGETS: [&str; 6] = [
    "multipart",
    "token_update",
    "allow_ips",
    "size",
    "query",
    "normalize",
];

/// Runs the driver of `target` on `data`.
pub fn run(target: &str, data: &[u8]) {
    match target {
        "multipart" => multipart(data),
        "token_update" => token_update(data),
        "allow_ips" => allow_ips(data),
        "size" => size(data),
        "query" => query(data),
        "normalize" => normalize(data),
        other => panic!("unknown fuzz target {other}"),
    }
}

/// Splits at the first newline: (the line, the rest).
fn first_line(data: &[u8]) -> (&[u8], &[u8]) {
    let split = data.iter().position(|b| *b == b'\n').unwrap_or(data.len());
    (&data[..split], data.get(split + 1..).unwrap_or(&[]))
}

/// Multipart as the audio and video routes read it, held to multer's own reading of the same
/// body (the same fields, the same error), the body whole and in the frames a server may get
/// it in (pieces whose sizes come from the body's own bytes). Input: the Content-Type value, a
/// newline, the body.
pub fn multipart(data: &[u8]) {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    let rt = RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime")
    });
    let (ct, body) = first_line(data);
    let ct = String::from_utf8_lossy(ct).into_owned();
    let body = bytes::Bytes::copy_from_slice(body);
    let ours = rt.block_on(gatecheck_codecs::multipart::read(&ct, body.clone()));
    let framed = gatecheck_codecs::multipart::Rope::from_chunks(frames(&body));
    let ours_framed = rt.block_on(gatecheck_codecs::multipart::read_framed(&ct, framed));
    let multer = rt.block_on(gatecheck_codecs::multipart::read_with_multer(&ct, body));
    assert_eq!(ours, multer, "the multipart reader and multer disagree");
    assert_eq!(
        ours_framed, multer,
        "the multipart reader over frames and multer disagree"
    );
}

/// `body` cut into pieces of 1 to 16 bytes, each size the low bits of the byte that starts it.
fn frames(body: &bytes::Bytes) -> Vec<bytes::Bytes> {
    let mut pieces = Vec::new();
    let mut at = 0;
    while at < body.len() {
        let size = usize::from(body[at] & 15) + 1;
        let end = (at + size).min(body.len());
        pieces.push(body.slice(at..end));
        at = end;
    }
    pieces
}

fn key(status: i64, expired_time: i64) -> KeyRecord {
    KeyRecord {
        id: 1,
        user_id: 1,
        key: "fuzzfuzzfuzz".into(),
        status,
        name: "fuzz".into(),
        created_time: 1_760_000_000,
        accessed_time: 1_760_000_000,
        expired_time,
        remain_quota: 1000,
        unlimited_quota: false,
        model_limits_enabled: false,
        model_limits: String::new(),
        allow_ips: None,
        used_quota: 0,
        group: String::new(),
        cross_group_retry: false,
    }
}

/// The `PUT /api/token/` body: the mock's parse, then the rules' checks and update, in both
/// profiles, with and without `status_only`, on enabled, expired and exhausted keys.
pub fn token_update(data: &[u8]) {
    let Ok(req) = gatecheck_schemas::rules::token::parse_update_body(data) else {
        return;
    };
    let groups = vec!["default".to_owned(), "vip".to_owned()];
    for profile in [Profile::Documented, Profile::NewApi] {
        let _ = check_request(&req, profile);
        for status_only in [false, true] {
            let ctx = UpdateContext {
                profile,
                now: 1_770_000_000,
                account_groups: &groups,
                status_only,
            };
            for current in [key(1, -1), key(3, 1_760_000_001), key(4, -1)] {
                let _ = apply_update(&current, &req, &ctx);
            }
        }
    }
}

/// A key's `allow_ips` against peers. Input: 16 bytes of address (used as IPv6, as its first
/// four bytes as IPv4, and as that IPv4 mapped to IPv6), then the list.
pub fn allow_ips(data: &[u8]) {
    if data.len() < 16 {
        return;
    }
    let (addr, list) = data.split_at(16);
    let mut octets = [0u8; 16];
    octets.copy_from_slice(addr);
    let v4 = Ipv4Addr::new(octets[0], octets[1], octets[2], octets[3]);
    let list = String::from_utf8_lossy(list);
    for peer in [
        IpAddr::V6(Ipv6Addr::from(octets)),
        IpAddr::V4(v4),
        IpAddr::V6(v4.to_ipv6_mapped()),
    ] {
        let _ = ip::allows(Some(&list), peer);
        for entry in ip::entries(Some(&list)) {
            let _ = ip::entry_matches(entry, peer);
        }
    }
    let _ = ip::is_restricted(Some(&list));
}

/// The image/video `size` (`<w>x<h>`) as the mock parses it.
pub fn size(data: &[u8]) {
    let s = String::from_utf8_lossy(data);
    if let Some((w, h)) = gatecheck_schemas::rules::media::parse_size(&s) {
        assert!(w > 0 && h > 0, "{s:?} parsed to {w}x{h}");
    }
}

/// Query strings: the catalog's paging/filter parser, then a page of the fixture catalog.
pub fn query(data: &[u8]) {
    static MODELS: OnceLock<Vec<ModelRecord>> = OnceLock::new();
    let models = MODELS.get_or_init(|| {
        let v: serde_json::Value =
            serde_json::from_str(include_str!("../fixtures/catalog.json")).expect("catalog");
        serde_json::from_value(v["models"].clone()).expect("catalog models")
    });
    let s = String::from_utf8_lossy(data);
    let _ = query_pairs(&s);
    let q = CatalogQuery::parse(&s);
    assert!(q.page >= 1 && q.page_size >= 1, "{s:?} gave {q:?}");
    let _ = page(models, &q);
}

/// The runner's response parser and normalizer. Input: two bytes of status, the Content-Type
/// value, a newline, the body.
pub fn normalize(data: &[u8]) {
    static BUILTIN: OnceLock<Normalizer> = OnceLock::new();
    if data.len() < 2 {
        return;
    }
    let status = 100 + u16::from_le_bytes([data[0], data[1]]) % 500;
    let (ct, body) = first_line(&data[2..]);
    let mut headers = http::HeaderMap::new();
    if let Ok(v) = http::HeaderValue::from_bytes(ct) {
        headers.insert(http::header::CONTENT_TYPE, v);
    }
    let mut n = BUILTIN.get_or_init(Normalizer::builtin).fresh();
    let _ = n.normalize_response(status, &headers, body);
    if let Ok(text) = std::str::from_utf8(body) {
        let _ = summarize_base64(text);
        let _ = Selector::parse(text);
        let _ = n.normalize_text(text);
    }
}
