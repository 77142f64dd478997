//! The routes the bench loads, and the state they need (keys, live video tasks).

use super::load::{MakeRequest, Spec};
use bytes::Bytes;
use gatecheck_mock::MockServer;
use gatecheck_mock::NewKey;
use http::{Method, Request, StatusCode};
use http_body_util::Full;
use std::sync::Arc;

/// One benched route.
pub(crate) struct Route {
    /// Short name (`catalog`, `model-get`, ...).
    pub(crate) name: &'static str,
    /// What is sent.
    pub(crate) what: String,
    /// The issue's target ratio to bare hyper, if it sets one.
    pub(crate) target: Option<f64>,
    /// The requests.
    pub(crate) spec: Spec,
    /// The baseline answers every path starting with this with the mock's answer.
    pub(crate) prefix: String,
}

/// Every route name, in the order they run.
pub const ROUTE_NAMES: [&str; 7] = [
    "catalog",
    "model-get",
    "token-put-one",
    "token-put-many",
    "image-generation",
    "video-poll",
    "translation-upload",
];

/// The key every `/v1` request of the bench uses: enough quota never to run out.
pub(crate) fn bench_key(server: &MockServer) -> String {
    let key = server.add_key(NewKey::new().name("bench").remain_quota(i64::MAX / 4));
    format!("Bearer sk-{}", key.key)
}

fn request(
    method: Method,
    path: &str,
    headers: &[(&str, &str)],
    body: Bytes,
) -> Request<Full<Bytes>> {
    let mut b = Request::builder()
        .method(method)
        .uri(path)
        .header("host", "bench");
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    b.body(Full::new(body)).unwrap_or_default()
}

fn fixed(method: Method, path: &str, headers: Vec<(String, String)>, body: Bytes) -> MakeRequest {
    let path = path.to_owned();
    Arc::new(move |_| {
        let h: Vec<(&str, &str)> = headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        request(method.clone(), &path, &h, body.clone())
    })
}

fn ok(make: MakeRequest) -> Spec {
    Spec {
        make,
        expect: StatusCode::OK,
    }
}

/// `GET /api/models`.
pub(crate) fn catalog() -> Route {
    Route {
        name: "catalog",
        what: "GET /api/models".into(),
        target: Some(0.90),
        spec: ok(fixed(Method::GET, "/api/models", vec![], Bytes::new())),
        prefix: "/api/models".into(),
    }
}

/// The authenticated `GET /v1/models/{id}`.
pub(crate) fn model_get(key: &str) -> Route {
    let auth = vec![("authorization".to_owned(), key.to_owned())];
    Route {
        name: "model-get",
        what: "GET /v1/models/tts-1 (Bearer key)".into(),
        target: Some(0.90),
        spec: ok(fixed(Method::GET, "/v1/models/tts-1", auth, Bytes::new())),
        prefix: "/v1/models/".into(),
    }
}

fn token_body(id: i64) -> Bytes {
    Bytes::from(
        serde_json::json!({
            "id": id, "name": format!("bench-{id}"), "expired_time": -1, "remain_quota": 1000,
            "unlimited_quota": false, "model_limits_enabled": false, "model_limits": "",
            "allow_ips": "", "group": "", "cross_group_retry": false
        })
        .to_string(),
    )
}

/// `PUT /api/token/` over `keys` keys of the demo account (1: the same key every time).
pub(crate) fn token_put(server: &MockServer, keys: usize) -> Route {
    let account = server.demo_account();
    let ids: Vec<i64> = (0..keys.max(1))
        .map(|i| {
            server
                .add_key(NewKey::new().name(format!("bench-put-{i}")))
                .id
        })
        .collect();
    let bodies: Vec<Bytes> = ids.iter().map(|&id| token_body(id)).collect();
    let token = account.access_token.clone();
    let user = account.id.to_string();
    let make: MakeRequest = Arc::new(move |i| {
        let body = bodies[(i % bodies.len() as u64) as usize].clone();
        request(
            Method::PUT,
            "/api/token/",
            &[
                ("authorization", &token),
                ("new-api-user", &user),
                ("content-type", "application/json"),
            ],
            body,
        )
    });
    let (name, what) = if keys <= 1 {
        ("token-put-one", "PUT /api/token/ (one key)".to_owned())
    } else {
        (
            "token-put-many",
            format!("PUT /api/token/ ({keys} keys in turn)"),
        )
    };
    Route {
        name,
        what,
        target: Some(0.80),
        spec: ok(make),
        prefix: "/api/token".into(),
    }
}

/// `POST /v1/images/generations` (flux-schnell, 512x512, a URL answer).
pub(crate) fn image_generation(key: &str) -> Route {
    let body = Bytes::from_static(
        br#"{"model":"flux-schnell","prompt":"a lighthouse at dusk","size":"512x512","n":1}"#,
    );
    let headers = vec![
        ("authorization".to_owned(), key.to_owned()),
        ("content-type".to_owned(), "application/json".to_owned()),
    ];
    Route {
        name: "image-generation",
        what: "POST /v1/images/generations (flux-schnell 512x512)".into(),
        target: Some(0.80),
        spec: ok(fixed(Method::POST, "/v1/images/generations", headers, body)),
        prefix: "/v1/images/".into(),
    }
}

/// The request creating one video task.
pub(crate) fn video_create(key: &str) -> Spec {
    let body = Bytes::from_static(br#"{"model":"sora-2","prompt":"a bench of tasks"}"#);
    let headers = vec![
        ("authorization".to_owned(), key.to_owned()),
        ("content-type".to_owned(), "application/json".to_owned()),
    ];
    ok(fixed(Method::POST, "/v1/videos", headers, body))
}

/// `GET /v1/videos/{id}` over the live tasks `ids`, in turn.
pub(crate) fn video_poll(key: &str, ids: Vec<String>) -> Route {
    let n = ids.len();
    let paths: Vec<String> = ids.iter().map(|id| format!("/v1/videos/{id}")).collect();
    let key = key.to_owned();
    let make: MakeRequest = Arc::new(move |i| {
        let path = &paths[(i % paths.len().max(1) as u64) as usize];
        request(Method::GET, path, &[("authorization", &key)], Bytes::new())
    });
    Route {
        name: "video-poll",
        what: format!("GET /v1/videos/{{id}} ({n} live tasks in turn)"),
        target: Some(0.85),
        spec: ok(make),
        prefix: "/v1/videos/".into(),
    }
}

/// A PCM WAV file of about `bytes` bytes (silence, 16 kHz mono 16-bit).
fn wav(bytes: usize) -> Vec<u8> {
    let data = bytes.saturating_sub(44) & !1;
    let mut v = Vec::with_capacity(44 + data);
    v.extend_from_slice(b"RIFF");
    v.extend_from_slice(&(36 + data as u32).to_le_bytes());
    v.extend_from_slice(b"WAVEfmt ");
    v.extend_from_slice(&16u32.to_le_bytes());
    v.extend_from_slice(&1u16.to_le_bytes()); // PCM
    v.extend_from_slice(&1u16.to_le_bytes()); // mono
    v.extend_from_slice(&16_000u32.to_le_bytes());
    v.extend_from_slice(&32_000u32.to_le_bytes());
    v.extend_from_slice(&2u16.to_le_bytes());
    v.extend_from_slice(&16u16.to_le_bytes());
    v.extend_from_slice(b"data");
    v.extend_from_slice(&(data as u32).to_le_bytes());
    v.resize(44 + data, 0);
    v
}

/// `POST /v1/audio/translations` with a multipart body carrying a WAV file of `bytes` bytes.
pub(crate) fn translation_upload(key: &str, bytes: usize) -> Route {
    const BOUNDARY: &str = "gatecheck-bench-boundary";
    let mut body = Vec::with_capacity(bytes + 512);
    body.extend_from_slice(
        format!(
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n\
             --{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"clip.wav\"\r\n\
             Content-Type: audio/wav\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(&wav(bytes));
    body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
    let headers = vec![
        ("authorization".to_owned(), key.to_owned()),
        (
            "content-type".to_owned(),
            format!("multipart/form-data; boundary={BOUNDARY}"),
        ),
    ];
    Route {
        name: "translation-upload",
        what: format!(
            "POST /v1/audio/translations ({} KiB multipart)",
            bytes / 1024
        ),
        target: None,
        spec: ok(fixed(
            Method::POST,
            "/v1/audio/translations",
            headers,
            Bytes::from(body),
        )),
        prefix: "/v1/audio/".into(),
    }
}
