//! Every way a model route refuses a request, with its HTTP status and error code per profile,
//! and the status of a request that is not refused ([`ACCEPTED`]).
//!
//! The mock answers with these; the runner predicts with them. The order in which a model
//! route applies its checks is given by [`ORDER`].

use crate::Profile;

/// The status of an accepted request on every route: a `/v1` result, and an `/api` envelope
/// (logical `/api` failures included, which are HTTP 200 `{success:false}`).
pub const ACCEPTED: u16 = 200;

/// Whether `status` is [`ACCEPTED`].
///
/// ```
/// assert!(gatecheck_schemas::rules::rejection::is_accepted(200));
/// assert!(!gatecheck_schemas::rules::rejection::is_accepted(201));
/// ```
pub fn is_accepted(status: u16) -> bool {
    status == ACCEPTED
}

/// Whether `status` admits a request: any 2xx. A refusal is anything else, whatever its
/// status: "admitted" is judged by this, never by the absence of a 401 or 403.
///
/// ```
/// use gatecheck_schemas::rules::rejection::is_admitted;
/// assert!(is_admitted(200) && is_admitted(204));
/// assert!(!is_admitted(400) && !is_admitted(404) && !is_admitted(500));
/// ```
pub fn is_admitted(status: u16) -> bool {
    (200..300).contains(&status)
}

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
    /// A path (or method and path) the service does not have (spec: Errors, 404).
    UnknownPath,
    /// A model id that names no model (spec: Errors, 404 wrong model identifier).
    ModelNotFound,
    /// A model no channel serves (unknown or typo'd). `documented` refuses it as a validation
    /// failure of its route; `new-api`'s distributor answers 503 `model_not_found` (DECISIONS
    /// NA5). Checked right after [`Rejection::ModelNotAllowed`]; not in [`ORDER`], which
    /// lists the checks common to both profiles.
    UnknownModel,
}

/// The refusals of a key on a model route (status, expiry, quota, IP, model limits): what an
/// admission probe answers when the key is not admitted.
pub const KEY_REFUSALS: [Rejection; 8] = [
    Rejection::MissingKey,
    Rejection::InvalidKey,
    Rejection::KeyDisabled,
    Rejection::KeyExpired,
    Rejection::KeyExhausted,
    Rejection::IpNotAllowed,
    Rejection::ModelNotAllowed,
    Rejection::InsufficientQuota,
];

/// Whether `status` is how some profile answers a refused key ([`KEY_REFUSALS`]).
///
/// ```
/// use gatecheck_schemas::rules::rejection::is_key_refusal;
/// assert!(is_key_refusal(401) && is_key_refusal(403));
/// assert!(!is_key_refusal(200) && !is_key_refusal(429));
/// ```
pub fn is_key_refusal(status: u16) -> bool {
    KEY_REFUSALS.iter().any(|r| r.answered_by_status(status))
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
            Self::UnknownModel => match profile {
                Profile::Documented => 400,
                Profile::NewApi => 503,
            },
            Self::TaskNotFound => match profile {
                Profile::Documented => 404,
                Profile::NewApi => 400,
            },
            Self::UnknownPath | Self::ModelNotFound => 404,
        }
    }

    /// Whether `status` is this rejection's status in some profile.
    pub fn answered_by_status(self, status: u16) -> bool {
        Profile::ALL.iter().any(|p| self.http_status(*p) == status)
    }

    /// Whether an answer with `status` and `error.code` is this rejection: the documented
    /// status alone (the spec pins it), or another profile's status with that profile's code
    /// (a deployed gateway's 500 is a validation rejection only with code `invalid_request`).
    ///
    /// ```
    /// use gatecheck_schemas::rules::Rejection;
    /// let r = Rejection::MediaValidation;
    /// assert!(r.answered_by(400, None));
    /// assert!(r.answered_by(500, Some("invalid_request")));
    /// assert!(!r.answered_by(500, None));
    /// ```
    pub fn answered_by(self, status: u16, code: Option<&str>) -> bool {
        status == self.http_status(Profile::Documented)
            || Profile::ALL
                .iter()
                .any(|p| status == self.http_status(*p) && code.is_some() && code == self.code(*p))
            || (self == Self::MediaValidation
                && status == self.http_status(Profile::NewApi)
                && code.is_some_and(|c| NEW_API_UPLOAD_CODES.contains(&c)))
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
            // new-api's distributor passes no code (DECISIONS NA13).
            Self::ModelNotAllowed => match profile {
                Profile::Documented => Some("model_not_allowed"),
                Profile::NewApi => None,
            },
            Self::UnknownModel => match profile {
                Profile::Documented => Some("invalid_request"),
                Profile::NewApi => Some("model_not_found"),
            },
            Self::Validation | Self::MediaValidation => Some("invalid_request"),
            Self::InsufficientQuota => Some("pre_consume_token_quota_failed"),
            Self::RateLimited => Some("rate_limit_exceeded"),
            Self::BodyTooLarge => Some("request_body_too_large"),
            Self::TaskNotFound => match profile {
                Profile::Documented => Some("task_not_found"),
                Profile::NewApi => Some("task_not_exist"),
            },
            Self::UnknownPath => Some("not_found"),
            Self::ModelNotFound => Some("model_not_found"),
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
            Self::UnknownPath => "Invalid URL",
            Self::ModelNotFound => "The model does not exist",
            Self::UnknownModel => "unknown model",
        }
    }

    /// Whether an answer with `status` and error `code` is how `profile` answers this
    /// rejection (both the status and the code match).
    ///
    /// ```
    /// use gatecheck_schemas::{rules::Rejection, Profile};
    /// assert!(Rejection::UnknownModel.answered_in(Profile::NewApi, 503, Some("model_not_found")));
    /// assert!(!Rejection::UnknownModel.answered_in(Profile::NewApi, 503, None));
    /// ```
    pub fn answered_in(self, profile: Profile, status: u16, code: Option<&str>) -> bool {
        status == self.http_status(profile) && code == self.code(profile)
    }

    /// The message under `profile`: new-api answers `Invalid token` for every key refusal
    /// (DECISIONS NA2) and its own Chinese text for the IP refusal (NA13); otherwise
    /// [`Rejection::default_message`].
    ///
    /// ```
    /// use gatecheck_schemas::{rules::Rejection, Profile};
    /// assert_eq!(Rejection::KeyExpired.message(Profile::NewApi), "Invalid token");
    /// assert_eq!(Rejection::KeyExpired.message(Profile::Documented), "This token has expired");
    /// ```
    pub fn message(self, profile: Profile) -> &'static str {
        match (self, profile) {
            (
                Self::MissingKey
                | Self::InvalidKey
                | Self::KeyDisabled
                | Self::KeyExpired
                | Self::KeyExhausted,
                Profile::NewApi,
            ) => "Invalid token",
            (Self::IpNotAllowed, Profile::NewApi) => IP_REFUSAL_NEW_API,
            _ => self.default_message(),
        }
    }
}

/// The codes of new-api's 500 for an audio or image upload it cannot use, besides
/// `invalid_request`: the conversion's (`file is required`, `image is required`) and the
/// duration measurement's (DECISIONS NA15), as 823e263 answers them (docs/new-api-live.md).
///
/// ```
/// use gatecheck_schemas::rules::Rejection;
/// assert!(Rejection::MediaValidation.answered_by(500, Some("count_token_failed")));
/// assert!(!Rejection::Validation.answered_by(500, Some("count_token_failed")));
/// ```
pub const NEW_API_UPLOAD_CODES: [&str; 2] = ["convert_request_failed", "count_token_failed"];

/// new-api's message for a client outside `allow_ips` (middleware/auth.go TokenAuth).
pub const IP_REFUSAL_NEW_API: &str = "您的 IP 不在令牌允许访问的列表中";

/// new-api's message for a model no channel serves (i18n
/// `distributor.no_available_channel`, DECISIONS NA5); the `documented` message otherwise.
///
/// ```
/// use gatecheck_schemas::{rules::rejection::unknown_model_message, Profile};
/// assert_eq!(
///     unknown_model_message(Profile::NewApi, "gpt-typo", "default"),
///     "No available channel for model gpt-typo under group default (distributor)"
/// );
/// ```
pub fn unknown_model_message(profile: Profile, model: &str, group: &str) -> String {
    match profile {
        Profile::Documented => format!("model {model} does not exist"),
        Profile::NewApi => {
            format!("No available channel for model {model} under group {group} (distributor)")
        }
    }
}
