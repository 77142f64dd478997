//! Prices in quota units.

use crate::types::Pricing;

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
