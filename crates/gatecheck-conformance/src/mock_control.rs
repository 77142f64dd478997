//! The mock's control API: used only when `/__mock/health` answers the mock's signature
//! ([`gatecheck_schemas::rules::health`]) or with `--target mock`; never with
//! `--target deployment`. Accounts, key creation, the clock.

use crate::request::RequestSpec;
use crate::transport::{Transport, TransportError};
use gatecheck_schemas::rules::health::{parse_signature, MockSignature, HEALTH_PATH};
use gatecheck_schemas::types::KeyRecord;
use serde_json::{json, Value};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

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
