//! Identifiers from a seeded RNG: request ids, video task ids, key secrets.
//!
//! The same seed gives the same sequence, so runs are reproducible; different seeds give
//! different ids.

use gatecheck_schemas::rules::time::civil_from_days;
use parking_lot::Mutex;

use gatecheck_codecs::draw::Draw;

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// A seeded source of identifiers.
#[derive(Debug)]
pub struct Ids {
    inner: Mutex<Inner>,
}

/// The RNG, and the last second a request id was stamped with.
#[derive(Debug)]
struct Inner {
    rng: Draw,
    stamp: Stamp,
}

/// A second as `YYYYMMDDhhmmss` (UTC): every request id of that second starts with it, so the
/// date is worked out once a second, not once a request.
#[derive(Debug, Clone, Copy)]
struct Stamp {
    secs: i64,
    digits: [u8; STAMP_LEN],
}

/// `YYYYMMDDhhmmss`.
const STAMP_LEN: usize = 14;

/// The seconds of years 0000 to 9999, whose stamps have exactly [`STAMP_LEN`] digits.
const STAMPED_SECS: std::ops::RangeInclusive<i64> = -62_167_219_200..=253_402_300_799;

impl Stamp {
    /// The stamp of `secs` (one of [`STAMPED_SECS`]).
    fn of(secs: i64) -> Self {
        let (y, mo, d) = civil_from_days(secs.div_euclid(86_400));
        let sod = secs.rem_euclid(86_400);
        let mut id = RequestId::empty();
        for (part, width) in [
            (y, 4),
            (mo, 2),
            (d, 2),
            (sod / 3600, 2),
            (sod % 3600 / 60, 2),
            (sod % 60, 2),
        ] {
            id.push_decimal(part.unsigned_abs(), width);
        }
        let mut digits = [0; STAMP_LEN];
        digits.copy_from_slice(&id.bytes[..STAMP_LEN]);
        Self { secs, digits }
    }
}

impl Ids {
    /// A source seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self {
            inner: Mutex::new(Inner {
                rng: Draw::seeded(seed),
                stamp: Stamp::of(0),
            }),
        }
    }

    /// `n` random letters and digits.
    pub fn alnum(&self, n: usize) -> String {
        let rng = &mut self.inner.lock().rng;
        (0..n)
            .map(|_| ALNUM[rng.below(ALNUM.len())] as char)
            .collect()
    }

    /// A request id in new-api's shape: `YYYYMMDDhhmmss` (UTC), the sub-second part in
    /// nanoseconds, then 8 random letters and digits.
    ///
    /// ```text
    /// // 2025-11-21T00:00:00.250Z -> "20251121000000250000000" + 8 random characters
    /// ```
    pub fn request_id(&self, now_ms: i64) -> RequestId {
        use std::fmt::Write as _;
        let secs = now_ms.div_euclid(1000);
        let nanos = now_ms.rem_euclid(1000) * 1_000_000;
        // Written in place: no allocation (at most 36 bytes for any i64 time). The years
        // 0-9999 take the stamp of the second, kept from the last request (`write!` is the
        // general path).
        let mut id = RequestId::empty();
        let mut inner = self.inner.lock();
        if STAMPED_SECS.contains(&secs) {
            if inner.stamp.secs != secs {
                inner.stamp = Stamp::of(secs);
            }
            id.bytes[..STAMP_LEN].copy_from_slice(&inner.stamp.digits);
            id.len = STAMP_LEN;
            id.push_decimal(nanos.unsigned_abs(), 1);
        } else {
            let (y, mo, d) = civil_from_days(secs.div_euclid(86_400));
            let sod = secs.rem_euclid(86_400);
            let _ = write!(
                id,
                "{y:04}{mo:02}{d:02}{:02}{:02}{:02}{nanos}",
                sod / 3600,
                sod % 3600 / 60,
                sod % 60,
            );
        }
        let end = (id.len + RANDOM_LEN).min(REQUEST_ID_CAPACITY);
        for slot in &mut id.bytes[id.len..end] {
            *slot = ALNUM[inner.rng.below(ALNUM.len())];
        }
        id.len = end;
        id
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

/// Room for a request id: 23 digits for any date up to year 9999 (36 for any `i64` time) and
/// [`RANDOM_LEN`] random characters.
const REQUEST_ID_CAPACITY: usize = 48;

/// The random letters and digits that end a request id.
const RANDOM_LEN: usize = 8;

/// A request id held inline (`Copy`, no allocation), written once per request.
#[derive(Clone, Copy)]
pub(crate) struct RequestId {
    bytes: [u8; REQUEST_ID_CAPACITY],
    len: usize,
}

impl RequestId {
    /// No characters yet.
    fn empty() -> Self {
        Self {
            bytes: [0; REQUEST_ID_CAPACITY],
            len: 0,
        }
    }

    /// The id as text (ASCII digits and letters only).
    pub(crate) fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

impl std::fmt::Debug for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl RequestId {
    /// Appends `n` in decimal, zero-padded to at least `width` digits (as `{n:0width$}`).
    fn push_decimal(&mut self, mut n: u64, width: usize) {
        let mut digits = [0u8; 20];
        let mut start = digits.len();
        while n > 0 || digits.len() - start < width.max(1) {
            start -= 1;
            digits[start] = b'0' + (n % 10) as u8;
            n /= 10;
        }
        let end = self.len + digits.len() - start;
        if let Some(slot) = self.bytes.get_mut(self.len..end) {
            slot.copy_from_slice(&digits[start..]);
            self.len = end;
        }
    }
}

impl std::fmt::Write for RequestId {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let slot = self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The digit-by-digit path writes what `write!` writes.
    #[test]
    fn digits_match_the_formatter() {
        use std::fmt::Write as _;
        for (n, width) in [
            (0u64, 1),
            (0, 4),
            (7, 2),
            (12, 2),
            (999_000_000, 1),
            (2026, 4),
            (u64::MAX, 1),
        ] {
            let mut fast = RequestId::empty();
            fast.push_decimal(n, width);
            let mut slow = RequestId::empty();
            write!(slow, "{n:0width$}").unwrap();
            assert_eq!(fast.as_str(), slow.as_str());
        }
        let ids = Ids::new(3);
        for ms in [
            0,
            1,
            999,
            1_763_683_200_250,
            253_402_300_799_999,
            -1,
            -62_135_596_800_001,
        ] {
            let id = ids.request_id(ms);
            let id = id.as_str();
            assert_eq!(&id[..id.len() - RANDOM_LEN], formatted(ms), "{ms}");
        }
    }

    /// The formatter's id of `ms`, without the random part.
    fn formatted(ms: i64) -> String {
        let secs = i64::div_euclid(ms, 1000);
        let (y, mo, d) = civil_from_days(secs.div_euclid(86_400));
        let sod = secs.rem_euclid(86_400);
        let nanos = ms.rem_euclid(1000) * 1_000_000;
        format!(
            "{y:04}{mo:02}{d:02}{:02}{:02}{:02}{nanos}",
            sod / 3600,
            sod % 3600 / 60,
            sod % 60
        )
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        /// The kept stamp never shows a stale second: ids of times that go back and forth,
        /// within one second and across seconds, years and the ends of year 0 and 9999.
        #[test]
        fn kept_stamps_match_the_formatter(
            times in proptest::collection::vec(
                proptest::prop_oneof![
                    -62_167_219_200_500i64..-62_167_219_199_000,
                    1_763_683_199_000i64..1_763_683_202_000,
                    253_402_300_798_000i64..253_402_300_800_500,
                    proptest::num::i64::ANY.prop_map(|t| t / 1000),
                ],
                1..40,
            )
        ) {
            let ids = Ids::new(9);
            for ms in times {
                let id = ids.request_id(ms);
                let id = id.as_str();
                proptest::prop_assert_eq!(&id[..id.len() - RANDOM_LEN], formatted(ms));
            }
        }
    }

    #[test]
    fn request_ids_have_new_apis_shape() {
        let ids = Ids::new(1);
        let id = ids.request_id(1_763_683_200_250);
        let id = id.as_str();
        assert!(id.starts_with("20251121000000250000000"), "{id}");
        assert_eq!(id.len(), "20251121000000250000000".len() + 8);
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn request_ids_fit_inline_for_any_time() {
        let ids = Ids::new(1);
        // From the epoch to the last millisecond of year 9999: 23 digits and 8 characters.
        for ms in [0, 1, 1_763_683_200_250, 253_402_300_799_999] {
            let id = ids.request_id(ms);
            assert!(id.as_str().len() <= 31, "{id:?}");
            assert!(id.as_str().len() > 8 + 14, "{id:?}");
            assert!(
                id.as_str().bytes().all(|b| b.is_ascii_alphanumeric()),
                "{id:?}"
            );
        }
    }
}
