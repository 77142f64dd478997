//! The era of new-api's task layer (DECISIONS D-ERA-1): told from the mock's signature in
//! every named profile, from what the target shows without it (the mock as a deployment, and
//! a fake target that reports a version), overridden by `--era`; and the plugin era's HEAD
//! check run and skipped by era.

use super::support::config;
use gatecheck_conformance::{EraChoice, Runner, Status, TargetMode};
use gatecheck_schemas::{Era, NamedProfile};
use http::{Request, Response};
use http_body_util::Full;
use hyper::body::Incoming;

/// The plugin era's HEAD check, and the not-found check (judged without the control API).
const HEAD: &str = "video.content.head";
const NOT_FOUND: &str = "v1.unknown-path-404";

async fn era_of(
    named: NamedProfile,
    mode: TargetMode,
    era: EraChoice,
    only: &str,
) -> (String, Status) {
    let server = super::support::named_mock(named).await;
    let mut cfg = super::support::with_account(&server, named.profile);
    cfg.known.target_mode = mode;
    cfg.judging.era = era;
    cfg.target.api_key = Some(server.demo_key().into());
    cfg.scope.only = vec![only.into()];
    let report = Runner::new(cfg).run().await.expect("run");
    server.shutdown().await;
    let head = report.checks.first().map_or(Status::Error, |c| c.status);
    (report.era.unwrap_or_default(), head)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mock_says_its_era_and_head_is_judged_in_the_plugin_era_only() {
    for named in NamedProfile::ALL {
        let (era, head) = era_of(named, TargetMode::Auto, EraChoice::Auto, HEAD).await;
        let want = named.effective_era();
        assert!(era.starts_with(want.as_str()), "{named}: {era}");
        assert!(era.contains("signature"), "{named}: {era}");
        let status = if want == Era::Plugins {
            Status::Passed
        } else {
            Status::Skipped
        };
        assert_eq!(head, status, "{named}: {era}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_signature_the_era_is_told_from_what_the_target_shows() {
    let (era, head) = era_of(
        NamedProfile::NEW_API,
        TargetMode::Deployment,
        EraChoice::Auto,
        NOT_FOUND,
    )
    .await;
    assert!(
        era.starts_with("plugins") && era.contains("a plugin route"),
        "{era}"
    );
    assert_eq!(head, Status::Passed, "{era}");
    for named in [NamedProfile::NEW_API_ADAPTORS, NamedProfile::DOCUMENTED] {
        let (era, check) = era_of(named, TargetMode::Deployment, EraChoice::Auto, NOT_FOUND).await;
        assert!(
            era.starts_with("adaptors") && era.contains("not told"),
            "{named}: {era}"
        );
        assert_eq!(check, Status::Passed, "{named}: {era}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_era_flag_overrides_what_the_target_shows() {
    let (era, head) = era_of(
        NamedProfile::NEW_API,
        TargetMode::Auto,
        EraChoice::Fixed(Era::Adaptors),
        HEAD,
    )
    .await;
    assert_eq!(era, "adaptors (--era)");
    assert_eq!(head, Status::Skipped);
}

/// A fake deployment: `GET /api/status` reports `version` (none when `None`), every other
/// path is a JSON 404 that allows caching.
async fn fake_target(version: Option<&'static str>) -> String {
    super::targets::serve(move |req: Request<Incoming>| async move {
        let (status, body) = match (req.uri().path(), version) {
            ("/api/status", Some(v)) => (
                200,
                serde_json::json!({"success": true, "message": "", "data": {"version": v}}),
            ),
            _ => (404, serde_json::json!({"error": {"message": "not found"}})),
        };
        let mut r = Response::new(Full::new(bytes::Bytes::from(body.to_string())));
        *r.status_mut() = http::StatusCode::from_u16(status).expect("status");
        r.headers_mut()
            .insert("content-type", "application/json".parse().expect("ct"));
        r
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fake_target_is_judged_by_the_era_its_version_tells() {
    for (version, want, told) in [
        (Some("v1.0.0-rc.34"), "plugins", "version v1.0.0-rc.34"),
        (Some("v1.0.0-rc.21"), "adaptors", "version v1.0.0-rc.21"),
        (Some("v1.0.0-rc.27"), "adaptors", "not told"),
        (Some("custom-build"), "adaptors", "not told"),
        (None, "adaptors", "no version"),
    ] {
        let uri = fake_target(version).await;
        let mut cfg = config(&uri);
        cfg.known.target_mode = TargetMode::Deployment;
        cfg.scope.only = vec!["video.content.head".into()];
        let report = Runner::new(cfg).run().await.expect("run");
        let era = report.era.clone().unwrap_or_default();
        assert!(
            era.starts_with(want) && era.contains(told),
            "{version:?}: {era}"
        );
    }
}
