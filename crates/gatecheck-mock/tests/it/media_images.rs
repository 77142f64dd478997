//! `POST /v1/images/generations` and the `/media/images/*` result files over HTTP.

use crate::media_util::*;
use crate::support::*;
use base64::Engine as _;
use gatecheck_mock::MockServer;
use gatecheck_schemas::rules::media::parse_png;
use gatecheck_schemas::types::ImageResult;
use gatecheck_schemas::Profile;
use serde_json::json;

const GENERATIONS: &str = "/v1/images/generations";

fn decode(b64: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(b64)
        .expect("valid base64")
}

#[tokio::test]
async fn b64_mode_is_a_real_png_of_the_requested_size_with_full_result_fields() {
    let server = MockServer::start().await;
    let body = json!({"model": "gpt-image-1", "prompt": "a lighthouse at dusk", "size": "1024x1536", "n": 2, "quality": "medium"});
    let resp = post_json(&server, GENERATIONS, KEY_ENABLED, body.clone()).await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    let result: ImageResult = serde_json::from_slice(&resp.body).expect("image result shape");
    assert_eq!(result.size, "1024x1536");
    assert_eq!(result.output_format, "png");
    assert_eq!(result.quality, "medium");
    assert_eq!(result.background, "opaque");
    assert_eq!(result.data.len(), 2);
    let u = result.usage;
    assert_eq!(u.total_tokens, u.input_tokens + u.output_tokens);
    assert_eq!(
        u.input_tokens,
        u.input_tokens_details.text_tokens + u.input_tokens_details.image_tokens
    );
    assert_eq!(
        u.output_tokens,
        u.output_tokens_details.image_tokens + u.output_tokens_details.text_tokens
    );
    assert_eq!(u.output_tokens, 2 * 1584); // OpenAI's medium 1024x1536 count, per image
    let mut pngs = Vec::new();
    for item in &result.data {
        assert!(item.url.is_none());
        let png = decode(item.b64_json.as_deref().expect("b64_json"));
        let info = parse_png(&png).expect("valid png");
        assert_eq!((info.width, info.height), (1024, 1536));
        pngs.push(png);
    }
    assert_ne!(pngs[0], pngs[1], "the n images differ");
    // Deterministic from the prompt.
    let again: ImageResult = serde_json::from_slice(
        &post_json(&server, GENERATIONS, KEY_ENABLED, body)
            .await
            .body,
    )
    .unwrap();
    assert_eq!(again.data, result.data);
    assert_eq!(again.usage, result.usage);
}

#[tokio::test]
async fn url_mode_points_at_a_public_route_serving_that_png() {
    let server = MockServer::start().await;
    for (model, size) in [("dall-e-3", "1792x1024"), ("flux-schnell", "512x512")] {
        let resp = post_json(
            &server,
            GENERATIONS,
            KEY_ENABLED,
            json!({"model": model, "prompt": "a red fox", "size": size}),
        )
        .await;
        assert_eq!(resp.status, 200, "{}", resp.text());
        let v = resp.json();
        let url = v["data"][0]["url"].as_str().expect("url").to_owned();
        assert!(v["data"][0].get("b64_json").is_none());
        let path = url.strip_prefix(&server.uri()).expect("a URL of the mock");
        // No auth needed.
        let img = Http::new(server.uri()).get(path, &[]).await;
        assert_eq!(img.status, 200);
        assert_eq!(img.header("content-type"), Some("image/png"));
        let info = parse_png(&img.body).expect("valid png");
        assert_eq!(format!("{}x{}", info.width, info.height), size);
    }
    let missing = Http::new(server.uri())
        .get("/media/images/zz_1x1.png", &[])
        .await;
    assert_eq!(missing.status, 404);
}

#[tokio::test]
async fn image_rules_are_enforced() {
    let server = MockServer::start().await;
    let cases = [
        (
            "size not accepted",
            json!({"model": "gpt-image-1", "prompt": "p", "size": "512x512"}),
        ),
        (
            "size malformed",
            json!({"model": "dall-e-3", "prompt": "p", "size": "big"}),
        ),
        (
            "n = 0",
            json!({"model": "gpt-image-1", "prompt": "p", "size": "1024x1024", "n": 0}),
        ),
        (
            "n = 11",
            json!({"model": "gpt-image-1", "prompt": "p", "size": "1024x1024", "n": 11}),
        ),
        (
            "empty prompt",
            json!({"model": "gpt-image-1", "prompt": "", "size": "1024x1024"}),
        ),
        (
            "not an image model",
            json!({"model": "tts-1", "prompt": "p", "size": "1024x1024"}),
        ),
        ("missing model", json!({"prompt": "p", "size": "1024x1024"})),
        (
            "bad response_format",
            json!({"model": "dall-e-3", "prompt": "p", "size": "1024x1024", "response_format": "gif"}),
        ),
    ];
    for (what, body) in cases {
        assert_400(
            &post_json(&server, GENERATIONS, KEY_ENABLED, body).await,
            what,
        );
    }
    let ok = post_json(
        &server,
        GENERATIONS,
        KEY_ENABLED,
        json!({"model": "flux-schnell", "prompt": "p", "size": "768x768", "n": 10}),
    )
    .await;
    assert_eq!(ok.json()["data"].as_array().map(Vec::len), Some(10));
}

#[tokio::test]
async fn new_api_profile_answers_500_on_image_validation() {
    let server = MockServer::builder().profile(Profile::NewApi).start().await;
    let resp = post_json(
        &server,
        GENERATIONS,
        KEY_ENABLED,
        json!({"model": "gpt-image-1", "prompt": "p", "size": "1x1"}),
    )
    .await;
    assert_eq!(resp.status, 500);
    assert_eq!(v1_error(&resp).2.as_deref(), Some("invalid_request"));
}

#[tokio::test]
async fn images_charge_their_catalog_price() {
    let server = MockServer::start().await;
    let before = remain(&server);
    let resp = post_json(
        &server,
        GENERATIONS,
        KEY_ENABLED,
        json!({"model": "dall-e-3", "prompt": "p", "size": "1024x1024", "n": 2}),
    )
    .await;
    assert_eq!(resp.status, 200);
    // dall-e-3: 0.04 USD per image: 2 × 20000 units.
    assert_eq!(before - remain(&server), 40_000);
    let before = remain(&server);
    let resp = post_json(
        &server,
        GENERATIONS,
        KEY_ENABLED,
        json!({"model": "gpt-image-1", "prompt": "abcdefgh", "size": "1024x1024"}),
    )
    .await;
    let u = resp.json()["usage"].clone();
    // gpt-image-1: 5 USD / M input tokens, 40 USD / M output tokens.
    let usd = u["input_tokens"].as_f64().unwrap() * 5.0 / 1e6
        + u["output_tokens"].as_f64().unwrap() * 40.0 / 1e6;
    assert_eq!(before - remain(&server), (usd * 500_000.0).ceil() as i64);
}

#[tokio::test]
async fn image_size_is_required() {
    // documented: 400; new-api: 500 `invalid_request`, like every image validation error.
    for (profile, status) in [(Profile::Documented, 400), (Profile::NewApi, 500)] {
        let server = MockServer::builder().profile(profile).start().await;
        let before = remain(&server);
        for (what, body) in [
            ("no size", json!({"model": "gpt-image-1", "prompt": "p"})),
            (
                "null size",
                // Not a DALL-E model: new-api fills in their size (NA9, tests/it/profiles.rs).
                json!({"model": "flux-schnell", "prompt": "p", "size": null}),
            ),
            (
                "auto size",
                json!({"model": "gpt-image-1", "prompt": "p", "size": "auto"}),
            ),
            (
                "numeric size",
                json!({"model": "gpt-image-1", "prompt": "p", "size": 1024}),
            ),
            (
                "empty size",
                json!({"model": "flux-schnell", "prompt": "p", "size": ""}),
            ),
        ] {
            let resp = post_json(&server, GENERATIONS, KEY_ENABLED, body).await;
            assert_eq!(resp.status, status, "{profile:?} {what}: {}", resp.text());
            let (_, _, code) = v1_error(&resp);
            if profile == Profile::NewApi {
                assert_eq!(code.as_deref(), Some("invalid_request"), "{what}");
            } else {
                assert_eq!(resp.json()["error"]["param"], "size", "{what}");
            }
        }
        assert_eq!(remain(&server), before, "{profile:?}: nothing charged");
    }
}
