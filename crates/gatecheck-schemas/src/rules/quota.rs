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
    price_quota_at(pricing, usage, 1.0)
}

/// new-api's group whose ratio a key is charged at: the key's own `group`, else its user's
/// group, `default` for every user the mock and a fresh new-api have (relay/helper/price.go
/// HandleGroupRatio reads `relayInfo.UsingGroup`: the token's group, else the user's).
pub const DEFAULT_GROUP: &str = "default";

/// The group a key with `group` is charged in ([`DEFAULT_GROUP`] when it names none).
///
/// ```
/// use gatecheck_schemas::rules::quota::charged_group;
/// assert_eq!(charged_group(""), "default");
/// assert_eq!(charged_group("vip"), "vip");
/// ```
pub fn charged_group(group: &str) -> &str {
    if group.is_empty() {
        DEFAULT_GROUP
    } else {
        group
    }
}

/// The price of `usage` in quota units for a key whose group has ratio `group_ratio`:
/// new-api's `price x model ratio x group ratio` (relay/helper/price.go ModelPriceHelper:
/// `modelRatio * groupRatio` per token, ModelPriceHelperPerCall: `modelPrice * QuotaPerUnit *
/// groupRatio`), rounded up to a whole unit as [`price_quota`] rounds.
///
/// ```
/// use gatecheck_schemas::rules::quota::{price_quota_at, Usage};
/// use gatecheck_schemas::types::Pricing;
/// let p = Pricing { currency: "USD".into(), input: None, output: None,
///                   per_request: Some(0.04), per_second: None };
/// assert_eq!(price_quota_at(&p, Usage::one_request(), 2.0), 40_000);
/// assert_eq!(price_quota_at(&p, Usage::one_request(), 0.8), 16_000);
/// ```
pub fn price_quota_at(pricing: &Pricing, usage: Usage, group_ratio: f64) -> i64 {
    let ratio = if group_ratio.is_finite() && group_ratio >= 0.0 {
        group_ratio
    } else {
        1.0
    };
    let usd = pricing.per_request.unwrap_or(0.0) * usage.requests as f64
        + pricing.per_second.unwrap_or(0.0) * usage.seconds
        + pricing.input.unwrap_or(0.0) * usage.input_tokens as f64 / 1_000_000.0
        + pricing.output.unwrap_or(0.0) * usage.output_tokens as f64 / 1_000_000.0;
    let quota = usd * QUOTA_PER_USD as f64 * ratio;
    // Round away float noise before taking the ceiling (0.04 × 500000 = 20000.000000000004).
    let rounded = (quota * 1e6).round() / 1e6;
    if rounded <= 0.0 || !rounded.is_finite() {
        0
    } else {
        rounded.ceil() as i64
    }
}

/// new-api's quota of a task submit: the price of `usage` at `group_ratio`
/// ([`price_quota_at`]) times every billing ratio of the adaptor's `EstimateBilling` (the JSON
/// of `X-New-Api-Other-Ratios`; relay/relay_task.go@14639a76 RelayTaskSubmit multiplies each
/// one into the quota). A `seconds` ratio is the rendered duration: it is the usage's seconds
/// for a price per second, and multiplies a price per call (new-api's model price times
/// seconds). A ratio that is not a finite number of 0 or more is left out. The mock charges
/// with this and the runner judges charges with it (DECISIONS D-PLAT-9).
///
/// ```
/// use gatecheck_schemas::rules::quota::{task_quota, Usage};
/// use gatecheck_schemas::types::Pricing;
/// let call = Pricing { currency: "USD".into(), input: None, output: None,
///                      per_request: Some(0.2), per_second: None };
/// let none = serde_json::Map::new();
/// assert_eq!(task_quota(&call, Usage::one_request(), &none, 1.0), 100_000);
/// let r = serde_json::json!({"video_input": 0.5});
/// assert_eq!(task_quota(&call, Usage::one_request(), r.as_object().unwrap(), 1.0), 50_000);
/// let second = Pricing { per_request: None, per_second: Some(0.1), ..call.clone() };
/// let r = serde_json::json!({"seconds": 4, "resolution-720P": 2.0});
/// assert_eq!(task_quota(&second, Usage::one_request(), r.as_object().unwrap(), 1.0), 400_000);
/// let r = serde_json::json!({"seconds": 4});
/// assert_eq!(task_quota(&call, Usage::one_request(), r.as_object().unwrap(), 1.0), 400_000);
/// ```
pub fn task_quota(
    pricing: &Pricing,
    usage: Usage,
    ratios: &serde_json::Map<String, serde_json::Value>,
    group_ratio: f64,
) -> i64 {
    let mut usage = usage;
    let mut scale = 1.0;
    for (k, v) in ratios {
        let Some(v) = v.as_f64().filter(|v| v.is_finite() && *v >= 0.0) else {
            continue;
        };
        if k == "seconds" && pricing.per_second.is_some() {
            usage.seconds = v;
        } else {
            scale *= v;
        }
    }
    let quota = price_quota_at(pricing, usage, group_ratio) as f64 * scale;
    // Round away float noise before rounding to a whole unit.
    ((quota * 1e6).round() / 1e6).round() as i64
}

/// One ratio that explains every `(catalog price, charge)` pair within rounding, as new-api
/// charges a key: every request at its catalog price times the one ratio of the key's group
/// ([`price_quota_at`]). The ratio is read off the dearest pair (the least rounding), and every
/// pair must then be charged that ratio of its price within one unit plus the rounding the
/// ratio carries (`price / dearest`). `Err` gives the index of the first pair that another
/// ratio prices, and why: a double charge on some routes only, or a charge that drifts from
/// one request to the next.
///
/// ```
/// use gatecheck_schemas::rules::quota::one_ratio;
/// assert_eq!(one_ratio(&[(100, 200), (40, 80), (7, 14)]), Ok(2.0));
/// assert_eq!(one_ratio(&[(100, 80), (41, 33)]), Ok(0.8));
/// assert!(one_ratio(&[(100, 200), (40, 160)]).is_err()); // one route charged twice over
/// assert!(one_ratio(&[]).is_err());
/// ```
pub fn one_ratio(pairs: &[(i64, i64)]) -> Result<f64, (usize, String)> {
    let Some(&(dearest, charged)) = pairs.iter().filter(|p| p.0 > 0).max_by_key(|p| p.0) else {
        return Err((0, "no priced request to read a ratio from".into()));
    };
    let ratio = charged as f64 / dearest as f64;
    for (i, &(price, got)) in pairs.iter().enumerate().filter(|(_, p)| p.0 > 0) {
        let want = price as f64 * ratio;
        let slack = 1.0 + price as f64 / dearest as f64 + ratio;
        if (got as f64 - want).abs() > slack {
            return Err((
                i,
                format!(
                    "a request priced {price} was charged {got}, not {want:.0}: the ratio \
                     {ratio:.4} that a request priced {dearest} was charged ({charged}) does \
                     not explain it"
                ),
            ));
        }
    }
    Ok(ratio)
}

/// The quota a limited key is given to ask once more about a run whose every priced request
/// was charged 0 with no group ratio published or given (see [`read_zero_charge`]).
pub const ZERO_CHARGE_PROBE_QUOTA: i64 = 1;

/// What one request, sent on a limited key holding [`ZERO_CHARGE_PROBE_QUOTA`], tells of a run
/// whose every priced request was charged 0. A group ratio of 0 is new-api's free group
/// (relay/helper/price.go ModelPriceHelper, ModelPriceHelperPerCall: `GroupRatio == 0` makes
/// the request `freeModel`, pre-consumed and charged 0), and service/pre_consume_quota.go
/// PreConsumeQuota checks the key's quota only for a price over 0: a free group serves it. A
/// group that prices the request refuses it for want of quota (403
/// `pre_consume_token_quota_failed`): the service prices what it charged nothing for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZeroCharge {
    /// Served: a free group (ratio 0), as new-api charges one; nothing to compare a usage to.
    FreeGroup,
    /// Refused for want of quota: the service prices the request, yet charged it 0.
    PricedUncharged,
    /// Neither: nothing to tell a free group from no charge by.
    Unknown,
}

/// Reads the answer to the request of [`ZeroCharge`]: `served` (2xx) or `refused_for_quota`
/// (the service's insufficient-quota refusal).
///
/// ```
/// use gatecheck_schemas::rules::quota::{read_zero_charge, ZeroCharge};
/// assert_eq!(read_zero_charge(true, false), ZeroCharge::FreeGroup);
/// assert_eq!(read_zero_charge(false, true), ZeroCharge::PricedUncharged);
/// assert_eq!(read_zero_charge(false, false), ZeroCharge::Unknown);
/// ```
pub fn read_zero_charge(served: bool, refused_for_quota: bool) -> ZeroCharge {
    match (served, refused_for_quota) {
        (true, _) => ZeroCharge::FreeGroup,
        (false, true) => ZeroCharge::PricedUncharged,
        (false, false) => ZeroCharge::Unknown,
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
