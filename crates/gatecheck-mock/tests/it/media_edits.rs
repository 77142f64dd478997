//! `POST /v1/images/edits` over HTTP, as curl sends it (`-F image=@in.png -F mask=@mask.png
//! -F prompt=... -F model=...`), and the `/media/edits/*` result files (DECISIONS D-EDIT).

use crate::media_util::*;
use crate::support::*;
use base64::Engine as _;
use gatecheck_mock::internals::media::{decode_png, png};
use gatecheck_mock::MockServer;
use gatecheck_schemas::rules::image_edit::edit_usage;
use gatecheck_schemas::rules::quota::price_quota;
use gatecheck_schemas::types::ImageResult;
use gatecheck_schemas::Profile;

const EDITS: &str = "/v1/images/edits";

/// A 64 × 64 RGBA mask whose top half is fully transparent (edit there).
fn top_half_mask() -> Vec<u8> {
    let mut data = Vec::new();
    for y in 0..64 {
        for _ in 0..64 {
            data.extend_from_slice(&[0, 0, 0, if y < 32 { 0 } else { 255 }]);
        }
    }
    let mut out = Vec::new();
    {
        let mut enc = ::png::Encoder::new(&mut out, 64, 64);
        enc.set_color(::png::ColorType::Rgba);
        enc.set_depth(::png::BitDepth::Eight);
        let mut w = enc.write_header().unwrap();
        w.write_image_data(&data).unwrap();
    }
    out
}

#[tokio::test]
async fn an_edit_is_the_upload_resized_and_changed_inside_the_mask() {
    let server = MockServer::start().await;
    let source = png(5, 64, 64).unwrap();
    let mask = top_half_mask();
    let before = remain(&server);
    let resp = post_multipart(
        &server,
        EDITS,
        KEY_ENABLED,
        &[
            ("image", Some("in.png"), &source),
            ("mask", Some("mask.png"), &mask),
            ("prompt", None, b"paint the sky red"),
            ("model", None, b"gpt-image-1"),
            ("n", None, b"2"),
            ("size", None, b"1024x1024"),
        ],
    )
    .await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    let result: ImageResult = serde_json::from_slice(&resp.body).expect("image result");
    assert_eq!((result.size.as_str(), result.data.len()), ("1024x1024", 2));
    let src = decode_png(&source, "image").unwrap();
    for item in &result.data {
        let b64 = item
            .b64_json
            .as_deref()
            .expect("gpt-image-1 answers b64_json");
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap();
        let out = decode_png(&bytes, "image").expect("a PNG");
        assert_eq!((out.width, out.height), (1024, 1024));
        let at = |img: &gatecheck_mock::internals::media::Rgba, x: usize, y: usize| {
            let i = (y * img.width as usize + x) * 4;
            img.pixels[i..i + 3].to_vec()
        };
        // Bottom (opaque mask): the upload, scaled 16×; top (transparent): changed.
        assert_eq!(at(&out, 512, 1000), at(&src, 32, 62));
        assert_ne!(at(&out, 512, 10), at(&src, 32, 0));
    }
    assert_ne!(result.data[0], result.data[1], "the n images differ");
    // Charged as a generation: the catalog's token prices on the edit's usage.
    let pricing = gatecheck_mock::Fixtures::embedded()
        .catalog
        .into_iter()
        .find(|m| m.id == "gpt-image-1")
        .unwrap()
        .pricing;
    let price = price_quota(&pricing, edit_usage(17, &[(64, 64)], 2, (1024, 1024)));
    assert!(price > 0);
    assert_eq!(before - remain(&server), price);
}

#[tokio::test]
async fn url_results_and_several_images_are_served() {
    let server = MockServer::start().await;
    let a = png(1, 32, 32).unwrap();
    let b = png(2, 16, 16).unwrap();
    let resp = post_multipart(
        &server,
        EDITS,
        KEY_ENABLED,
        &[
            ("image[]", Some("a.png"), &a),
            ("image[]", Some("b.png"), &b),
            ("prompt", None, b"a hat"),
            ("model", None, b"flux-schnell"),
            ("size", None, b"512x512"),
        ],
    )
    .await;
    assert_eq!(resp.status, 200, "{}", resp.text());
    let v = resp.json();
    let url = v["data"][0]["url"]
        .as_str()
        .expect("flux-schnell answers url");
    let path = url.strip_prefix(&server.uri()).expect("a URL of the mock");
    let img = Http::new(server.uri()).get(path, &[]).await;
    assert_eq!(img.status, 200);
    assert_eq!(img.header("content-type"), Some("image/png"));
    let out = decode_png(&img.body, "image").unwrap();
    assert_eq!((out.width, out.height), (512, 512));
    let gone = Http::new(server.uri())
        .get("/media/edits/0000000000000000.png", &[])
        .await;
    assert_eq!(gone.status, 404);
}

#[tokio::test]
async fn a_missing_image_is_refused_as_each_profile_refuses_it() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = MockServer::builder().profile(profile).start().await;
        let before = remain(&server);
        let resp = post_multipart(
            &server,
            EDITS,
            KEY_ENABLED,
            &[("prompt", None, b"a hat"), ("model", None, b"gpt-image-1")],
        )
        .await;
        let (_, _, code) = v1_error(&resp);
        match profile {
            Profile::Documented => assert_eq!(resp.status, 400, "{}", resp.text()),
            Profile::NewApi => {
                assert_eq!(resp.status, 500, "{}", resp.text());
                assert_eq!(code.as_deref(), Some("convert_request_failed"));
            }
        }
        assert_eq!(remain(&server), before, "nothing charged ({profile:?})");
    }
}

#[tokio::test]
async fn bad_fields_are_refused_before_charging() {
    let server = MockServer::start().await;
    let img = png(3, 8, 8).unwrap();
    let before = remain(&server);
    type Fields<'a> = Vec<(&'a str, &'a [u8])>;
    let cases: [(&str, Fields<'_>); 5] = [
        ("no prompt", vec![("model", b"gpt-image-1")]),
        (
            "size",
            vec![
                ("model", b"gpt-image-1"),
                ("prompt", b"x"),
                ("size", b"7x7"),
            ],
        ),
        (
            "n",
            vec![("model", b"gpt-image-1"), ("prompt", b"x"), ("n", b"11")],
        ),
        (
            "dall-e-3 does not edit",
            vec![("model", b"dall-e-3"), ("prompt", b"x")],
        ),
        (
            "format",
            vec![
                ("model", b"gpt-image-1"),
                ("prompt", b"x"),
                ("response_format", b"gif"),
            ],
        ),
    ];
    for (what, fields) in cases {
        let mut parts: Vec<(&str, Option<&str>, &[u8])> = vec![("image", Some("i.png"), &img)];
        parts.extend(fields.into_iter().map(|(k, v)| (k, None, v)));
        assert_400(
            &post_multipart(&server, EDITS, KEY_ENABLED, &parts).await,
            what,
        );
    }
    let not_png = post_multipart(
        &server,
        EDITS,
        KEY_ENABLED,
        &[
            ("image", Some("i.png"), b"GIF89a"),
            ("model", None, b"gpt-image-1"),
            ("prompt", None, b"x"),
        ],
    )
    .await;
    assert_400(&not_png, "not a PNG");
    assert_eq!(remain(&server), before);
}
