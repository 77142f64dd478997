//! The Midjourney routes beyond submit and fetch (DECISIONS D-MJ-8): the list of tasks by
//! id and the image upload. Deviations, as for every form of an `mj.*` answer, except a list
//! that leaves out the task asked for or answers one not asked for (identity, DECISIONS
//! D-TASK-10: a failure).

use super::midjourney::{action_price, is_refusal, submit};
use super::Kind::{Deviation, Failure};
use super::{status_and_type, Check, CheckCtx, Halt, Needs, Outcome, Pass, Phase};
use crate::http::client::RequestSpec;
use crate::vocab::discovery::RouteFamily;
use gatecheck_schemas::decisions::id;
use gatecheck_schemas::rules::midjourney::{
    ACTION_UPLOAD, CODE_REQUEST_ERROR, CODE_SUBMITTED, LIST_BODY_REFUSED,
};
use gatecheck_schemas::rules::rejection::ACCEPTED;
use serde_json::{json, Value};

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "mj.task.list-by-condition",
        kind: Failure,
        route: "POST /mj/task/list-by-condition",
        spec: "spec: Other routes; DECISIONS D-MJ-8; failures D-TASK-10",
        title: "After an imagine, `{ids: [<its id>, <an id never submitted>]}` answers 200 with exactly that task's record (valid against mj-task); a body whose `ids` is not a list is 400 `do_request_failed`. A list without the task, or with a task not asked for, fails; any other difference deviates.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::Midjourney]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(list_by_condition(c)),
    },
    Check {
        id: "mj.submit.upload",
        kind: Deviation,
        route: "POST /mj/submit/upload-discord-images",
        spec: "spec: Other routes; DECISIONS D-MJ-8",
        title: "An upload of one PNG data URL answers 200 `{code:1, result:[<one URL>]}`; an upload without images answers `code` 4 (the upstream's refusal, relayed with HTTP 200).",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::Midjourney]),
        mock_only: None,
        decision: Some(id::D_MJ),
        run: |c| Box::pin(upload(c)),
    },
];

const LIST: &str = "/mj/task/list-by-condition";
const UPLOAD: &str = "/mj/submit/upload-discord-images";
/// A 1x1 grey PNG as a data URL.
const DATA_URL: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==";

async fn list_by_condition(ctx: &CheckCtx) -> Outcome {
    let (_, ex, id) = submit(ctx, "a lantern on a pier (gatecheck)").await?;
    let Some(id) = id else {
        return Err(Halt::not_observed(format!(
            "the imagine was not accepted ({}); see mj.submit.imagine",
            status_and_type(&ex)
        )));
    };
    let auth = ctx.model_auth()?;
    // An id of the submit's form that no submit made (its last digit changed is not enough:
    // 19 digits cannot be a 16-digit submit id).
    let unknown = "9999999999999999999";
    let spec = RequestSpec::post(LIST)
        .auth(auth.clone())
        .json(json!({ "ids": [id, unknown] }));
    let ex = ctx.send(&spec, 0).await?;
    let records = ex
        .json()
        .and_then(|v| v.as_array().cloned())
        .filter(|_| ex.status.as_u16() == ACCEPTED);
    if let Some(list) = &records
        && let Some(problem) = list_identity(list, &id)
    {
        return Err(ctx.fail(problem, &spec, Some(&ex)));
    }
    let wrong = match &records {
        None => Some(format!(
            "answered {}, not a 200 list",
            super::answer_summary(&ex)
        )),
        Some(list) if list.len() != 1 || list[0]["id"].as_str() != Some(id.as_str()) => {
            Some(format!(
                "listed {} record(s) ({}), not the one task asked for",
                list.len(),
                list.iter()
                    .map(|r| r["id"].to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }
        Some(list) => gatecheck_schemas::validate("mj-task", &list[0])
            .err()
            .map(|e| format!("schema mj-task: {e}")),
    };
    if let Some(problem) = wrong {
        return Err(ctx.deviate(id::D_MJ_8, problem, &spec, Some(&ex)));
    }
    let bad = RequestSpec::post(LIST)
        .auth(auth)
        .json(json!({ "ids": "x" }));
    let ex = ctx.send(&bad, 0).await?;
    if !is_refusal(&ex, LIST_BODY_REFUSED) {
        return Err(ctx.deviate(
            id::D_MJ_8,
            format!(
                "a body whose ids is not a list was answered {}, not 400 {LIST_BODY_REFUSED}",
                super::answer_summary(&ex)
            ),
            &bad,
            Some(&ex),
        ));
    }
    Ok(Pass {
        cases: 2,
        note: None,
    })
}

/// What is wrong with the identity of a list asked for the task `id` (and an id never
/// submitted): the task missing, or a record of a task not asked for (D-TASK-10).
fn list_identity(list: &[Value], id: &str) -> Option<String> {
    let ids: Vec<String> = list.iter().map(|r| r["id"].to_string()).collect();
    if let Some(other) = list.iter().find(|r| r["id"].as_str() != Some(id)) {
        return Some(format!(
            "asked for task {id} (and an id never submitted), listed the record of {} (DECISIONS D-TASK-10)",
            other["id"]
        ));
    }
    list.is_empty().then(|| {
        format!(
            "the list left out task {id}, submitted just before (listed [{}]; DECISIONS D-TASK-10)",
            ids.join(", ")
        )
    })
}

/// The `code` of an upload answer with HTTP 200, and its `result`.
fn upload_answer(ex: &crate::http::client::Exchange) -> Option<(i64, Value)> {
    let v = ex.json().filter(|_| ex.status.as_u16() == ACCEPTED)?;
    Some((
        v.get("code")?.as_i64()?,
        v.get("result").cloned().unwrap_or(Value::Null),
    ))
}

async fn upload(ctx: &CheckCtx) -> Outcome {
    let price = action_price(ctx, ACTION_UPLOAD)?;
    let auth = ctx.model_auth()?;
    let spec = RequestSpec::post(UPLOAD)
        .auth(auth.clone())
        .json(json!({ "base64Array": [DATA_URL] }));
    let ex = ctx.send(&spec, price).await?;
    let one_url = |r: &Value| {
        r.as_array()
            .is_some_and(|a| a.len() == 1 && a[0].as_str().is_some_and(|u| !u.is_empty()))
    };
    match upload_answer(&ex) {
        Some((CODE_SUBMITTED, result)) if one_url(&result) => {}
        _ => {
            return Err(ctx.deviate(
                id::D_MJ_8,
                format!(
                    "an upload of one PNG was answered {}, not code 1 with one URL",
                    status_and_type(&ex)
                ),
                &spec,
                Some(&ex),
            ))
        }
    }
    let empty = RequestSpec::post(UPLOAD)
        .auth(auth)
        .json(json!({ "base64Array": [] }));
    let ex = ctx.send(&empty, 0).await?;
    if !matches!(upload_answer(&ex), Some((CODE_REQUEST_ERROR, _))) {
        return Err(ctx.deviate(
            id::D_MJ_8,
            format!(
                "an upload without images was answered {}, not the upstream's code 4",
                super::answer_summary(&ex)
            ),
            &empty,
            Some(&ex),
        ));
    }
    Ok(Pass {
        cases: 2,
        note: None,
    })
}
