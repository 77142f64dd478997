//! Why setting up the target failed: the error the runner returns, and its kind as the
//! report writes it.

use crate::http::client_error::ClientError;
use crate::http::transport::TransportError;
use serde::{Deserialize, Serialize};

/// Why setting up the target failed.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The target did not answer.
    #[error("target unreachable: {0}")]
    Unreachable(String),
    /// The target answered in a way the runner cannot work with.
    #[error("target misbehaved: {0}")]
    Misbehaved(String),
    /// The user's configuration cannot work with this target.
    #[error("configuration: {0}")]
    Config(String),
    /// The run stopped (budget, deadline, dry run).
    #[error("{0}")]
    Stopped(String),
}

impl SetupError {
    /// The report's kind of this failure.
    pub fn kind(&self) -> SetupFailureKind {
        match self {
            SetupError::Unreachable(_) => SetupFailureKind::Unreachable,
            SetupError::Misbehaved(_) => SetupFailureKind::Misbehaved,
            SetupError::Config(_) => SetupFailureKind::Config,
            SetupError::Stopped(_) => SetupFailureKind::Stopped,
        }
    }

    /// The message without the kind's prefix.
    pub fn detail(&self) -> &str {
        match self {
            SetupError::Unreachable(m)
            | SetupError::Misbehaved(m)
            | SetupError::Config(m)
            | SetupError::Stopped(m) => m,
        }
    }
}

impl From<TransportError> for SetupError {
    fn from(e: TransportError) -> Self {
        match e {
            TransportError::Client(c) if c.is_unreachable() => {
                SetupError::Unreachable(c.to_string())
            }
            TransportError::Client(
                c @ (ClientError::OffHostRedirect { .. }
                | ClientError::BodyTooLarge(_)
                | ClientError::Malformed(_)),
            ) => SetupError::Misbehaved(c.to_string()),
            TransportError::Client(c) => SetupError::Config(c.to_string()),
            other => SetupError::Stopped(other.to_string()),
        }
    }
}

impl From<crate::http::key_api::ScratchKeyError> for SetupError {
    fn from(e: crate::http::key_api::ScratchKeyError) -> Self {
        use crate::http::key_api::ScratchKeyError;
        match e {
            ScratchKeyError::Transport(t) => t.into(),
            ScratchKeyError::Refused(m) => SetupError::Config(m),
            ScratchKeyError::Misbehaved(m) => SetupError::Misbehaved(m),
        }
    }
}

/// Why discovery stopped the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SetupFailureKind {
    /// The target could not be reached (connection refused or reset, timeout).
    Unreachable,
    /// The target answered, but not in a way the runner can work with (`target` in the
    /// report).
    #[serde(rename = "target")]
    Misbehaved,
    /// The user's configuration cannot work with this target (credentials, `--key-id`).
    Config,
    /// A budget or the deadline ran out during discovery.
    Stopped,
}

impl SetupFailureKind {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            SetupFailureKind::Unreachable => "unreachable",
            SetupFailureKind::Misbehaved => "target",
            SetupFailureKind::Config => "config",
            SetupFailureKind::Stopped => "stopped",
        }
    }
}
