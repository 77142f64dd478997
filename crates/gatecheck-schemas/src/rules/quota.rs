//! Prices in quota units.

use crate::rules::key::{charge, ChargeOutcome};
use crate::types::{KeyRecord, Pricing};

/// Quota units per 1 USD of catalog price.
pub const QUOTA_PER_USD: i64 = 500_000;

/// What one request uses, to be priced against a model's [`Pricing`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    /// Number of requests (normally 1).
    pub requests: i64,
    /// Seconds of media (video duration, audio length).
    pub seconds: f64,
    /// Input tokens (or characters, for speech).
    pub input_tokens: i64,
    /// Output tokens.
    pub output_tokens: i64,
}

impl Usage {
    /// One request and nothing else.
    ///
    /// ```
    /// let u = gatecheck_schemas::rules::quota::Usage::one_request();
    /// assert_eq!((u.requests, u.seconds), (1, 0.0));
    /// ```
    pub fn one_request() -> Self {
        Self {
            requests: 1,
            ..Self::default()
        }
    }
}

/// The price of `usage` in quota units: `per_request` × requests, plus `per_second` × seconds,
/// plus tokens × the `input`/`output` price per million. Null prices count as zero; the total
/// is rounded up to a whole unit (a priced request never costs 0).
///
/// ```
/// use gatecheck_schemas::rules::quota::{price_quota, Usage};
/// use gatecheck_schemas::types::Pricing;
/// let p = Pricing { currency: "USD".into(), input: None, output: None,
///                   per_request: Some(0.04), per_second: None };
/// assert_eq!(price_quota(&p, Usage::one_request()), 20_000);
/// let v = Pricing { per_request: None, per_second: Some(0.1), ..p };
/// assert_eq!(price_quota(&v, Usage { seconds: 4.0, ..Usage::one_request() }), 200_000);
/// ```
pub fn price_quota(pricing: &Pricing, usage: Usage) -> i64 {
    let usd = pricing.per_request.unwrap_or(0.0) * usage.requests as f64
        + pricing.per_second.unwrap_or(0.0) * usage.seconds
        + pricing.input.unwrap_or(0.0) * usage.input_tokens as f64 / 1_000_000.0
        + pricing.output.unwrap_or(0.0) * usage.output_tokens as f64 / 1_000_000.0;
    let quota = usd * QUOTA_PER_USD as f64;
    // Round away float noise before taking the ceiling (0.04 × 500000 = 20000.000000000004).
    let rounded = (quota * 1e6).round() / 1e6;
    if rounded <= 0.0 || !rounded.is_finite() {
        0
    } else {
        rounded.ceil() as i64
    }
}

/// Whether charging `price` to the key read as `before` moved its counters to `after` as every
/// correct deployment does. The expectation is [`charge`] itself, the function the mock charges
/// with: `used_quota` grows by the price for every key, and `remain_quota` moves as `charge`
/// moves it (down by the price for a limited key, unchanged for an unlimited one). For an
/// unlimited key new-api's `decreaseTokenQuota` (model/token.go) also subtracts the price from
/// `remain_quota`; that is accepted too. `Err` says what moved wrongly.
///
/// ```
/// use gatecheck_schemas::rules::quota::check_charge;
/// # let key: gatecheck_schemas::types::KeyRecord = serde_json::from_value(serde_json::json!({
/// #   "id":1,"user_id":1,"key":"k","status":1,"name":"","created_time":0,"accessed_time":0,
/// #   "expired_time":-1,"remain_quota":100,"unlimited_quota":false,"model_limits_enabled":false,
/// #   "model_limits":"","allow_ips":null,"used_quota":0,"group":"","cross_group_retry":false
/// # })).unwrap();
/// let moved = |remain, used| gatecheck_schemas::types::KeyRecord {
///     remain_quota: remain, used_quota: used, ..key.clone()
/// };
/// let unlimited = gatecheck_schemas::types::KeyRecord { unlimited_quota: true, ..key.clone() };
/// assert!(check_charge(&key, 10, &moved(90, 10)).is_ok());
/// assert!(check_charge(&unlimited, 10, &moved(100, 10)).is_ok());
/// assert!(check_charge(&unlimited, 10, &moved(90, 10)).is_ok());
/// assert!(check_charge(&key, 10, &moved(100, 10)).is_err());
/// assert!(check_charge(&unlimited, 10, &moved(100, 0)).is_err());
/// assert!(check_charge(&key, 200, &moved(-100, 200)).is_err()); // it could not pay
/// ```
pub fn check_charge(before: &KeyRecord, price: i64, after: &KeyRecord) -> Result<(), String> {
    let mut expected = before.clone();
    if charge(&mut expected, price, before.accessed_time) == ChargeOutcome::Insufficient {
        return Err(format!(
            "a request costing {price} was accepted on a limited key with remain_quota {}",
            before.remain_quota
        ));
    }
    if after.used_quota != expected.used_quota {
        return Err(format!(
            "used_quota grew by {}, not by the price {price} ({} -> {})",
            after.used_quota - before.used_quota,
            before.used_quota,
            after.used_quota
        ));
    }
    let new_api_unlimited =
        before.unlimited_quota && after.remain_quota == before.remain_quota - price;
    if after.remain_quota != expected.remain_quota && !new_api_unlimited {
        let want = if before.unlimited_quota {
            format!("0 or {price} (new-api)")
        } else {
            price.to_string()
        };
        return Err(format!(
            "remain_quota of a {} key fell by {}, expected {want} ({} -> {})",
            if before.unlimited_quota {
                "unlimited"
            } else {
                "limited"
            },
            before.remain_quota - after.remain_quota,
            before.remain_quota,
            after.remain_quota
        ));
    }
    Ok(())
}
