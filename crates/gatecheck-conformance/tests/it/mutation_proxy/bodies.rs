//! The JSON-body rewrites shared by several surfaces: translation text, catalog totals, image
//! `b64_json`, the key's `used_quota` and video task objects (`Proxy::rewrite`).
use super::*;

/// The response-side bugs of this surface: `Some` answers in the upstream's place.
pub(super) fn respond(
    p: &Proxy,
    a: &Answer<'_>,
    _rparts: &mut http::response::Parts,
    rbody: &mut Bytes,
) -> Option<Reply> {
    let Answer {
        path,
        method,
        is_poll,
        ..
    } = *a;
    let body0 = rbody.clone();
    let rjson = || serde_json::from_slice::<Value>(&body0).ok();
    match p.bug {
        Bug::MissingText
        | Bug::B64NotPng
        | Bug::PngOffByOne
        | Bug::CatalogWithoutTotal
        | Bug::ProgressRegresses
        | Bug::CompletedAt99
        | Bug::NeverTerminal
        | Bug::TaskIdMismatch
        | Bug::UsedQuotaNotCharged
        | Bug::DoubleCharged
        | Bug::CatalogTotalOffByOne
        | Bug::CreatedInProgress
        | Bug::CompletedBeforeCreated
        | Bug::ProgressOver100
        | Bug::CompletedWithoutUrl => {
            if let Some(mut v) = rjson() {
                let changed = p.rewrite(&mut v, path, method, is_poll);
                if changed {
                    *rbody = Bytes::from(v.to_string());
                }
            }
        }
        _ => {}
    }
    None
}

impl Proxy {
    /// The JSON-body bugs: `v`, the answer of `method path`, changed in place (`true`: changed).
    fn rewrite(&self, v: &mut Value, path: &str, method: &http::Method, is_poll: bool) -> bool {
        let Some(o) = v.as_object_mut() else {
            return false;
        };
        match self.bug {
            Bug::MissingText if path == "/v1/audio/translations" => o.remove("text").is_some(),
            Bug::CatalogWithoutTotal if path == "/api/models" => o.remove("total").is_some(),
            Bug::B64NotPng | Bug::PngOffByOne if path == "/v1/images/generations" => {
                let Some(items) = o.get_mut("data").and_then(Value::as_array_mut) else {
                    return false;
                };
                let mut changed = false;
                for item in items {
                    let Some(b64) = item.get("b64_json").and_then(Value::as_str) else {
                        continue;
                    };
                    let new = if self.bug == Bug::B64NotPng {
                        b"GIF89a not a png".to_vec()
                    } else {
                        let Ok(png) = STANDARD.decode(b64) else {
                            continue;
                        };
                        // IHDR: width at bytes 16..20, height at 20..24. A whole PNG one
                        // pixel wider (the runner decodes every pixel: a patched header over
                        // the old image data would be a broken PNG, not a rounded size).
                        if png.len() < 33 {
                            continue;
                        }
                        let w = u32::from_be_bytes([png[16], png[17], png[18], png[19]]) + 1;
                        let h = u32::from_be_bytes([png[20], png[21], png[22], png[23]]);
                        let Ok(wider) = gatecheck_mock::internals::media::png(9, w, h) else {
                            continue;
                        };
                        wider.to_vec()
                    };
                    item["b64_json"] = json!(STANDARD.encode(new));
                    changed = true;
                }
                changed
            }
            Bug::UsedQuotaNotCharged
                if method == http::Method::GET && path.starts_with("/api/token/") =>
            {
                match o.get_mut("data").and_then(Value::as_object_mut) {
                    Some(d) if d.contains_key("used_quota") => {
                        d.insert("used_quota".into(), json!(0));
                        true
                    }
                    _ => false,
                }
            }
            Bug::DoubleCharged
                if method == http::Method::GET && path.starts_with("/api/token/") =>
            {
                let Some(d) = o.get_mut("data").and_then(Value::as_object_mut) else {
                    return false;
                };
                let Some(used) = d.get("used_quota").and_then(Value::as_i64) else {
                    return false;
                };
                d.insert("used_quota".into(), json!(used * 2));
                true
            }
            Bug::CatalogTotalOffByOne if path == "/api/models" => {
                let Some(total) = o.get("total").and_then(Value::as_i64) else {
                    return false;
                };
                o.insert("total".into(), json!(total + 1));
                true
            }
            Bug::CreatedInProgress if path == "/v1/videos" && method == http::Method::POST => {
                o.insert("status".into(), json!("in_progress"));
                true
            }
            Bug::CompletedBeforeCreated if is_poll && o.get("completed_at").is_some() => {
                let created = o.get("created_at").and_then(Value::as_i64).unwrap_or(0);
                o.insert("completed_at".into(), json!(created - 10));
                true
            }
            Bug::ProgressOver100
                if is_poll && o.get("status").and_then(Value::as_str) == Some("in_progress") =>
            {
                o.insert("progress".into(), json!(150));
                true
            }
            Bug::CompletedWithoutUrl
                if is_poll && o.get("status").and_then(Value::as_str) == Some("completed") =>
            {
                o.remove("video_url");
                o.remove("metadata");
                true
            }
            Bug::TaskIdMismatch if path == "/v1/videos" && method == http::Method::POST => {
                o.insert("task_id".into(), json!("task_mismatched"));
                true
            }
            Bug::ProgressRegresses if is_poll => {
                let n = self.polls.fetch_add(1, Ordering::SeqCst);
                let running = o.get("status").and_then(Value::as_str) == Some("in_progress");
                let p = o.get("progress").and_then(Value::as_i64).unwrap_or(0);
                if running && n % 2 == 1 && p >= 25 {
                    o.insert("progress".into(), json!(p - 25));
                    return true;
                }
                false
            }
            Bug::CompletedAt99
                if is_poll && o.get("status").and_then(Value::as_str) == Some("completed") =>
            {
                o.insert("progress".into(), json!(99));
                true
            }
            Bug::NeverTerminal if is_poll => {
                let terminal = matches!(
                    o.get("status").and_then(Value::as_str),
                    Some("completed" | "failed" | "error")
                );
                if terminal {
                    o.insert("status".into(), json!("in_progress"));
                    o.insert("progress".into(), json!(50));
                    o.remove("completed_at");
                    o.remove("video_url");
                    o.remove("error");
                    o.remove("metadata");
                }
                terminal
            }
            _ => false,
        }
    }
}
