//! Key admission on the model routes: status, expiry, IP allowlist and model limits, and the
//! stateful property that holds a key's record and admission to the shared model.

use super::auth::{probe_model, probe_spec, refused};
use super::property::for_all;
use super::Kind::{Deviation, Failure};
use super::{pass1, Check, CheckCtx, Halt, Needs, Outcome, Pass, Phase};
use crate::generators::strategies::{allowlist, foreign_ip_entry};
use crate::http::client::{Auth, Exchange, RequestSpec};
use crate::http::key_api::{field_differences, get_key, put_record_traced};
use crate::vocab::discovery::RouteFamily;
use gatecheck_schemas::decisions::id;
use gatecheck_schemas::rules::ip;
use gatecheck_schemas::rules::key::{model_allowed, model_allowed_in};
use gatecheck_schemas::rules::Rejection;
use gatecheck_schemas::types::KeyRecord;
use gatecheck_schemas::Profile;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serde_json::Value;

pub(crate) mod routes;
mod state;

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "key.disabled-rejected",
        kind: Failure,
        route: "/v1/*",
        spec: "spec: States (API key status), rule 1; Authentication, rule 2",
        title: "A disabled key (status 2) is refused by the model routes.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(status_refused(c, 2)),
    },
    Check {
        id: "key.expired-status-rejected",
        kind: Failure,
        route: "/v1/*",
        spec: "spec: States (API key status), rule 1",
        title: "An expired key (status 3) is refused by the model routes.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(status_refused(c, 3)),
    },
    Check {
        id: "key.exhausted-status-rejected",
        kind: Failure,
        route: "/v1/*",
        spec: "spec: States (API key status), rule 1",
        title: "A quota-exhausted key (status 4) is refused by the model routes.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(status_refused(c, 4)),
    },
    Check {
        id: "key.expired-time-past-rejected",
        kind: Failure,
        route: "/v1/*",
        spec: "spec: States (API key status), rule 2",
        title: "An enabled key whose `expired_time` is past is refused.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(expired_time_past(c)),
    },
    Check {
        id: "key.zero-quota-rejected",
        kind: Failure,
        route: "/v1/*",
        spec: "spec: States (API key status), rule 3",
        title: "An enabled key with `remain_quota` 0 and `unlimited_quota` false is refused.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(zero_quota(c)),
    },
    Check {
        id: "key.unlimited-quota-bypass",
        kind: Failure,
        route: "/v1/*",
        spec: "spec: API key record (unlimited_quota)",
        title: "A key with `unlimited_quota` true is admitted with `remain_quota` 0.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(unlimited(c)),
    },
    Check {
        id: "key.refusal-status-401",
        kind: Deviation,
        route: "/v1/*",
        spec: "DECISIONS: Identity and auth",
        title: "A disabled, expired or exhausted key is answered 401 with the `/v1` error body.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: Some(id::D_AUTH),
        run: |c| Box::pin(refusal_401(c)),
    },
    Check {
        id: "key.ip-allowlist",
        kind: Failure,
        route: "/v1/*",
        spec: "spec: PUT /api/token/ (allow_ips); Authentication, rule 2",
        title: "With `allow_ips` set (IPv4, IPv6, CIDR entries), a model request is admitted exactly when the client IP is in the list.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(ip_allowlist(c)),
    },
    Check {
        id: "key.ip-refusal-403",
        kind: Deviation,
        route: "/v1/*",
        spec: "DECISIONS: Identity and auth",
        title: "A client outside `allow_ips` is answered 403 with code `access_denied`.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: Some(id::D_AUTH),
        run: |c| Box::pin(ip_403(c)),
    },
    Check {
        id: "key.model-limits",
        kind: Failure,
        route: "/v1/*",
        spec: "spec: API key record (model_limits, model_limits_enabled); Authentication, rule 2",
        title: "With model limits enabled, only the listed models are admitted; disabled limits are ignored.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(model_limits(c)),
    },
    Check {
        id: "key.model-refusal-403",
        kind: Deviation,
        route: "/v1/*",
        spec: "DECISIONS: Identity and auth",
        title: "A model outside `model_limits` is answered 403.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: Some(id::D_AUTH),
        run: |c| Box::pin(model_403(c)),
    },
    Check {
        id: "key.state.matches-model",
        kind: Failure,
        route: "PUT /api/token/ + /v1/*",
        spec: "spec: PUT /api/token/; States (API key status); Authentication, rule 2",
        title: "Over generated update sequences, every record matches the shared key model, and model-route admission matches its prediction (status, expiry, quota, IP, model limits).",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(state::state_machine(c)),
    },
    Check {
        id: "key.use-marks-status",
        kind: Deviation,
        route: "/v1/* + GET /api/token/{id}",
        spec: "DECISIONS: Identity and auth (the key's status becomes 3 or 4 on use)",
        title: "Using a key past its expiry sets its status to 3; with no quota left, to 4.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::VideoCreate, RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: Some(id::D_AUTH),
        run: |c| Box::pin(use_marks(c)),
    },
];

/// Puts the working key in the state `rec` and checks that the fields took.
///
/// An update the target refuses is a skip (the `token.update.*` checks judge it). An update it
/// acknowledges (`success: true`) but does not apply breaks the rule the spec pins ("the
/// update replaces the given editable fields"): a failure, with the update and the record
/// read back as evidence.
pub(crate) async fn set_key(ctx: &CheckCtx, rec: &KeyRecord) -> Result<KeyRecord, Halt> {
    let trace = put_record_traced(&ctx.t, rec).await?;
    let Some((spec, ex)) = trace.exchanges.last() else {
        return Err(Halt::not_observed("the working key could not be updated"));
    };
    if !trace.acknowledged {
        return Err(Halt::not_observed(format!(
            "the target refused to put the working key in the state this check needs \
             ({} {}; see the token.update.* checks)",
            ex.status.as_u16(),
            spec.path
        )));
    }
    let stored = match get_key(&ctx.t, rec.id).await? {
        Some(read) => Some((read, true)),
        None => trace.record.clone().map(|r| (r, false)),
    };
    let Some((got, read_back)) = stored else {
        return Err(Halt::not_observed(
            "the target acknowledged the update but returned no key record to confirm it",
        ));
    };
    let unapplied = unapplied_fields(rec, &got);
    if unapplied.is_empty() {
        return Ok(got);
    }
    let message = format!(
        "the target acknowledged the key update (success: true) but did not apply it: {}",
        unapplied.join(", ")
    );
    let mut ev = ctx.evidence(message, spec, Some(ex));
    for (s, e) in &trace.exchanges[..trace.exchanges.len() - 1] {
        ev.related
            .push(ctx.related("an earlier acknowledged update", s, e));
    }
    if read_back {
        let get = RequestSpec::get(format!("/api/token/{}", rec.id)).auth(Auth::AccessToken);
        ev.message
            .push_str(&format!(" (read back with {} {})", get.method, get.path));
    }
    Err(Halt::Finding(Box::new(ev)))
}

/// The fields of `want` that `got` does not hold, as `name: sent X, stored Y`.
fn unapplied_fields(want: &KeyRecord, got: &KeyRecord) -> Vec<String> {
    let mut out = Vec::new();
    if want.status != got.status {
        out.push(format!(
            "status: sent {}, stored {}",
            want.status, got.status
        ));
    }
    out.extend(field_differences(want, got));
    out
}

/// Sends the admission probe with the working key; returns the request and its answer.
pub(crate) async fn probe(ctx: &CheckCtx, model: &str) -> Result<(RequestSpec, Exchange), Halt> {
    let key = ctx.work_key()?;
    let spec = probe_spec(model, Auth::Key(key.secret.clone()));
    let ex = ctx.t.send_probe(&spec).await?;
    Ok((spec, ex))
}

/// Whether the probe's answer refused the key (401 or 403) or admitted it (anything past the
/// key checks: the empty prompt's 400, a 2xx). A 5xx says neither: a `not-observed` skip that
/// carries the exchange, never a verdict on the key.
fn judge(ctx: &CheckCtx, what: &str, spec: &RequestSpec, ex: &Exchange) -> Result<bool, Halt> {
    if ex.status.is_server_error() {
        return Err(ctx.not_observed(
            format!(
                "{what}: the model route answered {}, neither a refusal nor an admission",
                ex.status
            ),
            spec,
            Some(ex),
        ));
    }
    Ok(refused(ex.status.as_u16()))
}

async fn refused_with(
    ctx: &CheckCtx,
    rec: KeyRecord,
    what: &str,
) -> Result<(RequestSpec, Exchange), Halt> {
    set_key(ctx, &rec).await?;
    let (spec, ex) = probe(ctx, &probe_model(ctx)).await?;
    if !judge(ctx, what, &spec, &ex)? {
        return Err(ctx.fail(
            format!(
                "{what}: the model route did not refuse the key ({})",
                ex.status
            ),
            &spec,
            Some(&ex),
        ));
    }
    Ok((spec, ex))
}

pub(super) fn baseline(ctx: &CheckCtx) -> Result<KeyRecord, Halt> {
    Ok(ctx.work_key()?.baseline.clone())
}

async fn status_refused(ctx: &CheckCtx, status: i64) -> Outcome {
    let mut rec = baseline(ctx)?;
    rec.status = status;
    refused_with(ctx, rec, &format!("status {status}")).await?;
    pass1()
}

async fn expired_time_past(ctx: &CheckCtx) -> Outcome {
    let mut rec = baseline(ctx)?;
    rec.expired_time = ctx.now().await? - 3600;
    refused_with(ctx, rec, "expired_time an hour ago").await?;
    pass1()
}

async fn zero_quota(ctx: &CheckCtx) -> Outcome {
    let mut rec = baseline(ctx)?;
    rec.remain_quota = 0;
    rec.unlimited_quota = false;
    refused_with(ctx, rec, "remain_quota 0").await?;
    pass1()
}

async fn unlimited(ctx: &CheckCtx) -> Outcome {
    let mut rec = baseline(ctx)?;
    rec.remain_quota = 0;
    rec.unlimited_quota = true;
    set_key(ctx, &rec).await?;
    let (spec, ex) = probe(ctx, &probe_model(ctx)).await?;
    if judge(ctx, "an unlimited key with remain_quota 0", &spec, &ex)? {
        return Err(ctx.fail(
            "an unlimited key with remain_quota 0 was refused",
            &spec,
            Some(&ex),
        ));
    }
    pass1()
}

async fn refusal_401(ctx: &CheckCtx) -> Outcome {
    let now = ctx.now().await?;
    let base = baseline(ctx)?;
    let mut states = Vec::new();
    for status in [2, 3, 4] {
        states.push(KeyRecord {
            status,
            ..base.clone()
        });
    }
    states.push(KeyRecord {
        expired_time: now - 3600,
        ..base.clone()
    });
    states.push(KeyRecord {
        remain_quota: 0,
        unlimited_quota: false,
        ..base.clone()
    });
    let n = states.len() as u32;
    for rec in states {
        let (spec, ex) = refused_with(ctx, rec, "refusal").await?;
        if !ctx.rejected_as(Rejection::KeyDisabled, ex.status.as_u16()) {
            return Err(ctx.fail(
                format!(
                    "a refused key was answered {}, not {}",
                    ex.status,
                    Rejection::KeyDisabled.http_status(ctx.cfg.judging.expect)
                ),
                &spec,
                Some(&ex),
            ));
        }
        if let Err(e) = gatecheck_schemas::validate("v1-error", &ex.json().unwrap_or(Value::Null)) {
            return Err(ctx.fail(
                format!("the refusal body is not a /v1 error: {e}"),
                &spec,
                Some(&ex),
            ));
        }
        set_key(ctx, &base).await?;
    }
    Ok(Pass {
        cases: n,
        note: None,
    })
}

async fn ip_allowlist(ctx: &CheckCtx) -> Outcome {
    let base = baseline(ctx)?;
    let client = ctx.env.client_ip;
    let model = probe_model(ctx);
    for_all(
        ctx,
        ctx.cfg.scope.cases,
        allowlist(client),
        |(list, admits)| {
            let rec = KeyRecord {
                allow_ips: Some(list.clone()),
                ..base.clone()
            };
            let model = model.clone();
            async move {
                set_key(ctx, &rec).await?;
                let (spec, ex) = probe(ctx, &model).await?;
                let expected = match client {
                    Some(ip_addr) => ip::allows(Some(&list), ip_addr),
                    None => admits,
                };
                let was_refused = judge(ctx, &format!("allow_ips {list:?}"), &spec, &ex)?;
                if was_refused == expected {
                    return Err(ctx.fail(
                        format!(
                            "allow_ips {list:?}: expected the client to be {}, but it was {}",
                            if expected { "admitted" } else { "refused" },
                            if was_refused { "refused" } else { "admitted" }
                        ),
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

async fn ip_403(ctx: &CheckCtx) -> Outcome {
    let base = baseline(ctx)?;
    let mut runner = crate::generators::test_runner(ctx.seed, 1);
    let entry = foreign_ip_entry()
        .new_tree(&mut runner)
        .map(|t| t.current())
        .unwrap_or_else(|_| "203.0.113.7".into());
    let rec = KeyRecord {
        allow_ips: Some(entry),
        ..base
    };
    let (spec, ex) = refused_with(ctx, rec, "a foreign allowlist").await?;
    let code = ex.error_code();
    if !ctx.rejected_as(Rejection::IpNotAllowed, ex.status.as_u16())
        || code.as_deref() != Rejection::IpNotAllowed.code(ctx.cfg.judging.expect)
    {
        return Err(ctx.fail(
            format!(
                "expected {} with code {}, got {} with code {}",
                Rejection::IpNotAllowed.http_status(ctx.cfg.judging.expect),
                super::or_none(Rejection::IpNotAllowed.code(ctx.cfg.judging.expect)),
                super::status_text(ex.status.as_u16()),
                super::or_none(code.as_deref())
            ),
            &spec,
            Some(&ex),
        ));
    }
    pass1()
}

fn catalog_ids(ctx: &CheckCtx) -> Vec<String> {
    ctx.env.models.iter().map(|m| m.id.clone()).collect()
}

async fn model_limits(ctx: &CheckCtx) -> Outcome {
    let base = baseline(ctx)?;
    let ids = catalog_ids(ctx);
    if ids.is_empty() {
        return Err(Halt::no_model("no model known: give --model KIND=ID"));
    }
    let model = probe_model(ctx);
    // An enabled but empty list is generated too: the spec reads "empty string means no
    // restriction" (real new-api refuses every model there, and is flagged for it).
    let strat = limits_cases(ids.clone());
    let case = |(enabled, list): (bool, Vec<String>)| {
        let rec = KeyRecord {
            model_limits_enabled: enabled,
            model_limits: list.join(","),
            ..base.clone()
        };
        let model = model.clone();
        async move {
            set_key(ctx, &rec).await?;
            let (spec, ex) = probe(ctx, &model).await?;
            let expected = model_allowed(&rec, &model);
            let was_refused = judge(
                ctx,
                &format!("model_limits {:?}", rec.model_limits),
                &spec,
                &ex,
            )?;
            if was_refused == expected {
                let message = format!(
                    "model_limits_enabled={enabled} model_limits={:?}: {model} should be {}",
                    rec.model_limits,
                    if expected { "admitted" } else { "refused" }
                );
                if was_refused && !model_allowed_in(&rec, &model, Profile::NewApi) {
                    return ctx.known_difference(id::NA1, message, &spec, Some(&ex));
                }
                return Err(ctx.fail(message, &spec, Some(&ex)));
            }
            Ok(())
        }
    };
    // Each class first, whatever the draw (`limits_forced`); the drawn cases come on top.
    let forced = limits_forced(&model, &ids);
    let n = forced.len() as u32;
    for c in forced {
        case(c).await?;
    }
    let mut pass = for_all(ctx, ctx.cfg.scope.cases, strat, case).await?;
    pass.cases += n;
    Ok(pass)
}

/// The model-limits cases sent on every run, whatever the seed: the boundary (limits enabled
/// with an empty list, which the spec reads as no restriction; NA1: new-api refuses every
/// model there), the probe's model listed, only another model listed, and limits disabled
/// with a list that leaves the model out.
pub(crate) fn limits_forced(model: &str, ids: &[String]) -> Vec<(bool, Vec<String>)> {
    let other = ids
        .iter()
        .find(|m| *m != model)
        .cloned()
        .unwrap_or_else(|| "gatecheck-none".into());
    vec![
        (true, Vec::new()),
        (true, vec![model.to_owned()]),
        (true, vec![other.clone()]),
        (false, vec![other]),
    ]
}

/// The class of a model-limits case for the probe's `model` (what `key.model-limits` claims
/// to send on every run).
#[cfg_attr(not(test), allow(dead_code))] // read by `classes.rs`'s test
pub(crate) fn limits_class(case: &(bool, Vec<String>), model: &str) -> Vec<String> {
    let class = match case {
        (false, _) => "limits disabled",
        (true, list) if list.is_empty() => "limits enabled, empty",
        (true, list) if list.iter().any(|m| m == model) => "limits enabled, model listed",
        (true, _) => "limits enabled, model not listed",
    };
    vec![class.to_owned()]
}

/// The drawn model-limits cases: the catalog's ids, limits on or off.
pub(crate) fn limits_cases(ids: Vec<String>) -> impl Strategy<Value = (bool, Vec<String>)> {
    let n = ids.len().min(4);
    (any::<bool>(), proptest::sample::subsequence(ids, 0..=n))
}

async fn model_403(ctx: &CheckCtx) -> Outcome {
    let base = baseline(ctx)?;
    let model = probe_model(ctx);
    let other = catalog_ids(ctx)
        .into_iter()
        .find(|m| *m != model)
        .unwrap_or_else(|| "gatecheck-none".into());
    let rec = KeyRecord {
        model_limits_enabled: true,
        model_limits: other,
        ..base
    };
    let (spec, ex) = refused_with(ctx, rec, "a model outside model_limits").await?;
    if !ctx.rejected_as(Rejection::ModelNotAllowed, ex.status.as_u16()) {
        return Err(ctx.fail(
            format!(
                "expected {}, got {}",
                Rejection::ModelNotAllowed.http_status(ctx.cfg.judging.expect),
                ex.status
            ),
            &spec,
            Some(&ex),
        ));
    }
    pass1()
}

async fn use_marks(ctx: &CheckCtx) -> Outcome {
    let base = baseline(ctx)?;
    let now = ctx.now().await?;
    let cases = [
        (
            KeyRecord {
                expired_time: now - 3600,
                ..base.clone()
            },
            3,
        ),
        (
            KeyRecord {
                remain_quota: 0,
                unlimited_quota: false,
                ..base.clone()
            },
            4,
        ),
    ];
    for (rec, expected) in cases {
        let (spec, _) = refused_with(ctx, rec, "marking").await?;
        let got = get_key(&ctx.t, base.id)
            .await?
            .ok_or_else(|| Halt::not_observed("GET /api/token/{id} did not return the key"))?;
        if got.status != expected {
            return Err(ctx.fail(
                format!(
                    "after use the key's status is {}, expected {expected}",
                    got.status
                ),
                &spec,
                None,
            ));
        }
        set_key(ctx, &base).await?;
    }
    Ok(Pass {
        cases: 2,
        note: None,
    })
}
