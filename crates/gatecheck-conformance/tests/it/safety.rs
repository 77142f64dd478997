//! Safety on real deployments: snapshot and restore of `--key-id`, scratch keys, budgets, the
//! deadline, dry runs, retries with backoff, and shards. The mock stands in for a real
//! deployment here: its control API is turned off in the runner (`use_mock_control = false`).

use super::support::config;
use gatecheck_conformance::{Runner, RunnerConfig, Shard, Status};
use gatecheck_mock::{ClockMode, Fault, MockServer};
use std::time::{Duration, Instant};

async fn mock() -> MockServer {
    MockServer::builder()
        .clock(ClockMode::virtual_default())
        .start()
        .await
}

/// A mock on the real clock, as a real deployment would be.
async fn real_clock_mock() -> MockServer {
    MockServer::start().await
}

/// A configuration that treats the mock as a real deployment.
fn as_real(server: &MockServer) -> RunnerConfig {
    let mut c = config(&server.uri());
    c.target.access_token = Some(server.demo_account().access_token.into());
    c.target.user_id = Some(1);
    c.known.use_mock_control = false;
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_key_is_snapshotted_and_restored() {
    let server = real_clock_mock().await;
    let before = server.key(1).expect("key 1");
    let mut c = as_real(&server);
    c.target.key_id = Some(1);
    c.target.api_key = Some(server.demo_key().into());
    c.scope.only = vec!["key.*".into(), "token.update.*".into()];
    c.scope.skip = vec!["key.state.*".into()];
    let report = Runner::new(c).run().await.expect("run");
    assert_cleanup_says(&report, "restored");
    let after = server.key(1).expect("key 1");
    let editable = |k: &gatecheck_schemas::types::KeyRecord| {
        (
            k.name.clone(),
            k.status,
            k.expired_time,
            k.remain_quota,
            k.unlimited_quota,
            k.model_limits_enabled,
            k.model_limits.clone(),
            k.allow_ips.clone().unwrap_or_default(),
            k.group.clone(),
        )
    };
    assert_eq!(editable(&after), editable(&before));
    assert_eq!(
        report.summary.failed,
        0,
        "{}",
        gatecheck_conformance::report::summary_table(&report)
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scratch_key_is_created_and_deleted() {
    let server = real_clock_mock().await;
    let keys_before = server.state().keys.len();
    let mut c = as_real(&server);
    c.scope.allow_create_keys = true;
    c.scope.only = vec![
        "key.disabled-rejected".into(),
        "token.update.envelope".into(),
    ];
    let report = Runner::new(c).run().await.expect("run");
    assert_eq!(
        report.ids_with(Status::Passed).len(),
        2,
        "{}",
        gatecheck_conformance::report::summary_table(&report)
    );
    assert_key_deleted(&report, &server, keys_before);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_request_budget_is_never_exceeded() {
    let server = mock().await;
    let before = server.received_requests().len();
    let mut c = config(&server.uri());
    c.limits.budget_requests = Some(25);
    c.limits.budget_quota = None;
    let report = Runner::new(c).run().await.expect("run");
    let after = server.received_requests().len();
    // Discovery (one probe per route family, the models) and key clean-up are outside the
    // budget; at most a handful of them.
    let outside = gatecheck_conformance::discovery::RouteFamily::ALL.len() + 4;
    assert!(
        after - before <= 25 + outside,
        "{} requests",
        after - before
    );
    assert!(report.summary.skipped > 0);
    assert!(report
        .checks
        .iter()
        .any(|c| c.message.as_deref().is_some_and(|m| m.contains("budget"))));
    assert_eq!(report.summary.failed, 0);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_target_ends_at_the_deadline() {
    let server = mock().await;
    server.inject(Fault::hang().on("/v1/*"));
    let start = Instant::now();
    let mut c = config(&server.uri());
    c.limits.deadline = Duration::from_secs(3);
    c.limits.request_timeout = Duration::from_secs(60);
    let report = Runner::new(c).run().await.expect("run");
    // Every request, the raw 26 MiB upload probe included, is cut off at the deadline: the
    // run does not wait for the 5 s grace that follows it (it once did, through that probe).
    assert!(
        start.elapsed() < Duration::from_secs(3 + 4),
        "took {:?}",
        start.elapsed()
    );
    assert!(report.deadline_reached);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dry_run_sends_nothing_to_model_or_key_routes() {
    let server = mock().await;
    let keys = server.state().keys.len();
    let mut c = config(&server.uri());
    c.scope.dry_run = true;
    let report = Runner::new(c).run().await.expect("run");
    assert!(report.dry_run);
    assert!(
        report.planned.len() >= 20,
        "{} planned",
        report.planned.len()
    );
    assert!(report.planned.iter().all(|p| p.starts_with("curl ")));
    let touched = server
        .received_requests()
        .iter()
        .filter(|e| e.path.starts_with("/v1/") || e.path.starts_with("/api/token"))
        .count();
    assert_eq!(touched, 0);
    assert_eq!(server.state().keys.len(), keys);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transient_errors_are_retried_with_backoff() {
    let server = mock().await;
    // Three: discovery's probe of the route takes the first as an answer (a probe is not
    // retried after a 5xx), the catalog read retries the next two.
    server.inject(Fault::status(503).on("GET /api/models").times(3));
    let mut c = config(&server.uri());
    c.scope.only = vec!["catalog.envelope-schema".into()];
    let report = Runner::new(c).run().await.expect("run");
    assert!(report.retries >= 2, "{} retries", report.retries);
    assert_eq!(
        report.ids_with(Status::Passed),
        vec!["catalog.envelope-schema"]
    );
    server.shutdown().await;
}

#[tokio::test]
async fn shards_split_the_checks_without_overlap() {
    let base = RunnerConfig::new("http://127.0.0.1:1".parse().expect("url"));
    let all = gatecheck_conformance::internals::select_checks(&base).expect("all");
    let mut union = Vec::new();
    for k in 1..=3 {
        let mut c = base.clone();
        c.scope.shard = Some(Shard { index: k, count: 3 });
        union.extend(gatecheck_conformance::internals::select_checks(&c).expect("shard"));
    }
    union.sort();
    assert_eq!(union, all);
}

/// The runner reports that it deleted the key it created, and the mock holds as many keys as
/// before the run.
pub(crate) fn assert_key_deleted(
    report: &gatecheck_conformance::Report,
    server: &gatecheck_mock::MockServer,
    keys_before: usize,
) {
    assert_cleanup_says(report, "deleted");
    assert_eq!(
        server.state().keys.len(),
        keys_before,
        "the key was not deleted"
    );
}

/// The runner's report on the key it changed mentions `what` ("restored", "deleted").
fn assert_cleanup_says(report: &gatecheck_conformance::Report, what: &str) {
    assert!(
        report
            .key_cleanup
            .as_deref()
            .is_some_and(|s| s.contains(what)),
        "{:?}",
        report.key_cleanup
    );
}
