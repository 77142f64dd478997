//! The runner's check of each video platform outside the unified route in new-api's plugin
//! era (`task.platform.<name>` of `rules::platforms::task_rooms()`; DECISIONS D-ERA-11),
//! under `--expect new-api` (skipped otherwise: the adaptors era's `task.kling.*`,
//! `task.jimeng.*` and `video.*` checks judge these routes):
//!
//! - Kling: a native submit without a prompt is Kling's own submit body with the public id
//!   (`native.taskCreated`), a mode the plugin refuses is 400 in its `native.error`
//!   `{code, message}`, and the query is Kling's body naming the task asked for
//!   (`native.taskStatus`).
//! - Jimeng: an Action other than its two, and none, are refused 400 `{code: 400, message}`;
//!   a submit and its `CVSync2AsyncGetResult` are Volcengine's bodies with the public id.
//! - The OpenAI-video task: an empty prompt (`field prompt is required`) and a file part
//!   other than `input_reference` are refused 400 `plugin_request_invalid`.
//!
//! A task made where the plugin refuses, or another form, deviates citing D-ERA-11; a query
//! answering another task fails (D-TASK-10).

use super::{CheckCtx, Halt, Outcome, Pass};
use crate::http::client::{Exchange, Part, RequestSpec};
use crate::vocab::skip::SkipCause;
use gatecheck_schemas::decisions::{id, Id};
use gatecheck_schemas::rules::era::{is_plugin_refusal, MSG_FIELD_PROMPT_REQUIRED};
use gatecheck_schemas::rules::openai_video::MSG_UNEXPECTED_FILE;
use gatecheck_schemas::rules::platforms::{jimeng, kling, Era, Key, Platform};
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::rules::task::{
    JIMENG_GET_RESULT, JIMENG_SUBMIT, MSG_ACTION_REQUIRED, TASK_REFUSAL_STATUS,
};
use gatecheck_schemas::rules::video::is_task_id;
use serde_json::{json, Value};

/// The DECISIONS row of these judgments.
const ROW: Id = id::D_ERA_11;

/// `task.platform.<name>` of platform `p` outside the unified route.
pub(crate) async fn native(ctx: &CheckCtx, p: &'static Platform) -> Outcome {
    if !ctx.judges_plugins() {
        return Err(Halt::Skip(
            SkipCause::NoCase,
            format!(
                "{}'s plugin is judged under --expect new-api in the plugin era (DECISIONS {ROW}); \
                 the adaptors era's task and video checks judge its routes",
                p.title
            ),
        ));
    }
    // The routes a platform's plugin declares are its own (their declaration in the
    // description is not there yet): one judgment per platform key.
    let cases = match p.key {
        Key::Kling => kling_routes(ctx, p).await?,
        Key::Jimeng => jimeng_routes(ctx, p).await?,
        _ => openai_video(ctx, p).await?,
    };
    Ok(Pass { cases, note: None })
}

/// The catalog model of `p` (one its plugin lists) and its price at its default duration.
fn model_of(ctx: &CheckCtx, p: &Platform) -> Result<(String, i64), Halt> {
    let models = p.models_in(Era::Plugins);
    ctx.env
        .models
        .iter()
        .filter(|m| models.contains(&m.id.as_str()))
        .find_map(|m| {
            let video = ctx.env.caps.get(&m.id)?.video.as_ref()?;
            let usage = Usage {
                seconds: video.default_seconds as f64,
                ..Usage::one_request()
            };
            Some((m.id.clone(), ctx.price(&m.id, usage)))
        })
        .ok_or_else(|| {
            Halt::no_model(format!(
                "no {} model ({}) in the catalog",
                p.name,
                models.join(", ")
            ))
        })
}

/// The refusal `ex` must be: 400 with `message` (at the top, in the plugin's `native.error`)
/// starting with `want`; a 2xx made a task the plugin refuses.
fn native_refusal(
    ctx: &CheckCtx,
    spec: &RequestSpec,
    ex: &Exchange,
    want: &str,
    code_is_status: bool,
) -> Result<(), Halt> {
    let v = ex.json().unwrap_or(Value::Null);
    let message = v["message"].as_str().unwrap_or("");
    let code_ok = if code_is_status {
        v["code"] == json!(TASK_REFUSAL_STATUS)
    } else {
        v["code"].is_string()
    };
    if ex.status.as_u16() == TASK_REFUSAL_STATUS && message.starts_with(want) && code_ok {
        return Ok(());
    }
    Err(ctx.deviate(
        ROW,
        format!(
            "expected 400 with the plugin's native error {{code, message: {want:?}}}, got {}",
            super::answer_summary(ex)
        ),
        spec,
        Some(ex),
    ))
}

/// The public task id at `data.task_id` of a vendor body whose `code` is `ok`, else a
/// deviation (new-api's create object, or another form).
fn vendor_id(ctx: &CheckCtx, spec: &RequestSpec, ex: &Exchange, ok: i64) -> Result<String, Halt> {
    let v = ex.json().unwrap_or(Value::Null);
    let id = v
        .pointer("/data/task_id")
        .and_then(Value::as_str)
        .unwrap_or("");
    if super::accepted(ex) && v["code"] == json!(ok) && is_task_id(id) {
        return Ok(id.to_owned());
    }
    Err(ctx.deviate(
        ROW,
        format!(
            "expected the vendor's own body {{code: {ok}, data: {{task_id: <public task_ id>}}}}, got {}",
            super::answer_summary(ex)
        ),
        spec,
        Some(ex),
    ))
}

/// A query's answer names the task asked for at `data.task_id` (D-TASK-10), in the vendor's
/// body (else a deviation).
fn names_task(ctx: &CheckCtx, spec: &RequestSpec, ex: &Exchange, id: &str) -> Result<(), Halt> {
    let v = ex.json().unwrap_or(Value::Null);
    let named = v.pointer("/data/task_id").and_then(Value::as_str);
    match named {
        Some(n) if n == id => Ok(()),
        Some(other) if is_task_id(other) => Err(ctx.fail(
            format!(
                "the query of {id} answered task {other} (DECISIONS D-TASK-10: a fetch answers the task asked about)"
            ),
            spec,
            Some(ex),
        )),
        _ => Err(ctx.deviate(
            ROW,
            format!(
                "the query of {id} is not the vendor's own body with data.task_id: {}",
                super::answer_summary(ex)
            ),
            spec,
            Some(ex),
        )),
    }
}

/// Kling: a refused mode, a submit without a prompt, its query.
async fn kling_routes(ctx: &CheckCtx, p: &Platform) -> Result<u32, Halt> {
    let (model, price) = model_of(ctx, p)?;
    let auth = ctx.model_auth()?;
    let path = "/kling/v1/videos/text2video";
    let mode = json!("fast");
    let want = kling::resolve_mode(&model, Some(&mode))
        .err()
        .unwrap_or_default();
    let refused = RequestSpec::post(path)
        .auth(auth.clone())
        .json(json!({"model_name": model, "mode": mode, "prompt": "a refused mode (gatecheck)"}));
    let ex = ctx.send(&refused, price).await?;
    native_refusal(ctx, &refused, &ex, &want, false)?;
    // No prompt: the plugin's decoder asks for the model only.
    let spec = RequestSpec::post(path)
        .auth(auth.clone())
        .json(json!({"model_name": model}));
    let ex = ctx.send(&spec, price).await?;
    let id = vendor_id(ctx, &spec, &ex, 0)?;
    let query = RequestSpec::get(format!("{path}/{id}")).auth(auth);
    let qx = ctx.send(&query, 0).await?;
    names_task(ctx, &query, &qx, &id)?;
    Ok(3)
}

/// Jimeng: an unsupported Action and none refused, a submit and its GetResult.
async fn jimeng_routes(ctx: &CheckCtx, p: &Platform) -> Result<u32, Halt> {
    let (model, price) = model_of(ctx, p)?;
    let auth = ctx.model_auth()?;
    let path = |action: &str| format!("/jimeng/?Action={action}&Version=2022-08-31");
    let body = json!({"req_key": model, "prompt": "a paper boat on a river (gatecheck)"});
    let other = RequestSpec::post(path("CVSync2AsyncQueryTask"))
        .auth(auth.clone())
        .json(body.clone());
    let ex = ctx.send(&other, price).await?;
    native_refusal(ctx, &other, &ex, jimeng::MSG_UNSUPPORTED_ACTION, true)?;
    let none = RequestSpec::post("/jimeng/")
        .auth(auth.clone())
        .json(body.clone());
    let ex = ctx.send(&none, 0).await?;
    native_refusal(ctx, &none, &ex, MSG_ACTION_REQUIRED, true)?;
    let submit = RequestSpec::post(path(JIMENG_SUBMIT))
        .auth(auth.clone())
        .json(body);
    let ex = ctx.send(&submit, price).await?;
    let id = vendor_id(ctx, &submit, &ex, 10000)?;
    let query = RequestSpec::post(path(JIMENG_GET_RESULT))
        .auth(auth)
        .json(json!({ "task_id": id }));
    let qx = ctx.send(&query, 0).await?;
    names_task(ctx, &query, &qx, &id)?;
    Ok(4)
}

/// The OpenAI-video task's plugin: an empty prompt and a file part other than
/// `input_reference` refused 400 `plugin_request_invalid`.
async fn openai_video(ctx: &CheckCtx, p: &Platform) -> Result<u32, Halt> {
    let (model, price) = model_of(ctx, p)?;
    let auth = ctx.model_auth()?;
    let empty = RequestSpec::post("/v1/videos")
        .auth(auth.clone())
        .json(json!({"model": model, "prompt": ""}));
    let file = RequestSpec::post("/v1/videos").auth(auth).multipart(vec![
        Part::text("model", model.as_str()),
        Part::text("prompt", "a paper kite over dunes (gatecheck)"),
        Part::file(
            "image",
            "kite.png",
            "image/png",
            crate::generators::media::png(54, 8, 8),
        ),
    ]);
    let cases = [
        (&empty, MSG_FIELD_PROMPT_REQUIRED.to_owned()),
        (&file, format!("{MSG_UNEXPECTED_FILE}image")),
    ];
    for (spec, want) in cases {
        let ex = ctx.send(spec, price).await?;
        let v = ex.json().unwrap_or(Value::Null);
        let message = gatecheck_schemas::rules::era::plugin_refusal_message(&v);
        if !(ex.status.as_u16() == gatecheck_schemas::rules::era::PLUGIN_REFUSAL_STATUS
            && is_plugin_refusal(&v)
            && message.starts_with(&want))
        {
            return Err(ctx.deviate(
                ROW,
                format!(
                    "expected 400 plugin_request_invalid {want:?} (the OpenAI-video plugin's decoder), got {}",
                    super::answer_summary(&ex)
                ),
                spec,
                Some(&ex),
            ));
        }
    }
    Ok(2)
}
