//! Quota on the model routes: refusal below the price, the charge of an accepted request,
//! atomic consumption under concurrency, and no charge kept for a refused request.

use super::key::{baseline, set_key};
use super::Kind::{Deviation, Failure};
use super::{Check, CheckCtx, Halt, Needs, Outcome, Pass, Phase};
use crate::http::client::{Auth, Exchange, RequestSpec};
use crate::http::key_api::get_key;
use crate::vocab::discovery::RouteFamily;
use gatecheck_schemas::decisions::id;
use gatecheck_schemas::rules::quota::{
    check_charge, one_ratio, read_zero_charge, Usage, ZeroCharge, ZERO_CHARGE_PROBE_QUOTA,
};
use gatecheck_schemas::rules::Rejection;
use gatecheck_schemas::types::KeyRecord;
use serde_json::json;

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "quota.insufficient-403",
        kind: Deviation,
        route: "/v1/images/generations",
        spec: "DECISIONS: Identity and auth (pre_consume_token_quota_failed)",
        title: "A key whose remaining quota is below the request's price (at the key's group ratio: `--group-ratio`, `GET /api/pricing`, else the charge of one such request) is answered 403 `pre_consume_token_quota_failed`.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::ImageGenerations, RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: Some(id::D_AUTH),
        run: |c| Box::pin(insufficient(c)),
    },
    Check {
        id: "quota.charged",
        kind: Failure,
        route: "/v1/images/generations + GET /api/token/{id}",
        spec: "DECISIONS: Quota and limits",
        title: "An accepted request adds its price (catalog price times the key's group ratio: `--group-ratio`, `GET /api/pricing`, else one ratio inferred from its two charges, which must agree) to `used_quota`, and takes it from `remain_quota` on a limited key (an unlimited key may keep it).",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::ImageGenerations, RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(charged(c)),
    },
    Check {
        id: "quota.concurrent-atomic",
        kind: Deviation,
        route: "/v1/images/generations",
        spec: "DECISIONS: Quota and limits (consumption is atomic)",
        title: "With quota for exactly k requests (priced at the key's group ratio: `--group-ratio`, `GET /api/pricing`, else the charge of one such request), k of 2k concurrent requests succeed and the quota ends at 0.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::ImageGenerations, RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: Some(id::D_QUOTA),
        run: |c| Box::pin(atomic(c)),
    },
    Check {
        id: "quota.refused-uncharged",
        kind: Failure,
        route: "POST /v1/videos, POST /v1/images/generations + GET /api/token/{id}",
        spec: "DECISIONS: Quota and limits D-QUOTA-4",
        title: "A refused request (4xx: an empty prompt, an unknown model, a size the model does not make) keeps no charge: the key's `used_quota` does not grow and its `remain_quota` does not fall across it.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::ImageGenerations, RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(refused_uncharged(c)),
    },
];

/// The cheapest image request the catalog allows, with its price ([`CheckCtx::price`]: at the
/// known group ratio, else the catalog's) and its model.
fn cheap_image(ctx: &CheckCtx) -> Result<(RequestSpec, i64), Halt> {
    cheap_image_of(ctx).map(|(spec, _, price)| (spec, price))
}

/// [`cheap_image`] with its model.
fn cheap_image_of(ctx: &CheckCtx) -> Result<(RequestSpec, String, i64), Halt> {
    let mut best: Option<(String, String, i64)> = None;
    for (m, c) in ctx.models_with(|c| c.image.is_some()) {
        let price = ctx.price(&m.id, Usage::one_request());
        let size = c
            .image
            .as_ref()
            .and_then(|i| i.sizes.first().cloned())
            .unwrap_or_default();
        if price > 0 && best.as_ref().is_none_or(|b| price < b.2) {
            best = Some((m.id.clone(), size, price));
        }
    }
    let (model, size, price) =
        best.ok_or_else(|| Halt::not_observed("no image model with a known price"))?;
    let key = ctx.work_key()?;
    Ok((
        RequestSpec::post("/v1/images/generations")
            .auth(Auth::Key(key.secret.clone()))
            .json(json!({"model": model, "prompt": "a small grey pebble", "size": size})),
        model,
        price,
    ))
}

/// What the working key is charged for `spec`, and how that is known: its price at the known
/// group ratio (`--group-ratio`, `GET /api/pricing`); else, with no ratio published or given,
/// the charge of one such request, alone on a limited key with quota in hand (the growth of
/// `used_quota` around it: the catalog price times the key's group ratio on new-api, DECISIONS
/// D-STREAM-7). A charge of 0 is not observed: no charge cannot be told from a free group.
async fn key_price(
    ctx: &CheckCtx,
    spec: &RequestSpec,
    catalog: i64,
) -> Result<(i64, String), Halt> {
    if let Some(r) = ctx.env.group_ratio.ratio {
        return Ok((
            catalog,
            format!("group ratio {r} ({})", ctx.env.group_ratio.source),
        ));
    }
    let base = baseline(ctx)?;
    let rec = KeyRecord {
        unlimited_quota: false,
        remain_quota: base.remain_quota.max(100 * catalog),
        ..base.clone()
    };
    set_key(ctx, &rec).await?;
    let read = || async {
        get_key(&ctx.t, base.id)
            .await?
            .ok_or_else(|| Halt::not_observed("GET /api/token/{id} did not return the key"))
    };
    let before = read().await?;
    let ex = ctx.send(spec, catalog).await?;
    let after = read().await?;
    if !ex.status.is_success() {
        return Err(Halt::not_observed(format!(
            "the image request was not accepted ({}); see images.* checks",
            ex.status
        )));
    }
    let charged = after.used_quota - before.used_quota;
    if charged <= 0 {
        let what = format!("the request (catalog price {catalog}) was charged {charged}");
        return Err(zero_charge(ctx, spec, catalog, &what, false).await);
    }
    Ok((
        charged,
        format!("charged {charged} for catalog price {catalog}: one group ratio inferred"),
    ))
}

/// The verdict on a request charged 0 (`what`) with no group ratio published or given:
/// `spec` is sent once more on the working key made limited with [`ZERO_CHARGE_PROBE_QUOTA`]
/// (`rules::quota::read_zero_charge`). Served: a free group (ratio 0), charged nothing
/// whatever it uses, so not observed. Refused for want of quota: the service prices what it
/// charged nothing for, a failure of a check that judges the charge (`judges`), and not
/// observed (no price to judge by) for one that only needs the price.
pub(super) async fn zero_charge(
    ctx: &CheckCtx,
    spec: &RequestSpec,
    price: i64,
    what: &str,
    judges: bool,
) -> Halt {
    let ask = async {
        let rec = KeyRecord {
            unlimited_quota: false,
            remain_quota: ZERO_CHARGE_PROBE_QUOTA,
            ..baseline(ctx)?
        };
        set_key(ctx, &rec).await?;
        ctx.send(spec, price).await
    };
    let ex: Exchange = match ask.await {
        Ok(ex) => ex,
        Err(h) => return h,
    };
    let code = ex.error_code();
    let for_quota = ctx.rejected_as(Rejection::InsufficientQuota, ex.status.as_u16())
        || code.as_deref() == Rejection::InsufficientQuota.code(ctx.cfg.judging.expect);
    let answered = format!(
        "the same request on a key holding {ZERO_CHARGE_PROBE_QUOTA} unit was answered {} \
         (code {})",
        super::status_text(ex.status.as_u16()),
        super::or_none(code.as_deref())
    );
    let message = match read_zero_charge(ex.status.is_success(), for_quota) {
        ZeroCharge::FreeGroup => format!(
            "no group ratio is published or given, {what}, and {answered}: a free group \
             (group ratio 0: new-api pre-consumes and charges nothing, relay/helper/price.go \
             freeModel), charged 0 whatever it uses; nothing to compare (D-STREAM-7)"
        ),
        ZeroCharge::PricedUncharged if judges => {
            return ctx.fail(
                format!(
                    "no group ratio is published or given, {what}, yet {answered}: the service \
                     prices the request and charged nothing for it (a free group, ratio 0, \
                     serves it: new-api checks the key's quota only for a price over 0; \
                     D-STREAM-7)"
                ),
                spec,
                Some(&ex),
            )
        }
        ZeroCharge::PricedUncharged => format!(
            "no group ratio is published or given, {what}, yet {answered}: the service prices \
             the request and charged nothing, so there is no price to judge by (quota.charged \
             and usage.charged judge the charge)"
        ),
        ZeroCharge::Unknown => format!(
            "no group ratio is published or given, {what}, and {answered}: nothing tells a \
             free group from no charge (give --group-ratio)"
        ),
    };
    ctx.not_observed(message, spec, Some(&ex))
}

async fn insufficient(ctx: &CheckCtx) -> Outcome {
    let (spec, catalog) = cheap_image(ctx)?;
    let (price, how) = key_price(ctx, &spec, catalog).await?;
    if price < 2 {
        return Err(Halt::not_observed(
            "the cheapest request costs under 2 units",
        ));
    }
    let rec = KeyRecord {
        remain_quota: price - 1,
        unlimited_quota: false,
        ..baseline(ctx)?
    };
    set_key(ctx, &rec).await?;
    let ex = ctx.send(&spec, price).await?;
    let code = ex.error_code();
    if !ctx.rejected_as(Rejection::InsufficientQuota, ex.status.as_u16())
        || code.as_deref() != Rejection::InsufficientQuota.code(ctx.cfg.judging.expect)
    {
        return Err(ctx.fail(
            format!(
                "remain_quota {} below the price {price}: expected {} with code {}, got {} with code {}",
                price - 1,
                Rejection::InsufficientQuota.http_status(ctx.cfg.judging.expect),
                super::or_none(Rejection::InsufficientQuota.code(ctx.cfg.judging.expect)),
                super::status_text(ex.status.as_u16()),
                super::or_none(code.as_deref())
            ),
            &spec,
            Some(&ex),
        ));
    }
    Ok(Pass {
        cases: 1,
        note: Some(format!("price {price}: {how}")),
    })
}

async fn charged(ctx: &CheckCtx) -> Outcome {
    let (spec, model, price) = cheap_image_of(ctx)?;
    let base = baseline(ctx)?;
    let known = ctx.env.group_ratio.ratio.is_some();
    // A limited key, then an unlimited one, each read around one request.
    let mut seen = Vec::new();
    for unlimited in [false, true] {
        let rec = KeyRecord {
            unlimited_quota: unlimited,
            // A limited key needs the price in hand (an unlimited baseline may hold 0), at
            // whatever ratio the key's group has when it is not known.
            remain_quota: base.remain_quota.max(if known { 10 } else { 100 } * price),
            ..base.clone()
        };
        set_key(ctx, &rec).await?;
        let before = get_key(&ctx.t, base.id)
            .await?
            .ok_or_else(|| Halt::not_observed("GET /api/token/{id} did not return the key"))?;
        let ex = ctx.send(&spec, price).await?;
        if !ex.status.is_success() {
            return Err(Halt::not_observed(format!(
                "the image request was not accepted ({}); see images.* checks",
                ex.status
            )));
        }
        let after = get_key(&ctx.t, base.id)
            .await?
            .ok_or_else(|| Halt::not_observed("GET /api/token/{id} did not return the key"))?;
        seen.push((before, ex, after));
    }
    let (price, how) = charge_judged(ctx, &spec, &model, price, &seen).await?;
    // Each judged against rules::key::charge, the mock's own charge (rules::quota::check_charge).
    for (before, ex, after) in &seen {
        if let Err(msg) = check_charge(before, price, after) {
            return Err(ctx.fail(format!("{msg} ({how})"), &spec, Some(ex)));
        }
    }
    Ok(Pass {
        cases: 2,
        note: Some(format!("price {price}: {how}")),
    })
}

/// The price the requests of `quota.charged` are judged at, and how it is known: `price` at
/// the known group ratio; else the catalog price times the one ratio that explains both
/// charges (`rules::quota::one_ratio`, as `usage.charged` infers it): charges that no one
/// ratio explains fail; nothing charged is asked once more ([`zero_charge`]).
async fn charge_judged(
    ctx: &CheckCtx,
    spec: &RequestSpec,
    model: &str,
    price: i64,
    seen: &[(KeyRecord, crate::http::client::Exchange, KeyRecord)],
) -> Result<(i64, String), Halt> {
    if let Some(r) = ctx.env.group_ratio.ratio {
        return Ok((
            price,
            format!("group ratio {r} ({})", ctx.env.group_ratio.source),
        ));
    }
    let pairs: Vec<(i64, i64)> = seen
        .iter()
        .map(|(b, _, a)| (price, a.used_quota - b.used_quota))
        .collect();
    match one_ratio(&pairs) {
        Ok(r) if r > 0.0 => Ok((
            ctx.price_at(model, Usage::one_request(), r),
            format!("group ratio {r:.3} inferred from these charges (none published or given)"),
        )),
        Ok(_) => {
            let what = format!("both requests (catalog price {price}) were charged nothing");
            Err(zero_charge(ctx, spec, price, &what, true).await)
        }
        Err((n, why)) => Err(ctx.fail(
            format!(
                "no one group ratio explains the charges of the same request: {why} (no ratio \
                 published: GET /api/pricing, --group-ratio; D-STREAM-7)"
            ),
            spec,
            Some(&seen[n].1),
        )),
    }
}

async fn atomic(ctx: &CheckCtx) -> Outcome {
    let (spec, catalog) = cheap_image(ctx)?;
    let (price, how) = key_price(ctx, &spec, catalog).await?;
    let k = 3i64;
    let rec = KeyRecord {
        remain_quota: k * price,
        unlimited_quota: false,
        ..baseline(ctx)?
    };
    set_key(ctx, &rec).await?;
    let sends = (0..2 * k).map(|_| ctx.send(&spec, price));
    let results = futures_util::future::join_all(sends).await;
    let mut ok = 0;
    for r in results {
        if r?.status.is_success() {
            ok += 1;
        }
    }
    let after = get_key(&ctx.t, rec.id).await?;
    let remain = after.as_ref().map(|a| a.remain_quota);
    if ok != k || remain.is_some_and(|r| r != 0) {
        return Err(ctx.fail(
            format!("quota for {k} requests of {price}: {ok} of {} concurrent requests succeeded, remain_quota {}", 2 * k, super::or_none(remain)),
            &spec,
            None,
        ));
    }
    Ok(Pass {
        cases: 2 * k as u32,
        note: Some(format!("price {price}: {how}")),
    })
}

/// The refusals other checks send (`video.create.empty-prompt-400`,
/// `video.create.unknown-model-rejected`, the image size checks), each refused before any
/// upstream work: what each is, and its request.
fn refusals(ctx: &CheckCtx) -> Result<Vec<(&'static str, RequestSpec)>, Halt> {
    let auth = ctx.model_auth()?;
    let mut out = Vec::new();
    if let Ok((model, _, _)) = super::video_run::video_model(ctx) {
        out.push((
            "a video with an empty prompt",
            RequestSpec::post("/v1/videos")
                .auth(auth.clone())
                .json(json!({"model": model, "prompt": ""})),
        ));
    }
    out.push((
        "a video of an unknown model",
        RequestSpec::post("/v1/videos")
            .auth(auth.clone())
            .json(json!({"model": "gatecheck-no-such-model", "prompt": "a paper boat"})),
    ));
    if let Ok((spec, _)) = cheap_image(ctx) {
        let mut body = match spec.body {
            crate::http::request::Body::Json(v) => v,
            _ => json!({}),
        };
        body["size"] = json!("7x7");
        out.push((
            "an image of a size no model makes",
            RequestSpec::post("/v1/images/generations")
                .auth(auth)
                .json(body),
        ));
    }
    Ok(out)
}

async fn refused_uncharged(ctx: &CheckCtx) -> Outcome {
    let base = baseline(ctx)?;
    // A limited key with quota in hand: a refusal is then never for want of quota.
    let rec = KeyRecord {
        unlimited_quota: false,
        remain_quota: base.remain_quota.max(10_000_000),
        ..base.clone()
    };
    set_key(ctx, &rec).await?;
    let read = || async {
        get_key(&ctx.t, base.id)
            .await?
            .ok_or_else(|| Halt::not_observed("GET /api/token/{id} did not return the key"))
    };
    let mut cases = 0;
    let mut notes = Vec::new();
    for (what, spec) in refusals(ctx)? {
        let before = read().await?;
        let ex = ctx.send(&spec, 0).await?;
        let after = read().await?;
        if !ex.status.is_client_error() {
            notes.push(format!("{what}: answered {}, not refused", ex.status));
            continue;
        }
        cases += 1;
        let used = after.used_quota - before.used_quota;
        let taken = before.remain_quota - after.remain_quota;
        if used > 0 || taken > 0 {
            return Err(ctx.fail(
                format!(
                    "{what} was refused ({}) but the key kept a charge: used_quota {} -> {}, \
                     remain_quota {} -> {}; a refused request costs nothing (new-api rejects \
                     bad input before it charges, and refunds what it pre-consumed when a \
                     later step fails; D-QUOTA-4)",
                    ex.status,
                    before.used_quota,
                    after.used_quota,
                    before.remain_quota,
                    after.remain_quota
                ),
                &spec,
                Some(&ex),
            ));
        }
    }
    if cases == 0 {
        return Err(Halt::not_observed(format!(
            "no request was refused: {}",
            notes.join("; ")
        )));
    }
    Ok(Pass {
        cases,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
    })
}
