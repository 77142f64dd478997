//! The planted bugs of Gemini and Vertex Veo (DECISIONS D-PLAT-20..22), applied by
//! the mutation proxy to the real-time answer of a fetch (`planted_platforms.rs` hands them
//! over): a wrong status map (a running operation answered `succeeded`), a fetch of another
//! task, a deployment answering its stored record (updated only on its polling loop: a
//! deviation, new-api does it whenever the real-time fetch fails) and that record without its
//! `platform`; and the submit's ratios header dropped or announcing a ratio that is not the
//! adaptor's (rewritten by `planted_platforms.rs`; a deviation: the real-time answer shows no
//! charge to hold them against). The data-shape bug is not planted here: no record.

use super::planted::{Bug, Planted};
use bytes::Bytes;
use gatecheck_conformance::Status;
use gatecheck_schemas::rules::platforms::{all, by_name, is_realtime, Platform};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};

/// A task id of the decided form that no task has.
const OTHER_TASK: &str = "task_PLANTEDplantedPLANTEDveo000047";

/// Whether platform `name` is asked in real time (Gemini's, Vertex's Veo).
pub(crate) fn is_veo(name: &str) -> bool {
    by_name(name).is_ok_and(is_realtime)
}

/// The record a deployment answering from its polling loop shows for a real-time answer `d`
/// of platform `p`: the status, progress and operation the poller stores for that state.
fn record_of(p: &Platform, d: &Value) -> Value {
    let id = d["task_id"].clone();
    let (status, progress, op) = match d["status"].as_str().unwrap_or("") {
        "succeeded" => (
            "SUCCESS",
            "100%",
            json!({"name": "models/m/operations/x", "done": true, "response": {}}),
        ),
        "failed" => (
            "FAILURE",
            "100%",
            json!({"name": "models/m/operations/x", "done": true, "error": {"message": "planted"}}),
        ),
        _ => (
            "IN_PROGRESS",
            "50%",
            json!({"name": "models/m/operations/x"}),
        ),
    };
    let url = d["url"].as_str().filter(|u| !u.is_empty());
    json!({
        "id": 1, "created_at": 1, "updated_at": 1, "task_id": id, "platform": p.channel_type,
        "user_id": 1, "group": "default", "channel_id": 1, "quota": 1, "action": "textGenerate",
        "status": status, "fail_reason": if status == "FAILURE" { "planted" } else { "" },
        "result_url": url, "submit_time": 1, "start_time": 1,
        "finish_time": if progress == "100%" { 2 } else { 0 }, "progress": progress,
        "properties": {"input": ""}, "data": op,
    })
}

/// Rewrites a real-time answer of platform `p`'s task.
pub(crate) fn rewrite(bug: Bug, p: &Platform, polls: &AtomicU64, body: &mut Bytes) {
    let Ok(mut v) = serde_json::from_slice::<Value>(body) else {
        return;
    };
    if v["data"].get("format").is_none() {
        return;
    }
    match bug {
        Bug::PlatformStatusMap(_) => {
            if polls.fetch_add(1, Ordering::SeqCst) != 0 || v["data"]["status"] != "processing" {
                return;
            }
            v["data"]["status"] = json!("succeeded");
        }
        Bug::PlatformFetchOther(_) => v["data"]["task_id"] = json!(OTHER_TASK),
        Bug::PlatformPollingOnly(_) => v["data"] = record_of(p, &v["data"]),
        Bug::PlatformMissing(_) => {
            let mut r = record_of(p, &v["data"]);
            r.as_object_mut().map(|o| o.remove("platform"));
            v["data"] = r;
        }
        // The data-shape bug has no record to plant into; the ratios bugs rewrite the submit
        // (`planted_platforms.rs`).
        _ => return,
    }
    *body = Bytes::from(v.to_string());
}

/// The rows: every bug on Gemini and Vertex.
pub(crate) fn rows() -> Vec<Planted> {
    all()
        .iter()
        .filter(|p| is_realtime(p))
        .map(|p| (p.name, super::planted_platforms::check_of(p)))
        .flat_map(|(name, check)| {
        [
            (
                Bug::PlatformStatusMap(name),
                check,
                Status::Failed,
                "platforms_veo::content (a RUNNING operation answered succeeded: Veo's STATES and WORDS read at OPERATION_STATE, D-PLAT-22)",
            ),
            (
                Bug::PlatformFetchOther(name),
                check,
                Status::Failed,
                "platforms_veo::follow (identity, D-TASK-10)",
            ),
            (
                Bug::PlatformMissing(name),
                check,
                Status::Deviation,
                "task::envelope_task (the stored record of a DONE or ERROR operation without platform, D-PLAT-7)",
            ),
            (
                Bug::PlatformPollingOnly(name),
                check,
                Status::Deviation,
                "platforms_veo::judge_stored (is_realtime, and no real-time answer: the mock's UNREACHABLE, D-PLAT-22)",
            ),
            (
                Bug::PlatformRatiosDropped(name),
                check,
                Status::Deviation,
                "checks::platforms::announced_ratios (no X-New-Api-Other-Ratios, D-PLAT-1)",
            ),
            (
                Bug::PlatformRatiosWrong(name),
                check,
                Status::Deviation,
                "checks::platforms::judge_ratios (Platform::ratios of Gemini and Vertex, resolve_duration: a ratio the adaptor does not announce, D-PLAT-9)",
            ),
        ]
    })
    .collect()
}
