//! Admitting a key on a model route: status, expiry, quota, and model limits.

use super::Rejection;
use crate::types::{
    KeyRecord, KEY_STATUS_DISABLED, KEY_STATUS_ENABLED, KEY_STATUS_EXHAUSTED, KEY_STATUS_EXPIRED,
};
use crate::Profile;

/// Why a key is refused before its request is looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyRejection {
    /// Status 2, or any status other than 1, 3 and 4.
    Disabled,
    /// Status 3 (stored), or a past `expired_time` (found now).
    Expired,
    /// Status 4 (stored), or remaining quota ≤ 0 while not unlimited (found now).
    Exhausted,
}

impl KeyRejection {
    /// The [`Rejection`] of this refusal (all answer 401).
    ///
    /// ```
    /// use gatecheck_schemas::rules::{key::KeyRejection, Rejection};
    /// assert_eq!(KeyRejection::Disabled.rejection(), Rejection::KeyDisabled);
    /// ```
    pub fn rejection(self) -> Rejection {
        match self {
            Self::Disabled => Rejection::KeyDisabled,
            Self::Expired => Rejection::KeyExpired,
            Self::Exhausted => Rejection::KeyExhausted,
        }
    }

    /// The status the service stores on the key when use finds it so, as new-api's
    /// `ValidateUserToken` does: 3 for a past expiry, 4 for no quota left. `None` when the
    /// stored status already says why.
    ///
    /// ```
    /// # let mut key: gatecheck_schemas::types::KeyRecord = serde_json::from_value(serde_json::json!({
    /// #   "id":1,"user_id":1,"key":"k","status":1,"name":"","created_time":0,"accessed_time":0,
    /// #   "expired_time":-1,"remain_quota":0,"unlimited_quota":false,"model_limits_enabled":true,
    /// #   "model_limits":" tts-1, ,whisper-1","allow_ips":null,"used_quota":0,"group":"",
    /// #   "cross_group_retry":false
    /// # })).unwrap();
    /// use gatecheck_schemas::rules::key::{admit, KeyRejection};
    /// let why = admit(&key, 0).unwrap_err();
    /// assert_eq!(why, KeyRejection::Exhausted);
    /// assert_eq!(why.status_effect(&key), Some(4));
    /// ```
    pub fn status_effect(self, key: &KeyRecord) -> Option<i64> {
        match self {
            Self::Expired if key.status == KEY_STATUS_ENABLED => Some(KEY_STATUS_EXPIRED),
            Self::Exhausted if key.status == KEY_STATUS_ENABLED => Some(KEY_STATUS_EXHAUSTED),
            _ => None,
        }
    }
}

/// Whether `expired_time` is past at `now` (`-1` never expires): strictly before `now`, as
/// new-api's `ValidateUserToken` (model/token.go) admits keys. A key whose `expired_time` is
/// `now` is still valid. Admission ([`admit`]) and the refusal to enable an expired key
/// ([`crate::rules::token::apply_update`]) both use it, so they agree at the boundary (new-api's
/// update controller compares with `<=` there; the one-second difference is not observable
/// through the spec).
///
/// ```
/// use gatecheck_schemas::rules::key::is_past_expiry;
/// assert!(is_past_expiry(100, 200));
/// assert!(is_past_expiry(199, 200));
/// assert!(!is_past_expiry(200, 200)); // the boundary: not yet past
/// assert!(!is_past_expiry(-1, 200));
/// assert!(!is_past_expiry(300, 200));
/// ```
pub fn is_past_expiry(expired_time: i64, now: i64) -> bool {
    expired_time != -1 && expired_time < now
}

/// Admits a key at `now` (Unix seconds), in new-api's order: stored status, then expiry, then
/// remaining quota.
///
/// ```
/// use gatecheck_schemas::rules::key::{admit, KeyRejection};
/// # let mut key: gatecheck_schemas::types::KeyRecord = serde_json::from_value(serde_json::json!({
/// #   "id":1,"user_id":1,"key":"k","status":1,"name":"","created_time":0,"accessed_time":0,
/// #   "expired_time":-1,"remain_quota":10,"unlimited_quota":false,"model_limits_enabled":false,
/// #   "model_limits":"","allow_ips":null,"used_quota":0,"group":"","cross_group_retry":false
/// # })).unwrap();
/// assert_eq!(admit(&key, 1000), Ok(()));
/// key.expired_time = 999;
/// assert_eq!(admit(&key, 1000), Err(KeyRejection::Expired));
/// key.expired_time = -1;
/// key.remain_quota = 0;
/// assert_eq!(admit(&key, 1000), Err(KeyRejection::Exhausted));
/// key.unlimited_quota = true;
/// assert_eq!(admit(&key, 1000), Ok(()));
/// ```
pub fn admit(key: &KeyRecord, now: i64) -> Result<(), KeyRejection> {
    match key.status {
        KEY_STATUS_ENABLED => {}
        KEY_STATUS_EXPIRED => return Err(KeyRejection::Expired),
        KEY_STATUS_EXHAUSTED => return Err(KeyRejection::Exhausted),
        KEY_STATUS_DISABLED => return Err(KeyRejection::Disabled),
        _ => return Err(KeyRejection::Disabled),
    }
    if is_past_expiry(key.expired_time, now) {
        return Err(KeyRejection::Expired);
    }
    if !key.unlimited_quota && key.remain_quota <= 0 {
        return Err(KeyRejection::Exhausted);
    }
    Ok(())
}

/// The model identifiers of `model_limits` (comma-separated; entries trimmed, empty ones
/// skipped).
///
/// ```
/// # let mut key: gatecheck_schemas::types::KeyRecord = serde_json::from_value(serde_json::json!({
/// #   "id":1,"user_id":1,"key":"k","status":1,"name":"","created_time":0,"accessed_time":0,
/// #   "expired_time":-1,"remain_quota":0,"unlimited_quota":false,"model_limits_enabled":true,
/// #   "model_limits":" tts-1, ,whisper-1","allow_ips":null,"used_quota":0,"group":"",
/// #   "cross_group_retry":false
/// # })).unwrap();
/// assert_eq!(gatecheck_schemas::rules::key::model_limits(&key), vec!["tts-1", "whisper-1"]);
/// ```
pub fn model_limits(key: &KeyRecord) -> Vec<&str> {
    key.model_limits
        .split(',')
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .collect()
}

/// Whether the key may use `model`: always when `model_limits_enabled` is false, or when
/// `model_limits` lists no model (the spec: "empty string means no restriction"); otherwise
/// the model must be listed.
///
/// ```
/// use gatecheck_schemas::rules::key::model_allowed;
/// # let mut key: gatecheck_schemas::types::KeyRecord = serde_json::from_value(serde_json::json!({
/// #   "id":1,"user_id":1,"key":"k","status":1,"name":"","created_time":0,"accessed_time":0,
/// #   "expired_time":-1,"remain_quota":10,"unlimited_quota":false,"model_limits_enabled":true,
/// #   "model_limits":"tts-1,whisper-1","allow_ips":null,"used_quota":0,"group":"",
/// #   "cross_group_retry":false
/// # })).unwrap();
/// assert!(model_allowed(&key, "tts-1"));
/// assert!(!model_allowed(&key, "sora-2"));
/// key.model_limits_enabled = false;
/// assert!(model_allowed(&key, "sora-2"));
/// key.model_limits_enabled = true;
/// key.model_limits = String::new();
/// assert!(model_allowed(&key, "sora-2")); // enabled but empty: no restriction
/// ```
pub fn model_allowed(key: &KeyRecord, model: &str) -> bool {
    if !key.model_limits_enabled {
        return true;
    }
    // Real new-api denies every model here: its limit map of "" holds no model (or only ""
    // in older versions; model/token.go GetModelLimitsMap), and with limits enabled the
    // request's model must be in that map (middleware/distributor.go). The spec's letter
    // says "empty string means no restriction", and DECISIONS.md does not list this as a
    // profile difference, so both profiles of the mock follow the spec, and the runner
    // (which uses this function as its oracle) flags a deployment that refuses here.
    let listed = model_limits(key);
    listed.is_empty() || listed.contains(&model)
}

/// [`model_allowed`] under `profile`: in `new-api` an enabled but empty `model_limits` refuses
/// every model (DECISIONS NA1: new-api sets an empty limit map, and the distributor finds no
/// model in it); `documented` follows the spec (no restriction).
///
/// ```
/// # let mut key: gatecheck_schemas::types::KeyRecord = serde_json::from_value(serde_json::json!({
/// #   "id":1,"user_id":1,"key":"k","status":1,"name":"","created_time":0,"accessed_time":0,
/// #   "expired_time":-1,"remain_quota":10,"unlimited_quota":false,"model_limits_enabled":true,
/// #   "model_limits":"","allow_ips":null,"used_quota":0,"group":"","cross_group_retry":false
/// # })).unwrap();
/// use gatecheck_schemas::{rules::key::model_allowed_in, Profile};
/// assert!(model_allowed_in(&key, "sora-2", Profile::Documented));
/// assert!(!model_allowed_in(&key, "sora-2", Profile::NewApi));
/// ```
pub fn model_allowed_in(key: &KeyRecord, model: &str, profile: Profile) -> bool {
    match profile {
        Profile::Documented => model_allowed(key, model),
        Profile::NewApi => !key.model_limits_enabled || model_limits(key).contains(&model),
    }
}

/// The outcome of charging a key `price` quota units (see [`charge`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChargeOutcome {
    /// Charged; the key's `remain_quota` and `used_quota` were updated.
    Charged,
    /// The remaining quota is lower than the price; nothing changed.
    Insufficient,
}

/// Charges `price` to `key` at `now`: refuses when not unlimited and `remain_quota < price`;
/// otherwise moves `price` from `remain_quota` to `used_quota` (unlimited keys keep their
/// `remain_quota`) and sets `accessed_time`. Call it under the lock that guards the key, so
/// check and debit are one atomic step.
///
/// ```
/// use gatecheck_schemas::rules::key::{charge, ChargeOutcome};
/// # let mut key: gatecheck_schemas::types::KeyRecord = serde_json::from_value(serde_json::json!({
/// #   "id":1,"user_id":1,"key":"k","status":1,"name":"","created_time":0,"accessed_time":0,
/// #   "expired_time":-1,"remain_quota":10,"unlimited_quota":false,"model_limits_enabled":false,
/// #   "model_limits":"","allow_ips":null,"used_quota":0,"group":"","cross_group_retry":false
/// # })).unwrap();
/// assert_eq!(charge(&mut key, 6, 5), ChargeOutcome::Charged);
/// assert_eq!((key.remain_quota, key.used_quota), (4, 6));
/// assert_eq!(charge(&mut key, 6, 5), ChargeOutcome::Insufficient);
/// ```
pub fn charge(key: &mut KeyRecord, price: i64, now: i64) -> ChargeOutcome {
    let price = price.max(0);
    if !key.unlimited_quota && key.remain_quota < price {
        return ChargeOutcome::Insufficient;
    }
    if !key.unlimited_quota {
        key.remain_quota -= price;
    }
    key.used_quota = key.used_quota.saturating_add(price);
    key.accessed_time = now;
    ChargeOutcome::Charged
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn key(enabled: bool, limits: &str) -> KeyRecord {
        KeyRecord {
            id: 1,
            user_id: 1,
            key: "k".into(),
            status: 1,
            name: String::new(),
            created_time: 0,
            accessed_time: 0,
            expired_time: -1,
            remain_quota: 10,
            unlimited_quota: false,
            model_limits_enabled: enabled,
            model_limits: limits.into(),
            allow_ips: None,
            used_quota: 0,
            group: String::new(),
            cross_group_retry: false,
        }
    }

    #[test]
    fn model_limits_enabled_with_empty_string_means_no_restriction() {
        for limits in ["", " ", ",", " , "] {
            let k = key(true, limits);
            for model in ["sora-2", "tts-1", "anything"] {
                assert!(model_allowed(&k, model), "{limits:?} must allow {model}");
            }
        }
    }

    proptest! {
        #[test]
        fn model_limits_allow_exactly_the_listed_models(
            enabled in any::<bool>(),
            list in proptest::collection::vec("[a-z0-9.-]{1,12}", 0..4),
            model in "[a-z0-9.-]{1,12}",
        ) {
            let k = key(enabled, &list.join(","));
            let expected = !enabled || list.is_empty() || list.contains(&model);
            prop_assert_eq!(model_allowed(&k, &model), expected);
        }
    }
}
