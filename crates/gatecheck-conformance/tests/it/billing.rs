//! The billing acceptance: a deployment that charges the key's group
//! ratio (2, 0.8) consistently passes `usage.charged` and the quota checks, whether the ratio is
//! published on `GET /api/pricing` or inferred from the run's charges; a stream charged twice,
//! a charge that drifts and a charge kept for a refused request fail.

use super::mutation_proxy::start_proxy;
use super::planted::Bug;
use gatecheck_conformance::{Report, Runner, Status};
use gatecheck_mock::{ClockMode, Fixtures, MockServer};
use std::time::Duration;

/// The checks that judge a charge.
const BILLING: [&str; 2] = ["usage.charged", "quota.*"];

/// A run of [`BILLING`] through the proxy planting `bug`, on a mock whose `default` group (the
/// working key's) has ratio `ratio`.
async fn run(bug: Bug, ratio: f64) -> Report {
    let mut fixtures = Fixtures::embedded();
    fixtures.group_ratio.insert("default".into(), ratio);
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .fixtures(fixtures)
        .start()
        .await;
    let proxy = start_proxy(server.uri(), bug).await;
    let mut config = super::support::config(&proxy);
    config.limits.deadline = Duration::from_secs(60);
    config.scope.only = BILLING.iter().map(|s| s.to_string()).collect();
    let report = Runner::new(config).run().await.expect("run");
    server.shutdown().await;
    report
}

/// The message (a pass's note) of check `id`.
fn message(report: &Report, id: &str) -> String {
    report
        .checks
        .iter()
        .find(|c| c.id == id)
        .and_then(|c| c.message.clone())
        .unwrap_or_default()
}

fn status(report: &Report, id: &str) -> Option<Status> {
    report.checks.iter().find(|c| c.id == id).map(|c| c.status)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_group_ratio_charged_consistently_passes_published_or_inferred() {
    for (bug, ratio) in [
        (Bug::None, 2.0),
        (Bug::None, 0.8),
        (Bug::PricingNotServed, 2.0),
        (Bug::PricingNotServed, 0.8),
    ] {
        let report = run(bug, ratio).await;
        let show = gatecheck_conformance::report::summary_table(&report);
        // Published or not, every check that judges a charge passes: without a published
        // ratio each infers one from its own charges.
        let inferred = bug == Bug::PricingNotServed;
        let bad: Vec<_> = report
            .checks
            .iter()
            .filter(|c| c.status != Status::Passed)
            .map(|c| c.id.clone())
            .collect();
        assert!(bad.is_empty(), "{bug:?} at ratio {ratio}: {bad:?}\n{show}");
        assert_eq!(report.exit_code(), 0, "{bug:?} at ratio {ratio}\n{show}");
        for id in [
            "quota.charged",
            "quota.concurrent-atomic",
            "quota.insufficient-403",
        ] {
            let note = message(&report, id);
            assert_eq!(note.contains("inferred"), inferred, "{id}: {note}");
        }
        assert!(
            message(&report, "quota.charged").contains(&format!("group ratio {ratio}")),
            "{show}"
        );
        let note = message(&report, "usage.charged");
        assert!(note.contains(&format!("group ratio {ratio:.3}")), "{note}");
        assert_eq!(note.contains("inferred"), inferred, "{note}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn charges_no_one_ratio_explains_and_a_kept_refusal_charge_fail() {
    for (bug, ratio, id) in [
        (Bug::StreamChargedTwice, 1.0, "usage.charged"),
        (Bug::StreamChargedTwice, 2.0, "usage.charged"),
        (Bug::ChargeDrifts, 1.0, "usage.charged"),
        (Bug::RefusalChargeKept, 1.0, "quota.refused-uncharged"),
        (Bug::RefusalChargeKept, 0.8, "quota.refused-uncharged"),
    ] {
        let report = run(bug, ratio).await;
        let show = gatecheck_conformance::report::summary_table(&report);
        assert_eq!(
            status(&report, id),
            Some(Status::Failed),
            "{bug:?} at {ratio}: {show}"
        );
        if bug == Bug::ChargeDrifts {
            // quota.charged sees the drift too: two charges of one request that no one ratio
            // explains are the service's own books disagreeing (a failure, D-QUOTA-5).
            let got = status(&report, "quota.charged");
            assert_eq!(got, Some(Status::Failed), "{show}");
        }
        println!("{bug:?} at ratio {ratio}: {id} {:?}", status(&report, id));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_charged_nothing_fails_where_a_free_group_is_not_observed() {
    // Charged nothing, no ratio published: the request is refused on a key holding one unit
    // (the service prices it), so a charge of 0 is wrong.
    let report = run(Bug::NothingCharged, 1.0).await;
    let show = gatecheck_conformance::report::summary_table(&report);
    println!("NothingCharged: {show}");
    for id in ["usage.charged", "quota.charged"] {
        assert_eq!(status(&report, id), Some(Status::Failed), "{id}\n{show}");
    }
    assert_ne!(report.exit_code(), 0, "{show}");
    // A free group (ratio 0), published or not: served on one unit, charged 0. Nothing to
    // compare, so not a pass, and not a finding.
    for bug in [Bug::None, Bug::PricingNotServed] {
        let report = run(bug, 0.0).await;
        let show = gatecheck_conformance::report::summary_table(&report);
        println!("{bug:?} at ratio 0: {show}");
        let bad: Vec<_> = report
            .checks
            .iter()
            .filter(|c| matches!(c.status, Status::Failed | Status::Deviation | Status::Error))
            .map(|c| c.id.clone())
            .collect();
        assert!(bad.is_empty(), "{bug:?} at ratio 0: {bad:?}\n{show}");
        assert_eq!(
            status(&report, "usage.charged"),
            Some(Status::Skipped),
            "{show}"
        );
        let note = message(&report, "usage.charged");
        assert!(note.contains("ratio 0"), "{note}");
    }
}
