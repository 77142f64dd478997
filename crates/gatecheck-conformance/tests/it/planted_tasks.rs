//! The planted bugs of new-api's task routes (DECISIONS D-TASK), applied by the mutation
//! proxy (`mutation_proxy.rs`) to the unified video routes and remix; and those of a task's
//! identity ( states that go back, results, unrouted paths under a task, refunds).

use super::planted::{Bug, Planted};
use bytes::Bytes;
use gatecheck_conformance::Status;
use gatecheck_schemas::rules::task::{JIMENG_GET_RESULT, JIMENG_SUBMIT, TASK_NOT_EXIST};
use http::StatusCode;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Whether `bug` is one of the task routes' bugs.
pub(crate) fn plants(bug: Bug) -> bool {
    matches!(
        bug,
        Bug::TaskStatusLowercase
            | Bug::TaskSuccessWithoutResultUrl
            | Bug::TaskUnknownId404
            | Bug::UnifiedCreateVideoId
            | Bug::RemixWithoutSource
            | Bug::RemixUnfinishedAccepted
            | Bug::RemixUnknownSource404
            | Bug::RemixBlankPromptAccepted
            | Bug::TaskProgressNumber
            | Bug::KlingRawEnvelope
            | Bug::KlingRawFetch
            | Bug::JimengGetResultSubmits
            | Bug::JimengActionOptional
            | Bug::TaskFetchOtherRecord
            | Bug::KlingSuccessRegresses
            | Bug::JimengProgressDecreases
            | Bug::MjFetchOtherRecord
            | Bug::MjProgressDecreases
            | Bug::MjListMissesTask
            | Bug::RemixAnswersSource
            | Bug::KlingSuccessWithoutResultUrl
            | Bug::UnknownPathOtherBody
            | Bug::FailedTaskChargeKept
            | Bug::RefundOnlyRemain
            | Bug::RemixUnknownSourceCreated
            | Bug::JimengNativeSubmitGetResultSubmits
            | Bug::JimengNativeSubmit
    )
}

/// A task id of the decided form that no task has.
const OTHER_TASK: &str = "task_PLANTEDplantedPLANTEDplanted0000";

/// [`Bug::SubpathServedAsPoll`], request side: the poll path that a sloppy prefix router
/// serves for `GET /v1/videos/{id}/<anything>`.
pub(crate) fn poll_of_subpath(bug: Bug, method: &http::Method, path: &str) -> Option<String> {
    let rest = path.strip_prefix("/v1/videos/")?;
    let (id, tail) = rest.split_once('/')?;
    let unrouted = tail != "content" && tail != "remix";
    (bug == Bug::SubpathServedAsPoll && method == http::Method::GET && unrouted)
        .then(|| format!("/v1/videos/{id}"))
}

/// [`Bug::JimengGetResultSubmits`], request side: a `CVSync2AsyncGetResult` sent on as a
/// submit (`CVSync2AsyncSubmitTask`, the body's `task_id` as the prompt, the catalog's Jimeng
/// model as `req_key`), as a router that sends every `/jimeng/` request to the submit does:
/// the mock makes a new task and charges it. The new path and query, and body.
pub(crate) fn get_result_as_submit(
    bug: Bug,
    path: &str,
    query: Option<&str>,
    body: &Bytes,
) -> Option<(String, Bytes)> {
    let query = query?;
    let runs_as_submit = matches!(
        bug,
        Bug::JimengGetResultSubmits | Bug::JimengNativeSubmitGetResultSubmits
    );
    if !runs_as_submit || !path.starts_with("/jimeng") {
        return None;
    }
    if !query.contains(JIMENG_GET_RESULT) {
        return None;
    }
    let v = serde_json::from_slice::<Value>(body).ok()?;
    let model = gatecheck_conformance::internals::known_capabilities()
        .into_keys()
        .find(|m| m.contains("jimeng"))?;
    let submit = json!({"req_key": model, "prompt": format!("the result of {}", v["task_id"])});
    Some((
        format!("{path}?{}", query.replace(JIMENG_GET_RESULT, JIMENG_SUBMIT)),
        Bytes::from(submit.to_string()),
    ))
}

/// [`Bug::RemixUnknownSourceCreated`]: whether the mock's answer to `method path` is the
/// refusal of a remix of an unknown source, which the proxy replaces by a plain create
/// ([`plain_create`]).
pub(crate) fn remix_refused_unknown(
    bug: Bug,
    method: &http::Method,
    path: &str,
    body: &Bytes,
) -> bool {
    bug == Bug::RemixUnknownSourceCreated
        && method == http::Method::POST
        && path.starts_with("/v1/videos/")
        && path.ends_with("/remix")
        && serde_json::from_slice::<Value>(body).is_ok_and(|v| v["code"] == TASK_NOT_EXIST)
}

/// The plain create the proxy makes in place of a refused remix (`remix_body` is the remix's
/// `{prompt}`): `POST /v1/video/generations` of the catalog's first Sora model at its default
/// duration and size; the mock makes and charges a new task.
pub(crate) fn plain_create(remix_body: &Bytes) -> Option<(&'static str, Bytes)> {
    let prompt = serde_json::from_slice::<Value>(remix_body).ok()?["prompt"].clone();
    let (model, video) = gatecheck_conformance::internals::known_capabilities()
        .into_iter()
        .filter(|(m, _)| m.starts_with("sora"))
        .find_map(|(m, c)| Some((m, c.video?)))?;
    let body = json!({"model": model, "prompt": prompt,
        "seconds": video.default_seconds.to_string(), "size": video.default_size});
    Some(("/v1/video/generations", Bytes::from(body.to_string())))
}

/// The refund bugs, on a key read (`GET /api/token/{id}`): `seen` keeps the lowest
/// `remain_quota` and highest `used_quota` read since the last update (`PUT` resets it), and
/// the read shows them ([`Bug::FailedTaskChargeKept`]) or the highest `used_quota` only
/// ([`Bug::RefundOnlyRemain`]).
pub(crate) fn books(
    bug: Bug,
    method: &http::Method,
    path: &str,
    seen: &Mutex<Option<(i64, i64)>>,
    body: &mut Bytes,
) {
    let refund_bug = matches!(bug, Bug::FailedTaskChargeKept | Bug::RefundOnlyRemain);
    if !refund_bug || !path.starts_with("/api/token/") {
        return;
    }
    let mut seen = seen.lock().expect("books");
    if method == http::Method::PUT {
        *seen = None;
        return;
    }
    let Ok(mut v) = serde_json::from_slice::<Value>(body) else {
        return;
    };
    let (Some(remain), Some(used)) = (
        v["data"]["remain_quota"].as_i64(),
        v["data"]["used_quota"].as_i64(),
    ) else {
        return;
    };
    let (low, high) = seen.map_or((remain, used), |(r, u)| (r.min(remain), u.max(used)));
    *seen = Some((low, high));
    if bug == Bug::FailedTaskChargeKept {
        v["data"]["remain_quota"] = json!(low);
    }
    v["data"]["used_quota"] = json!(high);
    *body = Bytes::from(v.to_string());
}

/// Applies `bug` to the answer of `method path?query` (`polls` counts what a bug needs).
pub(crate) fn rewrite(
    bug: Bug,
    (method, path, query): (&http::Method, &str, &str),
    polls: &AtomicU64,
    status: &mut StatusCode,
    body: &mut Bytes,
) {
    let Ok(mut v) = serde_json::from_slice::<Value>(body) else {
        return;
    };
    let fetch = method == http::Method::GET && path.starts_with("/v1/video/generations/");
    let create = method == http::Method::POST && path == "/v1/video/generations";
    let remix = method == http::Method::POST && path.ends_with("/remix");
    let code = v["code"].as_str().unwrap_or("").to_owned();
    let kling = path.starts_with("/kling/v1/videos/");
    let post = method == http::Method::POST;
    let ok = *status == StatusCode::OK;
    let changed = match bug {
        Bug::TaskStatusLowercase if fetch && ok => {
            let lower = v["data"]["status"].as_str().map(str::to_ascii_lowercase);
            lower.map(|s| v["data"]["status"] = json!(s)).is_some()
        }
        Bug::TaskProgressNumber if fetch && ok => {
            let n = v["data"]["progress"]
                .as_str()
                .and_then(|p| p.trim_end_matches('%').parse::<i64>().ok());
            n.map(|n| v["data"]["progress"] = json!(n)).is_some()
        }
        Bug::TaskSuccessWithoutResultUrl if fetch && ok && v["data"]["status"] == "SUCCESS" => v
            ["data"]
            .as_object_mut()
            .and_then(|d| d.remove("result_url"))
            .is_some(),
        Bug::TaskUnknownId404 if fetch && code == "task_not_exist" => {
            *status = StatusCode::NOT_FOUND;
            v = json!({"error": {"message": "task not found", "type": "invalid_request_error", "param": null, "code": null}});
            true
        }
        Bug::KlingRawEnvelope if kling && post && ok => {
            v = json!({"code": 0, "message": "SUCCEED", "request_id": "r1",
                       "data": {"task_id": v["id"], "task_status": "submitted"}});
            true
        }
        Bug::KlingRawFetch if kling && !post && ok => {
            v = v["data"]["data"].take();
            true
        }
        // A create object (the submit's answer, or a fetch run as a submit) in Jimeng's own
        // form, its task id at `data.task_id`.
        Bug::JimengNativeSubmitGetResultSubmits | Bug::JimengNativeSubmit
            if path.starts_with("/jimeng") && ok && v["object"] == "video" =>
        {
            v = json!({"code": 10000, "message": "Success", "request_id": "r1",
                       "data": {"task_id": v["id"]}});
            true
        }
        Bug::JimengActionOptional
            if path.starts_with("/jimeng")
                && !query.contains("Action=")
                && *status == StatusCode::BAD_REQUEST =>
        {
            *status = StatusCode::OK;
            v = json!({"id": "task_PLANTEDplantedPLANTEDplanted0000", "object": "video",
                       "model": "jimeng", "status": "queued", "progress": 0, "created_at": 1});
            true
        }
        Bug::UnifiedCreateVideoId if create && ok => {
            v["id"] = json!("video_68d7512d07848190b3e45da0ecbebcde");
            true
        }
        Bug::RemixWithoutSource if remix && ok => v
            .as_object_mut()
            .and_then(|o| o.remove("remixed_from_video_id"))
            .is_some(),
        Bug::RemixUnfinishedAccepted | Bug::RemixBlankPromptAccepted
            if remix
                && code
                    == if bug == Bug::RemixUnfinishedAccepted {
                        "fail_to_fetch_task"
                    } else {
                        "invalid_request"
                    } =>
        {
            *status = StatusCode::OK;
            v = json!({"id": "task_PLANTEDplantedPLANTEDplanted0000", "object": "video",
                       "model": "sora-2", "status": "queued", "progress": 0, "created_at": 1});
            true
        }
        Bug::RemixUnknownSource404 if remix && code == "task_not_exist" => {
            *status = StatusCode::NOT_FOUND;
            true
        }
        _ => identity_state_result(bug, (method, path, query), polls, *status, &mut v),
    };
    if changed {
        *body = Bytes::from(v.to_string());
    }
}

/// The identity, state, result and not-found bugs; whether `v` changed.
fn identity_state_result(
    bug: Bug,
    (method, path, query): (&http::Method, &str, &str),
    polls: &AtomicU64,
    status: StatusCode,
    v: &mut Value,
) -> bool {
    let ok = status == StatusCode::OK;
    let get = method == http::Method::GET;
    let kling_fetch = get && path.starts_with("/kling/v1/videos/") && ok;
    let jimeng_fetch = path.starts_with("/jimeng") && query.contains("CVSync2AsyncGetResult") && ok;
    let mj_fetch = get && path.starts_with("/mj/task/") && path.ends_with("/fetch") && ok;
    let first = |polls: &AtomicU64| polls.fetch_add(1, Ordering::SeqCst) == 0;
    match bug {
        Bug::TaskFetchOtherRecord if get && path.starts_with("/v1/video/generations/") && ok => {
            v["data"]["task_id"] = json!(OTHER_TASK);
            true
        }
        Bug::KlingSuccessRegresses if kling_fetch && v["data"]["status"] == "SUCCESS" => {
            let again = polls.fetch_add(1, Ordering::SeqCst) % 2 == 1;
            if again {
                let d = &mut v["data"];
                d["status"] = json!("IN_PROGRESS");
                d["progress"] = json!("50%");
                d["finish_time"] = json!(0);
                d.as_object_mut().map(|o| o.remove("result_url"));
            }
            again
        }
        Bug::KlingSuccessWithoutResultUrl if kling_fetch && v["data"]["status"] == "SUCCESS" => v
            ["data"]
            .as_object_mut()
            .and_then(|d| d.remove("result_url"))
            .is_some(),
        Bug::JimengProgressDecreases
            if jimeng_fetch && v["data"]["status"] == "IN_PROGRESS" && first(polls) =>
        {
            v["data"]["progress"] = json!("90%");
            true
        }
        Bug::MjFetchOtherRecord if mj_fetch => {
            v["id"] = json!("1111111111111111");
            true
        }
        Bug::MjProgressDecreases if mj_fetch && v["status"] == "IN_PROGRESS" && first(polls) => {
            v["progress"] = json!("90%");
            true
        }
        Bug::MjListMissesTask if path == "/mj/task/list-by-condition" && ok && v.is_array() => {
            *v = json!([]);
            true
        }
        Bug::RemixAnswersSource
            if method == http::Method::POST && path.ends_with("/remix") && ok =>
        {
            let source = path
                .trim_start_matches("/v1/videos/")
                .trim_end_matches("/remix");
            v["id"] = json!(source);
            v["task_id"] = json!(source);
            true
        }
        Bug::UnknownPathOtherBody
            if status == StatusCode::NOT_FOUND && path.starts_with("/v1/gatecheck-") =>
        {
            *v = json!({"detail": "Not Found"});
            true
        }
        _ => false,
    }
}

/// The identity, state, result and task-form bugs, each with a phrase the verdict's message must
/// hold: each is caught for the reason it was planted, not by a neighbouring rule.
const REASONS: &[(Bug, &str, &str)] = &[
    (
        Bug::TaskFetchOtherRecord,
        "task.unified.envelope",
        "answered the record of task_id",
    ),
    (
        Bug::KlingSuccessRegresses,
        "task.kling.envelope",
        "status went from SUCCESS to IN_PROGRESS",
    ),
    (
        Bug::JimengProgressDecreases,
        "task.jimeng.submit-and-fetch",
        "progress went from 90%",
    ),
    (
        Bug::MjFetchOtherRecord,
        "mj.task.lifecycle",
        "answered the record of \"1111111111111111\"",
    ),
    (
        Bug::MjProgressDecreases,
        "mj.task.lifecycle",
        "after rank 1 at 90%",
    ),
    (
        Bug::MjSuccessAt99,
        "mj.task.lifecycle",
        "a SUCCESS task at progress \"99%\"",
    ),
    (
        Bug::MjListMissesTask,
        "mj.task.list-by-condition",
        "the list left out task",
    ),
    (
        Bug::RemixAnswersSource,
        "task.remix.completed",
        "answered the source task",
    ),
    (
        Bug::KlingSuccessWithoutResultUrl,
        "task.kling.envelope",
        "SUCCESS with progress",
    ),
    (
        Bug::TaskSuccessWithoutResultUrl,
        "task.unified.envelope",
        "SUCCESS with progress",
    ),
    (
        Bug::JimengGetResultSubmits,
        "task.jimeng.submit-and-fetch",
        "(a new task, queued: the fetch made one)",
    ),
    (
        Bug::RemixUnknownSourceCreated,
        "task.remix.unknown-source",
        "the service's own records say there is no such source",
    ),
    (
        Bug::UnknownPathOtherBody,
        "v1.unknown-path-404",
        "not a /v1 error body",
    ),
    (
        Bug::SubpathServedAsPoll,
        "v1.unknown-subpath-404",
        "served as the poll",
    ),
    (
        Bug::FailedTaskChargeKept,
        "task.refund.failed",
        "stayed on the key",
    ),
    (
        Bug::RefundOnlyRemain,
        "task.refund.failed",
        "taken off used_quota",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn identity_state_and_result_bugs_are_caught_for_their_reason() {
    let mut wrong = Vec::new();
    for (bug, check, phrase) in REASONS {
        let (report, _) = super::mutations::run_checks(*bug, vec![(*check).to_owned()]).await;
        let c = report.checks.iter().find(|c| c.id == *check);
        let message = c
            .and_then(|c| c.evidence.as_ref())
            .map(|e| e.message.clone())
            .unwrap_or_default();
        if !message.contains(phrase) {
            wrong.push(format!("{bug:?}: {check} said {message:?}, not {phrase:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `task.remix.not-completed` while the mock's clock races ahead (as other checks move it in a
/// full run): the running source completes before its remix arrives in many runs, and the
/// check still judges a case (the source the fixture makes fail never completes), so it
/// never skips. Before, such a race was the check's skip ("completed before the remix").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remix_not_completed_judges_a_case_while_the_clock_races() {
    use gatecheck_conformance::{Runner, Status};
    use gatecheck_mock::{ClockMode, MockServer};
    let server = std::sync::Arc::new(
        MockServer::builder()
            .clock(ClockMode::virtual_default())
            .start()
            .await,
    );
    let racing = server.clone();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let halt = stop.clone();
    let clock = tokio::spawn(async move {
        while !halt.load(Ordering::SeqCst) {
            racing.clock().advance(std::time::Duration::from_secs(3600));
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
    });
    let (mut raced, mut runs) = (0, 0);
    for seed in 0..30u64 {
        let mut cfg = super::support::config(&server.uri());
        cfg.scope.seed = Some(seed);
        cfg.scope.only = vec!["task.remix.not-completed".into()];
        let report = Runner::new(cfg).run().await.expect("run");
        let c = &report.checks[0];
        assert_eq!(c.status, Status::Passed, "seed {seed}: {:?}", c.message);
        assert!(c.cases >= 1);
        runs += 1;
        raced += usize::from(
            c.message
                .as_deref()
                .is_some_and(|m| m.contains("completed before")),
        );
    }
    stop.store(true, Ordering::SeqCst);
    clock.await.expect("clock task");
    println!("remix.not-completed under a racing clock: {runs} runs, {raced} raced, 0 skipped");
    assert!(
        raced > 0,
        "the clock never raced the running source: the test shows nothing"
    );
}

/// This surface's rows of [`planted`](super::planted::planted): (bug, the check that
/// catches it, its verdict, the rule it breaks).
pub(crate) fn rows() -> Vec<Planted> {
    vec![
        (
            Bug::MjSecretIgnored,
            "mj.auth.mj-api-secret",
            Status::Deviation,
            "midjourney::effective_key (MJ_SECRET_HEADER; CODE_SUBMITTED of the accepted submit, D-MJ-1)",
        ),
        (
            Bug::MjUnknownTask404,
            "mj.task.unknown-id",
            Status::Deviation,
            "midjourney::TASK_NO_FOUND, REFUSAL_STATUS, CODE_REQUEST_ERROR (D-MJ-3)",
        ),
        (
            Bug::MjSuccessAt99,
            "mj.task.lifecycle",
            Status::Failed,
            "midjourney::check_result (100% on SUCCESS, D-TASK-12)",
        ),
        (
            Bug::MjListRepeats,
            "mj.task.list-by-condition",
            Status::Deviation,
            "midjourney::LIST_BODY_REFUSED with the list's records, each once (D-MJ-8)",
        ),
        (
            Bug::MjUploadNoUrls,
            "mj.submit.upload",
            Status::Deviation,
            "midjourney::ACTION_UPLOAD (model_for: mj_upload), CODE_SUBMITTED with one URL per image (D-MJ-8)",
        ),
        (
            Bug::TaskStatusLowercase,
            "task.unified.envelope",
            Status::Deviation,
            "task::TaskStatus (check_envelope: task.status, SUCCESS_CODE envelope)",
        ),
        (
            Bug::TaskSuccessWithoutResultUrl,
            "task.unified.envelope",
            Status::Failed,
            "task::check_envelope (task.result, D-TASK-12)",
        ),
        (
            Bug::TaskUnknownId404,
            "task.unified.unknown-id",
            Status::Deviation,
            "task::TASK_NOT_EXIST (D-TASK-3)",
        ),
        (
            Bug::UnifiedCreateVideoId,
            "task.unified.create",
            Status::Deviation,
            "video::is_task_id (D-TASK-1)",
        ),
        (
            Bug::RemixWithoutSource,
            "task.remix.completed",
            Status::Deviation,
            "D-TASK-4 (remixed_from_video_id)",
        ),
        (
            Bug::RemixUnfinishedAccepted,
            "task.remix.not-completed",
            Status::Deviation,
            "task::FAIL_TO_FETCH_TASK (D-TASK-5)",
        ),
        (
            Bug::RemixUnknownSource404,
            "task.remix.unknown-source",
            Status::Deviation,
            "task::TASK_REFUSAL_STATUS, TASK_NOT_EXIST, TASK_ORIGIN_NOT_EXIST (D-TASK-4)",
        ),
        (
            Bug::RemixBlankPromptAccepted,
            "task.remix.blank-prompt",
            Status::Deviation,
            "task::INVALID_REQUEST, REMIX_PROMPT_REQUIRED (D-TASK-4)",
        ),
        (
            Bug::TaskProgressNumber,
            "task.unified.envelope",
            Status::Deviation,
            "task::progress_text / parse_progress (task.progress_text)",
        ),
        (
            Bug::KlingRawEnvelope,
            "task.kling.create",
            Status::Deviation,
            "D-TASK-6 (new-api's create object, video::is_task_id)",
        ),
        (
            Bug::KlingRawFetch,
            "task.kling.envelope",
            Status::Deviation,
            "task::check_envelope (D-TASK-6)",
        ),
        (
            Bug::JimengGetResultSubmits,
            "task.jimeng.submit-and-fetch",
            Status::Failed,
            "task::other_task_named (JIMENG_GET_RESULT answers the task asked, D-TASK-7, D-TASK-10)",
        ),
        (
            Bug::JimengNativeSubmitGetResultSubmits,
            "task.jimeng.submit-and-fetch",
            Status::Failed,
            "task::other_task_named (a submit's deviation does not hide a fetch that answers a new task, D-TASK-7, D-TASK-10)",
        ),
        (
            Bug::JimengNativeSubmit,
            "task.jimeng.submit-and-fetch",
            Status::Deviation,
            "D-TASK-7 (the submit's form, and nothing else: no failure)",
        ),
        (
            Bug::RemixUnknownSourceCreated,
            "task.remix.unknown-source",
            Status::Failed,
            "task::says_no_such_task (no remix of a source the service has no record of, D-TASK-4, D-TASK-10)",
        ),
        (
            Bug::JimengActionOptional,
            "task.jimeng.action-required",
            Status::Deviation,
            "task::MSG_ACTION_REQUIRED (D-TASK-7)",
        ),
        (
            Bug::TaskFetchOtherRecord,
            "task.unified.envelope",
            Status::Failed,
            "D-TASK-10 (the fetched task_id is the one asked)",
        ),
        (
            Bug::KlingSuccessRegresses,
            "task.kling.envelope",
            Status::Failed,
            "task::check_envelope_transition (D-TASK-11)",
        ),
        (
            Bug::JimengProgressDecreases,
            "task.jimeng.submit-and-fetch",
            Status::Failed,
            "task::check_envelope_transition (D-TASK-11)",
        ),
        (
            Bug::MjFetchOtherRecord,
            "mj.task.lifecycle",
            Status::Failed,
            "D-TASK-10 (the fetched record's id is the one asked)",
        ),
        (
            Bug::MjProgressDecreases,
            "mj.task.lifecycle",
            Status::Failed,
            "midjourney::status_rank, parse_progress (D-TASK-11)",
        ),
        (
            Bug::MjListMissesTask,
            "mj.task.list-by-condition",
            Status::Failed,
            "D-TASK-10 (the list holds the task asked for)",
        ),
        (
            Bug::RemixAnswersSource,
            "task.remix.completed",
            Status::Failed,
            "D-TASK-10 (a remix is a new task)",
        ),
        (
            Bug::KlingSuccessWithoutResultUrl,
            "task.kling.envelope",
            Status::Failed,
            "task::RULE_RESULT (D-TASK-12)",
        ),
        (
            Bug::FailedTaskChargeKept,
            "task.refund.failed",
            Status::Deviation,
            "refund::judge_refund (RefundSeen::Kept, D-ROUTE-5, D-TASK-13)",
        ),
        (
            Bug::RefundOnlyRemain,
            "task.refund.failed",
            Status::Failed,
            "refund::judge_refund (RefundSeen::Unbalanced, D-TASK-13)",
        ),
    ]
}

/// Jimeng's `CVSync2AsyncGetResult` handled as a submit (a new task made and
/// charged instead of the one asked for) fails `task.jimeng.submit-and-fetch` whatever the
/// profile the mock plays and the runner expects, on a real clock as on a virtual one, and
/// when the submit's own answer deviates (Jimeng's native form) too; that deviation alone
/// stays a deviation
/// (DECISIONS D-TASK-10: a fetch answers the task asked about; new-api's relay/relay_task.go
/// fetch looks the task up by the id asked, controller/relay.go RelayTask).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jimeng_fetch_run_as_a_submit_fails_in_every_profile_and_clock() {
    use gatecheck_conformance::{Runner, Status};
    use gatecheck_mock::{ClockMode, MockServer};
    use gatecheck_schemas::Profile;
    let check = "task.jimeng.submit-and-fetch";
    let mut wrong = Vec::new();
    let cases = [
        (Bug::JimengGetResultSubmits, Status::Failed),
        (Bug::JimengNativeSubmitGetResultSubmits, Status::Failed),
        (Bug::JimengNativeSubmit, Status::Deviation),
    ];
    for (bug, want) in cases {
        for profile in [Profile::Documented, Profile::NewApi] {
            for real in [false, true] {
                let builder = if real {
                    super::support::fast_real_clock(profile)
                } else {
                    MockServer::builder()
                        .profile(profile)
                        .clock(ClockMode::virtual_default())
                };
                let server = builder.start().await;
                let proxy = super::mutation_proxy::start_proxy(server.uri(), bug).await;
                let mut config = super::support::config(&proxy);
                config.judging.expect = profile;
                config.scope.only = vec![check.to_owned()];
                if real {
                    config.limits.poll_interval = Some(super::support::DEPLOYMENT_POLL);
                }
                let report = Runner::new(config).run().await.expect("run");
                server.shutdown().await;
                let got = report.checks.iter().find(|c| c.id == check);
                let status = got.map(|c| c.status);
                if status != Some(want) {
                    let message = got
                        .and_then(|c| c.evidence.as_ref())
                        .map(|e| e.message.clone());
                    wrong.push(format!("{bug:?}, {profile:?}, real clock {real}: {status:?}, not {want:?}: {message:?}"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
