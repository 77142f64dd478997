//! The acceptance runs: the whole catalog against the embedded mock, in each
//! profile with the matching expectation, on a limited key, an unlimited key and a key the
//! runner creates itself (`--allow-create-keys`): 0 failures, 0 deviations, 0 errors.

use super::support::{fast_real_clock, with_account, DEPLOYMENT_POLL};
use gatecheck_conformance::{Report, Runner, Status, TargetMode};
use gatecheck_schemas::NamedProfile;

/// The fixtures' limited key (`remain_quota` 50 000 000) and unlimited key (`remain_quota` 0).
const LIMITED_KEY: i64 = 1;
const UNLIMITED_KEY: i64 = 7;

/// Asserts a clean run and returns its summary line.
pub(crate) fn assert_clean(what: &str, report: &Report) -> String {
    let show = gatecheck_conformance::report::summary_table(report);
    let s = &report.summary;
    let line = format!(
        "{what}: passed {}, failed {}, deviations {}, errors {}, skipped {}",
        s.passed, s.failed, s.deviations, s.errors, s.skipped
    );
    println!("{line}");
    assert_eq!(s.failed, 0, "{what}\n{show}");
    assert_eq!(s.deviations, 0, "{what}\n{show}");
    assert_eq!(s.errors, 0, "{what}\n{show}");
    assert!(s.passed > 0, "{what}\n{show}");
    line
}

async fn run_on_key(named: NamedProfile, key_id: i64) -> Report {
    let profile = named.profile;
    let server = super::support::named_mock(named).await;
    let key = server.key(key_id).expect("fixture key");
    let mut cfg = with_account(&server, profile);
    cfg.target.key_id = Some(key_id);
    cfg.target.api_key = Some(format!("sk-{}", key.key).into());
    let report = Runner::new(cfg).run().await.expect("run");
    server.shutdown().await;
    report
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_profile_passes_on_a_limited_and_an_unlimited_key() {
    // Every named profile: documented, new-api (the task plugins), new-api-adaptors.
    for profile in NamedProfile::ALL {
        for (what, key_id) in [("limited", LIMITED_KEY), ("unlimited", UNLIMITED_KEY)] {
            let report = run_on_key(profile, key_id).await;
            assert_clean(&format!("{profile}, {what} key {key_id}"), &report);
            // Quota checks ran on this key, not skipped.
            let charged = report.checks.iter().find(|c| c.id == "quota.charged");
            assert_eq!(charged.map(|c| c.status), Some(Status::Passed));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_profile_passes_on_a_key_the_runner_creates_and_deletes() {
    for profile in NamedProfile::ALL {
        // As a deployment (no control API): the key comes from `POST /api/token/`, and the
        // era is told from what the target shows.
        let server = fast_real_clock(profile.profile)
            .era(profile.era)
            .start()
            .await;
        let keys_before = server.state().keys.len();
        let mut cfg = with_account(&server, profile.profile);
        cfg.known.target_mode = TargetMode::Deployment;
        cfg.scope.allow_create_keys = true;
        cfg.limits.poll_interval = Some(DEPLOYMENT_POLL);
        let report = Runner::new(cfg).run().await.expect("run");
        assert_clean(&format!("{profile}, a created key"), &report);
        super::safety::assert_key_deleted(&report, &server, keys_before);
        let terminal = report
            .checks
            .iter()
            .find(|c| c.id == "video.reaches-terminal");
        assert_eq!(terminal.map(|c| c.status), Some(Status::Passed));
        server.shutdown().await;
    }
}
