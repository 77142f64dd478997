//! What the runner learns about its target before the checks, and the key it works with.
//!
//! - The mock's control API: used only when `/__mock/health` answers the mock's signature
//!   ([`gatecheck_schemas::rules::health`]) or with `--target mock`; never with
//!   `--target deployment`. Accounts, key creation, the clock.
//! - The model catalog and the capabilities of the models the runner knows.
//! - The working key: made through the control API (mock), made with `POST /api/token/`
//!   (`--allow-create-keys`), or the named `--key-id`, snapshotted and restored at the end.

use crate::client::{Auth, ClientError, Exchange, RequestSpec};
use crate::redact::Secret;
use crate::report::SetupFailureKind;
use crate::transport::{Transport, TransportError};
use gatecheck_schemas::rules::health::{parse_signature, MockSignature, HEALTH_PATH};
use gatecheck_schemas::types::{KeyRecord, ModelCapabilities, ModelRecord};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const CAPABILITIES: &str = include_str!("../fixtures/capabilities.json");

/// The capabilities of the models the runner knows (sizes, voices, durations), by model id.
pub fn known_capabilities() -> BTreeMap<String, ModelCapabilities> {
    parse_capabilities(CAPABILITIES).unwrap_or_default()
}

/// Parses capabilities in the `fixtures/capabilities.json` format (`{"models": {id: {...}}}`).
pub fn parse_capabilities(
    json: &str,
) -> Result<BTreeMap<String, ModelCapabilities>, serde_json::Error> {
    #[derive(serde::Deserialize)]
    struct File {
        models: BTreeMap<String, ModelCapabilities>,
    }
    serde_json::from_str::<File>(json).map(|f| f.models)
}

/// Why setting up the target failed.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The target did not answer.
    #[error("target unreachable: {0}")]
    Unreachable(String),
    /// The target answered in a way the runner cannot work with.
    #[error("target misbehaved: {0}")]
    Target(String),
    /// The user's configuration cannot work with this target.
    #[error("configuration: {0}")]
    Config(String),
    /// The run stopped (budget, deadline, dry run).
    #[error("{0}")]
    Stopped(String),
}

impl SetupError {
    /// The report's kind of this failure.
    pub fn kind(&self) -> SetupFailureKind {
        match self {
            SetupError::Unreachable(_) => SetupFailureKind::Unreachable,
            SetupError::Target(_) => SetupFailureKind::Target,
            SetupError::Config(_) => SetupFailureKind::Config,
            SetupError::Stopped(_) => SetupFailureKind::Stopped,
        }
    }

    /// The message without the kind's prefix.
    pub fn detail(&self) -> &str {
        match self {
            SetupError::Unreachable(m)
            | SetupError::Target(m)
            | SetupError::Config(m)
            | SetupError::Stopped(m) => m,
        }
    }
}

impl From<TransportError> for SetupError {
    fn from(e: TransportError) -> Self {
        match e {
            TransportError::Client(c) if c.is_unreachable() => {
                SetupError::Unreachable(c.to_string())
            }
            TransportError::Client(
                c @ (ClientError::OffHostRedirect { .. } | ClientError::BodyTooLarge(_)),
            ) => SetupError::Target(c.to_string()),
            TransportError::Client(c) => SetupError::Config(c.to_string()),
            other => SetupError::Stopped(other.to_string()),
        }
    }
}

/// The mock's control API.
#[derive(Debug, Clone)]
pub struct MockControl {
    /// The mock's behaviour profile, as its health signature reports it.
    pub profile: Option<String>,
    /// The signature seen on `GET /__mock/health` (`None` with `--target mock` and no
    /// signature).
    pub signature: Option<MockSignature>,
}

impl MockControl {
    /// Probes `GET /__mock/health`: `Some` only when it answers the mock's signature, never for
    /// a dashboard's `200 text/html` or any other body.
    pub async fn probe(t: &Transport) -> Result<Option<MockControl>, TransportError> {
        let ex = t.send(&RequestSpec::get(HEALTH_PATH), 0).await?;
        let ct = ex.content_type();
        Ok(
            parse_signature(ex.status.as_u16(), ct.as_deref(), &ex.body).map(|sig| MockControl {
                profile: Some(sig.profile.as_str().to_owned()),
                signature: Some(sig),
            }),
        )
    }

    /// The mock's accounts (with access tokens).
    pub async fn accounts(&self, t: &Transport) -> Result<Vec<Value>, TransportError> {
        let ex = t.send(&RequestSpec::get("/__mock/accounts"), 0).await?;
        let v = ex.json().unwrap_or(Value::Null);
        let list = v
            .get("accounts")
            .or_else(|| v.get("data"))
            .cloned()
            .unwrap_or(v);
        Ok(list.as_array().cloned().unwrap_or_default())
    }

    /// Creates a key directly; returns its full record.
    pub async fn create_key(
        &self,
        t: &Transport,
        fields: Value,
    ) -> Result<Option<KeyRecord>, TransportError> {
        let ex = t
            .send(&RequestSpec::post("/__mock/keys").json(fields), 0)
            .await?;
        let v = ex.json().unwrap_or(Value::Null);
        let rec = v.get("data").cloned().unwrap_or(v);
        Ok(serde_json::from_value(rec).ok())
    }

    /// The mock's current time, Unix seconds.
    pub async fn now(&self, t: &Transport) -> Result<Option<i64>, TransportError> {
        let ex = t.send(&RequestSpec::get("/__mock/clock"), 0).await?;
        let v = ex.json().unwrap_or(Value::Null);
        let secs = v
            .get("now")
            .and_then(Value::as_i64)
            .or_else(|| v.get("now_ms").and_then(Value::as_i64).map(|ms| ms / 1000))
            .or_else(|| v.get("unix").and_then(Value::as_i64));
        Ok(secs)
    }

    /// Advances the mock's clock.
    pub async fn advance(&self, t: &Transport, by: Duration) -> Result<bool, TransportError> {
        let ms = by.as_millis() as i64;
        let ex = t
            .send(
                &RequestSpec::post("/__mock/clock/advance").json(json!({ "ms": ms })),
                0,
            )
            .await?;
        Ok(ex.status.is_success())
    }
}

/// Wall-clock Unix seconds.
pub fn wall_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

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

/// Makes a scratch key with `POST /api/token/` and finds its record (in the answer, or by name
/// in the listing).
pub async fn create_scratch_key(t: &Transport, name: &str) -> Result<KeyRecord, SetupError> {
    let body = json!({
        "name": name,
        "expired_time": -1,
        "remain_quota": 5_000_000,
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
            SetupError::Config(msg)
        } else {
            SetupError::Target(msg)
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
        .ok_or_else(|| SetupError::Config("the scratch key was not found in the listing".into()))
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

/// Every model of the catalog (all pages of `GET /api/models`).
pub async fn fetch_catalog(t: &Transport) -> Result<Vec<ModelRecord>, TransportError> {
    let mut out = Vec::new();
    for page in 1..=20 {
        let ex = t
            .send(
                &RequestSpec::get(format!("/api/models?p={page}&page_size=100")),
                0,
            )
            .await?;
        let v = ex.json().unwrap_or(Value::Null);
        let data = v
            .get("data")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let n = data.len();
        out.extend(
            data.into_iter()
                .filter_map(|m| serde_json::from_value::<ModelRecord>(m).ok()),
        );
        let total = v.get("total").and_then(Value::as_i64).unwrap_or(0);
        if n == 0 || out.len() as i64 >= total {
            break;
        }
    }
    Ok(out)
}
