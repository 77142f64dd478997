//! Discovery on a target that lacks routes: one `route.*` finding per missing route, the checks
//! that need it skipped with the cause `route-not-served`, the cross-route rules judged on the
//! routes the target serves, and the models learned from `GET /v1/models` when the catalog is
//! missing.

use gatecheck_conformance::{Runner, SkipCause, Status};
use gatecheck_mock::{Fault, MockServer};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_route_is_one_finding_and_its_checks_skip_with_the_cause() {
    let server = MockServer::start().await;
    // A gateway without the translation route and without the catalog: 404 to everything
    // there, with or without credentials.
    server.inject(Fault::status(404).on("POST /v1/audio/translations"));
    server.inject(Fault::status(404).on("GET /api/models"));
    let mut cfg = super::support::config(&server.uri());
    cfg.target.api_key = Some(server.demo_key().into());
    cfg.scope.seed = Some(7);
    cfg.scope.only = vec!["route.*,audio.translation.*,catalog.*,auth.v1.*,v1.*".into()];
    // The sub-path probe needs a video task followed to its end, in real time here (30 s
    // of this test); it judges no route discovery.
    cfg.scope.skip = vec!["v1.unknown-subpath-404".into()];
    cfg.known.target_mode = gatecheck_conformance::TargetMode::Deployment;
    let report = Runner::new(cfg).run().await.expect("run");
    let show = gatecheck_conformance::report::summary_table(&report);
    let status = |id: &str| report.checks.iter().find(|c| c.id == id).map(|c| c.status);
    assert_eq!(
        status("route.audio-translations"),
        Some(Status::Failed),
        "{show}"
    );
    assert_eq!(status("route.api-models"), Some(Status::Failed), "{show}");
    assert_eq!(status("route.audio-speech"), Some(Status::Passed), "{show}");
    // Each missing route is named once among the failures.
    let failures: Vec<_> = report
        .checks
        .iter()
        .filter(|c| c.status == Status::Failed)
        .collect();
    let naming = |route: &str| {
        failures
            .iter()
            .filter(|c| {
                c.evidence
                    .as_ref()
                    .is_some_and(|e| e.curl.as_deref().unwrap_or("").contains(route))
            })
            .count()
    };
    assert_eq!(naming("/v1/audio/translations'"), 1, "{show}");
    assert_eq!(naming("/api/models'"), 1, "{show}");
    // The checks of the missing routes are skipped with the cause, never failed or passed.
    for c in report
        .checks
        .iter()
        .filter(|c| c.id.starts_with("audio.translation.") || c.id.starts_with("catalog."))
    {
        assert_eq!(c.status, Status::Skipped, "{}: {show}", c.id);
        assert_eq!(c.skip_cause, Some(SkipCause::RouteNotServed), "{}", c.id);
    }
    // The cross-route rules hold on the routes that are served.
    for id in [
        "auth.v1.missing-key-401",
        "auth.v1.invalid-key-401",
        "v1.validation-status-400",
    ] {
        assert_eq!(status(id), Some(Status::Passed), "{id}: {show}");
    }
    // Models from OpenAI's list, said in the report; no check passed without a case.
    let d = report.discovery.as_ref().expect("discovery");
    assert_eq!(d.models_source, "GET /v1/models", "{show}");
    assert!(d.models > 0);
    assert!(
        report
            .checks
            .iter()
            .all(|c| c.status != Status::Passed || c.cases > 0),
        "{show}"
    );
    assert_eq!(
        report
            .summary
            .skipped_by_cause
            .get(&SkipCause::RouteNotServed)
            .copied()
            .unwrap_or(0),
        report
            .checks
            .iter()
            .filter(|c| c.skip_cause == Some(SkipCause::RouteNotServed))
            .count() as u32
    );
    assert!(
        show.starts_with("the target lacks 2 routes the spec pins"),
        "{show}"
    );
    server.shutdown().await;
}
