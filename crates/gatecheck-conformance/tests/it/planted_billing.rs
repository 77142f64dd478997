//! The planted billing bugs, applied by the mutation proxy
//! (`mutation_proxy.rs`): a stream charged twice (the proxy sends each stream request to the
//! mock twice: a real second charge), a charge that drifts and a charge kept for a refused
//! request (the key's books as the proxy shows them on `GET /api/token/{id}`: what it would
//! have charged is added to `used_quota` and taken from `remain_quota`), and a run charged
//! nothing (the books shown as they were before any request, no ratio published).

use super::planted::{Bug, Planted};
use bytes::Bytes;
use gatecheck_conformance::Status;
use serde_json::{json, Value};
use std::sync::Mutex;

/// Whether `bug` is one of the billing bugs.
pub(crate) fn plants(bug: Bug) -> bool {
    matches!(
        bug,
        Bug::StreamChargedTwice | Bug::ChargeDrifts | Bug::RefusalChargeKept | Bug::NothingCharged
    )
}

/// What the proxy charges on top of the mock: the extra `used_quota`, the extra taken from
/// `remain_quota` since the last key update, and the model requests accepted so far.
#[derive(Debug, Default)]
pub(crate) struct Books {
    used: i64,
    remain: i64,
    accepted: i64,
    /// [`Bug::NothingCharged`]: the `used_quota` first read (shown ever after) and the
    /// `remain_quota` first read since the last key update (shown until the next).
    shown: (Option<i64>, Option<i64>),
}

/// Units a refused request keeps ([`Bug::RefusalChargeKept`]).
const KEPT: i64 = 1000;
/// Units the k-th accepted request is charged over its price ([`Bug::ChargeDrifts`]): k x this.
const DRIFT: i64 = 37;

/// Whether the request (a model route, its body) asks for a stream.
pub(crate) fn is_stream_request(path: &str, body: &Bytes) -> bool {
    if !path.starts_with("/v1/") {
        return false;
    }
    if let Ok(v) = serde_json::from_slice::<Value>(body) {
        return v["stream"] == json!(true) || v["stream_format"] == json!("sse");
    }
    let on: &[u8] = b"name=\"stream\"\r\n\r\ntrue\r\n";
    body.windows(on.len()).any(|w| w == on)
}

/// [`Bug::StreamChargedTwice`]: whether the proxy sends this request to the mock twice.
pub(crate) fn sends_twice(bug: Bug, path: &str, body: &Bytes) -> bool {
    bug == Bug::StreamChargedTwice && is_stream_request(path, body)
}

/// Books an answer of `method path` (`status`), and shows the books on a key read (`body`).
pub(crate) fn book(
    bug: Bug,
    (method, path, status): (&http::Method, &str, u16),
    books: &Mutex<Books>,
    body: &mut Bytes,
) {
    let mut b = books.lock().expect("books");
    let model_post = method == http::Method::POST && path.starts_with("/v1/");
    if model_post && (200..300).contains(&status) && bug == Bug::ChargeDrifts {
        b.accepted += 1;
        let extra = b.accepted * DRIFT;
        b.used += extra;
        b.remain += extra;
    }
    if model_post && (400..500).contains(&status) && bug == Bug::RefusalChargeKept {
        b.used += KEPT;
        b.remain += KEPT;
    }
    if !path.starts_with("/api/token") {
        return;
    }
    if method == http::Method::PUT {
        // An update sets `remain_quota`: what was taken before it is no longer shown.
        b.remain = 0;
        b.shown.1 = None;
        return;
    }
    let Ok(mut v) = serde_json::from_slice::<Value>(body) else {
        return;
    };
    let (Some(remain), Some(used)) = (
        v["data"]["remain_quota"].as_i64(),
        v["data"]["used_quota"].as_i64(),
    ) else {
        return;
    };
    v["data"]["used_quota"] = json!(used + b.used);
    v["data"]["remain_quota"] = json!(remain - b.remain);
    if bug == Bug::NothingCharged {
        v["data"]["used_quota"] = json!(*b.shown.0.get_or_insert(used));
        v["data"]["remain_quota"] = json!(*b.shown.1.get_or_insert(remain));
    }
    *body = Bytes::from(v.to_string());
}

/// The rows of the planted-bug table.
pub(crate) fn rows() -> Vec<Planted> {
    vec![
        (
            Bug::StreamChargedTwice,
            "usage.charged",
            Status::Failed,
            "D-STREAM-7 (one ratio of the key's group explains every charge: quota::one_ratio / price_quota_at / charged_group, DEFAULT_GROUP)",
        ),
        (
            Bug::ChargeDrifts,
            "usage.charged",
            Status::Failed,
            "D-STREAM-7 (one group ratio explains every charge: quota::one_ratio / price_quota_at)",
        ),
        (
            Bug::RefusalChargeKept,
            "quota.refused-uncharged",
            Status::Failed,
            "D-QUOTA-4 (a refused request keeps no charge)",
        ),
        (
            Bug::NothingCharged,
            "usage.charged",
            Status::Failed,
            "D-STREAM-7 (a run charged 0 throughout, its request refused on a key holding one unit: quota::read_zero_charge, ZERO_CHARGE_PROBE_QUOTA)",
        ),
    ]
}
