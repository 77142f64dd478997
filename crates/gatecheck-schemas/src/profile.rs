//! The two behaviour profiles of DECISIONS.md.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Which behaviour the mock reproduces where the spec and the deployed gateway disagree.
///
/// ```
/// use gatecheck_schemas::Profile;
/// assert_eq!("new-api".parse::<Profile>().unwrap(), Profile::NewApi);
/// assert_eq!(Profile::default().to_string(), "documented");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Profile {
    /// The spec's letter, and DECISIONS.md where it is silent (the default).
    #[default]
    #[serde(rename = "documented")]
    Documented,
    /// What a real new-api deployment does.
    #[serde(rename = "new-api")]
    NewApi,
}

impl Profile {
    /// Every profile.
    pub const ALL: [Profile; 2] = [Profile::Documented, Profile::NewApi];

    /// The wire and command-line name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Documented => "documented",
            Self::NewApi => "new-api",
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing an unknown profile name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown profile `{0}`: expected `documented` or `new-api`")]
pub struct UnknownProfile(pub String);

impl FromStr for Profile {
    type Err = UnknownProfile;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "documented" => Ok(Self::Documented),
            "new-api" | "newapi" | "new_api" => Ok(Self::NewApi),
            other => Err(UnknownProfile(other.to_owned())),
        }
    }
}
