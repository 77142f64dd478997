//! The live dashboard at `/__mock/ui`: served with its assets to loopback peers, behind the
//! control API's access check, never journaled. (Its behaviour in a browser is tested in
//! gatecheck-conformance's `browser` tests.)

use crate::support::*;
use gatecheck_mock::MockServer;

#[tokio::test]
async fn the_dashboard_and_its_assets_are_served_to_loopback_with_a_strict_policy() {
    let server = MockServer::start().await;
    let http = Http::new(server.uri());
    let page = http.get("/__mock/ui", &[]).await;
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let policy = page.header("content-security-policy").expect("CSP");
    assert!(policy.contains("script-src 'self'") && policy.contains("connect-src 'self'"));
    assert_eq!(page.header("x-content-type-options"), Some("nosniff"));
    let html = page.text();
    for asset in ["/__mock/ui/ui.js", "/__mock/ui/ui.css"] {
        assert!(html.contains(asset), "{asset}");
        let r = http.get(asset, &[]).await;
        assert_eq!(r.status, 200, "{asset}");
        assert!(!r.body.is_empty());
    }
    assert_eq!(http.get("/__mock/ui/", &[]).await.status, 200);
    assert_eq!(http.get("/__mock/ui/other.js", &[]).await.status, 404);
    // The dashboard's own requests are control requests: not in the journal.
    assert!(server.received_requests().is_empty());
}

#[tokio::test]
async fn the_dashboard_is_off_with_the_control_api_and_guarded_like_it() {
    let off = MockServer::builder().no_control().start().await;
    assert_eq!(
        Http::new(off.uri()).get("/__mock/ui", &[]).await.status,
        404
    );
    let Some(ip) = crate::control::local_non_loopback_ip() else {
        eprintln!("no non-loopback address; skipped");
        return;
    };
    let server = MockServer::builder()
        .bind(std::net::SocketAddr::new(ip, 0))
        .start()
        .await;
    assert_eq!(
        Http::new(server.uri()).get("/__mock/ui", &[]).await.status,
        403
    );
}

#[tokio::test]
async fn a_page_of_another_origin_cannot_drive_the_control_api() {
    let server = MockServer::builder()
        .clock(gatecheck_mock::ClockMode::virtual_default())
        .start()
        .await;
    let http = Http::new(server.uri());
    let own = server.uri().trim_end_matches('/').to_owned();
    // A cross-origin form post (no preflight needed) and a cross-site fetch: refused, and the
    // clock did not move.
    let before = http.get("/__mock/clock", &[]).await.text();
    let evil = [("origin", "http://evil.example")];
    let r = http
        .send("POST", "/__mock/clock/advance", &evil, r#"{"seconds":60}"#)
        .await;
    assert_eq!(r.status, 403, "{}", r.text());
    let r = http
        .send(
            "POST",
            "/__mock/reset",
            &[("sec-fetch-site", "cross-site")],
            "",
        )
        .await;
    assert_eq!(r.status, 403);
    assert_eq!(http.get("/__mock/clock", &[]).await.text(), before);
    // No CORS permission for /__mock, while the model routes keep new-api's.
    let preflight = [
        ("origin", "http://evil.example"),
        ("access-control-request-method", "POST"),
    ];
    let r = http.send("OPTIONS", "/__mock/reset", &preflight, "").await;
    assert!(
        r.header("access-control-allow-origin").is_none(),
        "{}",
        r.status
    );
    let r = http.send("OPTIONS", "/v1/videos", &preflight, "").await;
    assert_eq!(r.status, 204);
    // The dashboard's own requests (same origin) and curl's (no Origin) are answered.
    let same = [("origin", own.as_str())];
    assert_eq!(http.get("/__mock/keys", &same).await.status, 200);
    assert_eq!(http.get("/__mock/keys", &[]).await.status, 200);
}
