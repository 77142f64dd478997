//! new-api's key search and batch routes (`GET /api/token/search`, `POST /api/token/batch/keys`;
//! DECISIONS D-TOKEN-6, D-TOKEN-8): they must agree with the key they name. Read-only: the
//! batch delete is judged by the mock's tests, as a run never deletes a key it did not make.

use super::Kind::Failure;
use super::{pass1, Check, CheckCtx, Halt, Needs, Outcome, Phase};
use crate::http::client::Exchange;
use crate::http::request::{Auth, RequestSpec};
use crate::vocab::discovery::RouteFamily;
use gatecheck_schemas::rules::auth::mask_key;
use gatecheck_schemas::rules::token::IMPOSSIBLE_KEY_ID;
use gatecheck_schemas::rules::token_batch::search_matches;
use gatecheck_schemas::Profile;
use serde_json::{json, Value};

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "token.batch.keys-own-only",
        kind: Failure,
        route: "POST /api/token/batch/keys",
        spec: "DECISIONS: PUT /api/token/ (D-TOKEN-8, the batch of full keys)",
        title: "The full keys of the working key's id and an id no account holds are exactly the working key's own secret, under its id.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(keys_own_only(c)),
    },
    Check {
        id: "token.batch.search-finds-key",
        kind: Failure,
        route: "GET /api/token/search",
        spec: "DECISIONS: PUT /api/token/ (D-TOKEN-6, the search)",
        title: "A search by the working key's secret finds it, every item matches the search, and no item shows a full key.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(search_finds_key(c)),
    },
    Check {
        id: "token.list.key-masked",
        kind: Failure,
        route: "GET /api/token/, GET /api/token/{id}",
        spec: "DECISIONS: NA6 (the key in the /api/token/ answers); D-TOKEN-5",
        title: "The working key, in `GET /api/token/` and `GET /api/token/{id}`, shows its own key: masked (first 4, `**********`, last 4) or whole; a key that is neither (another key, or masked otherwise) fails, and so does the whole key when the run expects new-api, which masks it (controller/token.go GetAllTokens, GetToken).",
        phase: // Exclusive: its reads of the working key must not interleave with the shared checks'
            // charges (a replay answers each identical GET in the order recorded).
            Phase::Exclusive,
        needs: Needs::All(&[RouteFamily::KeyUpdate]),
        mock_only: None,
        decision: None,
        run: |c| Box::pin(list_masks_key(c)),
    },
];

/// The stored form of a secret: without `sk-`.
fn bare(secret: &str) -> &str {
    secret.strip_prefix("sk-").unwrap_or(secret)
}

/// Sends `spec` and returns the JSON of a `success:true` answer; a route the target does not
/// serve (404, or not `success:true`) is a `not-observed` skip carrying the exchange.
async fn served(ctx: &CheckCtx, spec: &RequestSpec) -> Result<(Exchange, Value), Halt> {
    let ex = ctx.send(spec, 0).await?;
    let v = ex.json().unwrap_or(Value::Null);
    if !ex.status.is_success() || v.get("success").and_then(Value::as_bool) != Some(true) {
        return Err(ctx.not_observed(
            format!(
                "{} {} was not answered with success ({})",
                spec.method, spec.path, ex.status
            ),
            spec,
            Some(&ex),
        ));
    }
    Ok((ex, v))
}

async fn keys_own_only(ctx: &CheckCtx) -> Outcome {
    let key = ctx.work_key()?;
    let spec = RequestSpec::post("/api/token/batch/keys")
        .auth(Auth::AccessToken)
        .json(json!({ "ids": [key.id, IMPOSSIBLE_KEY_ID] }));
    let (ex, v) = served(ctx, &spec).await?;
    if let Err(e) = gatecheck_schemas::validate("token-keys-envelope", &v) {
        return Err(ctx.fail(format!("schema token-keys-envelope: {e}"), &spec, Some(&ex)));
    }
    let Some(keys) = v.pointer("/data/keys").and_then(Value::as_object) else {
        return Err(ctx.fail("`data.keys` is not an object", &spec, Some(&ex)));
    };
    let own = key.id.to_string();
    // An entry whose name is not an id is an unknown field, not a key of some id.
    let is_id = |k: &str| k.parse::<i64>().is_ok();
    if let Some(other) = keys.keys().find(|k| is_id(k) && **k != own) {
        return Err(ctx.fail(
            format!("a key was disclosed for id {other}, which the caller does not hold"),
            &spec,
            Some(&ex),
        ));
    }
    match keys.get(&own).and_then(Value::as_str) {
        Some(s) if bare(s) == bare(key.secret.expose()) => pass1(),
        Some(_) => Err(ctx.fail(
            format!("the key answered for id {own} is not the working key's secret"),
            &spec,
            Some(&ex),
        )),
        None => Err(ctx.fail(
            format!("the working key (id {own}) is missing from `data.keys`"),
            &spec,
            Some(&ex),
        )),
    }
}

async fn search_finds_key(ctx: &CheckCtx) -> Outcome {
    let key = ctx.work_key()?;
    let secret = key.secret.expose();
    // The key form-encoded: a key with `#`, `?`, `&`, `+` or `%` must reach the target whole.
    let query = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("token", bare(secret))
        .append_pair("p", "1")
        .append_pair("page_size", "100")
        .finish();
    let spec = RequestSpec::get(format!("/api/token/search?{query}")).auth(Auth::AccessToken);
    let (ex, v) = served(ctx, &spec).await?;
    if let Err(e) = gatecheck_schemas::validate("token-search-envelope", &v) {
        return Err(ctx.fail(
            format!("schema token-search-envelope: {e}"),
            &spec,
            Some(&ex),
        ));
    }
    let items = v
        .pointer("/data/items")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if !items
        .iter()
        .any(|i| i.get("id").and_then(Value::as_i64) == Some(key.id))
    {
        return Err(ctx.fail(
            format!(
                "a search by the working key's own secret did not find it (id {})",
                key.id
            ),
            &spec,
            Some(&ex),
        ));
    }
    for item in &items {
        let shown = item.get("key").and_then(Value::as_str).unwrap_or("");
        if !shown.is_empty() && bare(shown) == bare(secret) {
            return Err(ctx.fail(
                "an item of the search shows the full key, not a masked one",
                &spec,
                Some(&ex),
            ));
        }
        let id = item.get("id").and_then(Value::as_i64).unwrap_or(0);
        // Only the working key's secret is known: another item cannot match an exact secret.
        if id != key.id && search_matches("", secret, "", bare(secret)) == Ok(true) {
            return Err(ctx.fail(
                format!("the search by one exact key also listed key {id}"),
                &spec,
                Some(&ex),
            ));
        }
    }
    pass1()
}

/// The keys an answer of `GET /api/token/` (a page `{items}`, or an array) or of
/// `GET /api/token/{id}` (one record) shows for key `id`.
fn keys_shown(v: &Value, id: i64) -> Vec<String> {
    let data = v.get("data").unwrap_or(&Value::Null);
    let records: Vec<&Value> = match data {
        Value::Array(items) => items.iter().collect(),
        Value::Object(o) => match o.get("items").and_then(Value::as_array) {
            Some(items) => items.iter().collect(),
            None => vec![data],
        },
        _ => Vec::new(),
    };
    records
        .into_iter()
        .filter(|r| r.get("id").and_then(Value::as_i64) == Some(id))
        .filter_map(|r| r.get("key").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

/// Whether `shown` is masked as `masked` (the working key's `mask_key`) is: the same length
/// and the same `*`s. Its visible ends are not compared: a replay of a recording stands a
/// placeholder for the key the target handed out, and the recorded mask keeps the real ends.
fn same_mask_shape(shown: &str, masked: &str) -> bool {
    shown.len() == masked.len() && mask_shape(shown) == mask_shape(masked) && shown.contains('*')
}

/// A masked key with its visible characters as `x`: `xxxx**********xxxx`.
fn mask_shape(masked: &str) -> String {
    masked
        .chars()
        .map(|c| if c == '*' { '*' } else { 'x' })
        .collect()
}

async fn list_masks_key(ctx: &CheckCtx) -> Outcome {
    let key = ctx.work_key()?;
    let secret = bare(key.secret.expose());
    let masked = mask_key(secret);
    let new_api = ctx.cfg.judging.expect == Profile::NewApi;
    let list = RequestSpec::get("/api/token/?p=1&size=100").auth(Auth::AccessToken);
    let one = RequestSpec::get(format!("/api/token/{}", key.id)).auth(Auth::AccessToken);
    let mut cases = 0;
    for spec in [list, one] {
        let (ex, v) = served(ctx, &spec).await?;
        for shown in keys_shown(&v, key.id) {
            cases += 1;
            let shown = bare(&shown);
            if shown == secret && new_api {
                return Err(ctx.fail(
                    format!("the working key (id {}) is shown whole; new-api masks it in every answer but POST /api/token/{{id}}/key (DECISIONS NA6: a client that takes keys from here breaks on new-api, and the page leaks them)", key.id),
                    &spec,
                    Some(&ex),
                ));
            }
            if shown != secret && !same_mask_shape(shown, &masked) {
                return Err(ctx.fail(
                    format!("the working key (id {}) is shown as a key that is neither its own nor masked as new-api masks it (`{}`)", key.id, mask_shape(&masked)),
                    &spec,
                    Some(&ex),
                ));
            }
        }
    }
    if cases == 0 {
        return Err(Halt::not_observed(
            "neither GET /api/token/ (its first 100 keys) nor GET /api/token/{id} showed the working key",
        ));
    }
    Ok(super::Pass { cases, note: None })
}
