//! The Midjourney task routes (DECISIONS D-MJ), as new-api serves them under `/mj` and
//! `/{mode}/mj`:
//!
//! - `POST /mj/submit/{imagine,change,simple-change,action,modal,describe,blend,shorten,edits,video}`:
//!   `{code:1, description, result:<task id>, properties}`, charged after the submit is
//!   accepted ([`charged_after_submit`]); a refusal is 400 `{description:"<reason> ",
//!   type:"upstream_error", code:4}`.
//! - `GET /mj/task/{id}/fetch`: the task record; an unknown id (or another user's) is 400
//!   `task_no_found`.
//! - `POST /mj/submit/upload-discord-images`: `{code:1, description, result:[url...]}`,
//!   charged as `mj_upload`; no images, or one that is not a data URL, is the upstream's
//!   `code` 4 answer with HTTP 200, charged nothing (DECISIONS D-MJ-8).
//! - `POST /mj/insight-face/swap`: a `SWAP_FACE` task, charged as `swap_face`.
//! - `POST /mj/task/list-by-condition`: the records of the key's user among `ids`.
//! - `GET /mj/task/{id}/image-seed`: the seed of a SUCCESS task.
//! - `GET /mj/image/{id}` (no auth): the PNG of a SUCCESS task.
//! - `POST /__mock/mj/{id}/outcome`: the outcome override of `/__mock/videos/{id}/outcome`
//!   (in `routes/outcomes.rs`).
//!
//! The key is a Bearer key or `mj-api-secret` ([`effective_key`]). Tasks move on the mock
//! clock with the video plan and prompt rules ([`crate::tasks::midjourney`]); faults apply as on any
//! route.

use super::ctx::Ctx;
use crate::response::{self, MockResponse};
use crate::state::AuthedKey;
use crate::tasks::midjourney::{MjTask, MJ_PLAN_SECONDS};
use gatecheck_schemas::rules::midjourney::{
    action_of_custom_id, charged_after_submit, effective_key, fields_have_their_types, image_seed,
    is_data_url, model_for, simple_change, ACTION_SWAP_FACE, ACTION_UPLOAD, CHANGE_ACTIONS,
    CODE_REQUEST_ERROR, CODE_SUBMITTED, LIST_BODY_REFUSED, MJ_MODELS, MJ_SECRET_HEADER,
    REFUSAL_STATUS, SUBMIT_ROUTES, SWAP_FACE_IMAGES_REQUIRED, SWAP_FACE_PROMPT, TASK_NO_FOUND,
    UPLOAD_EMPTY, UPLOAD_MALFORMED,
};
use gatecheck_schemas::rules::quota::Usage;
use gatecheck_schemas::rules::rejection::ACCEPTED;
use gatecheck_schemas::types::VideoStatus;
use http::{HeaderMap, HeaderValue, Request};
use hyper::body::Incoming;
use serde_json::{json, Value};

/// Authenticates a Midjourney request: the key of `Authorization`, or of `mj-api-secret`
/// when that is empty or `midjourney-proxy`; then as every model route.
pub(crate) fn authenticate(cx: &Ctx, headers: &HeaderMap) -> Result<AuthedKey, MockResponse> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    };
    let key = effective_key(text("authorization"), text(MJ_SECRET_HEADER));
    let mut effective = HeaderMap::new();
    if let Some(v) = key.and_then(|k| HeaderValue::from_str(&format!("Bearer {k}")).ok()) {
        effective.insert(http::header::AUTHORIZATION, v);
    }
    crate::routes::auth::authenticate_key(&cx.app, &effective, cx.client_ip, cx.now())
}

/// A refusal: 400 `{description: "<reason> <result>", type: "upstream_error", code: 4}`.
fn refusal(reason: &str) -> MockResponse {
    response::json(
        REFUSAL_STATUS,
        &json!({"description": format!("{reason} "), "type": "upstream_error", "code": CODE_REQUEST_ERROR}),
    )
}

fn owner(cx: &Ctx) -> i64 {
    cx.key().map(|k| k.user_id).unwrap_or(0)
}

/// `POST .../mj/submit/{name}` (admitted; `name` one of [`SUBMIT_ROUTES`]).
pub(crate) async fn submit(cx: &Ctx, req: Request<Incoming>, name: &str) -> MockResponse {
    let Some((_, fixed)) = SUBMIT_ROUTES.iter().find(|(n, _)| *n == name) else {
        return cx.not_found(req.method(), req.uri().path());
    };
    submit_task(cx, req, name, *fixed)
        .await
        .unwrap_or_else(|r| r)
}

/// `POST .../mj/submit/upload-discord-images` (admitted).
pub(crate) async fn upload(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    upload_images(cx, req).await.unwrap_or_else(|r| r)
}

/// `POST .../mj/insight-face/swap` (admitted).
pub(crate) async fn swap(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    swap_faces(cx, req).await.unwrap_or_else(|r| r)
}

/// `POST .../mj/task/list-by-condition` (admitted).
pub(crate) async fn list(cx: &Ctx, req: Request<Incoming>) -> MockResponse {
    list_tasks(cx, req).await.unwrap_or_else(|r| r)
}

/// `GET .../mj/task/{id}/fetch` (admitted): the task record; `task_no_found` for an unknown
/// id or another user's.
pub(crate) fn fetch(cx: &Ctx, id: &str) -> MockResponse {
    match cx.app.tasks.mj.get(id, owner(cx)) {
        Some(task) => response::json(ACCEPTED, &task.record(cx.now_ms(), &cx.base_url())),
        None => refusal(TASK_NO_FOUND),
    }
}

/// `GET .../mj/task/{id}/image-seed` (admitted).
pub(crate) fn seed(cx: &Ctx, id: &str) -> MockResponse {
    image_seed_of(cx, id).unwrap_or_else(|r| r)
}

/// Reads a body that must be a JSON object; new-api's `bind_request_body_failed` otherwise.
async fn object_body(cx: &Ctx, req: Request<Incoming>) -> Result<Value, MockResponse> {
    let body = cx.read_body(req).await?;
    match serde_json::from_slice(&body) {
        Ok(v @ Value::Object(_)) if fields_have_their_types(&v) => Ok(v),
        _ => Err(refusal("bind_request_body_failed")),
    }
}

/// `POST /mj/submit/upload-discord-images` `{base64Array: [data URL...]}`: one URL per image.
/// The checks of the upstream (midjourney-proxy) come after the model check; their answer is
/// HTTP 200 with `code` 4, which new-api relays and does not charge.
async fn upload_images(cx: &Ctx, req: Request<Incoming>) -> Result<MockResponse, MockResponse> {
    let value = object_body(cx, req).await?;
    let model = model_for(ACTION_UPLOAD);
    cx.check_model(&model)?;
    cx.check_channel(&model)?;
    let images: Vec<&str> = match value.get("base64Array").and_then(Value::as_array) {
        Some(list) => list.iter().map(|v| v.as_str().unwrap_or("")).collect(),
        None => Vec::new(),
    };
    let upstream_refusal = |description: &str| {
        response::json(
            ACCEPTED,
            &json!({"code": CODE_REQUEST_ERROR, "description": description, "result": null}),
        )
    };
    if images.is_empty() {
        return Ok(upstream_refusal(UPLOAD_EMPTY));
    }
    if !images.iter().all(|i| is_data_url(i)) {
        return Ok(upstream_refusal(UPLOAD_MALFORMED));
    }
    let price = cx.price(&model, Usage::one_request());
    cx.charge(price).map_err(|_| refusal("quota_not_enough"))?;
    let urls: Vec<String> = images
        .iter()
        .map(|i| {
            let hash = crate::media::fnv1a(i.as_bytes());
            format!("https://cdn.discordapp.com/attachments/gatecheck/{hash:016x}/upload.png")
        })
        .collect();
    Ok(response::json(
        ACCEPTED,
        &json!({"code": CODE_SUBMITTED, "description": "success", "result": urls}),
    ))
}

/// `POST /mj/insight-face/swap` `{sourceBase64, targetBase64}`: a `SWAP_FACE` task.
async fn swap_faces(cx: &Ctx, req: Request<Incoming>) -> Result<MockResponse, MockResponse> {
    let value = object_body(cx, req).await?;
    // SwapFaceRequest's two fields are strings too (Go refuses another type).
    if ["sourceBase64", "targetBase64"].iter().any(|k| {
        value
            .get(*k)
            .is_some_and(|v| !v.is_string() && !v.is_null())
    }) {
        return Err(refusal("bind_request_body_failed"));
    }
    let present = |k: &str| {
        value
            .get(k)
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty())
    };
    if !present("sourceBase64") || !present("targetBase64") {
        return Err(refusal(SWAP_FACE_IMAGES_REQUIRED));
    }
    let ask = Ask {
        action: ACTION_SWAP_FACE.to_owned(),
        prompt: SWAP_FACE_PROMPT.to_owned(),
        origin: None,
    };
    accept(cx, "swap", ask)
}

/// `POST /mj/task/list-by-condition` `{ids: [...]}`: the records of the key's user among
/// `ids`, each once, oldest first; `[]` when none.
async fn list_tasks(cx: &Ctx, req: Request<Incoming>) -> Result<MockResponse, MockResponse> {
    let body = cx.read_body(req).await?;
    let ids: Vec<String> = match serde_json::from_slice::<Value>(&body) {
        Ok(Value::Null) => Vec::new(),
        Ok(Value::Object(o)) => match o.get("ids") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(list)) => list
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<_>>()
                .ok_or_else(|| refusal(LIST_BODY_REFUSED))?,
            Some(_) => return Err(refusal(LIST_BODY_REFUSED)),
        },
        _ => return Err(refusal(LIST_BODY_REFUSED)),
    };
    let (now_ms, base) = (cx.now_ms(), cx.base_url());
    let mut tasks: Vec<_> = ids
        .iter()
        .filter_map(|id| cx.app.tasks.mj.get(id, owner(cx)))
        .collect();
    tasks.sort_by(|a, b| (a.plan.created_at_ms, &a.id).cmp(&(b.plan.created_at_ms, &b.id)));
    tasks.dedup_by(|a, b| a.id == b.id);
    let records: Vec<Value> = tasks.iter().map(|t| t.record(now_ms, &base)).collect();
    Ok(response::json(ACCEPTED, &Value::Array(records)))
}

/// `GET /mj/task/{id}/image-seed`: `{code:1, result:<seed>}` once the task is SUCCESS; the
/// upstream's `code` 4 answer before; `task_no_found` for an unknown id.
fn image_seed_of(cx: &Ctx, id: &str) -> Result<MockResponse, MockResponse> {
    let task = cx
        .app
        .tasks
        .mj
        .get(id, owner(cx))
        .ok_or_else(|| refusal(TASK_NO_FOUND))?;
    let (code, description, result) = if task.status_at(cx.now_ms()) == VideoStatus::Completed {
        (CODE_SUBMITTED, "success", image_seed(&task.id))
    } else {
        (CODE_REQUEST_ERROR, "task_status_not_success", String::new())
    };
    Ok(response::json(
        ACCEPTED,
        &json!({"code": code, "description": description, "properties": null, "result": result}),
    ))
}

/// What a submit asks for: its action, prompt and origin task.
struct Ask {
    action: String,
    prompt: String,
    origin: Option<String>,
}

/// Reads a submit's body into what it asks for, as new-api's distributor and
/// RelayMidjourneySubmit check it; the refusal's reason otherwise.
fn ask_of(name: &str, fixed: Option<&str>, body: &Value) -> Result<Ask, &'static str> {
    let text = |k: &str| {
        body.get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim()
            .to_owned()
    };
    let task_id = text("taskId");
    let mut ask = Ask {
        action: fixed.unwrap_or("").to_owned(),
        prompt: text("prompt"),
        origin: None,
    };
    match name {
        "imagine" if ask.prompt.is_empty() => return Err("prompt_is_required"),
        "change" => {
            let action = text("action").to_ascii_uppercase();
            let index = body.get("index").and_then(Value::as_i64).unwrap_or(0);
            if task_id.is_empty() {
                return Err("task_id_is_required");
            }
            if action.is_empty() {
                return Err("action_is_required");
            }
            if index == 0 {
                return Err("index_is_required");
            }
            if !CHANGE_ACTIONS.contains(&action.as_str()) {
                return Err("unknown_action");
            }
            ask.action = action;
            ask.origin = Some(task_id);
        }
        "simple-change" => {
            let content = text("content");
            let (id, action, _) = simple_change(&content).ok_or("invalid_request")?;
            ask.action = action.to_owned();
            ask.origin = Some(id.to_owned());
        }
        "action" => {
            let (action, _) = action_of_custom_id(&text("customId"))?;
            if task_id.is_empty() {
                return Err("task_id_is_required");
            }
            ask.action = action.to_owned();
            ask.origin = Some(task_id);
        }
        "modal" | "video" if task_id.is_empty() => return Err("task_id_is_required"),
        "modal" | "video" => ask.origin = Some(task_id),
        _ => {}
    }
    Ok(ask)
}

async fn submit_task(
    cx: &Ctx,
    req: Request<Incoming>,
    name: &str,
    fixed: Option<&str>,
) -> Result<MockResponse, MockResponse> {
    let value = object_body(cx, req).await?;
    let ask = ask_of(name, fixed, &value).map_err(refusal)?;
    accept(cx, name, ask)
}

/// Checks the model and the origin task of a submit (`name`: the route's last segment),
/// charges it and stores its task: the `{code:1, result:<id>}` answer.
fn accept(cx: &Ctx, name: &str, mut ask: Ask) -> Result<MockResponse, MockResponse> {
    let model = model_for(&ask.action);
    if !MJ_MODELS.contains(&model.as_str()) {
        return Err(refusal("unknown_relay_action"));
    }
    cx.check_model(&model)?;
    cx.check_channel(&model)?;
    let now_ms = cx.now_ms();
    if let Some(origin) = &ask.origin {
        let Some(task) = cx.app.tasks.mj.get(origin, owner(cx)) else {
            return Err(refusal("task_not_found"));
        };
        // A modal opens on any task; the other actions need a finished grid.
        if name != "modal" && task.status_at(now_ms) != VideoStatus::Completed {
            return Err(refusal("task_status_not_success"));
        }
        ask.prompt = task.prompt.clone();
    }
    let price = cx.price(&model, Usage::one_request());
    let id = task_id(cx, now_ms);
    let plan = cx
        .fixtures()
        .video
        .plan(now_ms, MJ_PLAN_SECONDS, &ask.prompt);
    // Charged once the submit is accepted, atomically: a key short of quota gets new-api's
    // `quota_not_enough` refusal, and no task is stored.
    let quota = if charged_after_submit(CODE_SUBMITTED) {
        cx.charge(price)
            .map_err(|_| refusal("quota_not_enough"))?
            .price
    } else {
        0
    };
    cx.app.tasks.mj.insert(MjTask {
        id: id.clone(),
        owner: owner(cx),
        action: ask.action,
        prompt: ask.prompt,
        plan,
        quota,
    });
    Ok(response::json(
        ACCEPTED,
        &json!({
            "code": CODE_SUBMITTED,
            "description": "Submit success",
            "result": id,
            "properties": {"discordInstanceId": "gatecheck", "discordChannelId": "gatecheck"},
        }),
    ))
}

/// A fresh task id: the submit time in ms and three digits (midjourney-proxy's form).
fn task_id(cx: &Ctx, now_ms: i64) -> String {
    loop {
        let salt = crate::media::fnv1a(cx.ids().alnum(8).as_bytes()) % 1000;
        let id = format!("{}{salt:03}", now_ms.max(0));
        if cx.app.tasks.mj.get_any(&id).is_none() {
            return id;
        }
    }
}

/// Serves `GET /mj/image/{id}` (no auth): the PNG of a SUCCESS task; 400
/// `midjourney_task_not_found` for an unknown one, 404 before it succeeded.
pub(crate) fn image(cx: &Ctx, id: &str) -> MockResponse {
    let Some(task) = cx.app.tasks.mj.get_any(id) else {
        return response::json(400, &json!({"error": "midjourney_task_not_found"}));
    };
    if task.status_at(cx.now_ms()) != VideoStatus::Completed {
        return response::json(404, &json!({"error": "midjourney_image_not_ready"}));
    }
    match crate::media::png(crate::media::fnv1a(task.id.as_bytes()), 1024, 1024) {
        Ok(png) => response::bytes_response(ACCEPTED, "image/png", png),
        Err(e) => response::json(500, &json!({"error": e.to_string()})),
    }
}
