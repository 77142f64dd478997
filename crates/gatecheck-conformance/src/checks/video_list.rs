//! `GET /v1/videos`, the list of the caller's tasks (DECISIONS D-ROUTE-2): the documented
//! profile serves it (OpenAI's list shape, newest first), new-api does not (gin's not-found,
//! accepted). Where it is served, it lists the task just created: a list that leaves it out
//! fails (identity, DECISIONS D-TASK-10).

use super::remix::source;
use super::Kind::Failure;
use super::{def, CheckDef, Ctx, Outcome, Pass, Phase};
use crate::client::RequestSpec;
use gatecheck_schemas::rules::Rejection;
use serde_json::Value;

pub(crate) const CHECKS: &[CheckDef] = &[
    def("video.list.includes-created", Failure, "POST /v1/videos, GET /v1/videos",
        "DECISIONS D-ROUTE-2 (the list), D-TASK-10 (identity)",
        "Where `GET /v1/videos` is served, the list answered right after a create holds that task, with its model; a list not served is new-api's 404 (accepted), another list shape deviates.",
        Phase::Shared, |c| Box::pin(includes_created(c))),
];

async fn includes_created(ctx: &Ctx) -> Outcome {
    let (id, model) = source(ctx, "a list of one (gatecheck)").await?;
    let spec = RequestSpec::get("/v1/videos").auth(ctx.model_auth()?);
    let ex = ctx.send(&spec, 0).await?;
    if matches!(ex.status.as_u16(), 404 | 405 | 501)
        || super::answered_as(&ex, Rejection::UnknownPath)
    {
        return Ok(Pass {
            cases: 1,
            note: Some(format!(
                "the list is not served ({}): new-api has none (DECISIONS D-ROUTE-2, accepted)",
                super::status_text(ex.status.as_u16())
            )),
        });
    }
    let items = ex
        .json()
        .filter(|_| ex.status.is_success())
        .and_then(|v| v.get("data").and_then(Value::as_array).cloned());
    let Some(items) = items else {
        return Err(ctx.deviate(
            "D-ROUTE-2",
            format!(
                "the list answered {}, not OpenAI's list `{{object:\"list\", data:[...]}}`",
                super::answer_summary(&ex)
            ),
            &spec,
            Some(&ex),
        ));
    };
    let listed = items.iter().find(|t| t["id"].as_str() == Some(id.as_str()));
    let problem = match listed {
        None => Some(format!(
            "the list of {} task(s) leaves out task {id}, created just before",
            items.len()
        )),
        Some(t) if t["model"].as_str() != Some(model.as_str()) => Some(format!(
            "the list shows task {id} with model {}, created with {model:?}",
            t["model"]
        )),
        Some(_) => None,
    };
    match problem {
        Some(p) => Err(ctx.fail(format!("{p} (DECISIONS D-TASK-10)"), &spec, Some(&ex))),
        None => Ok(Pass {
            cases: 1,
            note: None,
        }),
    }
}
