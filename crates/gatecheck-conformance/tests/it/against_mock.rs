//! The runner against the embedded mock: every check passes on `documented`; on `new-api`,
//! exactly the failures DECISIONS.md lists.

use super::support::{config, show};
use gatecheck_conformance::{Report, Runner, RunnerConfig, Status};
use gatecheck_schemas::Profile;

pub(crate) async fn run_against(profile: Profile) -> Report {
    let server = super::support::adaptors_mock(profile).await;
    let report = Runner::new(config(&server.uri())).run().await.expect("run");
    server.shutdown().await;
    report
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn documented_profile_passes_every_check() {
    let report = run_against(Profile::Documented).await;
    let not_passed: Vec<_> = report
        .checks
        .iter()
        .filter(|c| c.status != Status::Passed)
        // HEAD of the content route is the plugin era's (D-ERA-6): skipped in the adaptors'.
        .filter(|c| !super::support::era_skipped(c))
        .map(|c| (c.id.as_str(), c.status))
        .collect();
    assert!(not_passed.is_empty(), "{}", show(&report));
    assert_eq!(report.summary.failed, 0);
    assert_eq!(report.summary.deviations, 0);
    assert_eq!(report.exit_code(), 0);
    super::docs_numbers::assert_docs_agree(super::docs_numbers::DOCUMENTED, &report);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_api_profile_reports_exactly_the_listed_differences() {
    let report = run_against(Profile::NewApi).await;
    let mut failed = report.ids_with(Status::Failed);
    failed.sort();
    assert_eq!(
        failed,
        vec![
            // NA15: .mpga and .mpeg refused (500 count_token_failed), as 823e263 answers.
            "audio.translation.file-formats",
            "key.model-limits",
            "token.update.group-no-access",
            "token.update.name-50-chars",
            "token.update.name-51-chars-rejected",
            "token.update.status-applied",
            "v1.validation-status-400",
            "video.poll.unknown-id-404",
        ],
        "{}",
        show(&report)
    );
    let mut deviations = report.ids_with(Status::Deviation);
    deviations.sort();
    assert_eq!(
        deviations,
        vec![
            "audio.translation.bad-request-rejected",
            "images.edits.missing-image",
            "token.update.expired-time-range",
            "token.update.status-enum",
            "video.create.unknown-model-503",
            "video.task.decided-fields",
        ],
        "{}",
        show(&report)
    );
    // Every deviation and every failure names its DECISIONS row; a failure's row is one
    // whose verdict is a failure (new-api breaks a rule the spec pins).
    for c in &report.checks {
        let Some(ev) = c.evidence.as_ref() else {
            continue;
        };
        if c.status == Status::Deviation {
            let row = ev.decision.as_deref().unwrap_or("");
            // The NA rows, and the rows of the routes the spec names without describing.
            let known = ["NA", "D-EDIT-"].iter().any(|p| row.starts_with(p));
            assert!(known, "{}: {row}", c.id);
            assert!(ev.message.contains(&format!("DECISIONS {row}")), "{}", c.id);
        }
        if c.status == Status::Failed {
            let row = ev
                .message
                .strip_prefix("DECISIONS ")
                .and_then(|m| m.split_whitespace().next())
                .unwrap_or_else(|| panic!("{}: no row in {:?}", c.id, ev.message));
            let decision = gatecheck_schemas::decisions::get(row)
                .unwrap_or_else(|| panic!("{}: unknown row {row}", c.id));
            assert_eq!(
                decision.verdict,
                gatecheck_schemas::decisions::Verdict::Failure,
                "{}: {row}",
                c.id
            );
        }
    }
    assert!(
        report.ids_with(Status::Error).is_empty(),
        "{}",
        show(&report)
    );
    // HEAD of the content route is the plugin era's (D-ERA-6): skipped in the adaptors'; the
    // plugin's ratios are judged under the new-api expectation only (D-ERA-10).
    assert!(
        report.ids_with(Status::Skipped) == super::support::ERA_SKIPS,
        "{}",
        show(&report)
    );
    assert_eq!(report.exit_code(), 1);
    // `gatecheck check --profile new-api --expect documented`, as the docs count it.
    super::docs_numbers::assert_docs_agree(super::docs_numbers::NEW_API_EXPECT_DOCUMENTED, &report);
}

/// The key-state machine's draws decide which of new-api's known differences (NA1, NA11,
/// NA12) a sequence meets first; the verdicts must not depend on it. Seed 12937646690874285140
/// met NA1 first and failed `key.state.matches-model`, where other seeds gave a deviation; seed
/// 4 drew no unknown model in `audio.translation.bad-request-rejected` and missed NA5.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_seed_judges_new_apis_key_behaviour_the_same_way() {
    let server = super::support::adaptors_mock(Profile::NewApi).await;
    let mut verdicts = Vec::new();
    for seed in [12937646690874285140, 1, 2, 3, 4, 20251121, 4242] {
        let mut config = config(&server.uri());
        config.scope.cases = 16;
        config.scope.seed = Some(seed);
        config.scope.only = vec![
            "key.*".into(),
            "token.update.*".into(),
            "audio.translation.*".into(),
        ];
        let report = Runner::new(config).run().await.expect("run");
        let mut got: Vec<(String, Status)> = report
            .checks
            .iter()
            .map(|c| (c.id.clone(), c.status))
            .collect();
        got.sort_by(|a, b| a.0.cmp(&b.0));
        let state = report
            .checks
            .iter()
            .find(|c| c.id == "key.state.matches-model")
            .expect("key.state.matches-model ran");
        assert_eq!(
            state.status,
            Status::Passed,
            "seed {seed}: {}",
            show(&report)
        );
        let note = state.message.as_deref().unwrap_or("");
        assert!(note.contains("DECISIONS NA"), "seed {seed}: {note:?}");
        verdicts.push((seed, got));
    }
    let (first_seed, first) = &verdicts[0];
    for (seed, got) in &verdicts[1..] {
        assert_eq!(got, first, "seed {seed} against seed {first_seed}");
    }
    server.shutdown().await;
}

#[test]
fn the_run_future_is_send() {
    fn assert_send<T: Send>(_: &T) {}
    let config = RunnerConfig::new("http://127.0.0.1:1".parse().expect("url"));
    let fut = Runner::new(config).run();
    assert_send(&fut);
}

/// Each profile, checked with the matching `--expect`, with a freshly created key (the control
/// API's), the limited fixture key 1 and the unlimited fixture key 7: no failure, no deviation.
/// One test per profile (they were one loop; apart, the two profiles run side by side).
async fn passes_with_the_matching_expectation_and_any_key(profile: Profile) {
    for key_id in [None, Some(1), Some(7)] {
        let server = super::support::adaptors_mock(profile).await;
        let mut cfg = config(&server.uri());
        cfg.judging.expect = profile;
        if let Some(id) = key_id {
            cfg.target.key_id = Some(id);
        }
        let report = Runner::new(cfg).run().await.expect("run");
        server.shutdown().await;
        let not_passed: Vec<_> = report
            .checks
            .iter()
            .filter(|c| c.status != Status::Passed)
            .filter(|c| !super::support::era_skipped(c))
            .map(|c| (c.id.as_str(), c.status))
            .collect();
        assert!(
            not_passed.is_empty(),
            "{profile} with key {key_id:?}:\n{}",
            show(&report)
        );
        assert_eq!(report.exit_code(), 0);
        if profile == Profile::NewApi && key_id.is_none() {
            // `gatecheck check --profile new-api`, as the docs count it.
            super::docs_numbers::assert_docs_agree(super::docs_numbers::NEW_API, &report);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_profile_passes_with_the_matching_expectation_and_any_key_documented() {
    passes_with_the_matching_expectation_and_any_key(Profile::Documented).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_profile_passes_with_the_matching_expectation_and_any_key_new_api() {
    passes_with_the_matching_expectation_and_any_key(Profile::NewApi).await;
}

/// Runs the one check `check` against the new-api mock at `uri` twice, with `cases` cases:
/// as is, where it must be a deviation citing DECISIONS `row`, and with `--expect new-api`,
/// where it must pass. Both reports, for the caller's own assertions.
async fn deviation_until_expected(
    uri: &str,
    check: &str,
    cases: u32,
    row: &str,
) -> (Report, Report) {
    let cfg = |expect: Option<Profile>| {
        let mut c = config(uri);
        c.scope.cases = cases;
        c.scope.only = vec![check.into()];
        if let Some(p) = expect {
            c.judging.expect = p;
        }
        c
    };
    let report = Runner::new(cfg(None)).run().await.expect("run");
    let expected = Runner::new(cfg(Some(Profile::NewApi)))
        .run()
        .await
        .expect("run");
    let c = &report.checks[0];
    assert_eq!(c.status, Status::Deviation, "{}", show(&report));
    let ev = c.evidence.as_ref().expect("evidence");
    assert_eq!(ev.decision.as_deref(), Some(row));
    assert_eq!(
        expected.checks[0].status,
        Status::Passed,
        "{}",
        show(&expected)
    );
    (report, expected)
}

/// DECISIONS NA5: new-api answers a typo'd model 503 `model_not_found`, which the spec tells
/// clients to retry. The runner reports it as a deviation with that consequence, and never
/// retries it itself: each case is one request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_model_503_is_a_deviation_and_never_retried() {
    let server = super::support::adaptors_mock(Profile::NewApi).await;
    let (report, expected) =
        deviation_until_expected(&server.uri(), "video.create.unknown-model-503", 4, "NA5").await;
    server.shutdown().await;
    let ev = report.checks[0].evidence.as_ref().expect("evidence");
    assert!(ev.message.contains("retries forever"), "{}", ev.message);
    assert_eq!(ev.status, Some(503));
    assert_eq!(report.retries, 0, "{}", show(&report));
    assert_eq!(expected.retries, 0);
}

/// DECISIONS NA9: with dall-e-3 as the only image model, the new-api profile's default size
/// is a deviation citing NA9 without `--expect new-api`, and passes with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dall_e_default_size_is_judged_by_expect() {
    let mut fixtures = gatecheck_mock::Fixtures::embedded();
    fixtures
        .catalog
        .retain(|m| m.model_type != "image" || m.id == "dall-e-3");
    let server = super::support::adaptors_mock_with(Profile::NewApi, fixtures).await;
    let (report, _) =
        deviation_until_expected(&server.uri(), "images.missing-field-rejected", 8, "NA9").await;
    server.shutdown().await;
    let ev = report.checks[0].evidence.as_ref().expect("evidence");
    assert!(ev.message.contains("DECISIONS NA9"), "{}", ev.message);
}
