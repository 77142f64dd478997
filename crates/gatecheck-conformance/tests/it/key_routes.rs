//! `key.routes.*`: each key rule on every route family; a
//! faithful mock passes them in both profiles, and the planted bugs of `planted_key_routes.rs`
//! fail them while the `/v1/videos`-only key checks stay green. `images.edits.result`: the
//! images a client downloads, on another host too (`planted_image_results.rs`).

use super::support::{config, show};
use gatecheck_conformance::{Runner, Status};
use gatecheck_mock::{ClockMode, MockServer};
use gatecheck_schemas::Profile;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_family_refuses_every_key_rule_on_the_mock() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = MockServer::builder()
            .profile(profile)
            .clock(ClockMode::virtual_default())
            .start()
            .await;
        let mut c = config(&server.uri());
        c.judging.expect = profile;
        c.scope.only = vec!["key.routes.*".into()];
        let report = Runner::new(c).run().await.expect("run");
        server.shutdown().await;
        let ids: Vec<&str> = report.checks.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids.len(), 13, "{profile:?}: {}", show(&report));
        let bad: Vec<_> = report
            .checks
            .iter()
            .filter(|c| c.status != Status::Passed || c.cases == 0)
            .map(|c| c.id.clone())
            .collect();
        assert!(bad.is_empty(), "{profile:?}: {bad:?}\n{}", show(&report));
    }
}

/// The key checks that probe `POST /v1/videos` only (what judged the key rules before
/// `key.routes.*`).
const VIDEO_ONLY: [&str; 7] = [
    "key.disabled-rejected",
    "key.expired-status-rejected",
    "key.exhausted-status-rejected",
    "key.expired-time-past-rejected",
    "key.zero-quota-rejected",
    "key.model-limits",
    "key.ip-allowlist",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_route_bug_passes_the_video_only_checks_and_fails_its_family() {
    use futures_util::StreamExt as _;
    // The first three rows (unified, speech stream, image stream); the planted suite runs the
    // family check of every row.
    let rows: Vec<_> = super::planted_key_routes::rows()
        .into_iter()
        .take(3)
        .collect();
    let runs = rows.iter().map(|(bug, id, _, _)| {
        let mut only: Vec<String> = VIDEO_ONLY.iter().map(|s| (*s).to_owned()).collect();
        only.push((*id).to_owned());
        tokio::spawn(run_one_case(*bug, only))
    });
    let reports: Vec<_> = futures_util::stream::iter(runs)
        .buffered(3)
        .map(|r| r.expect("run"))
        .collect()
        .await;
    for ((bug, id, status, _), report) in rows.iter().zip(&reports) {
        let verdict = |c: &str| report.checks.iter().find(|r| r.id == c).map(|r| r.status);
        for old in VIDEO_ONLY {
            assert_eq!(
                verdict(old),
                Some(Status::Passed),
                "{bug:?}: {old}\n{}",
                show(report)
            );
        }
        assert_eq!(
            verdict(id),
            Some(*status),
            "{bug:?}: {id}\n{}",
            show(report)
        );
    }
}

/// The checks `only` through the proxy planting `bug`, one case per property (the verdicts
/// asked here do not depend on the draws).
async fn run_one_case(
    bug: super::planted::Bug,
    only: Vec<String>,
) -> gatecheck_conformance::Report {
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .start()
        .await;
    let proxy = super::mutation_proxy::start_proxy(server.uri(), bug).await;
    let mut c = config(&proxy);
    c.scope.cases = 1;
    c.scope.only = only;
    let report = Runner::new(c).run().await.expect("run");
    server.shutdown().await;
    report
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_urls_on_another_host_are_fetched_and_judged() {
    // The healthy variant: the edit's URLs name the mock's own address, another host than the
    // proxy the runner talks to, and its files are the edited PNGs. They are fetched (without
    // the target's credentials) and judged: a pass with the url model's cases counted. The
    // broken variants (a file that is not a PNG, the upload unchanged) are planted-suite rows.
    let report = run_one_case(
        super::planted::Bug::EditUrlElsewhere,
        vec!["images.edits.result".into()],
    )
    .await;
    let c = report.checks.first().expect("the check");
    assert_eq!(c.status, Status::Passed, "{}", show(&report));
    assert!(c.cases >= 3, "{}", show(&report));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generation_and_midjourney_urls_on_another_host_are_fetched_and_judged() {
    // The generations' URLs and the Midjourney record's `imageUrl` name the mock's own address,
    // another host than the proxy: healthy files pass with every image judged; a file that is
    // not a PNG fails the generation check and deviates the Midjourney one (D-MJ-5). Before,
    // both checks skipped such an image and passed.
    use super::planted::Bug;
    let only = || vec!["images.png-matches-size".into(), "mj.task.lifecycle".into()];
    let status = |r: &gatecheck_conformance::Report, id: &str| {
        let c = r.checks.iter().find(|c| c.id == id).expect("the check");
        (c.status, c.cases)
    };
    let healthy = run_one_case(Bug::EditUrlElsewhere, only()).await;
    let (png, cases) = status(&healthy, "images.png-matches-size");
    assert_eq!(png, Status::Passed, "{}", show(&healthy));
    assert!(cases >= 1, "{}", show(&healthy));
    let (mj, cases) = status(&healthy, "mj.task.lifecycle");
    assert_eq!(mj, Status::Passed, "{}", show(&healthy));
    assert!(cases >= 2, "{}", show(&healthy));
    let broken = run_one_case(Bug::EditUrlElsewhereNotPng, only()).await;
    let show = show(&broken);
    assert_eq!(
        status(&broken, "images.png-matches-size").0,
        Status::Failed,
        "{show}"
    );
    assert_eq!(
        status(&broken, "mj.task.lifecycle").0,
        Status::Deviation,
        "{show}"
    );
}
