//! Fixture data: accounts, keys, the catalog, model capabilities and the video rules.
//!
//! The defaults are embedded in the binary; `--fixtures DIR` (or
//! [`Fixtures::from_dir`]) reads the same file names from a directory, falling back to the
//! embedded file for any that is missing.

use gatecheck_schemas::rules::video::VideoConfig;
use gatecheck_schemas::types::{Account, KeyRecord, ModelCapabilities, ModelRecord};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const ACCOUNTS: &str = include_str!("../fixtures/accounts.json");
const KEYS: &str = include_str!("../fixtures/keys.json");
const CATALOG: &str = include_str!("../fixtures/catalog.json");
const CAPABILITIES: &str = include_str!("../fixtures/capabilities.json");
const VIDEO: &str = DEFAULT_VIDEO_JSON;

/// The built-in video configuration (`fixtures/video.json`).
pub const DEFAULT_VIDEO_JSON: &str = include_str!("../fixtures/video.json");

/// A fixture file could not be read or parsed. The message names the file; the cause is the
/// error's [`source`](std::error::Error::source) (`{:#}` with `anyhow` prints both).
///
/// ```
/// let dir = std::env::temp_dir().join("gatecheck-doc-bad-fixtures");
/// std::fs::create_dir_all(&dir).unwrap();
/// std::fs::write(dir.join("keys.json"), "not json").unwrap();
/// assert!(gatecheck_mock::Fixtures::from_dir(&dir).is_err());
/// ```
#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    /// Reading a file failed.
    #[error("cannot read fixture {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A file is not the expected JSON.
    #[error("invalid fixture {name}")]
    Json {
        /// The file name.
        name: String,
        /// The cause.
        source: serde_json::Error,
    },
}

/// All fixture data of one mock.
///
/// ```
/// let fixtures = gatecheck_mock::Fixtures::embedded();
/// assert!(fixtures.capabilities.contains_key("gpt-image-1"));
/// ```
#[derive(Debug, Clone)]
pub struct Fixtures {
    /// Accounts (the first is the demo account).
    pub accounts: Vec<Account>,
    /// Keys.
    pub keys: Vec<KeyRecord>,
    /// The model catalog, in order.
    pub catalog: Vec<ModelRecord>,
    /// Capabilities by model id.
    pub capabilities: BTreeMap<String, ModelCapabilities>,
    /// `video.json`: the phases' timing, the poll hint and the outcome rules of video tasks.
    pub video: VideoConfig,
}

#[derive(Deserialize)]
struct AccountsFile {
    accounts: Vec<Account>,
}
#[derive(Deserialize)]
struct KeysFile {
    keys: Vec<KeyRecord>,
}
#[derive(Deserialize)]
struct CatalogFile {
    models: Vec<ModelRecord>,
}
#[derive(Deserialize)]
struct CapabilitiesFile {
    models: BTreeMap<String, ModelCapabilities>,
}

impl Default for Fixtures {
    fn default() -> Self {
        Self::embedded()
    }
}

impl Fixtures {
    /// The fixtures embedded in the crate.
    ///
    /// ```
    /// let f = gatecheck_mock::Fixtures::embedded();
    /// assert!(f.keys.len() >= 6);
    /// ```
    pub fn embedded() -> Self {
        // Built from static data (`crate::seeds`, generated from the JSON files): the first
        // start of a process does not run the JSON parser (BENCHMARKS.md, "Ninth session").
        Self {
            accounts: crate::seeds::accounts(),
            keys: crate::seeds::keys(),
            catalog: crate::seeds::catalog(),
            capabilities: crate::seeds::capabilities(),
            video: crate::seeds::video(),
        }
    }

    /// The embedded JSON files, parsed as [`Fixtures::from_dir`] parses files: what the
    /// seeds must build.
    #[cfg(test)]
    pub(crate) fn parse_embedded_json() -> Result<Self, FixtureError> {
        Self::parse(ACCOUNTS, KEYS, CATALOG, CAPABILITIES, VIDEO)
    }

    /// Reads `accounts.json`, `keys.json`, `catalog.json`, `capabilities.json` and
    /// `video.json` from `dir`; a missing file falls back to the embedded one.
    ///
    /// ```
    /// // Directory without fixture files: everything falls back to the embedded data.
    /// let dir = std::env::temp_dir();
    /// let fixtures = gatecheck_mock::Fixtures::from_dir(&dir).unwrap();
    /// assert!(!fixtures.catalog.is_empty());
    /// ```
    pub fn from_dir(dir: &Path) -> Result<Self, FixtureError> {
        let read = |name: &str, fallback: &str| -> Result<String, FixtureError> {
            let path = dir.join(name);
            match std::fs::read_to_string(&path) {
                Ok(s) => Ok(s),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(fallback.to_owned()),
                Err(source) => Err(FixtureError::Io { path, source }),
            }
        };
        Self::parse(
            &read("accounts.json", ACCOUNTS)?,
            &read("keys.json", KEYS)?,
            &read("catalog.json", CATALOG)?,
            &read("capabilities.json", CAPABILITIES)?,
            &read("video.json", VIDEO)?,
        )
    }

    fn parse(
        accounts: &str,
        keys: &str,
        catalog: &str,
        capabilities: &str,
        video: &str,
    ) -> Result<Self, FixtureError> {
        fn json<T: serde::de::DeserializeOwned>(name: &str, s: &str) -> Result<T, FixtureError> {
            serde_json::from_str(s).map_err(|source| FixtureError::Json {
                name: name.to_owned(),
                source,
            })
        }
        let mut keys = json::<KeysFile>("keys.json", keys)?.keys;
        // Stored secrets carry no `sk-` (clients may send it; it is stripped before lookup).
        for k in &mut keys {
            if let Some(bare) = k.key.strip_prefix("sk-") {
                k.key = bare.to_owned();
            }
        }
        Ok(Self {
            accounts: json::<AccountsFile>("accounts.json", accounts)?.accounts,
            keys,
            catalog: json::<CatalogFile>("catalog.json", catalog)?.models,
            capabilities: json::<CapabilitiesFile>("capabilities.json", capabilities)?.models,
            video: json::<VideoConfig>("video.json", video)?,
        })
    }

    /// The demo account (the first account).
    ///
    /// ```
    /// let f = gatecheck_mock::Fixtures::embedded();
    /// assert_eq!(f.demo_account().map(|a| a.id), Some(1));
    /// ```
    pub fn demo_account(&self) -> Option<&Account> {
        self.accounts.first()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `video.json` that is not a video configuration is an error naming the file (it used
    /// to fall back silently to the built-in one); a valid one is read.
    #[test]
    fn video_json_is_read_typed() {
        let dir =
            std::env::temp_dir().join(format!("gatecheck-video-fixture-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(dir.join("video.json"), r#"{"poll_after_ms": 5}"#).expect("write");
        match Fixtures::from_dir(&dir) {
            Err(e @ FixtureError::Json { .. }) => {
                // The message names the file once; the parser's words are the source.
                assert_eq!(e.to_string(), "invalid fixture video.json");
                let cause = std::error::Error::source(&e).map(ToString::to_string);
                assert!(cause.is_some_and(|c| c.contains("missing field `timing`")));
            }
            other => panic!("expected a video.json error, got {other:?}"),
        }
        let mut video: serde_json::Value =
            serde_json::from_str(VIDEO).expect("embedded video.json");
        video["poll_after_ms"] = 250.into();
        std::fs::write(dir.join("video.json"), video.to_string()).expect("write");
        let fixtures = Fixtures::from_dir(&dir).expect("a valid video.json");
        assert_eq!(fixtures.video.poll_after_ms, 250);
        assert_eq!(fixtures.video.outcomes, Fixtures::embedded().video.outcomes);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
