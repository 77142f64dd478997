//! The planted bugs of new-api's plugin era at the host (DECISIONS D-ERA-*): each runs against
//! the mock's `new-api` profile (the task plugins) under `--expect new-api`, where the runner
//! judges by the plugin era; every other bug runs against the documented mock
//! ([`named_profile_of`]).

use super::planted::{Bug, Planted};
use gatecheck_conformance::Status;
use gatecheck_schemas::rules::platforms::Key;
use gatecheck_schemas::NamedProfile;

/// This surface's rows of [`planted`](super::planted::planted): (bug, the check that
/// catches it, its verdict, the rule it breaks).
pub(crate) fn rows() -> Vec<Planted> {
    vec![
        (
            Bug::HeadContentNotRouted,
            "video.content.head",
            Status::Failed,
            "routes::ONLY_IN_PLUGIN_ERA (HEAD of the content route, D-ERA-6)",
        ),
        (
            Bug::NotFoundCacheable,
            "v1.unknown-path-404",
            Status::Deviation,
            "era::NOT_FOUND_NO_STORE, era::forbids_store (D-ERA-5)",
        ),
        (
            Bug::PluginRefusalCodeLost,
            "video.create.empty-prompt-400",
            Status::Deviation,
            "era::plugin_refusal_body, era::is_plugin_refusal, era::PLUGIN_REQUEST_INVALID (D-ERA-4)",
        ),
        (
            Bug::PluginRenderKeepsUrl,
            vidu_check(),
            Status::Deviation,
            "openai_video::host_render, PluginFacts::render_error (no metadata url, D-ERA-8)",
        ),
        (
            Bug::PluginRenderStatusNotRow,
            vidu_check(),
            Status::Failed,
            "openai_video::to_video_status (the row's status, D-ERA-8)",
        ),
        (
            Bug::PluginContentStatusWord,
            vidu_check(),
            Status::Deviation,
            "openai_video::not_completed_body, named_status, NOT_COMPLETED_PREFIX (the row's status, D-ERA-9)",
        ),
        (
            Bug::PluginJsonOnlyTakesMultipart,
            vidu_check(),
            Status::Deviation,
            "PluginFacts::bodies, openai_video::VideoBodies::refusal, BodyKind, MSG_JSON_OBJECT_REQUIRED (D-ERA-10)",
        ),
        (
            Bug::PluginActionOldWord,
            vidu_check(),
            Status::Deviation,
            "Platform::plugin_action_in, vidu::plugin_action, openai_video::PLUGIN_ACTIONS, ACTION_TEXT_TO_VIDEO (D-ERA-10)",
        ),
        (
            Bug::PluginRatiosWithSize,
            "video.create.plugin-ratios",
            Status::Deviation,
            "openai_video::openai_channel_ratios (D-ERA-10)",
        ),
        (
            Bug::DashboardUserHeaderRequired,
            "auth.token.user-header-ignored",
            Status::Deviation,
            "auth::DashboardAuth::of_era (D-AUTH-9)",
        ),
        (
            Bug::DashboardWrongToken200,
            "auth.token.wrong-token-rejected",
            Status::Deviation,
            "auth::stateless_refusal, is_stateless_refusal, AUTH_UNAUTHORIZED (D-AUTH-9)",
        ),
    ]
}

/// The check of the platform whose plugin decodes JSON only and names `SUBMITTED` for a
/// queued task (Vidu), from the registry.
fn vidu_check() -> &'static str {
    let p = Key::Vidu.platform().expect("registered");
    Box::leak(p.check_id().into_boxed_str())
}

/// The mock a planted bug runs against: the plugin era's bugs against `new-api`, the rest
/// against `documented`.
pub(crate) fn named_profile_of(bug: Bug) -> NamedProfile {
    match bug {
        Bug::HeadContentNotRouted
        | Bug::NotFoundCacheable
        | Bug::PluginRefusalCodeLost
        | Bug::PluginRenderKeepsUrl
        | Bug::PluginRenderStatusNotRow
        | Bug::PluginContentStatusWord
        | Bug::PluginJsonOnlyTakesMultipart
        | Bug::PluginActionOldWord
        | Bug::PluginRatiosWithSize
        | Bug::DashboardUserHeaderRequired
        | Bug::DashboardWrongToken200 => NamedProfile::NEW_API,
        b if super::planted_native::plants(b) => NamedProfile::NEW_API,
        _ => NamedProfile::DOCUMENTED,
    }
}

/// The checks the plugin era's platform, ratio and dashboard-auth judgments live in.
fn era_checks() -> Vec<String> {
    let mut only: Vec<String> = gatecheck_schemas::rules::platforms::all()
        .iter()
        .map(|p| p.check_id())
        .collect();
    only.extend(
        [
            "video.create.plugin-ratios",
            "auth.token.user-header-ignored",
            "auth.token.wrong-token-rejected",
        ]
        .map(str::to_owned),
    );
    only
}

/// No false alarm: under `--expect new-api`, the plugin era's judgments pass on the mock
/// playing it, and the dashboard auth's on the frozen adaptors' mock too (either generation
/// is new-api's there: D-AUTH-9). Only these checks run (no whole suite).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plugin_eras_judgments_pass_on_the_mock_that_plays_it() {
    use gatecheck_conformance::Runner;
    for named in [NamedProfile::NEW_API, NamedProfile::NEW_API_ADAPTORS] {
        let server = super::support::named_mock(named).await;
        let mut config = super::support::config(&server.uri());
        config.judging.expect = named.profile;
        config.scope.only = era_checks();
        let report = Runner::new(config).run().await.expect("run");
        server.shutdown().await;
        let bad: Vec<_> = report
            .checks
            .iter()
            .filter(|c| c.status != Status::Passed)
            .filter(|c| {
                !(named == NamedProfile::NEW_API_ADAPTORS && super::support::era_skipped(c))
            })
            .map(|c| c.id.clone())
            .collect();
        assert!(
            bad.is_empty(),
            "{named}: {bad:?}\n{}",
            gatecheck_conformance::report::summary_table(&report)
        );
    }
}
