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

/// Which generation of new-api's task layer a new-api deployment runs, orthogonal to
/// [`Profile`]: the sandboxed JS task plugins (QuantumNous/new-api PR #7076, merged
/// 2026-08-29: `plugins/tasks/<key>/plugin.js`, the host in `pkg/jsplugin` and
/// `relay/channel/task/jsplugin/adaptor.go`), or the Go task adaptors before them
/// (`relay/channel/task/*`). The `documented` profile plays the spec's letter, which is the
/// adaptor era's where the two differ ([`NamedProfile::effective_era`]).
///
/// ```
/// use gatecheck_schemas::Era;
/// assert_eq!("plugins".parse::<Era>().unwrap(), Era::Plugins);
/// assert_eq!(Era::Adaptors.to_string(), "adaptors");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Era {
    /// new-api's task plugins (PR #7076 on, 2026-08-29; the `new-api` profile's default).
    Plugins,
    /// new-api's Go task adaptors (before PR #7076; the `new-api-adaptors` profile, frozen).
    Adaptors,
}

impl Era {
    /// Both eras.
    pub const ALL: [Era; 2] = [Era::Plugins, Era::Adaptors];

    /// The wire and command-line name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Plugins => "plugins",
            Self::Adaptors => "adaptors",
        }
    }

    /// The era a profile plays when none is named: the plugins for `new-api` (what a
    /// deployment upgraded since 2026-08-29 runs), the adaptors' (the spec's letter) for
    /// `documented`.
    pub fn default_for(profile: Profile) -> Era {
        match profile {
            Profile::NewApi => Era::Plugins,
            Profile::Documented => Era::Adaptors,
        }
    }
}

impl fmt::Display for Era {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing an unknown era name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown era `{0}`: expected `plugins` or `adaptors`")]
pub struct UnknownEra(pub String);

impl FromStr for Era {
    type Err = UnknownEra;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "plugins" | "plugin" => Ok(Self::Plugins),
            "adaptors" | "adaptor" | "adapters" => Ok(Self::Adaptors),
            other => Err(UnknownEra(other.to_owned())),
        }
    }
}

/// A named profile of the command line and the library: a [`Profile`] and the [`Era`] of
/// new-api's task layer it plays. `documented`; `new-api` (the plugin era); `new-api-adaptors`
/// (the Go-adaptor era, frozen: the `new-api` profile as it was before the plugins).
///
/// ```
/// use gatecheck_schemas::{Era, NamedProfile, Profile};
/// let p: NamedProfile = "new-api-adaptors".parse().unwrap();
/// assert_eq!((p.profile, p.era), (Profile::NewApi, Era::Adaptors));
/// assert_eq!(NamedProfile::from(Profile::NewApi), NamedProfile::NEW_API);
/// assert_eq!(NamedProfile::NEW_API.to_string(), "new-api");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NamedProfile {
    /// The behaviour profile.
    pub profile: Profile,
    /// The era of new-api's task layer.
    pub era: Era,
}

impl Default for NamedProfile {
    fn default() -> Self {
        Self::DOCUMENTED
    }
}

impl NamedProfile {
    /// The spec's letter (era: the adaptors', where the spec's letter is theirs).
    pub const DOCUMENTED: NamedProfile = NamedProfile {
        profile: Profile::Documented,
        era: Era::Adaptors,
    };
    /// A deployed new-api with the task plugins.
    pub const NEW_API: NamedProfile = NamedProfile {
        profile: Profile::NewApi,
        era: Era::Plugins,
    };
    /// A deployed new-api with the Go task adaptors (before 2026-08-29), frozen.
    pub const NEW_API_ADAPTORS: NamedProfile = NamedProfile {
        profile: Profile::NewApi,
        era: Era::Adaptors,
    };
    /// Every named profile.
    pub const ALL: [NamedProfile; 3] = [Self::DOCUMENTED, Self::NEW_API, Self::NEW_API_ADAPTORS];

    /// A profile in an era; for `documented` the era is always the adaptors'
    /// ([`Self::effective_era`]).
    pub fn new(profile: Profile, era: Era) -> Self {
        Self { profile, era }
    }

    /// The era this profile plays: `documented` plays the spec's letter whatever era it was
    /// given (the adaptors' where the two eras differ).
    pub fn effective_era(self) -> Era {
        match self.profile {
            Profile::Documented => Era::Adaptors,
            Profile::NewApi => self.era,
        }
    }

    /// The command-line name (`documented`, `new-api`, `new-api-adaptors`).
    pub fn as_str(self) -> &'static str {
        match (self.profile, self.effective_era()) {
            (Profile::Documented, _) => "documented",
            (Profile::NewApi, Era::Plugins) => "new-api",
            (Profile::NewApi, Era::Adaptors) => "new-api-adaptors",
        }
    }

    /// One line on what the profile plays.
    pub fn about(self) -> &'static str {
        match (self.profile, self.effective_era()) {
            (Profile::Documented, _) => {
                "the spec's letter, and docs/DECISIONS.md where it is silent (default)"
            }
            (Profile::NewApi, Era::Plugins) => {
                "what a deployed QuantumNous/new-api does, with the task plugins (PR #7076, 2026-08-29 on)"
            }
            (Profile::NewApi, Era::Adaptors) => {
                "what a deployed QuantumNous/new-api did with the Go task adaptors (before 2026-08-29), frozen"
            }
        }
    }
}

impl From<Profile> for NamedProfile {
    /// The profile in its default era ([`Era::default_for`]).
    fn from(profile: Profile) -> Self {
        Self {
            profile,
            era: Era::default_for(profile),
        }
    }
}

impl fmt::Display for NamedProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing an unknown named profile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown profile `{0}`: expected `documented`, `new-api` or `new-api-adaptors`")]
pub struct UnknownNamedProfile(pub String);

impl FromStr for NamedProfile {
    type Err = UnknownNamedProfile;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "new-api-adaptors" | "new-api-adapters" | "newapi-adaptors" | "new_api_adaptors" => {
                Ok(Self::NEW_API_ADAPTORS)
            }
            "new-api-plugins" => Ok(Self::NEW_API),
            other => other
                .parse::<Profile>()
                .map(Self::from)
                .map_err(|_| UnknownNamedProfile(other.to_owned())),
        }
    }
}

#[cfg(test)]
mod era_tests {
    use super::*;

    #[test]
    fn named_profiles_round_trip_their_names() {
        for p in NamedProfile::ALL {
            assert_eq!(p.as_str().parse::<NamedProfile>(), Ok(p), "{p}");
        }
        assert!("other".parse::<NamedProfile>().is_err());
        assert_eq!(
            NamedProfile::new(Profile::Documented, Era::Plugins).effective_era(),
            Era::Adaptors
        );
    }
}
