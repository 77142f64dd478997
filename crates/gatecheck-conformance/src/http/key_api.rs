//! The working key and the key API the runner drives around it: the key it works with (made
//! through the control API, made with `POST /api/token/` under `--allow-create-keys`, or the
//! named `--key-id`), read, written back and deleted with `/api/token/`.

use crate::http::client::Exchange;
use crate::http::request::{Auth, RequestSpec};
use crate::http::transport::{Transport, TransportError};
use crate::redact::Secret;
use gatecheck_schemas::types::KeyRecord;
use serde_json::{json, Value};

/// How the working key came to be, so the end of the run knows what to undo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyOrigin {
    /// Created through the mock's control API (left in the mock).
    Mock,
    /// Created with `POST /api/token/` (deleted at the end).
    Created,
    /// The named `--key-id` (restored from its snapshot at the end).
    Snapshot(Box<KeyRecord>),
}

/// The key the runner uses and changes.
#[derive(Debug, Clone)]
pub struct WorkKey {
    /// Its id.
    pub id: i64,
    /// Its secret, for `Authorization: Bearer`.
    pub secret: Secret,
    /// Its record as the run starts.
    pub baseline: KeyRecord,
    /// How it was obtained.
    pub origin: KeyOrigin,
}

/// The fields of a key record that `PUT /api/token/` edits, as a full-update body.
pub fn full_update_body(rec: &KeyRecord) -> Value {
    json!({
        "id": rec.id,
        "name": rec.name,
        "status": rec.status,
        "expired_time": rec.expired_time,
        "remain_quota": rec.remain_quota,
        "unlimited_quota": rec.unlimited_quota,
        "model_limits_enabled": rec.model_limits_enabled,
        "model_limits": rec.model_limits,
        "allow_ips": rec.allow_ips,
        "group": rec.group,
        "cross_group_retry": rec.cross_group_retry,
    })
}

/// The fields `PUT /api/token/` edits (all but `status`) that `got` does not hold as `want`
/// has them, each as `name: sent X, stored Y`.
pub fn field_differences(want: &KeyRecord, got: &KeyRecord) -> Vec<String> {
    let mut d = Vec::new();
    let mut cmp = |name: &str, a: String, b: String| {
        if a != b {
            d.push(format!("{name}: sent {a}, stored {b}"));
        }
    };
    cmp(
        "name",
        format!("{:?}", want.name),
        format!("{:?}", got.name),
    );
    cmp(
        "expired_time",
        want.expired_time.to_string(),
        got.expired_time.to_string(),
    );
    cmp(
        "remain_quota",
        want.remain_quota.to_string(),
        got.remain_quota.to_string(),
    );
    cmp(
        "unlimited_quota",
        want.unlimited_quota.to_string(),
        got.unlimited_quota.to_string(),
    );
    cmp(
        "model_limits_enabled",
        want.model_limits_enabled.to_string(),
        got.model_limits_enabled.to_string(),
    );
    cmp(
        "model_limits",
        format!("{:?}", want.model_limits),
        format!("{:?}", got.model_limits),
    );
    cmp(
        "allow_ips",
        format!("{:?}", want.allow_ips.clone().unwrap_or_default()),
        format!("{:?}", got.allow_ips.clone().unwrap_or_default()),
    );
    cmp(
        "group",
        format!("{:?}", want.group),
        format!("{:?}", got.group),
    );
    d
}

/// Reads one key with `GET /api/token/{id}`.
pub async fn get_key(t: &Transport, id: i64) -> Result<Option<KeyRecord>, TransportError> {
    let ex = t
        .send(
            &RequestSpec::get(format!("/api/token/{id}")).auth(Auth::AccessToken),
            0,
        )
        .await?;
    let v = ex.json().unwrap_or(Value::Null);
    if v.get("success").and_then(Value::as_bool) != Some(true) {
        return Ok(None);
    }
    Ok(v.get("data")
        .cloned()
        .and_then(|d| serde_json::from_value(d).ok()))
}

/// The full secret of key `id` with `POST /api/token/{id}/key` (new-api's GetTokenKey, the
/// one answer that shows it whole: the listing and `GET /api/token/{id}` mask it, NA6), or
/// `None` when the target does not answer it with a key.
pub async fn reveal_key(t: &Transport, id: i64) -> Result<Option<String>, TransportError> {
    let spec = RequestSpec::post(format!("/api/token/{id}/key")).auth(Auth::AccessToken);
    let ex = t.send(&spec, 0).await?;
    let v = ex.json().unwrap_or(Value::Null);
    if !ex.status.is_success() || v.get("success").and_then(Value::as_bool) != Some(true) {
        return Ok(None);
    }
    Ok(v.pointer("/data/key")
        .and_then(Value::as_str)
        .filter(|k| !k.is_empty() && !is_masked(k))
        .map(str::to_owned))
}

/// Whether a key as shown is masked (new-api's MaskTokenKey writes `*`s in its middle).
pub fn is_masked(key: &str) -> bool {
    key.contains('*')
}

/// What [`put_record_traced`] sent and saw.
#[derive(Debug, Clone)]
pub struct PutTrace {
    /// The record the target reports after the last update (`data` of its answer).
    pub record: Option<KeyRecord>,
    /// Whether every update was acknowledged (`success: true`).
    pub acknowledged: bool,
    /// The updates sent and their answers, in order.
    pub exchanges: Vec<(RequestSpec, Exchange)>,
}

/// Writes a whole record back: a full `PUT /api/token/` without `status` (so enabling rules
/// judge the new expiry and quota, not the old ones), then `?status_only=1` when the status
/// differs. Returns the record the target reports.
pub async fn put_record(
    t: &Transport,
    rec: &KeyRecord,
) -> Result<Option<KeyRecord>, TransportError> {
    Ok(put_record_traced(t, rec).await?.record)
}

/// [`put_record`], with the exchanges it made and whether the target acknowledged them.
pub async fn put_record_traced(t: &Transport, rec: &KeyRecord) -> Result<PutTrace, TransportError> {
    let mut body = full_update_body(rec);
    if let Some(o) = body.as_object_mut() {
        o.remove("status");
    }
    let mut trace = PutTrace {
        record: None,
        acknowledged: true,
        exchanges: Vec::new(),
    };
    let spec = RequestSpec::put("/api/token/")
        .auth(Auth::AccessToken)
        .json(body);
    trace.record = put_one(t, spec, &mut trace).await?;
    if trace.record.as_ref().map(|g| g.status) != Some(rec.status) {
        let spec = RequestSpec::put("/api/token/?status_only=1")
            .auth(Auth::AccessToken)
            .json(json!({ "id": rec.id, "status": rec.status }));
        if let Some(got) = put_one(t, spec, &mut trace).await? {
            trace.record = Some(got);
        }
    }
    Ok(trace)
}

/// Sends one update, notes whether it was acknowledged, and returns the record it reports.
async fn put_one(
    t: &Transport,
    spec: RequestSpec,
    trace: &mut PutTrace,
) -> Result<Option<KeyRecord>, TransportError> {
    let ex = t.send(&spec, 0).await?;
    let v = ex.json().unwrap_or(Value::Null);
    let acknowledged =
        ex.status.is_success() && v.get("success").and_then(Value::as_bool) == Some(true);
    trace.acknowledged &= acknowledged;
    let got = v
        .get("data")
        .cloned()
        .and_then(|d| serde_json::from_value::<KeyRecord>(d).ok());
    trace.exchanges.push((spec, ex));
    Ok(got)
}

/// Why a scratch key could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ScratchKeyError {
    /// The request was not answered.
    #[error(transparent)]
    Transport(#[from] TransportError),
    /// The target refused it (a 4xx: the credentials are the user's to fix), or the key made
    /// is not in the listing.
    #[error("{0}")]
    Refused(String),
    /// The target answered otherwise.
    #[error("{0}")]
    Misbehaved(String),
}

/// Makes a scratch key with `POST /api/token/` and finds its record (in the answer, or by name
/// in the listing).
pub async fn create_scratch_key(t: &Transport, name: &str) -> Result<KeyRecord, ScratchKeyError> {
    let body = json!({
        "name": name,
        "expired_time": -1,
        "remain_quota": 6_000_000,
        "unlimited_quota": false,
        "model_limits_enabled": false,
        "model_limits": "",
        "allow_ips": "",
        "group": "",
    });
    let ex = t
        .send(
            &RequestSpec::post("/api/token/")
                .auth(Auth::AccessToken)
                .json(body),
            0,
        )
        .await?;
    let v = ex.json().unwrap_or(Value::Null);
    if v.get("success").and_then(Value::as_bool) != Some(true) {
        let msg = format!(
            "POST /api/token/ refused to create a scratch key (HTTP {}): {}",
            ex.status,
            v.get("message").and_then(Value::as_str).unwrap_or("")
        );
        // Refused credentials are the user's to fix; anything else is the target's answer.
        return Err(if ex.status.is_client_error() {
            ScratchKeyError::Refused(msg)
        } else {
            ScratchKeyError::Misbehaved(msg)
        });
    }
    if let Some(rec) = v
        .get("data")
        .cloned()
        .and_then(|d| serde_json::from_value::<KeyRecord>(d).ok())
    {
        return Ok(rec);
    }
    let ex = t
        .send(
            &RequestSpec::get("/api/token/?p=0&size=100").auth(Auth::AccessToken),
            0,
        )
        .await?;
    let v = ex.json().unwrap_or(Value::Null);
    let items = v
        .pointer("/data/items")
        .or_else(|| v.get("data"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    items
        .into_iter()
        .filter_map(|i| serde_json::from_value::<KeyRecord>(i).ok())
        .find(|k| k.name == name)
        .ok_or_else(|| {
            ScratchKeyError::Refused("the scratch key was not found in the listing".into())
        })
}

/// Deletes a key with `DELETE /api/token/{id}`.
pub async fn delete_key(t: &Transport, id: i64) -> Result<bool, TransportError> {
    let ex = t
        .send(
            &RequestSpec::delete(format!("/api/token/{id}")).auth(Auth::AccessToken),
            0,
        )
        .await?;
    Ok(ex
        .json()
        .and_then(|v| v.get("success").and_then(Value::as_bool))
        == Some(true))
}
