//! `key.state.matches-model`: a drawn sequence of key updates, each read back and compared with
//! `rules::token::apply_update`'s prediction, and the key's admission on a model route compared
//! with `rules::key::admit` after every step.

use super::{baseline, catalog_ids, judge, probe, set_key};
use crate::checks::auth::probe_model;
use crate::checks::property::for_all;
use crate::checks::{CheckCtx, Halt, Outcome, Pass};
use crate::generators::strategies::{allowlist, ascii_name};
use crate::http::client::{Auth, Exchange, RequestSpec};
use gatecheck_schemas::decisions::{id, Id};
use gatecheck_schemas::rules::ip;
use gatecheck_schemas::rules::key::{admit, model_allowed_in};
use gatecheck_schemas::rules::token::{apply_update, UpdateContext, UpdateFailure};
use gatecheck_schemas::types::{KeyRecord, TokenUpdateRequest};
use gatecheck_schemas::Profile;
use proptest::prelude::*;
use serde_json::Value;

/// Expiry relative to the target's now, resolved when the step runs.
#[derive(Debug, Clone, Copy)]
enum Expiry {
    Never,
    PastHours(u16),
    FutureHours(u16),
    /// Out of contract (below -1): the model predicts a refusal.
    Invalid(i64),
}

#[derive(Debug, Clone)]
enum Step {
    /// A full or partial update without `status` (omitted fields reset).
    Update {
        name: Option<String>,
        expiry: Option<Expiry>,
        remain_quota: Option<i64>,
        unlimited_quota: Option<bool>,
        limits: Option<(bool, Vec<String>)>,
        allow_ips: Option<(String, bool)>,
        group: Option<String>,
    },
    /// `?status_only=1`.
    SetStatus(i64),
}

fn step(
    ids: Vec<String>,
    groups: Vec<String>,
    client: Option<std::net::IpAddr>,
) -> impl Strategy<Value = Step> {
    let expiry = prop_oneof![
        Just(Expiry::Never),
        (1u16..=72).prop_map(Expiry::PastHours),
        (1u16..=72).prop_map(Expiry::FutureHours),
        (2i64..=1_000_000).prop_map(|n| Expiry::Invalid(-n)),
    ];
    let quota = prop_oneof![Just(0i64), 1i64..1_000, Just(50_000_000i64), -5i64..0];
    let limits = (
        any::<bool>(),
        proptest::sample::subsequence(ids.clone(), 0..=ids.len().min(3)),
    );
    let mut group_choices = vec![String::new()];
    group_choices.extend(groups);
    let update = (
        prop::option::weighted(0.9, ascii_name()),
        prop::option::weighted(0.85, expiry),
        prop::option::weighted(0.85, quota),
        prop::option::weighted(0.8, any::<bool>()),
        prop::option::weighted(0.5, limits),
        prop::option::weighted(0.4, allowlist(client)),
        prop::option::weighted(0.5, prop::sample::select(group_choices)),
    )
        .prop_map(
            |(name, expiry, remain_quota, unlimited_quota, limits, allow_ips, group)| {
                Step::Update {
                    name,
                    expiry,
                    remain_quota,
                    unlimited_quota,
                    limits,
                    allow_ips,
                    group,
                }
            },
        );
    // Out-of-contract statuses too: the model predicts a refusal (`status` is 1, 2, 3 or 4).
    let status = prop_oneof![
        6 => 1i64..=4,
        1 => prop_oneof![Just(0i64), 5i64..=20, -20i64..=-1],
    ];
    prop_oneof![3 => update, 1 => status.prop_map(Step::SetStatus)]
}

fn normalize(mut k: KeyRecord) -> KeyRecord {
    if k.allow_ips.as_deref() == Some("") {
        k.allow_ips = None;
    }
    k.key = String::new();
    k.accessed_time = 0;
    k.used_quota = 0;
    k.created_time = 0;
    k.user_id = 0;
    k
}

pub(super) async fn state_machine(ctx: &CheckCtx) -> Outcome {
    let base = baseline(ctx)?;
    let ids = catalog_ids(ctx);
    if ids.is_empty() {
        return Err(Halt::no_model("no model known: give --model KIND=ID"));
    }
    let groups = if ctx.env.mock.is_some() {
        ctx.env.groups.clone()
    } else {
        Vec::new()
    };
    let client = ctx.env.client_ip;
    let model = probe_model(ctx);
    let strat = proptest::collection::vec(step(ids, groups.clone(), client), 1..6);
    let followed = Followed::default();
    let followed = &followed;
    let pass = for_all(ctx, ctx.cfg.scope.cases, strat, |steps| {
        let base = base.clone();
        let groups = groups.clone();
        let model = model.clone();
        async move {
            let mut model_rec = set_key(ctx, &base).await?;
            for (i, s) in steps.iter().enumerate() {
                let now = ctx.now().await?;
                let (req, status_only) = update_request(s, base.id, now);
                let uctx = UpdateContext {
                    profile: ctx.cfg.judging.expect,
                    now,
                    account_groups: &groups,
                    status_only,
                };
                model_rec = check_update(ctx, i, model_rec, &req, &uctx, followed).await?;
                model_rec = check_admission(ctx, i, model_rec, &model, now, followed).await?;
            }
            Ok(())
        }
    })
    .await?;
    Ok(followed_note(pass, followed))
}

/// The DECISIONS rows where the target did as new-api does (under `--expect documented`)
/// during the sequences. The sequences follow such a step with new-api's prediction instead of
/// ending there: which known difference a seed's draws meet first must not decide the verdict
/// (a failure for NA1, a deviation for NA11). Each row has its own check, which judges it the
/// same way on every seed.
type Followed = std::sync::Mutex<std::collections::BTreeSet<Id>>;

/// The checks that judge each row the state machine follows.
const FOLLOWED_ROWS: [(Id, &str); 3] = [
    (id::NA1, "key.model-limits"),
    (
        id::NA11,
        "token.update.expired-time-range, token.update.status-enum",
    ),
    (id::NA12, "token.update.group-no-access"),
];

/// Notes that a step showed new-api's behaviour of `row`.
fn follow(followed: &Followed, row: Id) {
    followed
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .insert(row);
}

/// The pass, with a note naming the rows followed and the checks that judge them.
fn followed_note(mut pass: Pass, followed: &Followed) -> Pass {
    let rows = followed
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    if rows.is_empty() {
        return pass;
    }
    let named: Vec<String> = FOLLOWED_ROWS
        .iter()
        .filter(|(row, _)| rows.contains(row))
        .map(|(row, checks)| format!("DECISIONS {row} (judged by {checks})"))
        .collect();
    pass.note = Some(format!(
        "the target showed new-api's behaviour where --expect documented differs; the \
         sequences followed it: {}",
        named.join("; ")
    ));
    pass
}

/// The update a step sends, and whether it is a `status_only` update.
fn update_request(s: &Step, id: i64, now: i64) -> (TokenUpdateRequest, bool) {
    match s {
        Step::Update {
            name,
            expiry,
            remain_quota,
            unlimited_quota,
            limits,
            allow_ips,
            group,
        } => (
            TokenUpdateRequest {
                id,
                name: name.clone(),
                status: None,
                expired_time: expiry.map(|e| match e {
                    Expiry::Never => -1,
                    Expiry::PastHours(h) => now - i64::from(h) * 3600,
                    Expiry::FutureHours(h) => now + i64::from(h) * 3600,
                    Expiry::Invalid(t) => t,
                }),
                remain_quota: *remain_quota,
                unlimited_quota: *unlimited_quota,
                model_limits_enabled: limits.as_ref().map(|l| l.0),
                model_limits: limits.as_ref().map(|l| l.1.join(",")),
                allow_ips: allow_ips.as_ref().map(|a| Some(a.0.clone())),
                group: group.clone(),
                cross_group_retry: None,
            },
            false,
        ),
        Step::SetStatus(st) => (
            TokenUpdateRequest {
                id,
                status: Some(*st),
                ..Default::default()
            },
            true,
        ),
    }
}

/// Sends step `i`'s update and holds the answer to the model's prediction; returns the record
/// the model holds after it.
async fn check_update(
    ctx: &CheckCtx,
    i: usize,
    model_rec: KeyRecord,
    req: &TokenUpdateRequest,
    uctx: &UpdateContext<'_>,
    followed: &Followed,
) -> Result<KeyRecord, Halt> {
    let predicted = apply_update(&model_rec, req, uctx);
    let path = if uctx.status_only {
        "/api/token/?status_only=1"
    } else {
        "/api/token/"
    };
    let body = serde_json::to_value(req).unwrap_or(Value::Null);
    let spec = RequestSpec::put(path).auth(Auth::AccessToken).json(body);
    let ex = ctx.send(&spec, 0).await?;
    let v = ex.json().unwrap_or(Value::Null);
    let success = v.get("success").and_then(Value::as_bool);
    match predicted {
        Ok(next) => stored_as_predicted(ctx, i, &model_rec, next, (&spec, &ex), &v),
        Err(f) => {
            let new_api = UpdateContext {
                profile: Profile::NewApi,
                ..*uctx
            };
            if success != Some(false)
                && let Ok(next) = apply_update(&model_rec, req, &new_api)
            {
                // new-api stores it (NA11: no range checks; NA12: no group check): followed,
                // and judged by the row's own checks.
                follow(
                    followed,
                    if matches!(f, UpdateFailure::NoAccessToGroup(_)) {
                        id::NA12
                    } else {
                        id::NA11
                    },
                );
                return stored_as_predicted(ctx, i, &model_rec, next, (&spec, &ex), &v);
            }
            if success != Some(false) {
                return Err(ctx.fail(
                    format!(
                        "step {}: the model predicts a refusal ({}); the target did not refuse",
                        i + 1,
                        f.message()
                    ),
                    &spec,
                    Some(&ex),
                ));
            }
            Ok(model_rec)
        }
    }
}

/// Holds the update's answer to the record `next` the model predicts; returns the record the
/// model holds after it.
fn stored_as_predicted(
    ctx: &CheckCtx,
    i: usize,
    model_rec: &KeyRecord,
    next: KeyRecord,
    (spec, ex): (&RequestSpec, &Exchange),
    v: &Value,
) -> Result<KeyRecord, Halt> {
    let got: Option<KeyRecord> = v
        .get("data")
        .cloned()
        .and_then(|d| serde_json::from_value(d).ok());
    let success = v.get("success").and_then(Value::as_bool);
    let Some(got) = got.filter(|_| success == Some(true)) else {
        return Err(ctx.fail(
            format!(
                "step {}: the model predicts success; the target refused",
                i + 1
            ),
            spec,
            Some(ex),
        ));
    };
    if normalize(got.clone()) != normalize(next.clone()) {
        return Err(ctx.fail(
            format!(
                "step {}: the record differs from the model: expected {}, got {}",
                i + 1,
                ctx.redactor
                    .json(&serde_json::to_value(normalize(next)).unwrap_or_default()),
                ctx.redactor
                    .json(&serde_json::to_value(normalize(got)).unwrap_or_default())
            ),
            spec,
            Some(ex),
        ));
    }
    Ok(KeyRecord {
        key: model_rec.key.clone(),
        ..next
    })
}

/// Probes admission after step `i` and holds it to the model's prediction; returns the record
/// with the status a refusal sets (expired, exhausted).
async fn check_admission(
    ctx: &CheckCtx,
    i: usize,
    mut model_rec: KeyRecord,
    model: &str,
    now: i64,
    followed: &Followed,
) -> Result<KeyRecord, Halt> {
    let client = ctx.env.client_ip;
    let (pspec, pex) = probe(ctx, model).await?;
    let admitted = admit(&model_rec, now);
    let expected_ok = admitted.is_ok()
        && client.is_none_or(|ip_addr| ip::allows(model_rec.allow_ips.as_deref(), ip_addr))
        && model_allowed_in(&model_rec, model, ctx.cfg.judging.expect);
    let skip_ip_unknown = client.is_none() && ip::is_restricted(model_rec.allow_ips.as_deref());
    let was_refused = judge(ctx, &format!("step {}", i + 1), &pspec, &pex)?;
    let na1 = model_rec.model_limits_enabled
        && model_allowed_in(&model_rec, model, Profile::Documented)
        && !model_allowed_in(&model_rec, model, Profile::NewApi);
    if !skip_ip_unknown && was_refused == expected_ok && na1 && was_refused {
        // new-api refuses every model under an enabled, empty model_limits: followed, and
        // judged by key.model-limits.
        follow(followed, id::NA1);
        return Ok(model_rec);
    }
    if !skip_ip_unknown && was_refused == expected_ok {
        return Err(ctx.fail(
            format!(
                "step {}: the model predicts the key is {}; the target {} it",
                i + 1,
                if expected_ok { "admitted" } else { "refused" },
                if was_refused { "refused" } else { "admitted" }
            ),
            &pspec,
            Some(&pex),
        ));
    }
    if let Err(rej) = admitted
        && let Some(st) = rej.status_effect(&model_rec)
    {
        model_rec.status = st;
    }
    Ok(model_rec)
}
