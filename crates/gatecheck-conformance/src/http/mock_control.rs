//! The mock's control API (`/__mock/*`), typed: the one speaker of it in the runner (checks,
//! set-up, the request sequence and the diff). A [`MockControl`] is made only by
//! [`MockControl::probe`], when `/__mock/health` answers the mock's signature
//! ([`gatecheck_schemas::rules::health`]), or by [`MockControl::declared`], for a target the
//! user declared a mock (`--target mock`) or an embedded mock; never with
//! `--target deployment`. Accounts, keys, the clock, reset.

use crate::http::request::RequestSpec;
use crate::http::transport::{Transport, TransportError};
use gatecheck_schemas::rules::health::{parse_signature, MockSignature, HEALTH_PATH};
use gatecheck_schemas::types::{Account, KeyRecord};
use serde_json::{json, Value};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// `GET /__mock/accounts`.
const ACCOUNTS_PATH: &str = "/__mock/accounts";
/// `GET /__mock/keys` (every key) and `POST /__mock/keys` (make one).
const KEYS_PATH: &str = "/__mock/keys";
/// `GET /__mock/clock`.
const CLOCK_PATH: &str = "/__mock/clock";
/// `POST /__mock/clock/advance`.
const ADVANCE_PATH: &str = "/__mock/clock/advance";
/// `POST /__mock/reset`.
const RESET_PATH: &str = "/__mock/reset";

/// The mock's control API.
#[derive(Debug, Clone)]
pub struct MockControl {
    /// The mock's behaviour profile, as its health signature reports it.
    pub profile: Option<String>,
    /// The signature seen on `GET /__mock/health` (`None` with `--target mock` and no
    /// signature).
    pub signature: Option<MockSignature>,
}

/// The fields of a key made through `POST /__mock/keys`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct NewMockKey {
    /// Its name.
    pub name: String,
    /// The account that owns it.
    pub user_id: i64,
    /// Its quota.
    pub remain_quota: i64,
    /// Its expiry, Unix seconds (`-1`: never).
    pub expired_time: i64,
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

    /// A target taken for the mock without its signature: one the user declared a mock
    /// (`--target mock`), or an embedded mock (the mock by construction).
    pub fn declared() -> Self {
        MockControl {
            profile: None,
            signature: None,
        }
    }

    /// The mock's accounts (with access tokens); none when the answer is not a list of them.
    pub async fn accounts(&self, t: &Transport) -> Result<Vec<Account>, TransportError> {
        let ex = t.send(&RequestSpec::get(ACCOUNTS_PATH), 0).await?;
        let v = ex
            .json()
            .filter(|_| ex.status.is_success())
            .unwrap_or(Value::Null);
        let list = v
            .get("accounts")
            .or_else(|| v.get("data"))
            .cloned()
            .unwrap_or(v);
        let list = list.as_array().cloned().unwrap_or_default();
        Ok(list
            .into_iter()
            .filter_map(|a| serde_json::from_value(a).ok())
            .collect())
    }

    /// Every key of the mock, with its secret; none when the answer is not a list of keys.
    pub async fn keys(&self, t: &Transport) -> Result<Vec<KeyRecord>, TransportError> {
        let ex = t.send(&RequestSpec::get(KEYS_PATH), 0).await?;
        Ok(ex
            .json()
            .filter(|_| ex.status.is_success())
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default())
    }

    /// Creates a key directly; returns its full record.
    pub async fn create_key(
        &self,
        t: &Transport,
        key: &NewMockKey,
    ) -> Result<Option<KeyRecord>, TransportError> {
        let fields = serde_json::to_value(key).unwrap_or(Value::Null);
        let ex = t
            .send(&RequestSpec::post(KEYS_PATH).json(fields), 0)
            .await?;
        let v = ex.json().unwrap_or(Value::Null);
        let rec = v.get("data").cloned().unwrap_or(v);
        Ok(serde_json::from_value(rec).ok())
    }

    /// The mock's current time, Unix seconds.
    pub async fn now(&self, t: &Transport) -> Result<Option<i64>, TransportError> {
        let ex = t.send(&RequestSpec::get(CLOCK_PATH), 0).await?;
        let v = ex.json().unwrap_or(Value::Null);
        let secs = v
            .get("now")
            .and_then(Value::as_i64)
            .or_else(|| v.get("now_ms").and_then(Value::as_i64).map(|ms| ms / 1000))
            .or_else(|| v.get("unix").and_then(Value::as_i64));
        Ok(secs)
    }

    /// Advances the mock's clock by `by` (`{"ms": N}`); whether the mock took it.
    pub async fn advance(&self, t: &Transport, by: Duration) -> Result<bool, TransportError> {
        let ms = by.as_millis() as i64;
        self.post_ok(t, ADVANCE_PATH, Some(json!({ "ms": ms })))
            .await
    }

    /// Advances the mock's clock by whole seconds (`{"seconds": N}`); whether the mock took
    /// it.
    pub async fn advance_seconds(
        &self,
        t: &Transport,
        seconds: u64,
    ) -> Result<bool, TransportError> {
        self.post_ok(t, ADVANCE_PATH, Some(json!({ "seconds": seconds })))
            .await
    }

    /// Resets the mock (`POST /__mock/reset`: fixture state, no tasks, clock offset 0);
    /// whether the mock took it.
    pub async fn reset(&self, t: &Transport) -> Result<bool, TransportError> {
        self.post_ok(t, RESET_PATH, None).await
    }

    /// Sends a `POST` to the control API; whether it answered 2xx.
    async fn post_ok(
        &self,
        t: &Transport,
        path: &str,
        body: Option<Value>,
    ) -> Result<bool, TransportError> {
        let mut spec = RequestSpec::post(path);
        if let Some(body) = body {
            spec = spec.json(body);
        }
        Ok(t.send(&spec, 0).await?.status.is_success())
    }

    /// Moves time forward by `by`: the mock's clock when there is one and it takes it; nothing
    /// on a target that answers from a recording (its states come one per poll); else a real
    /// wait. `false`, without waiting, when that wait would reach the run's deadline.
    pub async fn pass_time(
        mock: Option<&MockControl>,
        t: &Transport,
        by: Duration,
    ) -> Result<bool, TransportError> {
        if let Some(m) = mock
            && m.advance(t, by).await?
        {
            return Ok(true);
        }
        if t.answers_from_recording() {
            return Ok(true);
        }
        if t.wait_reaches_deadline(by) {
            return Ok(false);
        }
        tokio::time::sleep(by).await;
        Ok(true)
    }
}

/// The account a run works as on the mock: the one of the given user id (`--user-id`), else
/// the one with the lowest id (account 1 of the fixtures).
pub fn pick_account(accounts: &[Account], user_id: Option<i64>) -> Option<&Account> {
    match user_id {
        Some(id) => accounts.iter().find(|a| a.id == id),
        None => accounts.iter().min_by_key(|a| a.id),
    }
}

/// Wall-clock Unix seconds.
pub fn wall_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn account(id: i64) -> Account {
        Account {
            id,
            username: format!("user{id}"),
            access_token: format!("token{id}"),
            groups: Vec::new(),
        }
    }

    /// One rule for `check` and `diff`: the given user id's account (none when it is not
    /// there), else the lowest id, whatever the order of the list.
    #[test]
    fn the_run_works_as_the_given_user_else_the_lowest_id() {
        let accounts = [account(2), account(1), account(5)];
        assert_eq!(pick_account(&accounts, None).map(|a| a.id), Some(1));
        assert_eq!(pick_account(&accounts, Some(2)).map(|a| a.id), Some(2));
        assert_eq!(pick_account(&accounts, Some(7)).map(|a| a.id), None);
        assert_eq!(pick_account(&[], None).map(|a| a.id), None);
    }
}
