//! Every way a model route refuses a request, with its HTTP status and error code per profile.
//!
//! The mock answers with these; the runner predicts with them. The order in which a model
//! route applies its checks is given by [`ORDER`].

use crate::Profile;

/// Why a request to a `/v1/*` route is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rejection {
    /// No key in `Authorization`.
    MissingKey,
    /// The key is unknown.
    InvalidKey,
    /// The key's status is 2 (disabled) or another non-enabled value.
    KeyDisabled,
    /// The key's status is 3, or its `expired_time` is past.
    KeyExpired,
    /// The key's status is 4, or its remaining quota is ≤ 0 while not unlimited.
    KeyExhausted,
    /// The client IP is not in `allow_ips`.
    IpNotAllowed,
    /// The model is not in `model_limits` while `model_limits_enabled`.
    ModelNotAllowed,
    /// A request validation failure on a video route (always 400).
    Validation,
    /// A request validation failure on an audio or image route (deployed: 500 `invalid_request`).
    MediaValidation,
    /// The key's remaining quota is lower than the request's price.
    InsufficientQuota,
    /// The per-key rate limit is reached.
    RateLimited,
    /// The body is over the upload limit.
    BodyTooLarge,
    /// An unknown video task id, or another user's task.
    TaskNotFound,
}

/// The order in which a model route runs its checks (the first failing one answers).
pub const ORDER: [Rejection; 11] = [
    Rejection::MissingKey,
    Rejection::InvalidKey,
    Rejection::KeyDisabled,
    Rejection::KeyExpired,
    Rejection::KeyExhausted,
    Rejection::IpNotAllowed,
    Rejection::RateLimited,
    Rejection::ModelNotAllowed,
    Rejection::Validation,
    Rejection::InsufficientQuota,
    Rejection::TaskNotFound,
];

impl Rejection {
    /// The HTTP status the service answers with.
    ///
    /// ```
    /// use gatecheck_schemas::{rules::Rejection, Profile};
    /// assert_eq!(Rejection::KeyExpired.http_status(Profile::Documented), 401);
    /// assert_eq!(Rejection::MediaValidation.http_status(Profile::NewApi), 500);
    /// assert_eq!(Rejection::TaskNotFound.http_status(Profile::NewApi), 400);
    /// ```
    pub fn http_status(self, profile: Profile) -> u16 {
        match self {
            Self::MissingKey
            | Self::InvalidKey
            | Self::KeyDisabled
            | Self::KeyExpired
            | Self::KeyExhausted => 401,
            Self::IpNotAllowed | Self::ModelNotAllowed | Self::InsufficientQuota => 403,
            Self::Validation => 400,
            Self::MediaValidation => match profile {
                Profile::Documented => 400,
                Profile::NewApi => 500,
            },
            Self::RateLimited => 429,
            Self::BodyTooLarge => 413,
            Self::TaskNotFound => match profile {
                Profile::Documented => 404,
                Profile::NewApi => 400,
            },
        }
    }

    /// The `error.code` of the `/v1` error body, when the service sets one.
    ///
    /// ```
    /// use gatecheck_schemas::{rules::Rejection, Profile};
    /// assert_eq!(Rejection::IpNotAllowed.code(Profile::Documented), Some("access_denied"));
    /// assert_eq!(
    ///     Rejection::InsufficientQuota.code(Profile::NewApi),
    ///     Some("pre_consume_token_quota_failed")
    /// );
    /// ```
    pub fn code(self, profile: Profile) -> Option<&'static str> {
        match self {
            Self::MissingKey
            | Self::InvalidKey
            | Self::KeyDisabled
            | Self::KeyExpired
            | Self::KeyExhausted => None,
            Self::IpNotAllowed => Some("access_denied"),
            Self::ModelNotAllowed => Some("model_not_allowed"),
            Self::Validation | Self::MediaValidation => Some("invalid_request"),
            Self::InsufficientQuota => Some("pre_consume_token_quota_failed"),
            Self::RateLimited => Some("rate_limit_exceeded"),
            Self::BodyTooLarge => Some("request_body_too_large"),
            Self::TaskNotFound => match profile {
                Profile::Documented => Some("task_not_found"),
                Profile::NewApi => Some("task_not_exist"),
            },
        }
    }

    /// A default English message (new-api's wording where it has one).
    ///
    /// ```
    /// use gatecheck_schemas::rules::Rejection;
    /// assert_eq!(Rejection::InvalidKey.default_message(), "Invalid token");
    /// ```
    pub fn default_message(self) -> &'static str {
        match self {
            Self::MissingKey => "Token not provided",
            Self::InvalidKey => "Invalid token",
            Self::KeyDisabled => "This token status is unavailable",
            Self::KeyExpired => "This token has expired",
            Self::KeyExhausted => "This token quota is exhausted",
            Self::IpNotAllowed => "Your IP is not in the token's list of allowed IPs",
            Self::ModelNotAllowed => "This token has no access to this model",
            Self::Validation | Self::MediaValidation => "Invalid request",
            Self::InsufficientQuota => "token quota is not enough",
            Self::RateLimited => "Too many requests, please retry later",
            Self::BodyTooLarge => "Request body too large",
            Self::TaskNotFound => "task_not_exist",
        }
    }
}
