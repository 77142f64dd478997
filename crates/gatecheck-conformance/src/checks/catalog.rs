//! `GET /api/models`, and the `/v1` error conventions.

use super::auth::model_routes;
use super::{def, CheckDef, Ctx, Halt, Outcome, Pass, Phase};
use crate::catalog::Kind::{Deviation, Failure};
use crate::client::{Part, RequestSpec};
use crate::gen::{for_all, media};
use gatecheck_schemas::types::{CatalogEnvelope, Endpoints};
use serde_json::{json, Value};

pub(crate) const CHECKS: &[CheckDef] = &[
    def("catalog.envelope-schema", Failure, "GET /api/models", "spec: Model record (the catalog envelope)",
        "The catalog answers 200 JSON `{success, page, page_size, total, data}` valid against catalog-envelope.",
        Phase::Shared, |c| Box::pin(envelope(c))),
    def("catalog.record-fields", Failure, "GET /api/models", "spec: Model record (code equal to id; endpoints in both forms; pricing)",
        "Every record has `code` equal to `id`; string `endpoints` decode to a map of `{path, method}`; prices are numbers or null.",
        Phase::Shared, |c| Box::pin(records(c))),
    def("catalog.no-auth", Deviation, "GET /api/models", "DECISIONS: Catalog (needs no auth)",
        "The catalog is served without credentials.",
        Phase::Shared, |c| Box::pin(no_auth(c))),
    def("catalog.paging", Deviation, "GET /api/models", "DECISIONS: Catalog (p, page_size)",
        "Pages of any size hold at most `page_size` records, keep `total`, and together list every model once.",
        Phase::Shared, |c| Box::pin(paging(c))),
    def("catalog.filter", Deviation, "GET /api/models", "DECISIONS: Catalog (model_type, provider_code)",
        "`model_type` and `provider_code` filter the records.",
        Phase::Shared, |c| Box::pin(filter(c))),
    def("v1.validation-status-400", Failure, "/v1/audio/*, /v1/images/generations", "spec: Errors (400: invalid prompt, text, file, model, voice, format, size)",
        "Invalid requests on the audio and image routes are answered exactly 400.",
        Phase::Shared, |c| Box::pin(validation_400(c))),
    def("v1.unknown-path-404", Failure, "/v1/*", "spec: Errors (404: wrong base URL or path)",
        "A request to a path the service does not have is answered 404.",
        Phase::Shared, |c| Box::pin(unknown_path(c))),
    def("v1.error-body", Deviation, "/v1/*", "DECISIONS: Error bodies",
        "`/v1` errors are JSON `{error:{message, type, param, code}}` with type `new_api_error`.",
        Phase::Shared, |c| Box::pin(error_body(c))),
    def("v1.request-id-header", Deviation, "/v1/*", "DECISIONS: Error bodies (X-Oneapi-Request-Id)",
        "Every `/v1` response carries `X-Oneapi-Request-Id`.",
        Phase::Shared, |c| Box::pin(request_id(c))),
];

async fn envelope(ctx: &Ctx) -> Outcome {
    let spec = RequestSpec::get("/api/models");
    let ex = ctx.send(&spec, 0).await?;
    let v = ctx.json_200(&spec, &ex)?;
    if let Err(e) = gatecheck_schemas::validate("catalog-envelope", &v) {
        return Err(ctx.fail(format!("schema catalog-envelope: {e}"), &spec, Some(&ex)));
    }
    if v.get("success").and_then(Value::as_bool) != Some(true) {
        return Err(ctx.fail("success is not true", &spec, Some(&ex)));
    }
    Ok(Pass {
        cases: 1,
        note: None,
    })
}

async fn records(ctx: &Ctx) -> Outcome {
    let spec = RequestSpec::get("/api/models?p=1&page_size=100");
    let ex = ctx.send(&spec, 0).await?;
    let env: CatalogEnvelope = ex
        .json()
        .and_then(|v| serde_json::from_value(v).ok())
        .ok_or_else(|| {
            ctx.fail(
                "the catalog is not an envelope of model records",
                &spec,
                Some(&ex),
            )
        })?;
    for m in &env.data {
        if m.code != m.id {
            return Err(ctx.fail(
                format!("model {:?} has code {:?}", m.id, m.code),
                &spec,
                Some(&ex),
            ));
        }
        if let Endpoints::Encoded(s) = &m.endpoints {
            if m.endpoints.decode().is_none() {
                return Err(ctx.fail(
                    format!(
                        "model {:?}: endpoints string {s:?} is not a JSON map of {{path, method}}",
                        m.id
                    ),
                    &spec,
                    Some(&ex),
                ));
            }
        }
        if let Err(e) = gatecheck_schemas::validate(
            "model-record",
            &serde_json::to_value(m).unwrap_or_default(),
        ) {
            return Err(ctx.fail(format!("model {:?}: {e}", m.id), &spec, Some(&ex)));
        }
    }
    Ok(Pass {
        cases: env.data.len() as u32,
        note: None,
    })
}

async fn no_auth(ctx: &Ctx) -> Outcome {
    let spec = RequestSpec::get("/api/models");
    let ex = ctx.send(&spec, 0).await?;
    if ex.status.as_u16() != 200 {
        return Err(ctx.fail(
            format!("the catalog without credentials was answered {}", ex.status),
            &spec,
            Some(&ex),
        ));
    }
    Ok(Pass {
        cases: 1,
        note: None,
    })
}

fn page(
    ctx: &Ctx,
    ex: &crate::client::Exchange,
    spec: &RequestSpec,
) -> Result<CatalogEnvelope, Halt> {
    ex.json()
        .and_then(|v| serde_json::from_value(v).ok())
        .ok_or_else(|| ctx.fail("not a catalog envelope", spec, Some(ex)))
}

async fn paging(ctx: &Ctx) -> Outcome {
    let total_models = ctx.env.models.len();
    if total_models == 0 {
        return Err(Halt::Skip("empty catalog".into()));
    }
    for_all(
        ctx,
        ctx.cfg.cases.min(6),
        1i64..=12,
        |size: i64| async move {
            let mut seen = Vec::new();
            let mut total = None;
            for p in 1..=(total_models as i64 / size + 2) {
                let spec = RequestSpec::get(format!("/api/models?p={p}&page_size={size}"));
                let ex = ctx.send(&spec, 0).await?;
                let env = page(ctx, &ex, &spec)?;
                if env.data.len() as i64 > size || env.page_size != size {
                    return Err(ctx.fail(
                        format!(
                            "page_size {size}: got {} records, page_size {}",
                            env.data.len(),
                            env.page_size
                        ),
                        &spec,
                        Some(&ex),
                    ));
                }
                if *total.get_or_insert(env.total) != env.total {
                    return Err(ctx.fail("total changed between pages", &spec, Some(&ex)));
                }
                if env.data.is_empty() {
                    break;
                }
                seen.extend(env.data.into_iter().map(|m| m.id));
            }
            let mut unique = seen.clone();
            unique.sort();
            unique.dedup();
            if unique.len() != seen.len() || seen.len() as i64 != total.unwrap_or(0) {
                let spec = RequestSpec::get(format!("/api/models?page_size={size}"));
                return Err(ctx.fail(
                    format!(
                        "page_size {size}: pages listed {} records ({} distinct) for total {:?}",
                        seen.len(),
                        unique.len(),
                        total
                    ),
                    &spec,
                    None,
                ));
            }
            Ok(())
        },
    )
    .await
}

async fn filter(ctx: &Ctx) -> Outcome {
    let mut types: Vec<String> = ctx
        .env
        .models
        .iter()
        .map(|m| m.model_type.clone())
        .collect();
    types.sort();
    types.dedup();
    let mut n = 0;
    for t in types {
        let spec = RequestSpec::get(format!("/api/models?model_type={t}&page_size=100"));
        let ex = ctx.send(&spec, 0).await?;
        let env = page(ctx, &ex, &spec)?;
        let expected = ctx.env.models.iter().filter(|m| m.model_type == t).count();
        if env.data.iter().any(|m| m.model_type != t) || env.data.len() != expected {
            return Err(ctx.fail(
                format!(
                    "model_type={t}: {} records, expected {expected}",
                    env.data.len()
                ),
                &spec,
                Some(&ex),
            ));
        }
        n += 1;
    }
    Ok(Pass {
        cases: n,
        note: None,
    })
}

async fn validation_400(ctx: &Ctx) -> Outcome {
    let auth = ctx.model_auth()?;
    let routes = model_routes(ctx);
    let mut invalid = Vec::new();
    if let Some(r) = routes.first() {
        // Translation: temperature past 1.
        let mut parts = match &r.body {
            crate::client::Body::Multipart(p) => p.clone(),
            _ => vec![],
        };
        parts.push(Part::text("temperature", "1.5"));
        invalid.push(RequestSpec::post("/v1/audio/translations").multipart(parts));
        invalid.push(
            RequestSpec::post("/v1/audio/translations").multipart(vec![Part::file(
                "file",
                "a.wav",
                "audio/wav",
                media::wav(100),
            )]),
        );
    }
    if let Some(r) = routes.get(1) {
        if let crate::client::Body::Json(v) = &r.body {
            let mut v = v.clone();
            v["input"] = json!("");
            invalid.push(RequestSpec::post("/v1/audio/speech").json(v));
        }
    }
    if let Some(r) = routes.get(4) {
        if let crate::client::Body::Json(v) = &r.body {
            let mut v = v.clone();
            v["size"] = json!("3x3");
            invalid.push(RequestSpec::post("/v1/images/generations").json(v));
        }
    }
    let n = invalid.len();
    for_all(ctx, ctx.cfg.cases.min(n as u32).max(1), 0..n, |i: usize| {
        let spec = invalid[i].clone().auth(auth.clone());
        async move {
            let ex = ctx.send(&spec, 0).await?;
            if ex.status.as_u16() != 400 {
                return Err(ctx.fail(
                    format!("a validation error was answered {}, not 400", ex.status),
                    &spec,
                    Some(&ex),
                ));
            }
            Ok(())
        }
    })
    .await
}

async fn error_body(ctx: &Ctx) -> Outcome {
    super::for_all_routes(ctx, |spec| async move {
        let ex = ctx.send(&spec, 0).await?;
        let v = ex.json().unwrap_or(Value::Null);
        if ex.content_type().as_deref() != Some("application/json") {
            return Err(ctx.fail("the error is not application/json", &spec, Some(&ex)));
        }
        if let Err(e) = gatecheck_schemas::validate("v1-error", &v) {
            return Err(ctx.fail(format!("schema v1-error: {e}"), &spec, Some(&ex)));
        }
        if v.pointer("/error/type").and_then(Value::as_str) != Some("new_api_error") {
            return Err(ctx.fail("error.type is not new_api_error", &spec, Some(&ex)));
        }
        Ok(())
    })
    .await
}

async fn request_id(ctx: &Ctx) -> Outcome {
    let auth = ctx.model_auth().ok();
    super::for_all_routes(ctx, |spec| {
        let spec = match &auth {
            Some(a) if spec.method == http::Method::GET => spec.auth(a.clone()),
            _ => spec,
        };
        async move {
            let ex = ctx.send(&spec, 0).await?;
            if ex.header("x-oneapi-request-id").is_none_or(str::is_empty) {
                return Err(ctx.fail("no X-Oneapi-Request-Id header", &spec, Some(&ex)));
            }
            Ok(())
        }
    })
    .await
}

async fn unknown_path(ctx: &Ctx) -> Outcome {
    let auth = ctx.model_auth()?;
    let strat = ("[a-z]{3,12}", proptest::bool::ANY);
    crate::gen::for_all(
        ctx,
        ctx.cfg.cases.min(4),
        strat,
        |(seg, post): (String, bool)| {
            let path = format!("/v1/gatecheck-{seg}");
            let spec = if post {
                RequestSpec::post(path).json(json!({"model": "x"}))
            } else {
                RequestSpec::get(path)
            }
            .auth(auth.clone());
            async move {
                let ex = ctx.send(&spec, 0).await?;
                if ex.status.as_u16() != 404 {
                    return Err(ctx.fail(
                        format!("an unknown path was answered {}", ex.status),
                        &spec,
                        Some(&ex),
                    ));
                }
                Ok(())
            }
        },
    )
    .await
}
