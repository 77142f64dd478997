//! The planted bugs of the video platforms behind the unified route (DECISIONS
//! D-PLAT), applied by the mutation proxy (`mutation_proxy.rs`) to the record of one
//! platform's task: a wrong status map, a fetch of another task, a missing `platform`, a
//! `data` that is not the platform's own task, and the submit's `X-New-Api-Other-Ratios`
//! dropped or announcing a ratio it did not charge. Each platform gets each bug, and its own
//! check must catch it for the reason it was planted; Gemini and Vertex get theirs in
//! `planted_veo.rs` (their fetch answers in real time: no record, so no data shape, and the
//! ratios header's bugs but not the charge).

use super::planted::{Bug, Planted};
use bytes::Bytes;
use gatecheck_conformance::Status;
use gatecheck_schemas::rules::platforms::{
    all, by_default_model, is_realtime, Era, Platform, OTHER_RATIOS_HEADER,
};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};

/// Whether `bug` is one of the platforms' bugs.
pub(crate) fn plants(bug: Bug) -> bool {
    matches!(
        bug,
        Bug::PlatformStatusMap(_)
            | Bug::PlatformFetchOther(_)
            | Bug::PlatformMissing(_)
            | Bug::PlatformDataShape(_)
            | Bug::PlatformRatiosDropped(_)
            | Bug::PlatformRatiosWrong(_)
            | Bug::PlatformPollingOnly(_)
            | Bug::PlatformPluginStatusMap(_)
    )
}

/// The submit answer's `X-New-Api-Other-Ratios` of the bug's platform, dropped or with a
/// `video_input` ratio of 2 added (the charge unchanged).
fn rewrite_ratios(bug: Bug, body: &Bytes, headers: &mut http::HeaderMap) {
    let (Bug::PlatformRatiosDropped(name) | Bug::PlatformRatiosWrong(name)) = bug else {
        return;
    };
    let model = serde_json::from_slice::<Value>(body).unwrap_or_default()["model"]
        .as_str()
        .and_then(by_default_model)
        .map(|p| p.name);
    if model != Some(name) {
        return;
    }
    if matches!(bug, Bug::PlatformRatiosDropped(_)) {
        headers.remove(OTHER_RATIOS_HEADER);
        return;
    }
    let mut ratios = headers
        .get(OTHER_RATIOS_HEADER)
        .and_then(|h| serde_json::from_slice::<Value>(h.as_bytes()).ok())
        .unwrap_or_else(|| json!({}));
    ratios["video_input"] = json!(2.0);
    if let Ok(v) = http::HeaderValue::from_str(&ratios.to_string()) {
        headers.insert(OTHER_RATIOS_HEADER, v);
    }
}

/// `data` reduced to the upstream state at the platform's state pointer.
fn state_only(p: &Platform, data: &Value) -> Value {
    let word = data.pointer(p.state_pointer).cloned().unwrap_or_default();
    p.state_pointer
        .rsplit('/')
        .filter(|k| !k.is_empty())
        .fold(word, |inner, k| json!({ k: inner }))
}

/// A task id of the decided form that no task has.
const OTHER_TASK: &str = "task_PLANTEDplantedPLANTEDplanted0047";

/// Rewrites a unified fetch of the bug's platform.
pub(crate) fn rewrite(
    bug: Bug,
    (method, path): (&http::Method, &str),
    polls: &AtomicU64,
    headers: &mut http::HeaderMap,
    body: &mut Bytes,
) {
    if method == http::Method::POST && path == "/v1/video/generations" {
        return rewrite_ratios(bug, body, headers);
    }
    let (Bug::PlatformStatusMap(name)
    | Bug::PlatformFetchOther(name)
    | Bug::PlatformMissing(name)
    | Bug::PlatformDataShape(name)
    | Bug::PlatformPollingOnly(name)
    | Bug::PlatformPluginStatusMap(name)) = bug
    else {
        return;
    };
    let fetch = method == http::Method::GET && path.starts_with("/v1/video/generations/");
    let Some(p) = all()
        .iter()
        .copied()
        .find(|p| p.name == name)
        .filter(|_| fetch)
    else {
        return;
    };
    // Gemini and Vertex answer in real time: `planted_veo.rs`.
    if is_realtime(p) {
        return super::planted_veo::rewrite(bug, p, polls, body);
    }
    let Ok(mut v) = serde_json::from_slice::<Value>(body) else {
        return;
    };
    if v["data"]["platform"] != p.channel_type {
        return;
    }
    let d = &mut v["data"];
    match bug {
        Bug::PlatformPluginStatusMap(_) => {
            // A running record: a word only the plugin maps (to FAILURE), at the adaptors'
            // IN_PROGRESS and progress for a word they do not know.
            let Some(word) = plugin_only_failure(p) else {
                return;
            };
            let Some((status, progress)) = p.map_in(Era::Adaptors, word) else {
                return;
            };
            if d["status"] != "IN_PROGRESS" || status.as_str() != "IN_PROGRESS" {
                return;
            }
            if let Some(at) = d["data"].pointer_mut(p.state_pointer) {
                *at = json!(word);
            }
            d["progress"] = json!(format!("{progress}%"));
        }
        Bug::PlatformStatusMap(_) => {
            if polls.fetch_add(1, Ordering::SeqCst) != 0 {
                return;
            }
            // The first record: queued shown as running, running as queued.
            let wrong = if d["status"] == "IN_PROGRESS" {
                "QUEUED"
            } else {
                "IN_PROGRESS"
            };
            d["status"] = json!(wrong);
        }
        Bug::PlatformFetchOther(_) => d["task_id"] = json!(OTHER_TASK),
        Bug::PlatformDataShape(_) => d["data"] = state_only(p, &d["data"]),
        _ => {
            d.as_object_mut().map(|o| o.remove("platform"));
        }
    }
    *body = Bytes::from(v.to_string());
}

/// A state word the platform's plugin maps to FAILURE and its adaptor does not name.
fn plugin_only_failure(p: &Platform) -> Option<&'static str> {
    p.states_in(Era::Plugins)
        .iter()
        .filter(|s| s.status == gatecheck_schemas::rules::task::TaskStatus::Failure)
        .map(|s| s.word)
        .find(|w| !p.states_in(Era::Adaptors).iter().any(|s| s.word == *w))
}

/// The check of platform `p` (`task.platform.<name>`, from its description).
pub(crate) fn check_of(p: &Platform) -> &'static str {
    Box::leak(p.check_id().into_boxed_str())
}

/// The rows: every bug on every platform (Gemini's and Vertex's: `planted_veo.rs`).
pub(crate) fn rows() -> Vec<Planted> {
    let veo = super::planted_veo::rows();
    all()
        .iter()
        .filter(|p| !is_realtime(p))
        .flat_map(|p| {
            let check = check_of(p);
            [
                (
                    Bug::PlatformStatusMap(p.name),
                    check,
                    Status::Failed,
                    "platforms::check_record (task.status_map, D-PLAT-7)",
                ),
                (
                    Bug::PlatformFetchOther(p.name),
                    check,
                    Status::Failed,
                    "video_unified::judge_fetch (identity, D-TASK-10)",
                ),
                (
                    Bug::PlatformMissing(p.name),
                    check,
                    Status::Deviation,
                    "task::envelope_task (task.envelope: no platform, D-PLAT-7)",
                ),
                (
                    Bug::PlatformDataShape(p.name),
                    check,
                    Status::Failed,
                    "platforms::check_record (task.data_shape: the platform's data schema, D-PLAT-10)",
                ),
                (
                    Bug::PlatformRatiosDropped(p.name),
                    check,
                    Status::Deviation,
                    "checks::platforms::announced_ratios (no X-New-Api-Other-Ratios, D-PLAT-1)",
                ),
                (
                    Bug::PlatformRatiosWrong(p.name),
                    check,
                    Status::Failed,
                    "checks::platforms::judge_quota (quota::task_quota of the announced ratios, D-PLAT-9)",
                ),
            ]
        })
        .chain(veo)
        .collect()
}

/// Each platform's bugs are caught for the reason they were planted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_platform_bug_is_caught_for_its_reason() {
    let phrase = |bug: Bug| match bug {
        Bug::PlatformStatusMap(p) if super::planted_veo::is_veo(p) => "succeeded",
        Bug::PlatformPollingOnly(_) => "answered the stored record",
        Bug::PlatformStatusMap(_) => "while its own data shows",
        Bug::PlatformFetchOther(_) => "answered the record of task_id",
        Bug::PlatformDataShape(_) => "own task (schema",
        Bug::PlatformRatiosDropped(_) => "no x-new-api-other-ratios header",
        Bug::PlatformRatiosWrong(p) if super::planted_veo::is_veo(p) => "adaptor announces",
        Bug::PlatformRatiosWrong(_) => "contradicts the service's own billing statement",
        _ => "platform",
    };
    let mut wrong = Vec::new();
    for (bug, check, status, _) in rows() {
        let (report, _) = super::mutations::run_checks(bug, vec![check.to_owned()]).await;
        let got = report.checks.iter().find(|c| c.id == check);
        let message = got
            .and_then(|c| c.evidence.as_ref())
            .map(|e| e.message.clone())
            .unwrap_or_default();
        if got.map(|c| c.status) != Some(status) || !message.contains(phrase(bug)) {
            wrong.push(format!(
                "{bug:?}: {check} {:?} {message}",
                got.map(|c| c.status)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Not a bug (DECISIONS D-PLAT-11): DashScope refusing an Ali submit, relayed as new-api relays
/// it (the mock's upstream fault: 400 `fail_to_fetch_task` with DashScope's body, and 200
/// `ali_api_error`), is the upstream's refusal, not the deployment's: `task.platform.ali`
/// skips with the cause and the exchange, never fails.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relayed_dashscope_refusal_is_no_finding() {
    use gatecheck_mock::{ClockMode, Fault, FaultKind, MockServer};
    // The platforms whose upstream refusals new-api relays (Ali's DashScope).
    let relaying = all().iter().filter(|p| p.refusals.is_some());
    for (p, status) in relaying.flat_map(|p| [(p, 400), (p, 200)]) {
        let id = p.check_id();
        let server = MockServer::builder()
            .clock(ClockMode::virtual_default())
            .start()
            .await;
        server.inject(Fault {
            route: "POST /v1/video/generations".into(),
            kind: FaultKind::Upstream {
                status,
                body: json!({"request_id": "r1", "code": "InvalidParameter", "message": "The size is not supported."}),
            },
            times: None,
            probability: 1.0,
        });
        let mut config = super::support::config(&server.uri());
        config.scope.only = vec![id.clone()];
        let report = gatecheck_conformance::Runner::new(config)
            .run()
            .await
            .expect("run");
        let got = report
            .checks
            .iter()
            .find(|c| c.id == id)
            .expect("the check ran");
        let message = got
            .evidence
            .as_ref()
            .map(|e| e.message.clone())
            .unwrap_or_default();
        assert_eq!(got.status, Status::Skipped, "{status}: {message}");
        assert!(
            message.contains("DashScope refused the submit"),
            "{message}"
        );
        server.shutdown().await;
    }
}

/// The plugin era's status map is judged in the plugin era only (DECISIONS D-PLAT-23): each
/// platform whose plugin maps a state its adaptor does not (Doubao's `expired`) gets a record
/// showing that state while IN_PROGRESS; its check fails it on a mock playing the plugin era
/// and passes it on one playing the adaptors'.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plugin_era_status_map_bug_fails_in_the_plugin_era_only() {
    use gatecheck_mock::{ClockMode, MockServer};
    let planted: Vec<_> = all()
        .iter()
        .copied()
        .filter(|p| plugin_only_failure(p).is_some() && !is_realtime(p))
        .collect();
    assert!(
        !planted.is_empty(),
        "no platform's plugin maps a state its adaptor does not"
    );
    for p in planted {
        for (era, want) in [
            (Era::Plugins, Status::Failed),
            (Era::Adaptors, Status::Passed),
        ] {
            let server = MockServer::builder()
                .profile(gatecheck_schemas::Profile::NewApi)
                .era(era)
                .clock(ClockMode::virtual_default())
                .start()
                .await;
            let proxy = super::mutation_proxy::start_proxy(
                server.uri(),
                Bug::PlatformPluginStatusMap(p.name),
            )
            .await;
            let mut config = super::support::config(&proxy);
            config.scope.only = vec![p.check_id()];
            config.judging.era = gatecheck_conformance::EraChoice::Fixed(era);
            let report = gatecheck_conformance::Runner::new(config)
                .run()
                .await
                .expect("run");
            let got = report
                .checks
                .iter()
                .find(|c| c.id == p.check_id())
                .expect("the check ran");
            let message = got
                .evidence
                .as_ref()
                .map(|e| e.message.clone())
                .unwrap_or_default();
            assert_eq!(got.status, want, "{} in the {era} era: {message}", p.name);
            if want == Status::Failed {
                assert!(message.contains("while its own data shows"), "{message}");
            }
            server.shutdown().await;
        }
    }
}

/// The plugin era's refusals are judged (DECISIONS D-PLAT-23): each platform whose plugin
/// refuses a body its adaptor took (Veo's 5 seconds) passes on a mock playing the plugin era;
/// judged as the plugin era, a deployment that takes that body (the planted bug: a mock
/// playing the adaptors' era) deviates citing the row.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plugin_refusal_not_made_deviates_in_the_plugin_era() {
    use gatecheck_mock::{ClockMode, MockServer};
    let refusing: Vec<_> = all()
        .iter()
        .copied()
        // A plugin that refuses one of the durations the check sends (Veo's 5 seconds; the
        // 1..3600 range of the others refuses none of them).
        .filter(|p| {
            [5, 8, 6, 4].iter().any(|d| {
                let body = serde_json::json!({"duration": d});
                p.refusal_in(Era::Plugins, body.as_object().expect("object"))
                    .is_err()
            })
        })
        .collect();
    assert!(!refusing.is_empty(), "no platform's plugin refuses a body");
    for p in refusing {
        for (served, want) in [
            (Era::Plugins, Status::Passed),
            (Era::Adaptors, Status::Deviation),
        ] {
            let server = MockServer::builder()
                .profile(gatecheck_schemas::Profile::NewApi)
                .era(served)
                .clock(ClockMode::virtual_default())
                .start()
                .await;
            let mut config = super::support::config(&server.uri());
            config.scope.only = vec![p.check_id()];
            config.judging.era = gatecheck_conformance::EraChoice::Fixed(Era::Plugins);
            let report = gatecheck_conformance::Runner::new(config)
                .run()
                .await
                .expect("run");
            let got = report
                .checks
                .iter()
                .find(|c| c.id == p.check_id())
                .expect("the check ran");
            let message = got
                .evidence
                .as_ref()
                .map(|e| e.message.clone())
                .unwrap_or_default();
            assert_eq!(got.status, want, "{} served as {served}: {message}", p.name);
            if want == Status::Deviation {
                assert!(message.contains("plugin refuses"), "{message}");
            }
            server.shutdown().await;
        }
    }
}
