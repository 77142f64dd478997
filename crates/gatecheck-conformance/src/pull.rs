//! `gatecheck fixtures pull`: reads a deployment's catalog, the capabilities of its models and
//! the fields of one key into a fixtures directory that `gatecheck serve --fixtures DIR` serves.
//!
//! Pulling is read-only (every request is a `GET`) and never writes a secret: the key's secret
//! is replaced by a fresh local one, accounts (which hold access tokens) are not pulled, and
//! every file is checked against the credentials used before it is written.

use crate::http::client::{Auth, Client, RequestSpec};
use crate::http::models::{known_capabilities, page_catalog, Paging};
use crate::http::transport::{Transport, TransportError};
use gatecheck_schemas::types::{KeyRecord, ModelCapabilities, ModelRecord};
use rand::distr::Alphanumeric;
use rand::RngExt;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why a pull failed.
#[derive(Debug, thiserror::Error)]
pub enum PullError {
    /// A request failed on the way.
    #[error("request failed")]
    Request(#[from] TransportError),
    /// The deployment answered something that is not a catalog.
    #[error("GET {path} answered {status}: not a catalog page")]
    NotACatalog {
        /// The request path.
        path: String,
        /// The status it got.
        status: u16,
    },
    /// `--key-id` was given but the key could not be read.
    #[error("GET /api/token/{id} did not return the key (status {status}); check --access-token and --user-id")]
    Key {
        /// The key id.
        id: i64,
        /// The status it got.
        status: u16,
    },
    /// Writing the directory failed.
    #[error("cannot write {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A file to be written contained one of the credentials (never written).
    #[error("refusing to write {file}: it would contain a secret")]
    Secret {
        /// The file name.
        file: String,
    },
}

/// What a pull read.
#[derive(Debug, Clone, Default)]
pub struct Pulled {
    /// The catalog records, as the deployment sent them (each one a valid model record).
    pub catalog: Vec<Value>,
    /// The capabilities of the catalog's models that are known (built in, or given).
    pub capabilities: BTreeMap<String, ModelCapabilities>,
    /// The key's fields, with a fresh local secret in place of the deployment's.
    pub key: Option<KeyRecord>,
    /// What the user should know (records skipped, models without capabilities...).
    pub notes: Vec<String>,
    /// The key's secret on the deployment: never written ([`Pulled::write`] checks).
    deployment_secret: Option<String>,
}

/// Reads the catalog (every page of `GET /api/models`), the capabilities of its models (the
/// built-in ones, overridden by `extra`) and, with `key_id` (and the client's access token),
/// the key's fields (`GET /api/token/{id}`). Sends only GET requests, each once, as it is
/// ([`Transport::direct`]).
pub async fn pull(
    client: &Client,
    key_id: Option<i64>,
    extra: Option<BTreeMap<String, ModelCapabilities>>,
) -> Result<Pulled, PullError> {
    let t = Transport::direct(client.clone());
    let mut out = Pulled::default();
    page_catalog(&t, Paging::PULL, |page| {
        let ex = page.exchange;
        let Some(data) = page
            .body
            .get("data")
            .and_then(Value::as_array)
            .filter(|_| ex.status.is_success())
        else {
            return Err(PullError::NotACatalog {
                path: page.path.to_owned(),
                status: ex.status.as_u16(),
            });
        };
        for record in data {
            match serde_json::from_value::<ModelRecord>(record.clone()) {
                Ok(_) => out.catalog.push(record.clone()),
                Err(e) => out.notes.push(format!(
                    "skipped a catalog record that is not a model record: {e}"
                )),
            }
        }
        Ok((data.len(), out.catalog.len()))
    })
    .await?;
    let mut caps = known_capabilities();
    caps.extend(extra.unwrap_or_default());
    for id in out
        .catalog
        .iter()
        .filter_map(|m| m.get("id").and_then(Value::as_str))
    {
        match caps.get(id) {
            Some(c) => {
                out.capabilities.insert(id.to_owned(), c.clone());
            }
            None => out.notes.push(format!(
                "no capabilities known for {id}: give them with --capabilities FILE"
            )),
        }
    }
    if let Some(id) = key_id {
        let spec = RequestSpec::get(format!("/api/token/{id}")).auth(Auth::AccessToken);
        let ex = t.send(&spec, 0).await?;
        let v = ex.json().unwrap_or(Value::Null);
        let key = (v.get("success").and_then(Value::as_bool) == Some(true))
            .then(|| v.get("data").cloned())
            .flatten()
            .and_then(|d| serde_json::from_value::<KeyRecord>(d).ok());
        let Some(mut key) = key else {
            return Err(PullError::Key {
                id,
                status: ex.status.as_u16(),
            });
        };
        out.deployment_secret = Some(std::mem::replace(&mut key.key, local_secret()));
        out.key = Some(key);
    }
    Ok(out)
}

/// A fresh 48-character secret for the pulled key in the local mock.
fn local_secret() -> String {
    rand::rng()
        .sample_iter(Alphanumeric)
        .take(48)
        .map(char::from)
        .collect()
}

impl Pulled {
    /// The files to write, by name, in the formats of `fixtures/`: `catalog.json`,
    /// `capabilities.json` and, with a key, `keys.json` (the key owned by `user_id`, the
    /// account it will be served under).
    pub fn files(&self, user_id: i64) -> Vec<(&'static str, Value)> {
        let mut files = vec![
            ("catalog.json", json!({ "models": self.catalog })),
            ("capabilities.json", json!({ "models": self.capabilities })),
        ];
        if let Some(key) = &self.key {
            let key = KeyRecord {
                user_id,
                ..key.clone()
            };
            files.push(("keys.json", json!({ "keys": [key] })));
        }
        files
    }

    /// Writes [`Pulled::files`] into `dir` (created when missing). A file containing any of
    /// `secrets` (the credentials used, the key's secret on the deployment) is refused before
    /// anything is written.
    pub fn write(
        &self,
        dir: &Path,
        user_id: i64,
        secrets: &[&str],
    ) -> Result<Vec<PathBuf>, PullError> {
        let mut secrets = secrets.to_vec();
        secrets.extend(self.deployment_secret.as_deref());
        let mut texts = Vec::new();
        for (name, value) in self.files(user_id) {
            let text = serde_json::to_string_pretty(&value).unwrap_or_default() + "\n";
            if secrets
                .iter()
                .filter(|s| s.len() >= 8)
                .any(|s| text.contains(*s) || text.contains(s.trim_start_matches("sk-")))
            {
                return Err(PullError::Secret { file: name.into() });
            }
            texts.push((name, text));
        }
        std::fs::create_dir_all(dir).map_err(|source| PullError::Io {
            path: dir.to_owned(),
            source,
        })?;
        let mut written = Vec::new();
        for (name, text) in texts {
            let path = dir.join(name);
            std::fs::write(&path, text).map_err(|source| PullError::Io {
                path: path.clone(),
                source,
            })?;
            written.push(path);
        }
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_holding_a_secret_is_never_written() {
        let dir = std::env::temp_dir().join(format!("gatecheck-pull-unit-{}", std::process::id()));
        let pulled = Pulled {
            catalog: vec![json!({"id": "m", "name": "leaks sk-0123456789abcdef"})],
            ..Pulled::default()
        };
        let err = pulled.write(&dir, 1, &["sk-0123456789abcdef"]).unwrap_err();
        assert!(matches!(err, PullError::Secret { .. }), "{err}");
        assert!(!dir.join("catalog.json").exists());
        // The key's secret on the deployment is checked without being passed.
        let pulled = Pulled {
            catalog: vec![json!({"id": "m", "name": "deploymentsecret42"})],
            deployment_secret: Some("deploymentsecret42".into()),
            ..Pulled::default()
        };
        assert!(pulled.write(&dir, 1, &[]).is_err());
        let written = Pulled::default()
            .write(&dir, 1, &["sk-0123456789abcdef"])
            .unwrap();
        assert_eq!(written.len(), 2);
        let _ = std::fs::remove_dir_all(dir);
    }
}
