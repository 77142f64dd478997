//! `PUT /api/token/`: the checks in the order of DECISIONS.md, and the update itself.
//!
//! Besides DECISIONS.md's five checks, the spec's value ranges are enforced right after
//! check 2 (and before the key is looked up): `status` must be 1, 2, 3 or 4, and
//! `expired_time` -1 or a Unix timestamp >= 0. Like checks 1 and 2 they need no stored key,
//! and they are the same in both profiles.
//!
//! Every failure is an HTTP 200 `{success:false, message}`; [`UpdateFailure::message`] is the
//! message text.

use crate::rules::key::is_past_expiry;
use crate::types::{
    KeyRecord, TokenUpdateRequest, KEY_STATUS_ENABLED, KEY_STATUS_EXHAUSTED, KEY_STATUS_EXPIRED,
};
use crate::Profile;

/// The longest key name: 50 Unicode characters (deployed: 50 UTF-8 bytes).
pub const MAX_NAME_LEN: usize = 50;

/// The message of a name over [`MAX_NAME_LEN`].
pub const MSG_NAME_TOO_LONG: &str = "token name is too long";
/// new-api's message of a name over [`MAX_NAME_LEN`] (DECISIONS NA12).
pub const MSG_NAME_TOO_LONG_NEW_API: &str = "Token name is too long";
/// The largest `remain_quota` new-api accepts: 10^9 USD × 500000 (`maxTokenQuota`, NA12).
pub const MAX_REMAIN_QUOTA_NEW_API: i64 = 1_000_000_000 * 500_000;
/// What the message of a group the account may not use contains (followed by the group).
pub const MSG_NO_ACCESS_TO_GROUP: &str = "no access to group";
/// The message of a negative `remain_quota`.
pub const MSG_QUOTA_NEGATIVE: &str = "Quota value cannot be negative";
/// The message of a `status` other than 1, 2, 3 or 4 (followed by the value).
pub const MSG_STATUS_INVALID: &str = "invalid token status, it must be 1, 2, 3 or 4";
/// The message of an `expired_time` below -1 (followed by the value).
pub const MSG_EXPIRED_TIME_INVALID: &str =
    "invalid expired_time, it must be -1 (never expires) or a Unix timestamp >= 0";
/// The message of an unknown id or another user's key.
pub const MSG_NOT_FOUND: &str = "record not found";
/// A key id no deployment can hold (ids are positive, from an autoincrement). The runner names
/// it in every update it sends without proven credentials (a missing or wrong access token, a
/// route probe), so a target whose auth is broken still changes no key.
pub const IMPOSSIBLE_KEY_ID: i64 = -1;
/// The message of enabling an expired key.
pub const MSG_EXPIRED_CANNOT_ENABLE: &str = "Token has expired and cannot be enabled. Please modify the expiration time or set it to never expire";
/// The message of enabling an exhausted key.
pub const MSG_EXHAUSTED_CANNOT_ENABLE: &str = "Token quota is exhausted and cannot be enabled. Please modify the remaining quota or set it to unlimited";

/// Why an update is refused, in check order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpdateFailure {
    /// 1. The name is too long.
    NameTooLong,
    /// 2. `remain_quota < 0` while not unlimited.
    QuotaNegative,
    /// 2a. A `status` other than 1, 2, 3 or 4 (the spec's enum).
    StatusInvalid(i64),
    /// 2b. An `expired_time` that is neither -1 nor a Unix timestamp (>= 0).
    ExpiredTimeInvalid(i64),
    /// 2c. `new-api` only: `remain_quota` above [`MAX_REMAIN_QUOTA_NEW_API`] (NA12).
    QuotaExceedsMax,
    /// 3. Unknown id, or another user's key (decided by the caller, see [`check_request`]).
    NotFound,
    /// 4. A non-empty group the account may not use.
    NoAccessToGroup(String),
    /// 5a. Enabling a key stored as expired with a past expiry.
    ExpiredCannotEnable,
    /// 5b. Enabling a key stored as exhausted with no quota left.
    ExhaustedCannotEnable,
}

impl UpdateFailure {
    /// The `message` of the failure envelope.
    ///
    /// ```
    /// use gatecheck_schemas::rules::token::UpdateFailure;
    /// assert!(UpdateFailure::NoAccessToGroup("x".into()).message().contains("no access to group"));
    /// ```
    pub fn message(&self) -> String {
        self.message_in(Profile::Documented)
    }

    /// The `message` of the failure envelope under `profile` (new-api's own wording: NA12).
    ///
    /// ```
    /// use gatecheck_schemas::{rules::token::UpdateFailure, Profile};
    /// assert_eq!(UpdateFailure::NameTooLong.message_in(Profile::NewApi), "Token name is too long");
    /// ```
    pub fn message_in(&self, profile: Profile) -> String {
        if profile == Profile::NewApi && *self == Self::NameTooLong {
            return MSG_NAME_TOO_LONG_NEW_API.to_owned();
        }
        match self {
            Self::NameTooLong => MSG_NAME_TOO_LONG.to_owned(),
            Self::QuotaNegative => MSG_QUOTA_NEGATIVE.to_owned(),
            Self::QuotaExceedsMax => {
                format!("Quota value exceeds valid range, maximum is {MAX_REMAIN_QUOTA_NEW_API}")
            }
            Self::StatusInvalid(v) => format!("{MSG_STATUS_INVALID}: got {v}"),
            Self::ExpiredTimeInvalid(v) => format!("{MSG_EXPIRED_TIME_INVALID}: got {v}"),
            Self::NotFound => MSG_NOT_FOUND.to_owned(),
            Self::NoAccessToGroup(g) => format!("{MSG_NO_ACCESS_TO_GROUP} {g}"),
            Self::ExpiredCannotEnable => MSG_EXPIRED_CANNOT_ENABLE.to_owned(),
            Self::ExhaustedCannotEnable => MSG_EXHAUSTED_CANNOT_ENABLE.to_owned(),
        }
    }
}

/// What an update needs besides the key and the request.
#[derive(Debug, Clone, Copy)]
pub struct UpdateContext<'a> {
    /// The behaviour profile.
    pub profile: Profile,
    /// Now, Unix seconds.
    pub now: i64,
    /// The groups the account may put on its keys.
    pub account_groups: &'a [String],
    /// Whether `?status_only=` was given (any non-empty value).
    pub status_only: bool,
}

/// Whether a name is over the limit: Unicode characters in `documented`, UTF-8 bytes in
/// `new-api`.
///
/// ```
/// use gatecheck_schemas::{rules::token::name_too_long, Profile};
/// let name = "é".repeat(30); // 30 characters, 60 bytes
/// assert!(!name_too_long(&name, Profile::Documented));
/// assert!(name_too_long(&name, Profile::NewApi));
/// ```
pub fn name_too_long(name: &str, profile: Profile) -> bool {
    match profile {
        Profile::Documented => name.chars().count() > MAX_NAME_LEN,
        Profile::NewApi => name.len() > MAX_NAME_LEN,
    }
}

/// Checks 1 and 2, which need no stored key: the name length and a negative quota; then the
/// spec's value ranges: `status` one of 1, 2, 3, 4 (2a) and `expired_time` -1 or a Unix
/// timestamp >= 0 (2b). The ranges are checked the same way in both profiles, with or
/// without `status_only`, whenever the field is present, in `documented`. `new-api` makes no
/// range checks (NA11) but refuses a `remain_quota` above [`MAX_REMAIN_QUOTA_NEW_API`] (NA12).
///
/// ```
/// use gatecheck_schemas::rules::token::{check_request, UpdateFailure};
/// use gatecheck_schemas::{types::TokenUpdateRequest, Profile};
/// let req = TokenUpdateRequest { id: 1, remain_quota: Some(-1), ..Default::default() };
/// assert_eq!(check_request(&req, Profile::Documented), Err(UpdateFailure::QuotaNegative));
/// let req = TokenUpdateRequest { id: 1, status: Some(9), ..Default::default() };
/// assert_eq!(check_request(&req, Profile::Documented), Err(UpdateFailure::StatusInvalid(9)));
/// assert_eq!(check_request(&req, Profile::NewApi), Ok(()));
/// let req = TokenUpdateRequest { id: 1, expired_time: Some(-5), ..Default::default() };
/// assert_eq!(check_request(&req, Profile::Documented), Err(UpdateFailure::ExpiredTimeInvalid(-5)));
/// ```
pub fn check_request(req: &TokenUpdateRequest, profile: Profile) -> Result<(), UpdateFailure> {
    if name_too_long(req.name.as_deref().unwrap_or(""), profile) {
        return Err(UpdateFailure::NameTooLong);
    }
    if !req.unlimited_quota.unwrap_or(false) && req.remain_quota.unwrap_or(0) < 0 {
        return Err(UpdateFailure::QuotaNegative);
    }
    if profile == Profile::NewApi {
        if !req.unlimited_quota.unwrap_or(false)
            && req.remain_quota.unwrap_or(0) > MAX_REMAIN_QUOTA_NEW_API
        {
            return Err(UpdateFailure::QuotaExceedsMax);
        }
        return Ok(());
    }
    if let Some(status) = req.status.filter(|s| !is_valid_status(*s)) {
        return Err(UpdateFailure::StatusInvalid(status));
    }
    if let Some(t) = req.expired_time.filter(|t| !is_valid_expired_time(*t)) {
        return Err(UpdateFailure::ExpiredTimeInvalid(t));
    }
    Ok(())
}

/// Whether `status` is one the spec allows: 1, 2, 3 or 4.
///
/// ```
/// use gatecheck_schemas::rules::token::is_valid_status;
/// assert!(is_valid_status(4) && !is_valid_status(0) && !is_valid_status(9));
/// ```
pub fn is_valid_status(status: i64) -> bool {
    (1..=4).contains(&status)
}

/// Whether `expired_time` is one the spec allows: -1 (never) or a Unix timestamp (>= 0).
///
/// ```
/// use gatecheck_schemas::rules::token::is_valid_expired_time;
/// assert!(is_valid_expired_time(-1) && is_valid_expired_time(0) && !is_valid_expired_time(-5));
/// ```
pub fn is_valid_expired_time(expired_time: i64) -> bool {
    expired_time >= -1
}

/// Applies `req` to `current` (the caller found it, and it belongs to the account), running
/// checks 1, 2, 4 and 5, and returns the updated record.
///
/// - Without `status_only`, every editable field is taken from the body, and omitted fields are
///   reset to their zero values (`expired_time` 0, `remain_quota` 0, `""`, `false`, and
///   `allow_ips` null). `status` is taken from the body when present in `documented`, and
///   ignored in `new-api`. A group other than `auto` clears `cross_group_retry`.
/// - With `status_only`, only `status` changes (left as is when the body has none; written as
///   0 in `new-api`, NA12). `new-api` checks no group (NA12).
///
/// ```
/// use gatecheck_schemas::rules::token::{apply_update, UpdateContext};
/// use gatecheck_schemas::types::TokenUpdateRequest;
/// use gatecheck_schemas::Profile;
/// # let key: gatecheck_schemas::types::KeyRecord = serde_json::from_value(serde_json::json!({
/// #   "id":1,"user_id":1,"key":"k","status":1,"name":"old","created_time":0,"accessed_time":0,
/// #   "expired_time":-1,"remain_quota":10,"unlimited_quota":false,"model_limits_enabled":false,
/// #   "model_limits":"","allow_ips":null,"used_quota":0,"group":"","cross_group_retry":false
/// # })).unwrap();
/// let groups = vec!["default".to_string()];
/// let ctx = UpdateContext { profile: Profile::Documented, now: 0, account_groups: &groups,
///                           status_only: false };
/// let req = TokenUpdateRequest { id: 1, name: Some("new".into()), ..Default::default() };
/// let updated = apply_update(&key, &req, &ctx).unwrap();
/// assert_eq!(updated.name, "new");
/// assert_eq!(updated.expired_time, 0); // omitted: reset
/// assert_eq!(updated.remain_quota, 0);
/// ```
pub fn apply_update(
    current: &KeyRecord,
    req: &TokenUpdateRequest,
    ctx: &UpdateContext<'_>,
) -> Result<KeyRecord, UpdateFailure> {
    check_request(req, ctx.profile)?;
    // new-api checks no group on update (NA12).
    if let Some(group) = req
        .group
        .as_deref()
        .filter(|_| ctx.profile == Profile::Documented)
        && !group.is_empty()
        && group != "auto"
        && !ctx.account_groups.iter().any(|g| g == group)
    {
        return Err(UpdateFailure::NoAccessToGroup(group.to_owned()));
    }
    if req.status == Some(KEY_STATUS_ENABLED) {
        if current.status == KEY_STATUS_EXPIRED && is_past_expiry(current.expired_time, ctx.now) {
            return Err(UpdateFailure::ExpiredCannotEnable);
        }
        if current.status == KEY_STATUS_EXHAUSTED
            && current.remain_quota <= 0
            && !current.unlimited_quota
        {
            return Err(UpdateFailure::ExhaustedCannotEnable);
        }
    }
    let mut next = current.clone();
    if ctx.status_only {
        match (req.status, ctx.profile) {
            (Some(status), _) => next.status = status,
            // new-api binds the body into a struct: a missing `status` is 0 (NA12).
            (None, Profile::NewApi) => next.status = 0,
            (None, Profile::Documented) => {}
        }
        return Ok(next);
    }
    next.name = req.name.clone().unwrap_or_default();
    next.expired_time = req.expired_time.unwrap_or(0);
    next.remain_quota = req.remain_quota.unwrap_or(0);
    next.unlimited_quota = req.unlimited_quota.unwrap_or(false);
    next.model_limits_enabled = req.model_limits_enabled.unwrap_or(false);
    next.model_limits = req.model_limits.clone().unwrap_or_default();
    next.allow_ips = req.allow_ips.clone().flatten();
    next.group = req.group.clone().unwrap_or_default();
    next.cross_group_retry = req.cross_group_retry.unwrap_or(false) && next.group == "auto";
    if ctx.profile == Profile::Documented
        && let Some(status) = req.status
    {
        next.status = status;
    }
    Ok(next)
}

/// Parses a `PUT /api/token/` body as the mock does: JSON, then a [`TokenUpdateRequest`] (a
/// body without `id` is id 0, which no key has, as new-api's zero value). The error is the
/// message the mock answers with.
///
/// ```
/// use gatecheck_schemas::rules::token::parse_update_body;
/// assert_eq!(parse_update_body(br#"{"name":"x"}"#).map(|r| r.id), Ok(0));
/// assert!(parse_update_body(b"not json").is_err());
/// ```
pub fn parse_update_body(body: &[u8]) -> Result<TokenUpdateRequest, String> {
    // The usual body (with `id`, no repeated field) goes straight into the struct; any other
    // takes the general path below, which gives the same result and the same messages.
    if let Ok(req) = serde_json::from_slice(body) {
        return Ok(req);
    }
    parse_update_value(body)
}

/// [`parse_update_body`] through a `serde_json::Value`: a missing `id` becomes 0, and a
/// repeated field keeps its last value.
fn parse_update_value(body: &[u8]) -> Result<TokenUpdateRequest, String> {
    let mut value: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| format!("invalid request body: {e}"))?;
    if let Some(obj) = value.as_object_mut() {
        obj.entry("id").or_insert(serde_json::Value::from(0));
    }
    serde_json::from_value(value).map_err(|e| format!("invalid request body: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn key() -> KeyRecord {
        KeyRecord {
            id: 1,
            user_id: 1,
            key: "k".into(),
            status: 1,
            name: "old".into(),
            created_time: 0,
            accessed_time: 0,
            expired_time: -1,
            remain_quota: 100,
            unlimited_quota: false,
            model_limits_enabled: true,
            model_limits: "a".into(),
            allow_ips: Some("1.2.3.4".into()),
            used_quota: 5,
            group: "vip".into(),
            cross_group_retry: false,
        }
    }

    proptest! {
        #[test]
        fn status_only_changes_nothing_but_status(
            status in proptest::option::of(1i64..=4),
            // At most 12 characters of at most 4 bytes: within the limit in both profiles
            // (new-api counts bytes); `check_request` refuses a longer name even here.
            name in ".{0,12}",
            quota in 0i64..1000,
        ) {
            let groups = vec!["vip".to_string()];
            for profile in [Profile::Documented, Profile::NewApi] {
                let ctx = UpdateContext { profile, now: 10, account_groups: &groups, status_only: true };
                let req = TokenUpdateRequest { id: 1, status, name: Some(name.clone()), remain_quota: Some(quota), ..Default::default() };
                let current = key();
                let next = apply_update(&current, &req, &ctx).unwrap();
                let mut expected = current.clone();
                match (status, profile) {
                    (Some(s), _) => expected.status = s,
                    (None, Profile::NewApi) => expected.status = 0, // NA12
                    (None, Profile::Documented) => {}
                }
                prop_assert_eq!(next, expected);
            }
        }

        #[test]
        fn status_only_still_refuses_a_long_name(status in proptest::option::of(1i64..=4), extra in 1usize..20) {
            let groups = vec!["vip".to_string()];
            let name = "n".repeat(MAX_NAME_LEN + extra);
            for profile in [Profile::Documented, Profile::NewApi] {
                let ctx = UpdateContext { profile, now: 10, account_groups: &groups, status_only: true };
                let req = TokenUpdateRequest { id: 1, status, name: Some(name.clone()), ..Default::default() };
                prop_assert_eq!(apply_update(&key(), &req, &ctx), Err(UpdateFailure::NameTooLong));
            }
        }

        #[test]
        fn name_limit_is_fifty_characters_or_bytes(c in proptest::char::any(), n in 0usize..80) {
            let name: String = std::iter::repeat_n(c, n).collect();
            prop_assert_eq!(name_too_long(&name, Profile::Documented), n > 50);
            prop_assert_eq!(name_too_long(&name, Profile::NewApi), name.len() > 50);
        }

        #[test]
        fn documented_and_new_api_differ_only_in_status(status in 1i64..=4) {
            let groups = vec!["vip".to_string()];
            let req = TokenUpdateRequest { id: 1, status: Some(status), name: Some("n".into()), ..Default::default() };
            let doc = apply_update(&key(), &req, &UpdateContext { profile: Profile::Documented, now: 10, account_groups: &groups, status_only: false }).unwrap();
            let dep = apply_update(&key(), &req, &UpdateContext { profile: Profile::NewApi, now: 10, account_groups: &groups, status_only: false }).unwrap();
            prop_assert_eq!(doc.status, status);
            prop_assert_eq!(dep.status, 1);
            prop_assert_eq!(KeyRecord { status: 0, ..doc }, KeyRecord { status: 0, ..dep });
        }
    }

    proptest! {
        #[test]
        fn token_update_status_enum(
            status in prop_oneof![any::<i64>(), -10i64..=10],
            status_only in any::<bool>(),
            new_api in any::<bool>(),
        ) {
            let groups = vec!["vip".to_string()];
            let profile = if new_api { Profile::NewApi } else { Profile::Documented };
            let ctx = UpdateContext { profile, now: 10, account_groups: &groups, status_only };
            let req = TokenUpdateRequest { id: 1, status: Some(status), name: Some("n".into()), ..Default::default() };
            let got = apply_update(&key(), &req, &ctx);
            if (1..=4).contains(&status) {
                prop_assert!(got.is_ok(), "{:?}", got);
            } else if new_api {
                // NA11: new-api stores any status (through status_only).
                let next = got.unwrap();
                if status_only {
                    prop_assert_eq!(next.status, status);
                }
            } else {
                prop_assert_eq!(got.clone(), Err(UpdateFailure::StatusInvalid(status)));
                prop_assert!(got.unwrap_err().message().contains("1, 2, 3 or 4"));
            }
        }

        #[test]
        fn token_update_expired_time_range(
            t in prop_oneof![any::<i64>(), -10i64..=10],
            status_only in any::<bool>(),
            new_api in any::<bool>(),
        ) {
            let groups = vec!["vip".to_string()];
            let profile = if new_api { Profile::NewApi } else { Profile::Documented };
            let ctx = UpdateContext { profile, now: 10, account_groups: &groups, status_only };
            let req = TokenUpdateRequest { id: 1, expired_time: Some(t), name: Some("n".into()), ..Default::default() };
            let got = apply_update(&key(), &req, &ctx);
            if t >= -1 || new_api {
                // NA11: new-api stores any expired_time.
                let next = got.unwrap();
                if !status_only {
                    prop_assert_eq!(next.expired_time, t);
                }
            } else {
                prop_assert_eq!(got, Err(UpdateFailure::ExpiredTimeInvalid(t)));
            }
        }
    }

    #[test]
    fn range_checks_come_after_name_and_quota() {
        let req = TokenUpdateRequest {
            id: 1,
            name: Some("x".repeat(51)),
            status: Some(9),
            expired_time: Some(-5),
            remain_quota: Some(-1),
            ..Default::default()
        };
        assert_eq!(
            check_request(&req, Profile::Documented),
            Err(UpdateFailure::NameTooLong)
        );
        let req = TokenUpdateRequest { name: None, ..req };
        assert_eq!(
            check_request(&req, Profile::Documented),
            Err(UpdateFailure::QuotaNegative)
        );
        let req = TokenUpdateRequest {
            remain_quota: Some(0),
            ..req
        };
        assert_eq!(
            check_request(&req, Profile::Documented),
            Err(UpdateFailure::StatusInvalid(9))
        );
        let req = TokenUpdateRequest {
            status: Some(1),
            ..req
        };
        assert_eq!(
            check_request(&req, Profile::Documented),
            Err(UpdateFailure::ExpiredTimeInvalid(-5))
        );
    }

    /// Enabling and admitting agree at the expiry boundary: a key whose `expired_time` is
    /// `now` is not yet past (admitted, may be enabled); one second earlier it is past.
    #[test]
    fn enabling_an_expired_key_uses_the_admission_boundary() {
        let groups = vec![];
        let ctx = UpdateContext {
            profile: Profile::Documented,
            now: 10,
            account_groups: &groups,
            status_only: true,
        };
        let enable = TokenUpdateRequest {
            id: 1,
            status: Some(KEY_STATUS_ENABLED),
            ..Default::default()
        };
        let stored = |expired_time| KeyRecord {
            status: KEY_STATUS_EXPIRED,
            expired_time,
            ..key()
        };
        let at_now = apply_update(&stored(ctx.now), &enable, &ctx).unwrap();
        assert_eq!(at_now.status, KEY_STATUS_ENABLED);
        assert_eq!(crate::rules::key::admit(&at_now, ctx.now), Ok(()));
        assert_eq!(
            apply_update(&stored(ctx.now - 1), &enable, &ctx),
            Err(UpdateFailure::ExpiredCannotEnable)
        );
    }

    #[test]
    fn omitted_fields_reset_to_zero_values() {
        let groups = vec![];
        let ctx = UpdateContext {
            profile: Profile::Documented,
            now: 10,
            account_groups: &groups,
            status_only: false,
        };
        let next = apply_update(
            &key(),
            &TokenUpdateRequest {
                id: 1,
                ..Default::default()
            },
            &ctx,
        )
        .unwrap();
        assert_eq!(
            (next.name.as_str(), next.expired_time, next.remain_quota),
            ("", 0, 0)
        );
        assert_eq!(
            (
                next.model_limits_enabled,
                next.model_limits.as_str(),
                next.allow_ips
            ),
            (false, "", None)
        );
        assert_eq!((next.group.as_str(), next.used_quota), ("", 5));
    }

    /// The direct parse agrees with the general one wherever it succeeds.
    #[test]
    fn direct_parse_agrees_with_the_general_one() {
        let bodies: &[&[u8]] = &[
            br#"{"id":6,"name":"a","expired_time":-1,"remain_quota":10,"allow_ips":null}"#,
            br#"{"id":6,"allow_ips":"1.2.3.4","group":"vip","cross_group_retry":true}"#,
            br#"{"name":"no id"}"#,
            br#"{"id":1,"id":2}"#,
            br#"{"id":1,"status":2,"unknown":[1,2]}"#,
            br#"{"id":null}"#,
            br#"{"id":1.5}"#,
            br#"[1]"#,
            br#"not json"#,
        ];
        for body in bodies {
            assert_eq!(
                parse_update_body(body),
                parse_update_value(body),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
        assert_eq!(parse_update_body(br#"{"name":"x"}"#).map(|r| r.id), Ok(0));
        assert_eq!(
            parse_update_body(br#"{"id":1,"id":2}"#).map(|r| r.id),
            Ok(2)
        );
    }
}
