//! `GET /api/models`: the envelope, the records, paging and filters.

use super::property::for_all;
use super::Kind::{Deviation, Failure};
use super::{accepted, Check, CheckCtx, Halt, Needs, Outcome, Pass, Phase};
use crate::http::client::RequestSpec;
use crate::vocab::discovery::RouteFamily;
use gatecheck_schemas::decisions::id;
use gatecheck_schemas::types::{CatalogEnvelope, Endpoints};
use serde_json::Value;

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "catalog.envelope-schema",
        kind: Failure,
        route: "GET /api/models",
        spec: "spec: Model record (the catalog envelope)",
        title: "The catalog answers 200 JSON `{success, page, page_size, total, data}` valid against catalog-envelope.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::Catalog]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(envelope(c)),
    },
    Check {
        id: "catalog.record-fields",
        kind: Failure,
        route: "GET /api/models",
        spec: "spec: Model record (code equal to id; endpoints in both forms; pricing)",
        title: "Every record has `code` equal to `id`; string `endpoints` decode to a map of `{path, method}`; prices are numbers or null.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::Catalog]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(records(c)),
    },
    Check {
        id: "catalog.no-auth",
        kind: Deviation,
        route: "GET /api/models",
        spec: "DECISIONS: Catalog (needs no auth)",
        title: "The catalog is served without credentials.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::Catalog]),
        mock_only: None,
        decision: Some(id::D_CATALOG),
        run: |c| Box::pin(no_auth(c)),
    },
    Check {
        id: "catalog.paging",
        kind: Deviation,
        route: "GET /api/models",
        spec: "DECISIONS: Catalog (p, page_size)",
        title: "Pages of any size hold at most `page_size` records, keep `total`, and together list every model once.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::Catalog]),
        mock_only: None,
        decision: Some(id::D_CATALOG),
        run: |c| Box::pin(paging(c)),
    },
    Check {
        id: "catalog.filter",
        kind: Deviation,
        route: "GET /api/models",
        spec: "DECISIONS: Catalog (model_type, provider_code)",
        title: "`model_type` and `provider_code` filter the records.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::Catalog]),
        mock_only: None,
        decision: Some(id::D_CATALOG),
        run: |c| Box::pin(filter(c)),
    },
];

async fn envelope(ctx: &CheckCtx) -> Outcome {
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

async fn records(ctx: &CheckCtx) -> Outcome {
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
        if let Endpoints::Encoded(s) = &m.endpoints
            && m.endpoints.decode().is_none()
        {
            return Err(ctx.fail(
                format!(
                    "model {:?}: endpoints string {s:?} is not a JSON map of {{path, method}}",
                    m.id
                ),
                &spec,
                Some(&ex),
            ));
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

async fn no_auth(ctx: &CheckCtx) -> Outcome {
    let spec = RequestSpec::get("/api/models");
    let ex = ctx.send(&spec, 0).await?;
    if !accepted(&ex) {
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
    ctx: &CheckCtx,
    ex: &crate::http::client::Exchange,
    spec: &RequestSpec,
) -> Result<CatalogEnvelope, Halt> {
    ex.json()
        .and_then(|v| serde_json::from_value(v).ok())
        .ok_or_else(|| ctx.fail("not a catalog envelope", spec, Some(ex)))
}

async fn paging(ctx: &CheckCtx) -> Outcome {
    let total_models = ctx.env.models.len();
    if total_models == 0 {
        return Err(Halt::not_observed("the catalog lists no model"));
    }
    for_all(
        ctx,
        ctx.cfg.scope.cases.min(6),
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
                        "page_size {size}: pages listed {} records ({} distinct) for total {}",
                        seen.len(),
                        unique.len(),
                        super::or_none(total)
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

async fn filter(ctx: &CheckCtx) -> Outcome {
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
