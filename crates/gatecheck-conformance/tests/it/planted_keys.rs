//! The planted bugs of key management and admission: `/api/token/` updates (`token.*`), the
//! key checks on the model routes (`key.*`), authentication (`auth.*`) and the charge
//! (`quota.*`).

use super::planted::{Bug, Planted};
use gatecheck_conformance::Status;

/// This surface's rows of [`planted`](super::planted::planted): (bug, the check that
/// catches it, its verdict, the rule it breaks).
pub(crate) fn rows() -> Vec<Planted> {
    vec![
        (
            Bug::NameCountedInBytes,
            "token.update.name-50-chars",
            Status::Failed,
            "token::name_too_long (MAX_NAME_LEN characters)",
        ),
        (
            Bug::DisabledKeyAccepted,
            "key.disabled-rejected",
            Status::Failed,
            "key::admit (KeyRejection::Disabled)",
        ),
        (
            Bug::ExpiredKeyAccepted,
            "key.expired-time-past-rejected",
            Status::Failed,
            "key::admit (is_past_expiry)",
        ),
        (
            Bug::Status401To403,
            "auth.v1.missing-key-401",
            Status::Failed,
            "Rejection::MissingKey",
        ),
        (
            Bug::StatusNotApplied,
            "token.update.status-applied",
            Status::Failed,
            "token::apply_update",
        ),
        (
            Bug::StatusDroppedEverywhere,
            "key.disabled-rejected",
            Status::Failed,
            "token::apply_update",
        ),
        (
            Bug::WrongTokenSucceeds,
            "auth.token.wrong-token-rejected",
            Status::Failed,
            "auth::AccessRefusal::Invalid",
        ),
        (
            Bug::IpAllowlistIgnored,
            "key.ip-allowlist",
            Status::Failed,
            "ip::allows",
        ),
        (
            Bug::ModelLimitsIgnored,
            "key.model-limits",
            Status::Failed,
            "key::model_allowed (model_limits)",
        ),
        (
            Bug::ZeroQuotaAccepted,
            "key.zero-quota-rejected",
            Status::Failed,
            "key::admit (quota)",
        ),
        (
            Bug::UsedQuotaNotCharged,
            "quota.charged",
            Status::Failed,
            "quota::check_charge (key::charge)",
        ),
        (
            Bug::InsufficientAs402,
            "quota.insufficient-403",
            Status::Deviation,
            "Rejection::InsufficientQuota (key::charge: ChargeOutcome::Insufficient)",
        ),
        (
            Bug::NegativeQuotaStored,
            "token.update.negative-quota-rejected",
            Status::Deviation,
            "token::check_request (quota, MSG_QUOTA_NEGATIVE)",
        ),
        (
            Bug::IpRefusal401,
            "key.ip-refusal-403",
            Status::Deviation,
            "Rejection::IpNotAllowed",
        ),
        (
            Bug::MissingTokenAs200,
            "auth.token.missing-token-401",
            Status::Deviation,
            "auth::AccessRefusal::Missing",
        ),
        (
            Bug::StatusOutOfEnumStored,
            "token.update.status-enum",
            Status::Deviation,
            "token::is_valid_status (UpdateFailure::StatusInvalid, MSG_STATUS_INVALID)",
        ),
        (
            Bug::ExpiredTimeOutOfRangeStored,
            "token.update.expired-time-range",
            Status::Deviation,
            "token::is_valid_expired_time (MSG_EXPIRED_TIME_INVALID)",
        ),
        (
            Bug::NameTooLongMessageChanged,
            "token.update.name-51-chars-rejected",
            Status::Failed,
            "token::MSG_NAME_TOO_LONG",
        ),
        (
            Bug::GroupNoAccessAccepted,
            "token.update.group-no-access",
            Status::Failed,
            "token::check_request (group, MSG_NO_ACCESS_TO_GROUP)",
        ),
        (
            Bug::EnableExpiredAccepted,
            "token.update.enable-expired-rejected",
            Status::Deviation,
            "token::apply_update (check 5, MSG_EXPIRED_CANNOT_ENABLE)",
        ),
        (
            Bug::UnknownIdAccepted,
            "token.update.unknown-id-rejected",
            Status::Deviation,
            "token::MSG_NOT_FOUND (check 3)",
        ),
        (
            Bug::DoubleCharged,
            "quota.charged",
            Status::Failed,
            "quota::price_quota (QUOTA_PER_USD, key::charge)",
        ),
        (
            Bug::NewApiNameMessage,
            "token.update.name-51-chars-rejected",
            Status::Failed,
            "token::MSG_NAME_TOO_LONG_NEW_API (NA12)",
        ),
    ]
}
