//! The ratio the working key's group is charged at, learned as a client can learn it
//! (DECISIONS D-STREAM-7, D-CATALOG-2): `--group-ratio` when given; else `group_ratio` of
//! `GET /api/pricing` (new-api controller/pricing.go GetPricing) for the key's group (its
//! own `group`, else `default`); else unknown, and the checks that judge a charge infer one
//! ratio from the run's own charges (`rules::quota::one_ratio`).

use crate::http::client::{Auth, RequestSpec};
use crate::http::transport::Transport;
use gatecheck_schemas::rules::quota::charged_group;
use serde_json::Value;

/// The ratio of the working key's group, and where it comes from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GroupRatio {
    /// The ratio, when known (`None`: inferred by the checks from the run's charges).
    pub ratio: Option<f64>,
    /// The group it is the ratio of.
    pub group: String,
    /// Where it came from, for the report (`--group-ratio`, `GET /api/pricing`, or why not).
    pub source: String,
}

impl GroupRatio {
    /// No key, no ratio: every charge is judged at the catalog price's one inferred ratio.
    pub(crate) fn unknown(why: impl Into<String>) -> Self {
        Self {
            ratio: None,
            group: String::new(),
            source: why.into(),
        }
    }

    /// The ratio to price with (1 when unknown: the catalog price).
    pub(crate) fn or_one(&self) -> f64 {
        self.ratio.unwrap_or(1.0)
    }
}

/// The ratio of `group` in a `GET /api/pricing` answer, if it names one (a finite number, 0 or
/// more).
///
/// ```ignore
/// let v = serde_json::json!({"success": true, "group_ratio": {"default": 1, "vip": 2}});
/// assert_eq!(ratio_in(&v, "vip"), Some(2.0));
/// ```
pub(crate) fn ratio_in(answer: &Value, group: &str) -> Option<f64> {
    if answer.get("success").and_then(Value::as_bool) != Some(true) {
        return None;
    }
    answer
        .get("group_ratio")?
        .get(group)?
        .as_f64()
        .filter(|r| r.is_finite() && *r >= 0.0)
}

/// Learns the ratio of the key in `key_group`: `flag` (`--group-ratio`), else `GET
/// /api/pricing` (with the access token when there is one: new-api reads a dashboard session
/// only, and answers the anonymous caller's groups, which hold every default group).
pub(crate) async fn learn(
    t: &Transport,
    flag: Option<f64>,
    key_group: &str,
    token: bool,
) -> GroupRatio {
    let group = charged_group(key_group).to_owned();
    if let Some(r) = flag {
        return GroupRatio {
            ratio: Some(r),
            group,
            source: "--group-ratio".into(),
        };
    }
    let mut spec = RequestSpec::get("/api/pricing");
    if token {
        spec = spec.auth(Auth::AccessToken);
    }
    let answer = match t.send(&spec, 0).await {
        Ok(ex) if ex.status.is_success() => ex.json(),
        Ok(ex) => {
            return GroupRatio {
                ratio: None,
                group,
                source: format!("GET /api/pricing answered {}", ex.status),
            }
        }
        Err(e) => {
            return GroupRatio {
                ratio: None,
                group,
                source: format!("GET /api/pricing failed: {e}"),
            }
        }
    };
    match answer.as_ref().and_then(|v| ratio_in(v, &group)) {
        Some(r) => GroupRatio {
            ratio: Some(r),
            source: "GET /api/pricing group_ratio".into(),
            group,
        },
        None => GroupRatio {
            ratio: None,
            source: format!("GET /api/pricing names no ratio for group {group:?}"),
            group,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_ratio_is_read_for_the_keys_group_only_from_a_successful_answer() {
        let v = json!({"success": true, "group_ratio": {"default": 1, "vip": 0.8}});
        assert_eq!(ratio_in(&v, "vip"), Some(0.8));
        assert_eq!(ratio_in(&v, "default"), Some(1.0));
        assert_eq!(ratio_in(&v, "svip"), None);
        assert_eq!(
            ratio_in(&json!({"success": false, "group_ratio": {"vip": 2}}), "vip"),
            None
        );
        assert_eq!(
            ratio_in(
                &json!({"success": true, "group_ratio": {"vip": "2"}}),
                "vip"
            ),
            None
        );
        assert_eq!(
            ratio_in(&json!({"success": true, "group_ratio": {"vip": -1}}), "vip"),
            None
        );
    }
}
