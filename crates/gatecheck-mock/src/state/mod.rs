//! The mock's accounts and keys, and [`StateSnapshot`], the dump of the whole state (the
//! tasks' part comes from [`crate::tasks::TaskStore`]).

pub(crate) mod persist;
pub(crate) mod ratelimit;
pub(crate) mod usage;

use crate::fixtures::Fixtures;
use crate::ids::Ids;
use crate::tasks::callbacks::PendingCallback;
use crate::tasks::midjourney::MjTask;
use crate::tasks::video::VideoSnapshot;
use gatecheck_schemas::rules::key::{self as key_rules, ChargeOutcome};
use gatecheck_schemas::rules::{ip, Rejection};
use gatecheck_schemas::types::{Account, KeyRecord, KEY_STATUS_ENABLED};
use gatecheck_schemas::Profile;
use parking_lot::{Mutex, RwLock};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;

/// Accounts as the state holds them.
fn shared(accounts: &[Account]) -> Vec<Arc<Account>> {
    accounts.iter().cloned().map(Arc::new).collect()
}

/// The whole state as JSON: `GET|PUT /__mock/state` and `--state-file`.
///
/// Every field but `accounts` and `keys` may be absent (a dump of an older mock loads: what it
/// lacks starts empty). Each list is oldest first and is cut to its store's bound on load
/// (the newest entries stay). `task_meta` entries name their action and platform as text;
/// one the mock does not know makes the whole dump fail to load (see [`TaskMetaEntry`]).
///
/// [`TaskMetaEntry`]: crate::TaskMetaEntry
///
/// ```
/// let snapshot = gatecheck_mock::StateSnapshot::default();
/// let json = serde_json::to_string(&snapshot).unwrap();
/// let back: gatecheck_mock::StateSnapshot = serde_json::from_str(&json).unwrap();
/// assert!(back.keys.is_empty());
/// ```
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct StateSnapshot {
    /// Accounts.
    pub accounts: Vec<Account>,
    /// Keys, full records with secrets.
    pub keys: Vec<KeyRecord>,
    /// Video tasks.
    #[serde(default)]
    pub videos: VideoSnapshot,
    /// Offset of the mock clock from its base, milliseconds.
    #[serde(default)]
    pub clock_offset_ms: i64,
    /// What the task routes add to video tasks, per task id: action, platform, remix source,
    /// Kling `callback_url` (DECISIONS D-TASK).
    #[serde(default)]
    pub task_meta: Vec<crate::TaskMetaEntry>,
    /// Kling callbacks still waiting for their task (D-TASK-9): the mock that loads the state
    /// sends them when their task ends. Absent when none waits.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub callbacks: Vec<PendingCallback>,
    /// Midjourney tasks, with their plans (times and forced outcomes; DECISIONS D-MJ).
    #[serde(default)]
    pub mj_tasks: Vec<MjTask>,
}

/// A key record to create: every field optional (`POST /__mock/keys`, [`MockServer::add_key`]).
///
/// Missing fields default to: user 1, status 1, name `key-<id>`, created now, never expires,
/// 50 000 000 quota, no limits, no IP restriction, a fresh 48-character secret.
///
/// [`MockServer::add_key`]: crate::MockServer::add_key
///
/// ```
/// # async fn demo() {
/// let server = gatecheck_mock::MockServer::start().await;
/// let key = server.add_key(gatecheck_mock::NewKey::new().remain_quota(1500).name("ci"));
/// assert_eq!(key.remain_quota, 1500);
/// # }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct NewKey {
    /// Key id (next free when absent).
    pub id: Option<i64>,
    /// Owning account.
    pub user_id: Option<i64>,
    /// Secret without `sk-` (generated when absent; a leading `sk-` is stripped; a secret that
    /// another key already has is replaced by a fresh one, so secrets stay unique).
    pub key: Option<String>,
    /// Status.
    pub status: Option<i64>,
    /// Name.
    pub name: Option<String>,
    /// Unix seconds; -1 never.
    pub expired_time: Option<i64>,
    /// Remaining quota.
    pub remain_quota: Option<i64>,
    /// Unlimited quota.
    pub unlimited_quota: Option<bool>,
    /// Model limits on.
    pub model_limits_enabled: Option<bool>,
    /// Comma-separated models.
    pub model_limits: Option<String>,
    /// Allowlist.
    pub allow_ips: Option<String>,
    /// Used quota.
    pub used_quota: Option<i64>,
    /// Group.
    pub group: Option<String>,
    /// Cross-group retry.
    pub cross_group_retry: Option<bool>,
}

impl NewKey {
    /// A key with quota for nothing else specified.
    ///
    /// ```
    /// use gatecheck_mock::NewKey;
    /// let key = NewKey::new();
    /// # let _ = key;
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `remain_quota`.
    ///
    /// ```
    /// use gatecheck_mock::NewKey;
    /// let key = NewKey::new().remain_quota(1500);
    /// # let _ = key;
    /// ```
    pub fn remain_quota(mut self, quota: i64) -> Self {
        self.remain_quota = Some(quota);
        self
    }

    /// Sets `status`.
    ///
    /// ```
    /// use gatecheck_mock::NewKey;
    /// let key = NewKey::new().status(2);
    /// # let _ = key;
    /// ```
    pub fn status(mut self, status: i64) -> Self {
        self.status = Some(status);
        self
    }

    /// Sets `name`.
    ///
    /// ```
    /// use gatecheck_mock::NewKey;
    /// let key = NewKey::new().name("ci");
    /// # let _ = key;
    /// ```
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Sets `expired_time`.
    ///
    /// ```
    /// use gatecheck_mock::NewKey;
    /// let key = NewKey::new().expired_time(-1);
    /// # let _ = key;
    /// ```
    pub fn expired_time(mut self, t: i64) -> Self {
        self.expired_time = Some(t);
        self
    }

    /// Sets `allow_ips`.
    ///
    /// ```
    /// use gatecheck_mock::NewKey;
    /// let key = NewKey::new().allow_ips("10.0.0.0/8\n::1");
    /// # let _ = key;
    /// ```
    pub fn allow_ips(mut self, ips: impl Into<String>) -> Self {
        self.allow_ips = Some(ips.into());
        self
    }

    /// Enables model limits with this comma-separated list.
    ///
    /// ```
    /// use gatecheck_mock::NewKey;
    /// let key = NewKey::new().model_limits("tts-1,whisper-1");
    /// # let _ = key;
    /// ```
    pub fn model_limits(mut self, models: impl Into<String>) -> Self {
        self.model_limits_enabled = Some(true);
        self.model_limits = Some(models.into());
        self
    }

    /// Sets `unlimited_quota`.
    ///
    /// ```
    /// use gatecheck_mock::NewKey;
    /// let key = NewKey::new().unlimited(true);
    /// # let _ = key;
    /// ```
    pub fn unlimited(mut self, unlimited: bool) -> Self {
        self.unlimited_quota = Some(unlimited);
        self
    }

    /// Sets `user_id`.
    ///
    /// ```
    /// use gatecheck_mock::NewKey;
    /// let key = NewKey::new().user_id(2);
    /// # let _ = key;
    /// ```
    pub fn user_id(mut self, user: i64) -> Self {
        self.user_id = Some(user);
        self
    }
}

/// A key that passed authentication (status, expiry, quota and IP).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuthedKey {
    /// Key id.
    pub id: i64,
    /// Owning account.
    pub user_id: i64,
}

/// The outcome of a successful charge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Charge {
    /// Quota charged.
    pub price: i64,
    /// Remaining quota after the charge.
    pub remain_quota: i64,
    /// Used quota after the charge.
    pub used_quota: i64,
    /// Its entry in the usage log (0: none).
    pub log_id: i64,
}

/// Whether two secrets are equal, in time that depends on their lengths only (`subtle`).
///
/// Compared eight bytes at a time: `subtle` hides each comparison from the optimizer behind a
/// volatile read, and one per word instead of one per byte makes a key lookup several times
/// cheaper (a `PUT /api/token/` spent about 6% of its instructions here).
pub(crate) fn secrets_equal(a: &str, b: &str) -> bool {
    use subtle::{Choice, ConstantTimeEq as _};
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let (wa, wb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tails = wa.remainder().ct_eq(wb.remainder());
    let word = |c: &[u8]| u64::from_le_bytes(c.try_into().unwrap_or_default());
    let words = wa
        .zip(wb)
        .fold(Choice::from(1), |eq, (x, y)| eq & word(x).ct_eq(&word(y)));
    bool::from(words & tails)
}

/// A key secret as a map key: hashed with a randomly seeded hasher (hashbrown's foldhash, so
/// its bucket tells an attacker nothing; std's SipHash took about a fifth of a key lookup's
/// instructions), compared in constant time.
#[derive(Debug, Clone, Eq)]
struct Secret(String);

impl std::hash::Hash for Secret {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl PartialEq for Secret {
    fn eq(&self, other: &Self) -> bool {
        secrets_equal(&self.0, &other.0)
    }
}

/// A borrowed secret to look a [`Secret`] up by: hashed the same way, compared in constant
/// time, and no `String` built per lookup.
struct SecretRef<'a>(&'a str);

impl std::hash::Hash for SecretRef<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // `String` hashes as its `str`, so this lands in the bucket of the owned `Secret`.
        self.0.hash(state);
    }
}

impl hashbrown::Equivalent<Secret> for SecretRef<'_> {
    fn equivalent(&self, key: &Secret) -> bool {
        secrets_equal(self.0, &key.0)
    }
}

#[derive(Debug, Default)]
struct KeyTable {
    /// Behind `Arc`s: an update hands its record to the answer by reference count (a write
    /// copies only a record that an answer still holds, `Arc::make_mut`).
    by_id: BTreeMap<i64, Arc<KeyRecord>>,
    by_secret: hashbrown::HashMap<Secret, i64, hashbrown::DefaultHashBuilder>,
}

impl KeyTable {
    fn from_keys(keys: Vec<KeyRecord>) -> Self {
        let mut t = Self {
            by_id: BTreeMap::new(),
            by_secret: hashbrown::HashMap::with_capacity_and_hasher(keys.len(), Default::default()),
        };
        for k in keys {
            t.insert(k);
        }
        t
    }

    fn insert(&mut self, k: KeyRecord) {
        self.insert_shared(Arc::new(k));
    }

    fn insert_shared(&mut self, k: Arc<KeyRecord>) {
        match self.by_id.get(&k.id) {
            // An update that keeps the secret (every `PUT /api/token/`) keeps its index entry.
            Some(old) if secrets_equal(&old.key, &k.key) => {}
            Some(old) => {
                self.by_secret.remove(&SecretRef(&old.key));
                self.by_secret.insert(Secret(k.key.clone()), k.id);
            }
            None => {
                self.by_secret.insert(Secret(k.key.clone()), k.id);
            }
        }
        self.by_id.insert(k.id, k);
    }

    fn remove(&mut self, id: i64) -> Option<Arc<KeyRecord>> {
        let k = self.by_id.remove(&id)?;
        self.by_secret.remove(&SecretRef(&k.key));
        Some(k)
    }

    /// The id of the key with this secret.
    fn id_of(&self, secret: &str) -> Option<i64> {
        self.by_secret.get(&SecretRef(secret)).copied()
    }

    fn next_id(&self) -> i64 {
        self.by_id.keys().next_back().copied().unwrap_or(0) + 1
    }
}

/// Accounts and keys (the tasks are in [`crate::tasks::TaskStore`]).
#[derive(Debug)]
pub struct State {
    keys: Mutex<KeyTable>,
    /// Behind `Arc`s: authenticating a request hands out a reference count, not a copy.
    accounts: RwLock<Vec<Arc<Account>>>,
}

impl State {
    /// The state of `fixtures`.
    pub fn new(fixtures: &Fixtures) -> Self {
        Self {
            keys: Mutex::new(KeyTable::from_keys(fixtures.keys.clone())),
            accounts: RwLock::new(shared(&fixtures.accounts)),
        }
    }

    /// Back to the fixtures: keys and accounts.
    pub fn reset(&self, fixtures: &Fixtures) {
        *self.keys.lock() = KeyTable::from_keys(fixtures.keys.clone());
        *self.accounts.write() = shared(&fixtures.accounts);
    }

    /// Dumps accounts and keys (the rest of a [`StateSnapshot`] is the caller's).
    pub fn snapshot(&self) -> (Vec<Account>, Vec<KeyRecord>) {
        let accounts = self.accounts();
        let keys = self
            .keys
            .lock()
            .by_id
            .values()
            .map(|k| KeyRecord::clone(k))
            .collect();
        (accounts, keys)
    }

    /// Replaces accounts and keys (the caller restores the rest).
    pub fn restore(&self, accounts: Vec<Account>, keys: Vec<KeyRecord>) {
        *self.keys.lock() = KeyTable::from_keys(keys);
        *self.accounts.write() = accounts.into_iter().map(Arc::new).collect();
    }

    // ---- accounts ----

    /// Every account.
    pub fn accounts(&self) -> Vec<Account> {
        self.accounts
            .read()
            .iter()
            .map(|a| Account::clone(a))
            .collect()
    }

    /// The account of an access token.
    pub fn account_by_token(&self, token: &str) -> Option<Arc<Account>> {
        // Every token is compared, each in constant time, so timing tells nothing.
        let accounts = self.accounts.read();
        let mut found = None;
        for a in accounts.iter() {
            if secrets_equal(&a.access_token, token) && found.is_none() {
                found = Some(a);
            }
        }
        found.cloned()
    }

    // ---- keys ----

    /// Authenticates a key secret (without `sk-`) at `now` for a client at `ip`, in new-api's
    /// order: lookup, stored status, expiry, quota (the last two store status 3 or 4), then the
    /// IP allowlist.
    pub fn authenticate(
        &self,
        secret: &str,
        now: i64,
        client: IpAddr,
    ) -> Result<AuthedKey, Rejection> {
        let mut table = self.keys.lock();
        let Some(id) = table.id_of(secret) else {
            return Err(Rejection::InvalidKey);
        };
        let Some(key) = table.by_id.get_mut(&id) else {
            return Err(Rejection::InvalidKey);
        };
        if let Err(why) = key_rules::admit(key, now) {
            if let Some(status) = why.status_effect(key) {
                Arc::make_mut(key).status = status;
            }
            return Err(why.rejection());
        }
        if !ip::allows(key.allow_ips.as_deref(), client) {
            return Err(Rejection::IpNotAllowed);
        }
        Ok(AuthedKey {
            id,
            user_id: key.user_id,
        })
    }

    /// Whether key `id` may use `model` under `profile` (a deleted key may not).
    pub fn model_allowed(&self, id: i64, model: &str, profile: Profile) -> bool {
        self.keys
            .lock()
            .by_id
            .get(&id)
            .is_some_and(|k| key_rules::model_allowed_in(k, model, profile))
    }

    /// Charges `price` to key `id` atomically (check and debit under one lock).
    pub fn charge(&self, id: i64, price: i64, now: i64) -> Result<Charge, Rejection> {
        let mut table = self.keys.lock();
        let Some(key) = table.by_id.get_mut(&id) else {
            return Err(Rejection::InvalidKey);
        };
        let key = Arc::make_mut(key);
        match key_rules::charge(key, price, now) {
            ChargeOutcome::Charged => Ok(Charge {
                price: price.max(0),
                remain_quota: key.remain_quota,
                used_quota: key.used_quota,
                log_id: 0,
            }),
            ChargeOutcome::Insufficient => Err(Rejection::InsufficientQuota),
        }
    }

    /// Gives back a charge (when the handler fails after charging).
    pub fn refund(&self, id: i64, price: i64) {
        if let Some(key) = self.keys.lock().by_id.get_mut(&id) {
            let key = Arc::make_mut(key);
            if !key.unlimited_quota {
                key.remain_quota = key.remain_quota.saturating_add(price);
            }
            key.used_quota = key.used_quota.saturating_sub(price);
        }
    }

    /// The key with this secret (without `sk-`).
    pub fn key_by_secret(&self, secret: &str) -> Option<KeyRecord> {
        let table = self.keys.lock();
        let id = table.id_of(secret)?;
        table.by_id.get(&id).map(|k| KeyRecord::clone(k))
    }

    /// What `f` reads of key `id`'s `group`, without copying the key (the price of every
    /// charged request reads it).
    pub(crate) fn with_key_group<R>(&self, id: i64, f: impl FnOnce(&str) -> R) -> Option<R> {
        self.keys.lock().by_id.get(&id).map(|k| f(&k.group))
    }

    /// One key.
    pub fn key(&self, id: i64) -> Option<KeyRecord> {
        self.keys.lock().by_id.get(&id).map(|k| KeyRecord::clone(k))
    }

    /// Every key, by id.
    pub fn keys(&self) -> Vec<KeyRecord> {
        self.keys
            .lock()
            .by_id
            .values()
            .map(|k| KeyRecord::clone(k))
            .collect()
    }

    /// The keys of one account, newest (highest id) first.
    pub fn keys_of(&self, user_id: i64) -> Vec<KeyRecord> {
        self.keys
            .lock()
            .by_id
            .values()
            .rev()
            .filter(|k| k.user_id == user_id)
            .map(|k| KeyRecord::clone(k))
            .collect()
    }

    /// Replaces a key record with `update(current)` when it exists and `owner` matches, and
    /// hands back the stored record (shared, not copied). The closure's error is passed
    /// through.
    pub fn update_key<E>(
        &self,
        id: i64,
        owner: i64,
        update: impl FnOnce(&KeyRecord) -> Result<KeyRecord, E>,
        not_found: E,
    ) -> Result<Arc<KeyRecord>, E> {
        let mut table = self.keys.lock();
        let current = match table.by_id.get(&id) {
            Some(k) if k.user_id == owner => k,
            _ => return Err(not_found),
        };
        let mut next = update(current)?;
        next.id = id;
        // The secret never changes here (the update starts from a copy of `current`).
        if !secrets_equal(&next.key, &current.key) {
            next.key = current.key.clone();
        }
        next.user_id = current.user_id;
        let next = Arc::new(next);
        table.insert_shared(next.clone());
        Ok(next)
    }

    /// Deletes key `id` of `owner`; false when there is none.
    pub fn delete_key(&self, id: i64, owner: i64) -> bool {
        let mut table = self.keys.lock();
        match table.by_id.get(&id) {
            Some(k) if k.user_id == owner => table.remove(id).is_some(),
            _ => false,
        }
    }

    /// Creates a key from a partial record at `now`, generating what is missing.
    pub fn create_key(&self, new: NewKey, now: i64, ids: &Ids) -> KeyRecord {
        let mut table = self.keys.lock();
        let id = new.id.unwrap_or_else(|| table.next_id());
        let mut secret = new
            .key
            .map(|k| k.strip_prefix("sk-").map(str::to_owned).unwrap_or(k))
            .filter(|k| !k.is_empty())
            .unwrap_or_else(|| ids.key_secret());
        while table.id_of(&secret).is_some_and(|other| other != id) {
            secret = ids.key_secret();
        }
        let record = KeyRecord {
            id,
            user_id: new.user_id.unwrap_or(1),
            key: secret,
            status: new.status.unwrap_or(KEY_STATUS_ENABLED),
            name: new.name.unwrap_or_else(|| format!("key-{id}")),
            created_time: now,
            accessed_time: now,
            expired_time: new.expired_time.unwrap_or(-1),
            remain_quota: new.remain_quota.unwrap_or(50_000_000),
            unlimited_quota: new.unlimited_quota.unwrap_or(false),
            model_limits_enabled: new.model_limits_enabled.unwrap_or(false),
            model_limits: new.model_limits.unwrap_or_default(),
            allow_ips: Some(new.allow_ips.unwrap_or_default()),
            used_quota: new.used_quota.unwrap_or(0),
            group: new.group.unwrap_or_default(),
            cross_group_retry: new.cross_group_retry.unwrap_or(false),
        };
        table.insert(record.clone());
        record
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_compare_by_content() {
        assert!(secrets_equal("abc", "abc"));
        assert!(!secrets_equal("abc", "abd"));
        assert!(!secrets_equal("abc", "abcd"));
        assert!(!secrets_equal("", "a"));
        let mut t = KeyTable::default();
        let mut k = Fixtures::embedded().keys[0].clone();
        k.id = 7;
        k.key = "secret".into();
        t.insert(k);
        assert_eq!(t.id_of("secret"), Some(7));
        assert_eq!(t.id_of("secreT"), None);
        t.remove(7);
        assert_eq!(t.id_of("secret"), None);
    }

    /// Word-wise comparison agrees with `==` at every length and every differing position
    /// (in the whole words and in the tail).
    #[test]
    fn secrets_equal_is_string_equality() {
        let base: String = ('a'..='z').chain('A'..='Z').collect();
        for len in 0..=base.len() {
            let a = &base[..len];
            assert!(secrets_equal(a, a), "{len}");
            for i in 0..len {
                let mut b = a.as_bytes().to_vec();
                b[i] = b'0';
                let b = String::from_utf8(b).expect("ascii");
                assert!(!secrets_equal(a, &b), "{len} {i}");
            }
            if len > 0 {
                assert!(!secrets_equal(a, &base[..len - 1]), "{len}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn secrets_equal_agrees_with_eq(a in ".{0,40}", b in ".{0,40}") {
            proptest::prop_assert_eq!(secrets_equal(&a, &b), a == b);
            proptest::prop_assert!(secrets_equal(&a, &a.clone()));
        }
    }
}
