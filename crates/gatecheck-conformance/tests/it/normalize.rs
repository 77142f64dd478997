//! Normalization: rules as data, idempotence, and "differs only in volatile fields ⇒ equal".

use base64::Engine as _;
use gatecheck_conformance::normalize::{Action, Normalizer, Rule, RuleSet};
use proptest::prelude::*;
use serde_json::{json, Value};

fn png_b64(w: u32, h: u32, pad: &[u8]) -> String {
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    png.extend_from_slice(&w.to_be_bytes());
    png.extend_from_slice(&h.to_be_bytes());
    png.extend_from_slice(pad);
    base64::engine::general_purpose::STANDARD.encode(png)
}

fn headers(pairs: &[(&str, &str)]) -> http::HeaderMap {
    let mut map = http::HeaderMap::new();
    for (k, v) in pairs {
        map.append(
            http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
            http::HeaderValue::from_str(v).unwrap(),
        );
    }
    map
}

/// Strings that exercise every built-in rule.
fn volatile_string() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,12}",
        "task_[A-Za-z0-9]{32}",
        "sk-[A-Za-z0-9]{48}",
        "https?://[a-z0-9.]{1,12}(:[0-9]{2,5})?/v1/videos/task_[A-Za-z0-9]{32}/content",
        "https?://[a-z]{1,8}/files/[a-f0-9]{24}\\.png\\?sig=[a-z0-9]{6}",
        "bad request \\(request id: [0-9A-Za-z]{20}\\)",
        "\\[[a-z]{1,6}-[0-9]{1,2}\\]",
        Just(png_b64(64, 32, &[7u8; 300])),
    ]
}

fn arb_json() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        Just("id"),
        Just("task_id"),
        Just("user_id"),
        Just("key"),
        Just("created_at"),
        Just("completed_at"),
        Just("created"),
        Just("accessed_time"),
        Just("created_time"),
        Just("expired_time"),
        Just("url"),
        Just("b64_json"),
        Just("features"),
        Just("data"),
        Just("message"),
        Just("status"),
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-5i64..2_000_000_000).prop_map(Value::from),
        (1_600_000_000i64..1_900_000_000).prop_map(Value::from),
        volatile_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6).prop_map(|pairs| {
                Value::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

/// The stable part of a video task, and two volatile renderings of it.
#[derive(Debug, Clone)]
struct Volatile {
    task: String,
    created: i64,
    delay: i64,
    host: String,
    secret: String,
    key_id: i64,
    user_id: i64,
    request_id: String,
    pad: Vec<u8>,
}

fn arb_volatile() -> impl Strategy<Value = Volatile> {
    (
        "task_[A-Za-z0-9]{32}",
        1_700_000_000i64..1_900_000_000,
        0i64..600,
        "[a-z]{1,10}\\.[a-z]{2,3}(:[0-9]{4})?",
        "[A-Za-z0-9]{48}",
        1i64..100_000,
        1i64..100_000,
        "[0-9A-Za-z]{24}",
        prop::collection::vec(any::<u8>(), 3000..3500),
    )
        .prop_map(
            |(task, created, delay, host, secret, key_id, user_id, request_id, pad)| Volatile {
                task,
                created,
                delay,
                host,
                secret,
                key_id,
                user_id,
                request_id,
                pad,
            },
        )
}

/// A sequence of responses built from the stable fields and the volatile ones.
fn responses(status: &str, name: &str, v: &Volatile) -> Vec<(u16, http::HeaderMap, Vec<u8>)> {
    let json_headers = headers(&[
        ("content-type", "application/json; charset=utf-8"),
        ("x-oneapi-request-id", &v.request_id),
        ("date", "Sat, 21 Nov 2026 13:00:00 GMT"),
    ]);
    let created = json!({"id": v.task, "task_id": v.task, "object": "video", "model": "sora-2",
                         "status": "queued", "progress": 0, "created_at": v.created});
    let done = json!({"id": v.task, "object": "video", "model": "sora-2", "status": status,
                      "progress": 100, "created_at": v.created,
                      "completed_at": v.created + v.delay,
                      "video_url": format!("https://{}/v1/videos/{}/content", v.host, v.task),
                      "metadata": {"url": format!("https://{}/v1/videos/{}/content", v.host, v.task)}});
    let key = json!({"success": true, "message": "", "data": {
        "id": v.key_id, "user_id": v.user_id, "key": v.secret, "status": 1, "name": name,
        "created_time": v.created - 100, "accessed_time": v.created, "expired_time": -1,
        "remain_quota": 5, "unlimited_quota": false, "model_limits_enabled": false,
        "model_limits": "", "allow_ips": null, "used_quota": 0, "group": "",
        "cross_group_retry": false}});
    let image = json!({"created": v.created, "data": [{"b64_json": png_b64(512, 512, &v.pad)}],
                       "size": "512x512"});
    let error = json!({"error": {"message": format!("invalid file (request id: {})", v.request_id),
                                 "type": "new_api_error", "param": null, "code": null}});
    [created, done, key, image, error]
        .into_iter()
        .map(|body| {
            (
                200,
                json_headers.clone(),
                serde_json::to_vec(&body).unwrap(),
            )
        })
        .collect()
}

fn normalize_all(
    n: &mut Normalizer,
    rs: &[(u16, http::HeaderMap, Vec<u8>)],
) -> Vec<gatecheck_conformance::normalize::NormalizedResponse> {
    rs.iter()
        .map(|(s, h, b)| n.normalize_response(*s, h, b))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn redaction_is_idempotent(value in arb_json()) {
        let once = Normalizer::builtin().normalize_json(&value);
        let twice = Normalizer::builtin().normalize_json(&once);
        prop_assert_eq!(once, twice);
    }

    #[test]
    fn responses_differing_only_in_volatile_fields_normalize_equal(
        a in arb_volatile(),
        b in arb_volatile(),
        status in prop_oneof![Just("completed"), Just("failed")],
        name in "[a-z]{1,10}",
    ) {
        let left = normalize_all(&mut Normalizer::builtin(), &responses(status, &name, &a));
        let right = normalize_all(&mut Normalizer::builtin(), &responses(status, &name, &b));
        prop_assert_eq!(&left, &right);
        // And normalizing the normalized form changes nothing.
        let again: Vec<_> = left.iter().map(|r| Normalizer::builtin().normalize_json(&r.to_value())).collect();
        let values: Vec<_> = left.iter().map(|r| r.to_value()).collect();
        prop_assert_eq!(again, values);
    }

    #[test]
    fn stable_differences_survive_normalization(
        a in arb_volatile(),
        b in arb_volatile(),
    ) {
        let left = normalize_all(&mut Normalizer::builtin(), &responses("completed", "x", &a));
        let right = normalize_all(&mut Normalizer::builtin(), &responses("failed", "x", &b));
        prop_assert_ne!(left, right);
    }
}

#[test]
fn ids_keep_their_equality_relations() {
    let mut n = Normalizer::builtin();
    let a = "task_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let b = "task_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";
    let first = n.normalize_json(&json!({"id": a}));
    let second = n.normalize_json(&json!({"id": b, "note": format!("see {a}")}));
    assert_eq!(first, json!({"id": "[task-1]"}));
    assert_eq!(second, json!({"id": "[task-2]", "note": "see [task-1]"}));
}

#[test]
fn ordering_of_timestamps_is_kept() {
    let mut n = Normalizer::builtin();
    let wrong = json!({"created_at": 1_800_000_100, "completed_at": 1_800_000_000});
    assert_eq!(
        n.normalize_json(&wrong)["completed_at"],
        json!("[timestamp before created_at!]")
    );
}

#[test]
fn media_bodies_are_summarized() {
    let mut n = Normalizer::builtin();
    let body = {
        let b64 = png_b64(1024, 1536, &[0u8; 1000]);
        base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap()
    };
    let r = n.normalize_response(200, &headers(&[("content-type", "image/png")]), &body);
    assert_eq!(r.binary.as_deref(), Some("[png 1024x1536 ~1KiB]"));
    let srt = "1\n00:00:00,000 --> 00:00:02,000\nHello\n";
    let r = n.normalize_response(
        200,
        &headers(&[("content-type", "text/plain")]),
        srt.as_bytes(),
    );
    assert_eq!(r.text.unwrap().len(), 3);
}

#[test]
fn rules_extend_from_json_and_take_precedence() {
    let extension = RuleSet::from_json(
        r#"{"headers": ["X-Custom"], "rules": [
            {"path": "/data/id", "action": "keep", "note": "stable on this deployment"},
            {"path": "**/trace", "action": "drop"},
            {"path": "/region", "action": "replace", "value": "[region]"},
            {"pattern": "user-[0-9]+", "action": "redact-id", "kind": "user"}
        ]}"#,
    )
    .unwrap();
    let mut set = RuleSet::builtin();
    set.extend(extension);
    assert!(set.headers.contains(&"x-custom".to_owned()));
    let mut n = Normalizer::new(&set).unwrap();
    let out = n.normalize_json(&json!({
        "data": {"id": 42}, "trace": "abc", "region": "eu-1", "who": "user-17 and user-17"
    }));
    assert_eq!(
        out,
        json!({"data": {"id": 42}, "region": "[region]", "who": "[user-1] and [user-1]"})
    );
    // A bare array is an extension too; bad rules are refused with a reason.
    assert!(RuleSet::from_json(r#"[{"path": "/a", "action": "drop"}]"#).is_ok());
    let bad = RuleSet::from_json(r#"[{"path": "nope", "action": "drop"}]"#).unwrap();
    assert!(Normalizer::new(&bad)
        .unwrap_err()
        .to_string()
        .contains("nope"));
    let bad = RuleSet::from_json(r#"[{"path": "/a", "action": "replace"}]"#).unwrap();
    assert!(Normalizer::new(&bad).is_err());
    assert!(RuleSet::from_json(r#"[{"path": "/a", "action": "explode"}]"#).is_err());
    // The built-in set round-trips through its JSON form.
    let text = serde_json::to_string(&RuleSet::builtin()).unwrap();
    assert_eq!(RuleSet::from_json(&text).unwrap(), RuleSet::builtin());
    let _ = Rule::path("/x", Action::Sort);
}

#[test]
fn the_builtin_rules_compile() {
    assert!(Normalizer::new(&RuleSet::builtin()).is_ok());
}

/// A streamed answer normalizes event by event; a changed sequence of events differs at the
/// index where it changes.
#[test]
fn streams_differ_at_the_event_that_changed() {
    use gatecheck_conformance::diff::diff_values;
    let stream = |events: &[(&str, i64)], done: bool| {
        let mut out = String::new();
        for (ty, at) in events {
            let data = json!({"type": ty, "b64_json": png_b64(8, 4, &[1; 300]), "created_at": at});
            out.push_str(&format!("event: {ty}\ndata: {data}\n\n"));
        }
        if done {
            out.push_str("data: [DONE]\n\n");
        }
        out.into_bytes()
    };
    let sse = headers(&[("content-type", "text/event-stream; charset=utf-8")]);
    let norm = |body: &[u8]| {
        Normalizer::builtin()
            .normalize_response(200, &sse, body)
            .to_value()
    };
    let (p, c) = (
        "image_generation.partial_image",
        "image_generation.completed",
    );
    let base = norm(&stream(&[(p, 1_763_700_000), (c, 1_763_700_001)], true));
    assert_eq!(
        base["events"][0]["data"]["b64_json"],
        json!("[png 8x4 ~256B]")
    );
    let later = norm(&stream(&[(p, 1_800_000_000), (c, 1_800_000_009)], true));
    const T: i64 = 1_763_700_100;
    assert!(diff_values(&base, &later).is_empty());
    let paths = |other: &[u8]| -> Vec<String> {
        diff_values(&base, &norm(other))
            .into_iter()
            .map(|d| d.path)
            .collect()
    };
    // No terminal event: event 1 is the marker, event 2 is missing.
    assert_eq!(
        paths(&stream(&[(p, T + 1)], true)),
        ["/events/1/event", "/events/1/data", "/events/2"]
    );
    // An extra delta: it sits at index 1, and everything after moves.
    let extra = paths(&stream(&[(p, T + 1), (p, T + 2), (c, T + 3)], true));
    assert_eq!(extra.first().map(String::as_str), Some("/events/1/event"));
    assert_eq!(extra.last().map(String::as_str), Some("/events/3"));
    // Another type at index 0.
    assert_eq!(
        paths(&stream(&[(c, T + 1), (c, T + 2)], true)),
        ["/events/0/event", "/events/0/data/type"]
    );
    // No `[DONE]`; and a stream cut inside its last event.
    assert_eq!(
        paths(&stream(&[(p, T + 1), (c, T + 2)], false)),
        ["/events/2"]
    );
    let whole = stream(&[(p, T + 1), (c, T + 2)], true);
    let cut = norm(&whole[..whole.len() - 30]);
    assert_eq!(cut["events"][1]["incomplete"], json!("~512B"));
}
