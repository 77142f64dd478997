//! The rows of docs/DECISIONS.md that differ between the profiles: each test runs BOTH
//! profiles and asserts both answers (the row id is in the test name).

use crate::media_util::*;
use crate::support::*;
use gatecheck_mock::{MockServer, NewKey};
use gatecheck_schemas::Profile;
use serde_json::{json, Value};

fn error_of(resp: &Resp) -> Value {
    resp.json()["error"].clone()
}

/// The message of a new-api `/v1` error ends in ` (request id: <X-Oneapi-Request-Id>)`.
fn assert_new_api_shape(resp: &Resp) {
    let e = error_of(resp);
    let id = resp
        .header("x-oneapi-request-id")
        .expect("request id header");
    let msg = e["message"].as_str().unwrap_or_default();
    assert!(msg.ends_with(&format!(" (request id: {id})")), "{e}");
    assert!(e.get("param").is_none(), "new-api sends no param: {e}");
    assert!(e["code"].is_string(), "new-api's code is a string: {e}");
    assert_eq!(e["type"], "new_api_error");
}

#[tokio::test]
async fn na1_empty_model_limits_allow_all_in_documented_and_none_in_new_api() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server(profile).await;
        let key = server.add_key(NewKey::new().model_limits(""));
        let r = get_with(&server, "/v1/models/sora-2", &key.key).await;
        match profile {
            Profile::Documented => assert_eq!(r.status, 200, "{}", r.text()),
            Profile::NewApi => {
                assert_eq!(r.status, 403, "{}", r.text());
                let msg = error_of(&r)["message"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                assert!(
                    msg.starts_with("This token has no access to model sora-2"),
                    "{msg}"
                );
            }
        }
    }
}

#[tokio::test]
async fn na2_key_refusals_share_one_message_in_new_api() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server(profile).await;
        let mut messages = Vec::new();
        for key in [KEY_DISABLED, KEY_EXPIRED, KEY_EXHAUSTED, "nosuchkey000"] {
            let r = get_with(&server, "/v1/models", key).await;
            assert_eq!(r.status, 401, "{profile:?} {}", r.text());
            let msg = error_of(&r)["message"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            messages.push(
                msg.split(" (request id:")
                    .next()
                    .unwrap_or_default()
                    .to_owned(),
            );
        }
        match profile {
            Profile::Documented => {
                assert_eq!(messages[0], "This token status is unavailable");
                assert_eq!(messages[1], "This token has expired");
                assert_eq!(messages[3], "Invalid token");
            }
            Profile::NewApi => assert!(
                messages.iter().all(|m| m == "Invalid token"),
                "{messages:?}"
            ),
        }
    }
}

async fn completed_and_errored(server: &MockServer) -> (Value, Value) {
    let mut ids = Vec::new();
    for prompt in ["a cat", "a cat [error]"] {
        let r = post_json(
            server,
            "/v1/videos",
            KEY_ENABLED,
            json!({"model": "sora-2", "prompt": prompt, "seconds": "4"}),
        )
        .await;
        assert_eq!(r.status, 200, "{}", r.text());
        ids.push(r.json()["id"].as_str().unwrap_or_default().to_owned());
    }
    advance(server, 3600.0).await;
    let mut out = Vec::new();
    for id in &ids {
        let r = get_with(server, &format!("/v1/videos/{id}"), KEY_ENABLED).await;
        assert_eq!(r.status, 200, "{}", r.text());
        out.push(r.json());
    }
    (out[0].clone(), out[1].clone())
}

#[tokio::test]
async fn na3_na4_video_url_and_error_status_only_in_documented() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server(profile).await;
        let (done, errored) = completed_and_errored(&server).await;
        assert_eq!(done["status"], "completed");
        assert!(done["metadata"]["url"].is_string(), "{done}");
        assert!(errored["error"]["code"].is_string(), "{errored}");
        match profile {
            Profile::Documented => {
                assert_eq!(done["video_url"], done["metadata"]["url"]);
                assert_eq!(errored["status"], "error");
            }
            Profile::NewApi => {
                assert!(done.get("video_url").is_none(), "NA3: {done}");
                assert_eq!(errored["status"], "failed", "NA4");
            }
        }
    }
}

#[tokio::test]
async fn na5_unknown_model_is_400_documented_and_503_model_not_found_new_api() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server(profile).await;
        let img = post_json(
            &server,
            "/v1/images/generations",
            KEY_ENABLED,
            json!({"model": "gpt-imgae-1", "prompt": "x"}),
        )
        .await;
        let vid = post_json(
            &server,
            "/v1/videos",
            KEY_ENABLED,
            json!({"model": "sroa-2", "prompt": "x"}),
        )
        .await;
        match profile {
            Profile::Documented => {
                assert_eq!(img.status, 400, "{}", img.text());
                assert_eq!(vid.status, 400, "{}", vid.text());
            }
            Profile::NewApi => {
                for (r, model) in [(&img, "gpt-imgae-1"), (&vid, "sroa-2")] {
                    assert_eq!(r.status, 503, "{}", r.text());
                    let e = error_of(r);
                    assert_eq!(e["code"], "model_not_found");
                    let want = format!(
                        "No available channel for model {model} under group default (distributor)"
                    );
                    assert!(
                        e["message"].as_str().unwrap_or_default().starts_with(&want),
                        "{e}"
                    );
                    assert_new_api_shape(r);
                }
            }
        }
    }
}

#[tokio::test]
async fn na6_put_answer_masks_the_key_in_new_api() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server(profile).await;
        let secret = server.key(1).expect("key 1").key;
        let v = put(&server, "", full(1)).await;
        assert_eq!(v["success"], true, "{v}");
        let key = v["data"]["key"].as_str().unwrap_or_default().to_owned();
        match profile {
            Profile::Documented => assert_eq!(key, secret),
            Profile::NewApi => {
                assert_eq!(
                    key,
                    format!("{}**********{}", &secret[..4], &secret[secret.len() - 4..])
                );
                assert_eq!(
                    server.key(1).expect("key 1").key,
                    secret,
                    "only the answer is masked"
                );
            }
        }
    }
}

#[tokio::test]
async fn na10_content_of_unknown_and_unfinished_tasks() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server(profile).await;
        let unknown = get_with(
            &server,
            "/v1/videos/task_00000000000000000000000000000000/content",
            KEY_ENABLED,
        )
        .await;
        let created = post_json(
            &server,
            "/v1/videos",
            KEY_ENABLED,
            json!({"model": "sora-2", "prompt": "a cat"}),
        )
        .await;
        let id = created.json()["id"].as_str().unwrap_or_default().to_owned();
        let early = get_with(&server, &format!("/v1/videos/{id}/content"), KEY_ENABLED).await;
        assert_eq!(unknown.status, 404, "{}", unknown.text());
        assert_eq!(early.status, 400, "{}", early.text());
        if profile == Profile::NewApi {
            assert_eq!(
                unknown.json(),
                json!({"error": {"message": "Task not found", "type": "invalid_request_error"}})
            );
            assert_eq!(
                early.json(),
                json!({"error": {
                    "message": "Task is not completed yet, current status: QUEUED",
                    "type": "invalid_request_error"
                }})
            );
        } else {
            assert_eq!(error_of(&unknown)["code"], "task_not_found");
            assert_eq!(error_of(&early)["type"], "new_api_error");
        }
    }
}

#[tokio::test]
async fn na11_unknown_status_and_negative_expiry_are_stored_only_in_new_api() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server(profile).await;
        let status9 = put(&server, "?status_only=1", json!({"id": 1, "status": 9})).await;
        let mut body = full(1);
        body["expired_time"] = json!(-5);
        let expiry = put(&server, "", body).await;
        let stored = server.key(1).expect("key 1");
        match profile {
            Profile::Documented => {
                assert_eq!(status9["success"], false, "{status9}");
                assert_eq!(expiry["success"], false, "{expiry}");
                assert_eq!((stored.status, stored.expired_time), (1, -1));
            }
            Profile::NewApi => {
                assert_eq!(status9["success"], true, "{status9}");
                assert_eq!(expiry["success"], true, "{expiry}");
                assert_eq!((stored.status, stored.expired_time), (9, -5));
            }
        }
    }
}

#[tokio::test]
async fn na12_update_details() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server(profile).await;
        // No group check on update in new-api.
        let mut body = full(1);
        body["group"] = json!("no-such-group");
        let group = put(&server, "", body).await;
        // The quota upper bound is new-api's.
        let mut body = full(1);
        body["remain_quota"] = json!(600_000_000_000_000_i64);
        let quota = put(&server, "", body).await;
        // The exact message.
        let mut body = full(1);
        body["name"] = json!("x".repeat(51));
        let name = put(&server, "", body).await;
        // status_only without status.
        let status = put(&server, "?status_only=1", json!({"id": 1})).await;
        assert_eq!(status["success"], true, "{status}");
        let stored = server.key(1).expect("key 1");
        match profile {
            Profile::Documented => {
                assert_eq!(group["success"], false, "{group}");
                assert_eq!(quota["success"], true, "{quota}");
                assert_eq!(name["message"], "token name is too long");
                assert_eq!(stored.status, 1);
            }
            Profile::NewApi => {
                assert_eq!(group["success"], true, "{group}");
                assert_eq!(quota["success"], false, "{quota}");
                assert!(quota["message"]
                    .as_str()
                    .unwrap_or_default()
                    .starts_with("Quota value exceeds valid range"));
                assert_eq!(name["message"], "Token name is too long");
                assert_eq!(stored.status, 0);
            }
        }
    }
}

/// Seen on new-api 823e263 (docs/new-api-live.md): the relay's errors carry `param: ""`
/// (relaykit/types/error.go `ToOpenAIError`), the middleware's refusals no `param`.
#[tokio::test]
async fn na13_relay_errors_carry_an_empty_param_in_new_api() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server(profile).await;
        let r = post_json(
            &server,
            "/v1/images/generations",
            KEY_ENABLED,
            json!({"model": "gpt-image-1", "prompt": "x", "size": "48x44"}),
        )
        .await;
        let e = error_of(&r);
        match profile {
            Profile::Documented => assert_eq!(e["param"], "size", "{e}"),
            Profile::NewApi => {
                assert_eq!(r.status, 500, "{}", r.text());
                assert_eq!(e["param"], "", "{e}");
                assert_eq!(e["code"], "invalid_request", "{e}");
            }
        }
    }
}

#[tokio::test]
async fn na13_error_bodies_and_ip_message() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server(profile).await;
        let r = get_with(&server, "/v1/models", KEY_IP_RESTRICTED).await;
        assert_eq!(r.status, 403, "{}", r.text());
        let e = error_of(&r);
        assert_eq!(e["code"], "access_denied");
        let limited = server.add_key(NewKey::new().model_limits("tts-1"));
        let m = get_with(&server, "/v1/models/sora-2", &limited.key).await;
        assert_eq!(m.status, 403, "{}", m.text());
        match profile {
            Profile::Documented => {
                assert!(e.get("param").is_some(), "{e}");
                assert!(!e["message"]
                    .as_str()
                    .unwrap_or_default()
                    .contains("request id"));
                assert_eq!(error_of(&m)["code"], "model_not_allowed");
            }
            Profile::NewApi => {
                assert_new_api_shape(&r);
                assert!(e["message"]
                    .as_str()
                    .unwrap_or_default()
                    .starts_with("您的 IP 不在令牌允许访问的列表中"));
                assert_new_api_shape(&m);
                assert_eq!(error_of(&m)["code"], "");
            }
        }
    }
}

/// NA9: new-api fills in `1024x1024` for a DALL·E request without `size`; other models (and
/// `documented`) refuse it. `n: 2` on dall-e-3 is accepted in both (new-api relays it).
#[tokio::test]
async fn na9_dall_e_size_defaults_to_1024_only_in_new_api() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server(profile).await;
        let dalle = post_json(
            &server,
            "/v1/images/generations",
            KEY_ENABLED,
            json!({"model": "dall-e-3", "prompt": "a red square", "n": 2}),
        )
        .await;
        let other = post_json(
            &server,
            "/v1/images/generations",
            KEY_ENABLED,
            json!({"model": "gpt-image-1", "prompt": "a red square"}),
        )
        .await;
        let validation = gatecheck_schemas::rules::Rejection::MediaValidation.http_status(profile);
        assert_eq!(other.status, validation, "{}", other.text());
        match profile {
            Profile::Documented => assert_eq!(dalle.status, 400, "{}", dalle.text()),
            Profile::NewApi => {
                assert_eq!(dalle.status, 200, "{}", dalle.text());
                let v = dalle.json();
                assert_eq!(v["data"].as_array().map(Vec::len), Some(2), "{v}");
                assert_eq!(v["size"], "1024x1024", "{v}");
            }
        }
    }
}

/// Seen on new-api 823e263 built and run behind the mock (docs/new-api-live.md): an empty
/// `size` is no size (NA9's default, dall-e-3 billed at `standard` quality), and a request
/// without `model` is routed by the distributor's `dall-e`, for which the catalog has no
/// channel (NA5's 503); the documented profile refuses both as bad requests.
#[tokio::test]
async fn na9_na5_empty_size_default_quality_and_missing_model_in_new_api() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server(profile).await;
        let empty = post_json(
            &server,
            "/v1/images/generations",
            KEY_ENABLED,
            json!({"model": "dall-e-3", "prompt": "a green square", "size": ""}),
        )
        .await;
        let no_model = post_json(
            &server,
            "/v1/images/generations",
            KEY_ENABLED,
            json!({"prompt": "a yellow star", "size": "1024x1024"}),
        )
        .await;
        match profile {
            Profile::Documented => {
                assert_eq!(empty.status, 400, "{}", empty.text());
                assert_eq!(no_model.status, 400, "{}", no_model.text());
            }
            Profile::NewApi => {
                assert_eq!(empty.status, 200, "{}", empty.text());
                let v = empty.json();
                assert_eq!(v["size"], "1024x1024", "{v}");
                assert_eq!(v["quality"], "standard", "{v}");
                assert_eq!(v["usage"]["output_tokens"], 1056, "{v}");
                assert_eq!(no_model.status, 503, "{}", no_model.text());
                let e = error_of(&no_model);
                assert_eq!(e["code"], "model_not_found", "{e}");
                let want = "No available channel for model dall-e under group default";
                assert!(
                    e["message"].as_str().unwrap_or_default().starts_with(want),
                    "{e}"
                );
                assert_new_api_shape(&no_model);
            }
        }
    }
}

/// NA15, as 823e263 answers (docs/new-api-live.md): a translation without a file is the
/// conversion's 500 `convert_request_failed`; a `.mpga` file (one of the spec's nine) or a
/// `.txt` one the duration measurement's 500 `count_token_failed`. The documented profile
/// refuses the missing file and the `.txt` as bad requests and accepts the `.mpga`.
#[tokio::test]
async fn na15_audio_uploads_are_measured_before_the_relay_in_new_api() {
    let wav = wav_of(200);
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = adaptors_server(profile).await;
        let send = |name: Option<&'static str>| {
            let mut parts: Vec<Part<'_>> = vec![("model", None, b"whisper-1")];
            if let Some(n) = name {
                parts.push(("file", Some(n), &wav));
            }
            let server = &server;
            async move { post_multipart(server, "/v1/audio/translations", KEY_ENABLED, &parts).await }
        };
        let (none, mpga, txt) = (
            send(None).await,
            send(Some("a.mpga")).await,
            send(Some("a.txt")).await,
        );
        match profile {
            Profile::Documented => {
                assert_eq!(none.status, 400, "{}", none.text());
                assert_eq!(mpga.status, 200, "{}", mpga.text());
                assert_eq!(txt.status, 400, "{}", txt.text());
            }
            Profile::NewApi => {
                assert_eq!(none.status, 500, "{}", none.text());
                assert_eq!(error_of(&none)["code"], "convert_request_failed");
                for (r, ext) in [(&mpga, "mpga"), (&txt, "txt")] {
                    assert_eq!(r.status, 500, "{}", r.text());
                    let e = error_of(r);
                    assert_eq!(e["code"], "count_token_failed", "{e}");
                    let want =
                        format!("error getting audio duration: unsupported audio format: .{ext}");
                    assert!(
                        e["message"].as_str().unwrap_or_default().starts_with(&want),
                        "{e}"
                    );
                    assert_eq!(e["param"], "", "{e}");
                }
            }
        }
    }
}

/// D-ROUTE-2, D-ROUTE-3: new-api routes no video list, no video delete and no wrong method,
/// and answers them (before the key is looked at) with its own not-found body; the
/// documented profile serves the list and the delete and keeps its not-found body.
#[tokio::test]
async fn d_route_new_api_route_table_and_not_found_body() {
    let new_api = adaptors_server(Profile::NewApi).await;
    let http = Http::new(new_api.uri());
    let auth = bearer(KEY_ENABLED);
    let cases = [
        ("GET", "/v1/videos", "/v1/videos"),
        ("GET", "/v1/videos?limit=2", "/v1/videos"),
        (
            "DELETE",
            "/v1/videos/task_00000000000000000000000000000000",
            "/v1/videos/task_00000000000000000000000000000000",
        ),
        ("PATCH", "/v1/videos", "/v1/videos"),
        ("PUT", "/v1/models", "/v1/models"),
        ("GET", "/v1/gatecheck-nothing", "/v1/gatecheck-nothing"),
        ("GET", "/api/nothing", "/api/nothing"),
        ("POST", "/assets/x.js", "/assets/x.js"),
    ];
    for (method, uri, path) in cases {
        for headers in [vec![("authorization", auth.as_str())], vec![]] {
            let resp = http.send(method, uri, &headers, bytes::Bytes::new()).await;
            assert_eq!(resp.status, 404, "{method} {uri}: {}", resp.text());
            assert_eq!(
                resp.json(),
                json!({"error": {"message": format!("Invalid URL ({method} {path})"),
                    "type": "invalid_request_error", "param": "", "code": ""}}),
                "{method} {uri}"
            );
            assert!(gatecheck_schemas::rules::route::is_new_api_not_found(
                &resp.json()
            ));
            assert!(resp.header("x-oneapi-request-id").is_some());
        }
    }
    // Any other path: new-api's dashboard page.
    let page = http.get("/nothing-here", &[]).await;
    assert_eq!(page.status, 200);
    assert!(page
        .header("content-type")
        .unwrap_or("")
        .starts_with("text/html"));
    // What new-api routes is still served, and still authenticated.
    assert_eq!(
        http.get("/v1/models", &[("authorization", &auth)])
            .await
            .status,
        200
    );
    assert_eq!(http.get("/v1/models", &[]).await.status, 401);

    let documented = adaptors_server(Profile::Documented).await;
    let http = Http::new(documented.uri());
    assert_eq!(
        http.get("/v1/videos", &[("authorization", &auth)])
            .await
            .status,
        200
    );
    let unknown = http
        .get("/v1/gatecheck-nothing", &[("authorization", &auth)])
        .await;
    assert_eq!(unknown.status, 404);
    let e = error_of(&unknown);
    assert_eq!(
        (e["type"].as_str(), e["code"].as_str()),
        (Some("new_api_error"), Some("not_found"))
    );
    let wrong = http
        .send(
            "PATCH",
            "/v1/videos",
            &[("authorization", &auth)],
            bytes::Bytes::new(),
        )
        .await;
    assert_eq!(wrong.status, 405);
    assert_eq!(wrong.header("allow"), Some("POST, GET"));
    // The documented profile checks the key first.
    assert_eq!(http.get("/v1/gatecheck-nothing", &[]).await.status, 401);
}
