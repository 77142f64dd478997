//! The planted bugs of the video platforms behind the unified route (issue 47, DECISIONS
//! D-PLAT), applied by the mutation proxy (`mutation_proxy.rs`) to the record of one
//! platform's task: a wrong status map, a fetch of another task, a missing `platform`. Each
//! platform gets each bug, and its own check must catch it for the reason it was planted.

use super::planted::{Bug, Planted};
use bytes::Bytes;
use gatecheck_conformance::Status;
use gatecheck_schemas::rules::platforms::{is_realtime, ALL};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};

/// Whether `bug` is one of the platforms' bugs.
pub(crate) fn plants(bug: Bug) -> bool {
    matches!(
        bug,
        Bug::PlatformStatusMap(_)
            | Bug::PlatformFetchOther(_)
            | Bug::PlatformMissing(_)
            | Bug::PlatformPollingOnly(_)
    )
}

/// A task id of the decided form that no task has.
const OTHER_TASK: &str = "task_PLANTEDplantedPLANTEDplanted0047";

/// Rewrites a unified fetch of the bug's platform.
pub(crate) fn rewrite(
    bug: Bug,
    (method, path): (&http::Method, &str),
    polls: &AtomicU64,
    body: &mut Bytes,
) {
    let (Bug::PlatformStatusMap(name)
    | Bug::PlatformFetchOther(name)
    | Bug::PlatformMissing(name)
    | Bug::PlatformPollingOnly(name)) = bug
    else {
        return;
    };
    let fetch = method == http::Method::GET && path.starts_with("/v1/video/generations/");
    let Some(p) = ALL.into_iter().find(|p| p.name == name).filter(|_| fetch) else {
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
        _ => {
            d.as_object_mut().map(|o| o.remove("platform"));
        }
    }
    *body = Bytes::from(v.to_string());
}

/// The check of platform `name`.
fn check_of(name: &str) -> &'static str {
    match name {
        "vidu" => "task.platform.vidu",
        "hailuo" => "task.platform.hailuo",
        "ali" => "task.platform.ali",
        _ => "task.platform.doubao",
    }
}

/// The rows: every bug on every platform (Gemini's and Vertex's: `planted_veo.rs`).
pub(crate) fn rows() -> Vec<Planted> {
    let veo = super::planted_veo::rows();
    ALL.iter()
        .filter(|p| !is_realtime(p))
        .flat_map(|p| {
            let check = check_of(p.name);
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
