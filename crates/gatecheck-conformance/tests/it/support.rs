//! The helpers the test modules share: the runner's configuration for a mock, fast task
//! fixtures, the run's summary, temporary directories, and SSE block surgery. A helper that
//! two modules need lives here, once.

use gatecheck_conformance::{Report, RunnerConfig};
use gatecheck_mock::{ClockMode, Fixtures, MockServer, MockServerBuilder};
use gatecheck_schemas::rules::video::VideoTiming;
use gatecheck_schemas::Profile;
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

/// The runner's configuration for a mock at `uri`: 4 cases, a fixed seed, 2 minutes.
pub(crate) fn config(uri: &str) -> RunnerConfig {
    let mut c = RunnerConfig::new(uri.parse().expect("mock uri"));
    c.scope.cases = 4;
    c.scope.seed = Some(20251121);
    c.limits.deadline = Duration::from_secs(120);
    c
}

/// The runner's configuration for `server`, with the demo account's credentials.
pub(crate) fn with_account(server: &MockServer, profile: Profile) -> RunnerConfig {
    let account = server.demo_account();
    let mut c = config(&server.uri());
    c.judging.expect = profile;
    c.target.access_token = Some(account.access_token.into());
    c.target.user_id = Some(account.id);
    c.limits.deadline = Duration::from_secs(120);
    c
}

/// The poll interval of the runs that treat a fast real-clock mock as a deployment (the task
/// routes send no `openai-poll-after-ms`, and the runner's 10 s fallback would make each task
/// check wait seconds for a task that ended long before).
pub(crate) const DEPLOYMENT_POLL: Duration = Duration::from_millis(250);

/// An embedded mock of `profile` in the Go-adaptor era (the `new-api-adaptors` expectations;
/// the plugin era's are [`named_mock`]'s) on the virtual clock, with the embedded fixtures.
pub(crate) async fn adaptors_mock(profile: Profile) -> MockServer {
    adaptors_mock_with(profile, Fixtures::embedded()).await
}

/// [`adaptors_mock`] with `fixtures`.
pub(crate) async fn adaptors_mock_with(profile: Profile, fixtures: Fixtures) -> MockServer {
    MockServer::builder()
        .profile(profile)
        .era(gatecheck_schemas::Era::Adaptors)
        .fixtures(fixtures)
        .clock(ClockMode::virtual_default())
        .start()
        .await
}

/// An embedded mock of the named profile (its profile and era) on the virtual clock.
pub(crate) async fn named_mock(named: gatecheck_schemas::NamedProfile) -> MockServer {
    MockServer::builder()
        .named_profile(named)
        .clock(ClockMode::virtual_default())
        .start()
        .await
}

/// A mock that keeps wall time with video tasks that end in about a second (polls every
/// 200 ms), so that a run without the control API polls them to the end in real time.
pub(crate) fn fast_real_clock(profile: Profile) -> MockServerBuilder {
    let mut fixtures = Fixtures::embedded();
    fixtures.video.timing = VideoTiming {
        queued_seconds: 0.2,
        in_progress_seconds_per_video_second: 0.05,
        min_in_progress_seconds: 0.5,
    };
    fixtures.video.poll_after_ms = 200;
    MockServer::builder()
        .profile(profile)
        .clock(ClockMode::Real)
        .fixtures(fixtures)
}

/// Fixtures whose video tasks end within a second of real time (for runs that poll in real
/// time: recorded deployment runs).
pub(crate) fn fast_fixtures() -> Fixtures {
    let mut f = Fixtures::embedded();
    f.video.timing.queued_seconds = 0.1;
    f.video.timing.in_progress_seconds_per_video_second = 0.02;
    f.video.timing.min_in_progress_seconds = 0.2;
    f
}

/// The run's summary table, for assertion messages.
pub(crate) fn show(report: &Report) -> String {
    gatecheck_conformance::report::summary_table(report)
}

/// A fresh, empty directory under the system's temp dir (removed by the caller).
pub(crate) fn temp_dir(tag: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("gatecheck-{tag}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// An SSE `block` with its `data:` line replaced by `v`.
pub(crate) fn with_data(block: &str, v: &Value) -> String {
    block
        .lines()
        .map(|l| match l.starts_with("data: ") {
            true => format!("data: {v}"),
            false => l.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The checks a run skips outside new-api's plugin era or the new-api expectation: HEAD of
/// the content route (D-ERA-6: the plugin era's route) and the plugin's billing ratios
/// (D-ERA-10: judged under `--expect new-api` in the plugin era), and the plugins' native
/// routes (D-ERA-15: the plugin era's routes); in the report's order.
pub(crate) const ERA_SKIPS: [&str; 3] = [
    "task.native-routes",
    "video.content.head",
    "video.create.plugin-ratios",
];

/// Whether check `c` is one of [`ERA_SKIPS`], skipped.
pub(crate) fn era_skipped(c: &gatecheck_conformance::CheckResult) -> bool {
    ERA_SKIPS.contains(&c.id.as_str()) && c.status == gatecheck_conformance::Status::Skipped
}
