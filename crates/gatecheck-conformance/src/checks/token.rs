//! `PUT /api/token/`: the envelope, names, given and omitted fields, status, and failures.

use super::key::set_key;
use super::property::for_all;
use super::Kind::{Deviation, Failure};
use super::{pass1, Check, CheckCtx, Halt, Needs, Outcome, Pass, Phase};
use crate::generators::strategies::{allowlist, ascii_name, long_name, valid_name};
use crate::http::client::{Auth, Exchange, RequestSpec};
use crate::http::key_api::{field_differences, full_update_body};
use crate::http::mock_control::wall_now;
use crate::vocab::discovery::RouteFamily;
use gatecheck_schemas::decisions::id;
use gatecheck_schemas::rules::token::{
    apply_update, is_valid_status, name_too_long, UpdateContext, UpdateFailure, IMPOSSIBLE_KEY_ID,
    MSG_NAME_TOO_LONG, MSG_NO_ACCESS_TO_GROUP,
};
use gatecheck_schemas::types::{
    KeyRecord, TokenUpdateRequest, KEY_STATUS_DISABLED, KEY_STATUS_ENABLED, KEY_STATUS_EXPIRED,
};
use gatecheck_schemas::Profile;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serde_json::{json, Value};

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "token.update.envelope",
        kind: Failure,
        route: "PUT /api/token/",
        spec: "spec: PUT /api/token/ (Response)",
        title: "A successful update answers `{success:true, message:\"\", data:<key record>}` as JSON, valid against the schemas.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(envelope(c)),
    },
    Check {
        id: "token.update.name-50-chars",
        kind: Failure,
        route: "PUT /api/token/",
        spec: "spec: API key record (name); Limits (50 Unicode characters)",
        title: "Names of up to 50 Unicode characters (multi-byte letters and emoji included) are accepted and stored exactly.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(name_ok(c)),
    },
    Check {
        id: "token.update.name-51-chars-rejected",
        kind: Failure,
        route: "PUT /api/token/",
        spec: "spec: Key update failures (token name is too long)",
        title: "A name of 51 or more characters is refused with `success:false` and `token name is too long`.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(name_long(c)),
    },
    Check {
        id: "token.update.given-fields-applied",
        kind: Failure,
        route: "PUT /api/token/",
        spec: "spec: PUT /api/token/ (the update replaces the given editable fields)",
        title: "Every editable field given in the body is stored as given.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(given_fields(c)),
    },
    Check {
        id: "token.update.allow-ips-forms",
        kind: Failure,
        route: "PUT /api/token/",
        spec: "spec: PUT /api/token/ (allow_ips: IPv4, IPv6, IPv4 CIDR, IPv6 CIDR; null or empty)",
        title: "`allow_ips` lists of IPv4, IPv6 and CIDR entries, null and the empty string are accepted and stored.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(allow_ips(c)),
    },
    Check {
        id: "token.update.expired-time-forms",
        kind: Failure,
        route: "PUT /api/token/",
        spec: "spec: Limits (expired_time: -1 or a Unix timestamp)",
        title: "`expired_time` -1 and Unix timestamps are accepted and stored.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(expired_time(c)),
    },
    Check {
        id: "token.update.expired-time-range",
        kind: Failure,
        route: "PUT /api/token/",
        spec: "spec: PUT /api/token/ (expired_time: Unix seconds; -1 for no expiry); Limits (expired_time)",
        title: "An `expired_time` below -1 is refused with `success:false` and never stored.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(expired_time_range(c)),
    },
    Check {
        id: "token.update.status-enum",
        kind: Failure,
        route: "PUT /api/token/",
        spec: "spec: PUT /api/token/ (status: one of 1, 2, 3, 4)",
        title: "A `status` other than 1, 2, 3 or 4 is refused with `success:false` (with and without `status_only`) and never stored.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(status_enum(c)),
    },
    Check {
        id: "token.update.omitted-fields-reset",
        kind: Deviation,
        route: "PUT /api/token/",
        spec: "DECISIONS: PUT /api/token/ (omitted fields reset to zero values)",
        title: "Fields omitted from the body are reset to their zero values.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: Some(id::D_TOKEN),
        run: |c| Box::pin(omitted_reset(c)),
    },
    Check {
        id: "token.update.status-applied",
        kind: Failure,
        route: "PUT /api/token/",
        spec: "spec: PUT /api/token/ (status is an editable field)",
        title: "`status` in the body (without `status_only`) is applied.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(status_applied(c)),
    },
    Check {
        id: "token.update.status-only",
        kind: Deviation,
        route: "PUT /api/token/?status_only=1",
        spec: "DECISIONS: PUT /api/token/ (status_only)",
        title: "`?status_only=1` changes the status and nothing else.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: Some(id::D_TOKEN),
        run: |c| Box::pin(status_only(c)),
    },
    Check {
        id: "token.update.negative-quota-rejected",
        kind: Deviation,
        route: "PUT /api/token/",
        spec: "DECISIONS: PUT /api/token/ (check 2)",
        title: "A negative `remain_quota` on a limited key is refused with `Quota value cannot be negative`.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: Some(id::D_TOKEN),
        run: |c| Box::pin(negative_quota(c)),
    },
    Check {
        id: "token.update.unknown-id-rejected",
        kind: Deviation,
        route: "PUT /api/token/",
        spec: "DECISIONS: PUT /api/token/ (check 3)",
        title: "An unknown key id is refused with `success:false` (`record not found`).",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: Some(id::D_TOKEN),
        run: |c| Box::pin(unknown_id(c)),
    },
    Check {
        id: "token.update.bad-body-rejected",
        kind: Failure,
        route: "PUT /api/token/",
        spec: "spec: PUT /api/token/ (id required; field types)",
        title: "A body without a valid `id`, with a field of the wrong type, or not JSON at all never succeeds.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(bad_body(c)),
    },
    Check {
        id: "token.update.group-no-access",
        kind: Failure,
        route: "PUT /api/token/",
        spec: "spec: Key update failures (no access to group)",
        title: "A group the account may not use is refused with a message containing `no access to group`.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(group_no_access(c)),
    },
    Check {
        id: "token.update.group-allowed",
        kind: Failure,
        route: "PUT /api/token/",
        spec: "spec: PUT /api/token/ (group: empty for none; a non-empty value must be available to the account)",
        title: "The empty group and every group available to the account are accepted and stored.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(group_allowed(c)),
    },
    Check {
        id: "token.update.enable-expired-rejected",
        kind: Deviation,
        route: "PUT /api/token/",
        spec: "DECISIONS: PUT /api/token/ (check 5)",
        title: "Enabling a key stored as expired with a past expiry is refused.",
        phase: Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: Some(id::D_TOKEN),
        run: |c| Box::pin(enable_expired(c)),
    },
];

/// Sends `PUT /api/token/` (with `query`) and returns the request, answer and JSON body.
async fn put(
    ctx: &CheckCtx,
    query: &str,
    body: Value,
) -> Result<(RequestSpec, Exchange, Value), Halt> {
    let spec = RequestSpec::put(format!("/api/token/{query}"))
        .auth(Auth::AccessToken)
        .json(body);
    let ex = ctx.send(&spec, 0).await?;
    let v = ex.json().unwrap_or(Value::Null);
    Ok((spec, ex, v))
}

/// A logical failure is JSON `{success:false, message}` (schema api-failure).
fn failure_shape(ctx: &CheckCtx, spec: &RequestSpec, ex: &Exchange, v: &Value) -> Result<(), Halt> {
    if ex.content_type().as_deref() != Some("application/json") {
        return Err(ctx.fail(
            "the failure envelope is not application/json",
            spec,
            Some(ex),
        ));
    }
    if let Err(e) = gatecheck_schemas::validate("api-failure", v) {
        return Err(ctx.fail(format!("schema api-failure: {e}"), spec, Some(ex)));
    }
    Ok(())
}

fn success(v: &Value) -> Option<bool> {
    v.get("success").and_then(Value::as_bool)
}

fn record(v: &Value) -> Option<KeyRecord> {
    v.get("data")
        .cloned()
        .and_then(|d| serde_json::from_value(d).ok())
}

/// Expects a successful update and returns the stored record.
fn expect_ok(
    ctx: &CheckCtx,
    spec: &RequestSpec,
    ex: &Exchange,
    v: &Value,
    what: &str,
) -> Result<KeyRecord, Halt> {
    if !ex.status.is_success() || success(v) != Some(true) {
        return Err(ctx.fail(format!("{what}: the update was refused"), spec, Some(ex)));
    }
    record(v).ok_or_else(|| {
        ctx.fail(
            format!("{what}: `data` is not a key record"),
            spec,
            Some(ex),
        )
    })
}

fn base(ctx: &CheckCtx) -> Result<KeyRecord, Halt> {
    Ok(ctx.work_key()?.baseline.clone())
}

async fn envelope(ctx: &CheckCtx) -> Outcome {
    let b = base(ctx)?;
    let (spec, ex, v) = put(ctx, "", full_update_body(&b)).await?;
    if ex.content_type().as_deref() != Some("application/json") {
        return Err(ctx.fail("the answer is not application/json", &spec, Some(&ex)));
    }
    if let Err(e) = gatecheck_schemas::validate("token-update-envelope", &v) {
        return Err(ctx.fail(
            format!("schema token-update-envelope: {e}"),
            &spec,
            Some(&ex),
        ));
    }
    if success(&v) != Some(true) || v.get("message").and_then(Value::as_str) != Some("") {
        return Err(ctx.fail(
            "success must be true and message the empty string",
            &spec,
            Some(&ex),
        ));
    }
    let data = v.get("data").cloned().unwrap_or(Value::Null);
    if let Err(e) = gatecheck_schemas::validate("key-record", &data) {
        return Err(ctx.fail(format!("schema key-record: {e}"), &spec, Some(&ex)));
    }
    pass1()
}

async fn name_ok(ctx: &CheckCtx) -> Outcome {
    let b = base(ctx)?;
    for_all(ctx, ctx.cfg.scope.cases, valid_name(), |name: String| {
        let mut rec = b.clone();
        rec.name = name.clone();
        async move {
            let (spec, ex, v) = put(ctx, "", full_update_body(&rec)).await?;
            if name_too_long(&name, ctx.cfg.judging.expect) && success(&v) == Some(false) {
                // The expected profile's limit (new-api: 50 bytes, P1) refuses it: as expected.
                return Ok(());
            }
            let what = format!(
                "a name of {} characters ({} bytes)",
                name.chars().count(),
                name.len()
            );
            if name_too_long(&name, Profile::NewApi) && success(&v) == Some(false) {
                return ctx.known_difference(
                    id::P1,
                    format!("{what} was refused: new-api counts the 50 in bytes"),
                    &spec,
                    Some(&ex),
                );
            }
            let got = expect_ok(ctx, &spec, &ex, &v, &what)?;
            if got.name != name {
                return Err(ctx.fail(
                    format!("{what} was stored as {:?}", got.name),
                    &spec,
                    Some(&ex),
                ));
            }
            Ok(())
        }
    })
    .await
}

async fn name_long(ctx: &CheckCtx) -> Outcome {
    let b = base(ctx)?;
    for_all(ctx, ctx.cfg.scope.cases, long_name(), |name: String| {
        let mut rec = b.clone();
        rec.name = name.clone();
        async move {
            let (spec, ex, v) = put(ctx, "", full_update_body(&rec)).await?;
            let msg = v.get("message").and_then(Value::as_str).unwrap_or("");
            failure_shape(ctx, &spec, &ex, &v)?;
            let new_api_msg = UpdateFailure::NameTooLong.message_in(Profile::NewApi);
            if success(&v) == Some(false) && msg.contains(&new_api_msg) {
                return ctx.known_difference(
                    id::NA12,
                    format!(
                        "a name of {} characters was refused with {new_api_msg:?}, not \
                         `{MSG_NAME_TOO_LONG}`: a client matching the spec's message misses it",
                        name.chars().count()
                    ),
                    &spec,
                    Some(&ex),
                );
            }
            if success(&v) != Some(false) || !msg.contains(MSG_NAME_TOO_LONG) {
                return Err(ctx.fail(
                    format!(
                        "a name of {} characters must be refused with `{MSG_NAME_TOO_LONG}`",
                        name.chars().count()
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

#[derive(Debug, Clone)]
struct Fields {
    name: String,
    expired_future_hours: Option<u16>,
    remain_quota: i64,
    unlimited_quota: bool,
    limits: (bool, Vec<String>),
    allow_ips: String,
}

async fn given_fields(ctx: &CheckCtx) -> Outcome {
    let b = base(ctx)?;
    let ids: Vec<String> = ctx.env.models.iter().map(|m| m.id.clone()).collect();
    if ids.is_empty() {
        return Err(Halt::no_model("no model known: give --model KIND=ID"));
    }
    let strat = (
        ascii_name(),
        prop::option::of(1u16..=2000),
        0i64..100_000_000,
        any::<bool>(),
        (
            any::<bool>(),
            proptest::sample::subsequence(ids.clone(), 0..=ids.len().min(3)),
        ),
        allowlist(ctx.env.client_ip).prop_map(|(l, _)| l),
    )
        .prop_map(
            |(name, expired_future_hours, remain_quota, unlimited_quota, limits, allow_ips)| {
                Fields {
                    name,
                    expired_future_hours,
                    remain_quota,
                    unlimited_quota,
                    limits,
                    allow_ips,
                }
            },
        );
    let now = ctx.now().await?;
    for_all(ctx, ctx.cfg.scope.cases, strat, |f: Fields| {
        let rec = KeyRecord {
            name: f.name.clone(),
            expired_time: f
                .expired_future_hours
                .map_or(-1, |h| now + i64::from(h) * 3600),
            remain_quota: f.remain_quota,
            unlimited_quota: f.unlimited_quota,
            model_limits_enabled: f.limits.0,
            model_limits: f.limits.1.join(","),
            allow_ips: Some(f.allow_ips.clone()),
            ..b.clone()
        };
        async move {
            let (spec, ex, v) = put(ctx, "", full_update_body(&rec)).await?;
            let got = expect_ok(ctx, &spec, &ex, &v, "a full update")?;
            let diffs = field_differences(&rec, &got);
            if !diffs.is_empty() {
                return Err(ctx.fail(
                    format!("given fields not stored as given: {}", diffs.join(", ")),
                    &spec,
                    Some(&ex),
                ));
            }
            Ok(())
        }
    })
    .await
}

async fn allow_ips(ctx: &CheckCtx) -> Outcome {
    let b = base(ctx)?;
    let strat = prop_oneof![
        Just(None),
        Just(Some(String::new())),
        allowlist(ctx.env.client_ip).prop_map(|(l, _)| Some(l)),
        gatecheck_schemas::arbitrary::allow_ips(),
    ];
    for_all(ctx, ctx.cfg.scope.cases, strat, |list: Option<String>| {
        let rec = KeyRecord {
            allow_ips: list.clone(),
            ..b.clone()
        };
        async move {
            let (spec, ex, v) = put(ctx, "", full_update_body(&rec)).await?;
            let got = expect_ok(ctx, &spec, &ex, &v, "an allow_ips update")?;
            if got.allow_ips.clone().unwrap_or_default() != list.clone().unwrap_or_default() {
                return Err(ctx.fail(
                    format!(
                        "allow_ips {} was stored as {}",
                        super::or_none(list.as_deref().map(|l| format!("{l:?}"))),
                        super::or_none(got.allow_ips.as_deref().map(|l| format!("{l:?}")))
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

async fn expired_time(ctx: &CheckCtx) -> Outcome {
    let b = base(ctx)?;
    let now = ctx.now().await?;
    let strat = prop_oneof![
        Just(-1i64),
        (1i64..=86_400 * 365).prop_map(move |d| now + d),
        gatecheck_schemas::arbitrary::expired_time(),
    ];
    for_all(ctx, ctx.cfg.scope.cases.min(8), strat, |t: i64| {
        let rec = KeyRecord {
            expired_time: t,
            ..b.clone()
        };
        async move {
            let (spec, ex, v) = put(ctx, "", full_update_body(&rec)).await?;
            let got = expect_ok(ctx, &spec, &ex, &v, "an expired_time update")?;
            if got.expired_time != t {
                return Err(ctx.fail(
                    format!("expired_time {t} was stored as {}", got.expired_time),
                    &spec,
                    Some(&ex),
                ));
            }
            Ok(())
        }
    })
    .await
}

/// Expects an update carrying an out-of-contract value to be refused; when the target
/// accepts it, the working key is put back, and the acceptance is new-api's behaviour of
/// DECISIONS NA11 (stored without checks), judged by `--expect`.
async fn expect_value_refused(
    ctx: &CheckCtx,
    b: &KeyRecord,
    query: &str,
    body: Value,
    what: &str,
) -> Result<(), Halt> {
    let (spec, ex, v) = put(ctx, query, body).await?;
    if success(&v) != Some(false) {
        let stored = record(&v);
        let _ = crate::http::key_api::put_record(&ctx.t, b).await;
        let how = match stored {
            Some(r) => format!(
                " (stored status {}, expired_time {})",
                r.status, r.expired_time
            ),
            None => String::new(),
        };
        return ctx.known_difference(
            id::NA11,
            format!(
                "{what} was accepted{how}; the documented profile refuses it with \
                 success:false (the spec's range)"
            ),
            &spec,
            Some(&ex),
        );
    }
    failure_shape(ctx, &spec, &ex, &v)
}

async fn status_enum(ctx: &CheckCtx) -> Outcome {
    let b = base(ctx)?;
    let strat = prop_oneof![
        Just(0i64),
        Just(9i64),
        Just(-5i64),
        5i64..=1000,
        (1i64..=1000).prop_map(|n| -n),
        any::<i64>().prop_filter("outside 1..=4", |n| !is_valid_status(*n)),
    ];
    for_all(ctx, ctx.cfg.scope.cases.min(8), strat, |status: i64| {
        let rec = KeyRecord {
            status,
            ..b.clone()
        };
        let b = b.clone();
        async move {
            let what = format!("status {status}");
            expect_value_refused(ctx, &b, "", full_update_body(&rec), &what).await?;
            expect_value_refused(
                ctx,
                &b,
                "?status_only=1",
                json!({"id": b.id, "status": status}),
                &format!("{what} with status_only"),
            )
            .await
        }
    })
    .await
}

async fn expired_time_range(ctx: &CheckCtx) -> Outcome {
    let b = base(ctx)?;
    let strat = prop_oneof![
        Just(-2i64),
        Just(-5i64),
        (2i64..=100_000_000).prop_map(|n| -n),
        Just(i64::MIN),
    ];
    for_all(ctx, ctx.cfg.scope.cases.min(8), strat, |t: i64| {
        let rec = KeyRecord {
            expired_time: t,
            ..b.clone()
        };
        let b = b.clone();
        async move {
            expect_value_refused(
                ctx,
                &b,
                "",
                full_update_body(&rec),
                &format!("expired_time {t}"),
            )
            .await
        }
    })
    .await
}

async fn omitted_reset(ctx: &CheckCtx) -> Outcome {
    let b = base(ctx)?;
    let mut full = b.clone();
    full.name = "gatecheck-full".into();
    full.remain_quota = 1234;
    full.model_limits_enabled = true;
    full.model_limits = ctx
        .env
        .models
        .first()
        .map(|m| m.id.clone())
        .unwrap_or_default();
    full.allow_ips = Some("203.0.113.9".into());
    set_key(ctx, &full).await?;
    let (spec, ex, v) = put(ctx, "", json!({"id": b.id, "name": "gatecheck-partial"})).await?;
    let got = expect_ok(ctx, &spec, &ex, &v, "a partial update")?;
    let reset = got.expired_time == 0
        && got.remain_quota == 0
        && !got.unlimited_quota
        && !got.model_limits_enabled
        && got.model_limits.is_empty()
        && got.allow_ips.clone().unwrap_or_default().is_empty()
        && got.group.is_empty();
    if !reset {
        return Err(ctx.fail(
            "omitted fields were not reset to zero values",
            &spec,
            Some(&ex),
        ));
    }
    pass1()
}

async fn status_applied(ctx: &CheckCtx) -> Outcome {
    let b = base(ctx)?;
    for status in [KEY_STATUS_DISABLED, KEY_STATUS_ENABLED] {
        let rec = KeyRecord {
            status,
            ..b.clone()
        };
        let before = b.status;
        let (spec, ex, v) = put(ctx, "", full_update_body(&rec)).await?;
        let got = expect_ok(ctx, &spec, &ex, &v, "a status update")?;
        // What a profile stores (new-api ignores `status` without status_only, P4).
        let predicted = |profile: Profile| {
            serde_json::from_value::<TokenUpdateRequest>(full_update_body(&rec))
                .ok()
                .and_then(|req| {
                    let groups = ctx.env.groups.clone();
                    let uctx = UpdateContext {
                        profile,
                        now: ctx.t.recorded_now().unwrap_or_else(wall_now),
                        account_groups: &groups,
                        status_only: false,
                    };
                    apply_update(
                        &KeyRecord {
                            status: before,
                            ..b.clone()
                        },
                        &req,
                        &uctx,
                    )
                    .ok()
                })
                .map(|k| k.status)
        };
        if got.status != status && Some(got.status) != predicted(ctx.cfg.judging.expect) {
            let message = format!(
                "status {status} in the body was not applied (stored {})",
                got.status
            );
            if Some(got.status) == predicted(Profile::NewApi) {
                ctx.known_difference(id::P4, message, &spec, Some(&ex))?;
                continue;
            }
            return Err(ctx.fail(message, &spec, Some(&ex)));
        }
    }
    Ok(Pass {
        cases: 2,
        note: None,
    })
}

async fn status_only(ctx: &CheckCtx) -> Outcome {
    let b = base(ctx)?;
    let (spec, ex, v) = put(
        ctx,
        "?status_only=1",
        json!({"id": b.id, "status": KEY_STATUS_DISABLED, "name": "ignored-name", "remain_quota": 1}),
    )
    .await?;
    let got = expect_ok(ctx, &spec, &ex, &v, "a status_only update")?;
    if got.status != KEY_STATUS_DISABLED || got.name != b.name || got.remain_quota != b.remain_quota
    {
        return Err(ctx.fail(
            "status_only must change the status and nothing else",
            &spec,
            Some(&ex),
        ));
    }
    pass1()
}

async fn expect_refused(ctx: &CheckCtx, body: Value, needle: &str, what: &str) -> Outcome {
    let (spec, ex, v) = put(ctx, "", body).await?;
    let msg = v.get("message").and_then(Value::as_str).unwrap_or("");
    if success(&v) != Some(false) || !msg.contains(needle) {
        return Err(ctx.fail(
            format!("{what} must be refused with a message containing {needle:?}"),
            &spec,
            Some(&ex),
        ));
    }
    failure_shape(ctx, &spec, &ex, &v)?;
    pass1()
}

async fn negative_quota(ctx: &CheckCtx) -> Outcome {
    let b = base(ctx)?;
    let rec = KeyRecord {
        remain_quota: -1,
        unlimited_quota: false,
        ..b
    };
    expect_refused(
        ctx,
        full_update_body(&rec),
        "Quota value cannot be negative",
        "remain_quota -1",
    )
    .await
}

async fn unknown_id(ctx: &CheckCtx) -> Outcome {
    ctx.need_access_token()?;
    // A key id no deployment holds: with valid credentials, a target that breaks the rule
    // still changes no key.
    let body = json!({"id": IMPOSSIBLE_KEY_ID, "name": "gatecheck"});
    let (spec, ex, v) = put(ctx, "", body).await?;
    if success(&v) != Some(false) {
        return Err(ctx.fail(
            "an unknown id must be refused with success:false",
            &spec,
            Some(&ex),
        ));
    }
    pass1()
}

async fn group_no_access(ctx: &CheckCtx) -> Outcome {
    let b = base(ctx)?;
    let mut runner = crate::generators::test_runner(ctx.seed, 1);
    let suffix = "[a-z0-9]{12}"
        .new_tree(&mut runner)
        .map(|t| t.current())
        .unwrap_or_else(|_| "x".into());
    let rec = KeyRecord {
        group: format!("gatecheck-no-such-group-{suffix}"),
        ..b.clone()
    };
    let (spec, ex, v) = put(ctx, "", full_update_body(&rec)).await?;
    if success(&v) == Some(true) {
        let _ = crate::http::key_api::put_record(&ctx.t, &b).await;
        ctx.known_difference(
            id::NA12,
            format!(
                "group {:?}, which the account may not use, was accepted: new-api checks no \
                 group on update",
                rec.group
            ),
            &spec,
            Some(&ex),
        )?;
        return pass1();
    }
    let needle = MSG_NO_ACCESS_TO_GROUP;
    let msg = v.get("message").and_then(Value::as_str).unwrap_or("");
    if success(&v) != Some(false) || !msg.contains(needle) {
        return Err(ctx.fail(
            format!("a group the account may not use must be refused with a message containing {needle:?}"),
            &spec,
            Some(&ex),
        ));
    }
    failure_shape(ctx, &spec, &ex, &v)?;
    pass1()
}

async fn enable_expired(ctx: &CheckCtx) -> Outcome {
    let b = base(ctx)?;
    let now = ctx.now().await?;
    let expired = KeyRecord {
        status: KEY_STATUS_EXPIRED,
        expired_time: now - 3600,
        ..b.clone()
    };
    set_key(ctx, &expired).await?;
    let (spec, ex, v) = put(
        ctx,
        "?status_only=1",
        json!({"id": b.id, "status": KEY_STATUS_ENABLED}),
    )
    .await?;
    if success(&v) != Some(false) {
        return Err(ctx.fail(
            "enabling a key stored as expired with a past expiry must be refused",
            &spec,
            Some(&ex),
        ));
    }
    pass1()
}

async fn group_allowed(ctx: &CheckCtx) -> Outcome {
    let b = base(ctx)?;
    let mut groups = vec![String::new()];
    groups.extend(ctx.env.groups.iter().cloned());
    let n = groups.len() as u32;
    for g in groups {
        let rec = KeyRecord {
            group: g.clone(),
            ..b.clone()
        };
        let (spec, ex, v) = put(ctx, "", full_update_body(&rec)).await?;
        let got = expect_ok(ctx, &spec, &ex, &v, &format!("group {g:?}"))?;
        if got.group != g {
            return Err(ctx.fail(
                format!("group {g:?} was stored as {:?}", got.group),
                &spec,
                Some(&ex),
            ));
        }
    }
    Ok(Pass {
        cases: n,
        note: if n == 1 {
            Some("the account's groups are unknown; only the empty group was tried".into())
        } else {
            None
        },
    })
}

async fn bad_body(ctx: &CheckCtx) -> Outcome {
    let b = base(ctx)?;
    let id = b.id;
    let strat = prop_oneof![
        Just(json!({"name": "gatecheck"})),
        Just(json!({"id": id.to_string(), "name": "gatecheck"})),
        Just(json!({"id": 0, "name": "gatecheck"})),
        (1i64..1_000_000).prop_map(|n| json!({"id": -n})),
        any::<i64>().prop_map(move |n| json!({"id": id, "name": n})),
        "[a-z]{1,8}".prop_map(move |v| json!({"id": id, "remain_quota": v})),
        "[a-z]{1,8}".prop_map(move |v| json!({"id": id, "unlimited_quota": v})),
        Just(json!({"id": id, "model_limits_enabled": 1})),
        Just(Value::String("not an object".into())),
    ];
    for_all(ctx, ctx.cfg.scope.cases, strat, |body: Value| async move {
        let (spec, ex, v) = put(ctx, "", body).await?;
        if success(&v) == Some(true) {
            return Err(ctx.fail("a malformed update succeeded", &spec, Some(&ex)));
        }
        Ok(())
    })
    .await
}
