//! The model lists in other clients' shapes (DECISIONS D-MODELS-1, D-MODELS-3): the Anthropic
//! list of `GET /v1/models` and the Gemini list of `GET /v1beta/models` list what the OpenAI
//! list of the same key lists, in its order.

use super::Kind::Failure;
use super::{pass1, Check, CheckCtx, Halt, Needs, Outcome, Phase};
use crate::http::client::Exchange;
use crate::http::request::{Auth, RequestSpec};
use gatecheck_schemas::decisions::id;
use gatecheck_schemas::rules::model_lists::{
    rfc3339, ANTHROPIC_VERSION, GEMINI_MODELS_PATH, X_API_KEY, X_GOOG_API_KEY,
};
use gatecheck_schemas::rules::Rejection;
use serde_json::Value;

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "models.anthropic-list",
        kind: Failure,
        route: "GET /v1/models (x-api-key, anthropic-version)",
        spec: "DECISIONS: Model lists in other clients' shapes (D-MODELS-1)",
        title: "With `x-api-key` and `anthropic-version`, `/v1/models` answers Anthropic's list: the OpenAI list's models in its order, `created_at` their `created`, `first_id`/`last_id` its ends, `has_more` false.",
        phase: Phase::Shared,
        needs: Needs::Nothing,
        mock_only: None,
        decision: None,
        run: |c| Box::pin(anthropic(c)),
    },
    Check {
        id: "models.gemini-list",
        kind: Failure,
        route: "GET /v1beta/models",
        spec: "DECISIONS: Model lists in other clients' shapes (D-MODELS-3)",
        title: "`/v1beta/models` with `x-goog-api-key` answers Gemini's list: the OpenAI list's models in its order, `name` the bare id.",
        phase: Phase::Shared,
        needs: Needs::Nothing,
        mock_only: None,
        decision: None,
        run: |c| Box::pin(gemini(c)),
    },
];

/// The working key's secret (the headers of other clients carry it raw).
fn secret(ctx: &CheckCtx) -> Result<String, Halt> {
    match ctx.model_auth()? {
        Auth::Key(s) => Ok(s.expose().to_owned()),
        _ => Err(Halt::no_credentials(
            "the key must be known to send it as x-api-key: give --key-id or --allow-create-keys",
        )),
    }
}

/// The OpenAI list of the key: `(id, created)` in order.
async fn openai_list(ctx: &CheckCtx) -> Result<Vec<(String, i64)>, Halt> {
    let spec = RequestSpec::get("/v1/models").auth(ctx.model_auth()?);
    let ex = ctx.send(&spec, 0).await?;
    let v = ctx.json_200(&spec, &ex)?;
    Ok(v.get("data")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| {
            Some((
                m.get("id")?.as_str()?.to_owned(),
                m.get("created").and_then(Value::as_i64).unwrap_or(0),
            ))
        })
        .collect())
}

fn ids_of(v: &Value, list: &str, field: &str) -> Vec<String> {
    v.get(list)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|m| {
            m.get(field)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        })
        .collect()
}

fn disagree(
    ctx: &CheckCtx,
    what: &str,
    want: &[String],
    got: &[String],
    spec: &RequestSpec,
    ex: &Exchange,
) -> Halt {
    ctx.fail(
        format!("the {what} lists {got:?}, the OpenAI list of the same key {want:?}"),
        spec,
        Some(ex),
    )
}

async fn anthropic(ctx: &CheckCtx) -> Outcome {
    let key = secret(ctx)?;
    let want = openai_list(ctx).await?;
    let spec = RequestSpec::get("/v1/models")
        .header(X_API_KEY, key)
        .header(ANTHROPIC_VERSION, "2023-06-01");
    let ex = ctx.send(&spec, 0).await?;
    let v = ctx.json_200(&spec, &ex)?;
    if v.get("object").and_then(Value::as_str) == Some("list") {
        return Err(ctx.deviate(
            id::D_MODELS_1,
            "an Anthropic client was answered the OpenAI list",
            &spec,
            Some(&ex),
        ));
    }
    if let Err(e) = gatecheck_schemas::validate("anthropic-model-list", &v) {
        return Err(ctx.fail(
            format!("schema anthropic-model-list: {e}"),
            &spec,
            Some(&ex),
        ));
    }
    let ids: Vec<String> = want.iter().map(|(id, _)| id.clone()).collect();
    let got = ids_of(&v, "data", "id");
    if got != ids {
        return Err(disagree(ctx, "Anthropic list", &ids, &got, &spec, &ex));
    }
    for (item, (id, created)) in v["data"].as_array().into_iter().flatten().zip(&want) {
        if item.get("created_at").and_then(Value::as_str) != Some(rfc3339(*created).as_str()) {
            return Err(ctx.fail(
                format!("`created_at` of {id} is not its `created` ({created})"),
                &spec,
                Some(&ex),
            ));
        }
    }
    let end = |f: &str| v.get(f).and_then(Value::as_str).unwrap_or("").to_owned();
    let (first, last) = (
        ids.first().cloned().unwrap_or_default(),
        ids.last().cloned().unwrap_or_default(),
    );
    if end("first_id") != first
        || end("last_id") != last
        || v.get("has_more") != Some(&Value::Bool(false))
    {
        return Err(ctx.fail(
            "`first_id`, `last_id` or `has_more` do not describe the list",
            &spec,
            Some(&ex),
        ));
    }
    pass1()
}

async fn gemini(ctx: &CheckCtx) -> Outcome {
    let key = secret(ctx)?;
    let want: Vec<String> = openai_list(ctx)
        .await?
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let spec = RequestSpec::get(GEMINI_MODELS_PATH).header(X_GOOG_API_KEY, key);
    let ex = ctx.send(&spec, 0).await?;
    if Rejection::UnknownPath.answered_by_status(ex.status.as_u16()) {
        return Err(ctx.not_observed("the target does not serve /v1beta/models", &spec, Some(&ex)));
    }
    let v = ctx.json_200(&spec, &ex)?;
    if let Err(e) = gatecheck_schemas::validate("gemini-model-list", &v) {
        return Err(ctx.fail(format!("schema gemini-model-list: {e}"), &spec, Some(&ex)));
    }
    let got = ids_of(&v, "models", "name");
    let bare: Vec<String> = got
        .iter()
        .map(|n| n.strip_prefix("models/").unwrap_or(n).to_owned())
        .collect();
    if bare != want {
        return Err(disagree(ctx, "Gemini list", &want, &got, &spec, &ex));
    }
    if bare != got {
        return Err(ctx.deviate(
            id::D_MODELS_3,
            "the names carry Google's `models/` prefix; new-api answers the bare id",
            &spec,
            Some(&ex),
        ));
    }
    pass1()
}
