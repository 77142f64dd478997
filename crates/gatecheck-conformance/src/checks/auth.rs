//! Authentication of the model routes and of the key-management route.

use super::property::for_all;
use super::Kind::{Deviation, Failure};
use super::{for_all_routes, pass1, Check, CheckCtx, Halt, Needs, Outcome, Phase};
use crate::generators::media;
use crate::generators::strategies::{bad_auth, BadAuth};
use crate::http::client::{Auth, Part, RequestSpec};
use crate::http::key_api::full_update_body;
use crate::redact::Secret;
use crate::vocab::discovery::RouteFamily;
use gatecheck_schemas::decisions::id;
use gatecheck_schemas::rules::auth::{
    is_access_admitted, is_stateless_refusal, AccessRefusal, DashboardAuth,
};
use gatecheck_schemas::rules::rejection::{is_admitted, is_key_refusal};
use gatecheck_schemas::rules::token::IMPOSSIBLE_KEY_ID;
use gatecheck_schemas::rules::Rejection;
use gatecheck_schemas::Profile;
use proptest::prelude::*;
use serde_json::{json, Value};

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "auth.v1.missing-key-401",
        kind: Failure,
        route: "/v1/*",
        spec: "spec: Authentication, rule 1",
        title: "A model request without `Authorization` is answered 401, on every model route.",
        phase: Phase::Shared,
        needs: Needs::AnyModelRoute,
        mock_only: None,
        decision: None,
        run: |c| Box::pin(missing_key(c)),
    },
    Check {
        id: "auth.v1.invalid-key-401",
        kind: Failure,
        route: "/v1/*",
        spec: "spec: Authentication, rule 1; Errors (401)",
        title: "A model request with an unknown, empty or malformed key is answered 401.",
        phase: Phase::Shared,
        needs: Needs::AnyModelRoute,
        mock_only: None,
        decision: None,
        run: |c| Box::pin(invalid_key(c)),
    },
    Check {
        id: "auth.v1.wrong-scheme-401",
        kind: Failure,
        route: "/v1/*",
        spec: "spec: Authentication (Bearer <API_KEY>; rule 3)",
        title: "A valid key sent under another scheme (`Basic`, `Token`) is answered 401.",
        phase: Phase::Shared,
        needs: Needs::AnyModelRoute,
        mock_only: None,
        decision: None,
        run: |c| Box::pin(wrong_scheme(c)),
    },
    Check {
        id: "auth.v1.bearer-case-insensitive",
        kind: Deviation,
        route: "/v1/*",
        spec: "DECISIONS: Identity and auth",
        title: "The `Bearer` prefix is matched case-insensitively.",
        phase: Phase::Shared,
        needs: Needs::AnyModelRoute,
        mock_only: None,
        decision: Some(id::D_AUTH),
        run: |c| Box::pin(bearer_case(c)),
    },
    Check {
        id: "auth.v1.key-with-or-without-sk",
        kind: Deviation,
        route: "/v1/*",
        spec: "DECISIONS: Identity and auth",
        title: "A key is accepted with and without its `sk-` prefix.",
        phase: Phase::Shared,
        needs: Needs::AnyModelRoute,
        mock_only: None,
        decision: Some(id::D_AUTH),
        run: |c| Box::pin(sk_prefix(c)),
    },
    Check {
        id: "auth.token.missing-token-401",
        kind: Deviation,
        route: "PUT /api/token/",
        spec: "DECISIONS: Identity and auth (/api/token/*)",
        title: "`PUT /api/token/` without an access token is answered 401 with `{success:false, message}`.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: Some(id::D_AUTH),
        run: |c| Box::pin(token_missing(c)),
    },
    Check {
        id: "auth.token.wrong-token-rejected",
        kind: Failure,
        route: "PUT /api/token/",
        spec: "spec: Authentication (ACCESS_TOKEN); DECISIONS: wrong token",
        title: "A wrong access token never succeeds (401, or 200 with `success:false`).",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(token_wrong(c)),
    },
    Check {
        id: "auth.token.raw-token-accepted",
        kind: Failure,
        route: "PUT /api/token/",
        spec: "spec: Authentication (the access token is sent raw, without Bearer)",
        title: "The raw access token in `Authorization` is accepted by `PUT /api/token/`.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(token_raw(c)),
    },
    Check {
        id: "auth.token.user-header-ignored",
        kind: Deviation,
        route: "PUT /api/token/",
        spec: "DECISIONS D-AUTH-9; P6, D-AUTH-7 (accepted)",
        title: "Under `--expect new-api`: in the plugin era the access token is admitted without `New-Api-User` and with another user's (new-api since 31d70fca reads none); in the adaptors' era either generation passes. The documented expectation accepts both (P6, D-AUTH-7).",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: Some(id::D_AUTH),
        run: |c| Box::pin(token_user_header(c)),
    },
    Check {
        id: "auth.token.bearer-token-accepted",
        kind: Deviation,
        route: "PUT /api/token/",
        spec: "DECISIONS: Identity and auth (a Bearer prefix is also accepted)",
        title: "`Authorization: Bearer <ACCESS_TOKEN>` is also accepted by `PUT /api/token/`.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: Some(id::D_AUTH),
        run: |c| Box::pin(token_bearer(c)),
    },
];

/// The model routes, each with a request that is valid but for its auth.
pub(crate) fn model_routes(ctx: &CheckCtx) -> Vec<RequestSpec> {
    let pick = |f: &dyn Fn(&gatecheck_schemas::types::ModelCapabilities) -> bool,
                fallback: &str| {
        ctx.model_with(f)
            .map(|(m, _)| m.id.clone())
            .unwrap_or_else(|_| fallback.to_owned())
    };
    let whisper = pick(
        &|c| c.transcription.as_ref().is_some_and(|t| t.translation),
        "whisper-1",
    );
    let tts = pick(&|c| c.speech.is_some(), "tts-1");
    let video = pick(&|c| c.video.is_some(), "sora-2");
    let (image, size) = ctx
        .model_with(|c| c.image.is_some())
        .map(|(m, c)| {
            (
                m.id.clone(),
                c.image
                    .as_ref()
                    .and_then(|i| i.sizes.first().cloned())
                    .unwrap_or_default(),
            )
        })
        .unwrap_or_else(|_| ("gpt-image-1".into(), "1024x1024".into()));
    let all = [
        (
            RouteFamily::AudioTranslations,
            RequestSpec::post("/v1/audio/translations").multipart(vec![
                Part::file("file", "speech.wav", "audio/wav", media::wav(200)),
                Part::text("model", whisper),
            ]),
        ),
        (
            RouteFamily::AudioSpeech,
            RequestSpec::post("/v1/audio/speech").json(
                json!({"model": tts, "input": "hello", "voice": "alloy", "response_format": "mp3"}),
            ),
        ),
        (
            RouteFamily::VideoCreate,
            RequestSpec::post("/v1/videos")
                .json(json!({"model": video, "prompt": "a lighthouse at dawn"})),
        ),
        (
            RouteFamily::VideoPoll,
            RequestSpec::get("/v1/videos/task_00000000000000000000000000000000"),
        ),
        (
            RouteFamily::ImageGenerations,
            RequestSpec::post("/v1/images/generations")
                .json(json!({"model": image, "prompt": "a red cube", "size": size})),
        ),
    ];
    // Rules that hold across routes are probed on the routes the target serves.
    all.into_iter()
        .filter(|(family, _)| ctx.env.serves(*family))
        .map(|(_, spec)| spec)
        .collect()
}

/// Sends `spec` and fails unless the target refuses it as `rejection`; `what` names the case
/// in the message (`expected 401 {what}, got ...`).
async fn expect_refused(
    ctx: &CheckCtx,
    spec: RequestSpec,
    rejection: Rejection,
    what: &str,
) -> Result<(), Halt> {
    let ex = ctx.send(&spec, 0).await?;
    if !ctx.rejected_as(rejection, ex.status.as_u16()) {
        return Err(ctx.fail(
            format!(
                "expected {} {what}, got {}",
                rejection.http_status(Profile::Documented),
                super::answer_summary(&ex)
            ),
            &spec,
            Some(&ex),
        ));
    }
    Ok(())
}

/// Every model route, with an `Authorization` header drawn from `schemes` around `key`, is
/// refused as an invalid key.
async fn bad_auth_refused<S>(ctx: &CheckCtx, schemes: S, key: &str, what: &str) -> Outcome
where
    S: Strategy<Value = BadAuth>,
{
    let routes = model_routes(ctx);
    let strat = (0..routes.len(), schemes);
    for_all(ctx, ctx.cfg.scope.cases, strat, |(i, bad)| {
        let spec = routes[i]
            .clone()
            .auth(Auth::Raw(Secret::new(bad.header(key))));
        expect_refused(ctx, spec, Rejection::InvalidKey, what)
    })
    .await
}

async fn missing_key(ctx: &CheckCtx) -> Outcome {
    for_all_routes(ctx, |spec| {
        expect_refused(ctx, spec, Rejection::MissingKey, "without a key")
    })
    .await
}

async fn invalid_key(ctx: &CheckCtx) -> Outcome {
    let schemes = bad_auth().prop_filter("not a scheme case", |b| {
        !matches!(b, BadAuth::Basic | BadAuth::Token)
    });
    bad_auth_refused(ctx, schemes, "", "for an invalid key").await
}

fn valid_secret(ctx: &CheckCtx) -> Result<String, Halt> {
    if let Some(k) = &ctx.env.key {
        return Ok(k.secret.expose().to_owned());
    }
    ctx.env
        .target
        .api_key
        .as_ref()
        .map(|k| k.expose().to_owned())
        .ok_or_else(|| Halt::no_credentials("no API key: give --api-key"))
}

async fn wrong_scheme(ctx: &CheckCtx) -> Outcome {
    let key = valid_secret(ctx)?;
    let schemes = prop_oneof![Just(BadAuth::Basic), Just(BadAuth::Token)];
    bad_auth_refused(ctx, schemes, &key, "for a non-Bearer scheme").await
}

/// A cheap admission probe: a video request with an empty prompt. Past the key checks it is
/// refused as invalid (400), so nothing is charged; a key refusal is 401 or 403.
pub(crate) fn probe_spec(model: &str, auth: Auth) -> RequestSpec {
    RequestSpec::post("/v1/videos")
        .auth(auth)
        .json(json!({"model": model, "prompt": ""}))
}

/// The video model used by probes.
pub(crate) fn probe_model(ctx: &CheckCtx) -> String {
    ctx.model_with(|c| c.video.is_some())
        .map(|(m, _)| m.id.clone())
        .unwrap_or_else(|_| "sora-2".into())
}

/// Whether a probe's answer is a key refusal ([`is_key_refusal`]).
pub(crate) fn refused(status: u16) -> bool {
    is_key_refusal(status)
}

/// The free admission probe: `GET /v1/models` with `auth`. It sits behind the same key
/// middleware as the model routes in new-api, charges nothing and, unlike a model request with
/// an invalid body, answers 2xx exactly when the key is admitted.
fn admission_spec(auth: Auth) -> RequestSpec {
    RequestSpec::get("/v1/models").auth(auth)
}

/// Checks that the key in its documented form (`Bearer <key>`) is admitted by the probe, so
/// that a refusal of another form means something. A skip when it is not.
async fn calibrate(ctx: &CheckCtx, key: &str) -> Result<(), Halt> {
    let spec = admission_spec(Auth::Raw(Secret::new(format!("Bearer {key}"))));
    let ex = ctx.t.send_probe(&spec).await?;
    if is_admitted(ex.status.as_u16()) {
        return Ok(());
    }
    Err(ctx.not_observed(
        format!(
            "GET /v1/models does not admit the key in its documented form (`Bearer <key>` was \
             answered {}), so it cannot judge the key's other forms",
            super::status_text(ex.status.as_u16())
        ),
        &spec,
        Some(&ex),
    ))
}

/// Each header in `forms` is admitted (2xx) by the probe; a failure names the first that is
/// not, with what came instead.
async fn admitted_in_forms(ctx: &CheckCtx, key: &str, forms: &[(String, String)]) -> Outcome {
    calibrate(ctx, key).await?;
    for (header, shown) in forms {
        let spec = admission_spec(Auth::Raw(Secret::new(header.clone())));
        let ex = ctx.t.send_probe(&spec).await?;
        if !is_admitted(ex.status.as_u16()) {
            return Err(ctx.fail(
                format!(
                    "{shown} was not admitted: GET /v1/models answered {} where the documented \
                     form is admitted",
                    super::answer_summary(&ex)
                ),
                &spec,
                Some(&ex),
            ));
        }
    }
    Ok(super::Pass {
        cases: forms.len() as u32,
        note: None,
    })
}

async fn bearer_case(ctx: &CheckCtx) -> Outcome {
    let key = valid_secret(ctx)?;
    let forms: Vec<(String, String)> = ["bearer", "BEARER", "BeArEr"]
        .iter()
        .map(|scheme| (format!("{scheme} {key}"), format!("`{scheme} <key>`")))
        .collect();
    admitted_in_forms(ctx, &key, &forms).await
}

async fn sk_prefix(ctx: &CheckCtx) -> Outcome {
    let key = valid_secret(ctx)?;
    let bare = key.strip_prefix("sk-").unwrap_or(&key).to_owned();
    let forms = vec![
        (format!("Bearer sk-{bare}"), "the key with `sk-`".to_owned()),
        (format!("Bearer {bare}"), "the key without `sk-`".to_owned()),
    ];
    admitted_in_forms(ctx, &key, &forms).await
}

/// The body of every update sent without proven credentials: a key id no deployment holds,
/// and no field, so a target whose auth is broken changes nothing.
fn token_probe_body() -> Value {
    json!({ "id": IMPOSSIBLE_KEY_ID })
}

async fn token_missing(ctx: &CheckCtx) -> Outcome {
    let spec = RequestSpec::put("/api/token/").json(token_probe_body());
    let ex = ctx.send(&spec, 0).await?;
    let v = ex.json().unwrap_or(Value::Null);
    let expected = AccessRefusal::Missing.http_status(Profile::Documented);
    if ex.status.as_u16() != expected {
        return Err(ctx.fail(
            format!(
                "expected {expected} without an access token, got {}",
                super::answer_summary(&ex)
            ),
            &spec,
            Some(&ex),
        ));
    }
    if v.get("success").and_then(Value::as_bool) != Some(false)
        || !v.get("message").is_some_and(Value::is_string)
    {
        return Err(ctx.fail(
            "the refusal body is not {success:false, message}",
            &spec,
            Some(&ex),
        ));
    }
    pass1()
}

async fn token_wrong(ctx: &CheckCtx) -> Outcome {
    let strat = "[A-Za-z0-9]{8,40}";
    for_all(ctx, ctx.cfg.scope.cases.min(8), strat, |tok: String| {
        let spec = RequestSpec::put("/api/token/")
            .auth(Auth::Raw(Secret::new(format!("wrong{tok}"))))
            .json(token_probe_body());
        async move {
            let ex = ctx.send(&spec, 0).await?;
            let v = ex.json().unwrap_or(Value::Null);
            let success = v.get("success").and_then(Value::as_bool);
            if is_access_admitted(ex.status.as_u16(), success) {
                return Err(ctx.fail(
                    format!(
                        "a wrong access token was admitted: answered {}",
                        super::answer_summary(&ex)
                    ),
                    &spec,
                    Some(&ex),
                ));
            }
            // The plugin era's new-api is past 31d70fca: its stateless refusal (D-AUTH-9).
            if ctx.judges_plugins() && !is_stateless_refusal(ex.status.as_u16(), &v) {
                return Err(ctx.deviate(
                    id::D_AUTH_9,
                    format!(
                        "a wrong access token was refused {}, not 401 AUTH_UNAUTHORIZED (new-api since 31d70fca, every plugin-era version)",
                        super::answer_summary(&ex)
                    ),
                    &spec,
                    Some(&ex),
                ));
            }
            Ok(())
        }
    })
    .await
}

async fn token_put_ok(ctx: &CheckCtx, auth: Auth, what: &str) -> Outcome {
    let key = ctx.work_key()?;
    let spec = RequestSpec::put("/api/token/")
        .auth(auth)
        .json(full_update_body(&key.baseline));
    let ex = ctx.send(&spec, 0).await?;
    let v = ex.json().unwrap_or(Value::Null);
    if !ex.status.is_success() || v.get("success").and_then(Value::as_bool) != Some(true) {
        return Err(ctx.fail(format!("{what} was not accepted"), &spec, Some(&ex)));
    }
    pass1()
}

async fn token_raw(ctx: &CheckCtx) -> Outcome {
    token_put_ok(ctx, Auth::AccessToken, "the raw access token").await
}

async fn token_bearer(ctx: &CheckCtx) -> Outcome {
    let tok = ctx
        .env
        .target
        .access_token
        .clone()
        .ok_or_else(|| Halt::no_credentials("no access token: give --access-token"))?;
    token_put_ok(
        ctx,
        Auth::Raw(Secret::new(format!("Bearer {}", tok.expose()))),
        "`Bearer <ACCESS_TOKEN>`",
    )
    .await
}

/// The generations of dashboard auth the run accepts: the documented contract's (`None`), or
/// new-api's of the run's era (D-AUTH-9).
fn accepted_auth(ctx: &CheckCtx) -> Option<&'static [DashboardAuth]> {
    (ctx.cfg.judging.expect == Profile::NewApi).then(|| DashboardAuth::of_era(ctx.env.era()))
}

/// Whether `auths` admit the access token without `New-Api-User` or with another user's id:
/// the answers accepted, each `true` for admitted. The documented expectation (`None`) takes
/// both: new-api's `New-Api-User` differences from the contract are accepted ones (P6,
/// D-AUTH-7), and only new-api's own eras tell them apart (D-AUTH-9).
fn admits(auths: Option<&[DashboardAuth]>) -> Vec<bool> {
    match auths {
        None => vec![true, false],
        Some(gens) => gens
            .iter()
            .map(|g| *g == DashboardAuth::Stateless)
            .collect(),
    }
}

async fn token_user_header(ctx: &CheckCtx) -> Outcome {
    let token = ctx
        .env
        .target
        .access_token
        .clone()
        .ok_or_else(|| Halt::no_credentials("no access token: give --access-token"))?;
    let key = ctx.work_key()?;
    let others = ctx.env.target.user_id.map(|u| (u + 1).to_string());
    let cases = [(None, false)]
        .into_iter()
        .chain(others.map(|o| (Some(o), true)));
    let mut n = 0;
    for (user, other_user) in cases {
        let mut spec = RequestSpec::put("/api/token/")
            .header("Authorization", token.expose())
            .json(full_update_body(&key.baseline));
        if let Some(u) = &user {
            spec = spec.header(gatecheck_schemas::rules::auth::NEW_API_USER_HEADER, u);
        }
        let ex = ctx.send(&spec, 0).await?;
        let v = ex.json().unwrap_or(Value::Null);
        let success = v.get("success").and_then(Value::as_bool);
        let admitted = is_access_admitted(ex.status.as_u16(), success);
        let auths = accepted_auth(ctx);
        if !admits(auths).contains(&admitted) {
            let sent = if other_user {
                "with another user's New-Api-User"
            } else {
                "without New-Api-User"
            };
            let shown = if admitted { "admitted" } else { "refused" };
            return Err(ctx.deviate(
                id::D_AUTH_9,
                format!(
                    "the access token {sent} was {shown}: {}",
                    super::answer_summary(&ex)
                ),
                &spec,
                Some(&ex),
            ));
        }
        n += 1;
    }
    Ok(super::Pass {
        cases: n,
        note: None,
    })
}
