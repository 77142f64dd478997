//! The routes the spec names without describing (DECISIONS D-EDIT, D-MJ): a target without
//! them is not failed; their checks skip with the cause `route-not-served`, and no `route.*`
//! finding is made for them.

use gatecheck_conformance::{Runner, SkipCause, Status};
use gatecheck_mock::{Fault, MockServer};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_without_the_unpinned_routes_skips_their_checks() {
    let server = MockServer::start().await;
    server.inject(Fault::status(404).on("POST /v1/images/edits"));
    server.inject(Fault::status(404).on("GET /mj/task/0/fetch"));
    let mut cfg = super::support::config(&server.uri());
    cfg.target.api_key = Some(server.demo_key().into());
    cfg.scope.only = vec!["route.*,images.edits.*,mj.*".into()];
    cfg.known.target_mode = gatecheck_conformance::TargetMode::Deployment;
    let report = Runner::new(cfg).run().await.expect("run");
    let show = gatecheck_conformance::report::summary_table(&report);
    let edits: Vec<_> = report
        .checks
        .iter()
        .filter(|c| c.id.starts_with("images.edits.") || c.id.starts_with("mj."))
        .collect();
    assert_eq!(edits.len(), 9, "{show}");
    for c in edits {
        assert_eq!(c.status, Status::Skipped, "{}: {show}", c.id);
        assert_eq!(c.skip_cause, Some(SkipCause::RouteNotServed), "{}", c.id);
    }
    assert!(
        report.ids_with(Status::Failed).is_empty(),
        "an unpinned route is never a failure: {show}"
    );
    let d = report.discovery.as_ref().expect("discovery");
    let seen = d
        .routes
        .iter()
        .find(|r| r.route == "POST /v1/images/edits")
        .expect("probed");
    assert!(!seen.pinned && !seen.served, "{show}");
    let mj = d
        .routes
        .iter()
        .find(|r| r.route == "GET /mj/task/{id}/fetch")
        .expect("probed");
    assert!(!mj.pinned && !mj.served, "{show}");
    server.shutdown().await;
}
