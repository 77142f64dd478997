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
