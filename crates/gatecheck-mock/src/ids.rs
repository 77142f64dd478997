//! Identifiers from a seeded RNG: request ids, video task ids, key secrets.
//!
//! The same seed gives the same sequence, so runs are reproducible; different seeds give
//! different ids.

use parking_lot::Mutex;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// A seeded source of identifiers.
#[derive(Debug)]
pub struct Ids {
    rng: Mutex<SmallRng>,
}

impl Ids {
    /// A source seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self {
            rng: Mutex::new(SmallRng::seed_from_u64(seed)),
        }
    }

    /// `n` random letters and digits.
    pub fn alnum(&self, n: usize) -> String {
        let mut rng = self.rng.lock();
        (0..n)
            .map(|_| ALNUM[rng.gen_range(0..ALNUM.len())] as char)
            .collect()
    }

    /// A request id, as new-api's: a timestamp-like prefix and random letters and digits.
    pub fn request_id(&self, now_ms: i64) -> String {
        format!("{now_ms}{}", self.alnum(12))
    }

    /// A video task id: `task_` + 32 letters and digits.
    pub fn task_id(&self) -> String {
        format!("task_{}", self.alnum(32))
    }

    /// A key secret: 48 letters and digits (without `sk-`).
    pub fn key_secret(&self) -> String {
        self.alnum(48)
    }
}
