//! The runner against the embedded mock: every check passes on `documented`; on `new-api`,
//! exactly the failures DECISIONS.md lists.

use gatecheck_conformance::{Report, Runner, RunnerConfig, Status};
use gatecheck_mock::{ClockMode, MockServer};
use gatecheck_schemas::Profile;

pub(crate) fn config(uri: &str) -> RunnerConfig {
    RunnerConfig::new(uri.parse().expect("mock uri"))
        .with_cases(4)
        .with_seed(20251121)
        .with_deadline(std::time::Duration::from_secs(120))
}

pub(crate) async fn run_against(profile: Profile) -> Report {
    let server = MockServer::builder()
        .profile(profile)
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    let report = Runner::new(config(&server.uri())).run().await.expect("run");
    server.shutdown().await;
    report
}

fn show(report: &Report) -> String {
    gatecheck_conformance::report::summary_table(report)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn documented_profile_passes_every_check() {
    let report = run_against(Profile::Documented).await;
    let not_passed: Vec<_> = report
        .checks
        .iter()
        .filter(|c| c.status != Status::Passed)
        .map(|c| (c.id.as_str(), c.status))
        .collect();
    assert!(not_passed.is_empty(), "{}", show(&report));
    assert_eq!(report.summary.failed, 0);
    assert_eq!(report.summary.deviations, 0);
    assert_eq!(report.exit_code(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_api_profile_reports_exactly_the_listed_differences() {
    let report = run_against(Profile::NewApi).await;
    let mut failed = report.ids_with(Status::Failed);
    failed.sort();
    assert_eq!(
        failed,
        vec![
            "token.update.name-50-chars",
            "token.update.status-applied",
            "v1.validation-status-400",
            "video.poll.unknown-id-404",
        ],
        "{}",
        show(&report)
    );
    assert!(
        report.ids_with(Status::Deviation).is_empty(),
        "{}",
        show(&report)
    );
    assert!(
        report.ids_with(Status::Error).is_empty(),
        "{}",
        show(&report)
    );
    assert!(
        report.ids_with(Status::Skipped).is_empty(),
        "{}",
        show(&report)
    );
    assert_eq!(report.exit_code(), 1);
}

#[test]
fn the_run_future_is_send() {
    fn assert_send<T: Send>(_: &T) {}
    let config = RunnerConfig::new("http://127.0.0.1:1".parse().expect("url"));
    let fut = Runner::new(config).run();
    assert_send(&fut);
}
