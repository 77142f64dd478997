//! Byte scans on the mock's per-request path (path segments, key suffixes, JSON escapes),
//! eight bytes at a time: over paths, keys and values of 30-60 bytes a byte-by-byte loop costs
//! several instructions per byte, and `str::split` sets up a searcher per call.

/// The index of the first `needle` in `hay`.
pub fn find_byte(hay: &[u8], needle: u8) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let pattern = ONES * u64::from(needle);
    let mut chunks = hay.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut chunks {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        // A byte equal to `needle` is a zero byte of `x`. The lowest set bit of `zeros` is in
        // the first zero byte (a borrow can only mark bytes above a true zero).
        let x = u64::from_le_bytes(word) ^ pattern;
        let zeros = x.wrapping_sub(ONES) & !x & HIGHS;
        if zeros != 0 {
            return Some(at + (zeros.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == needle)
        .map(|i| at + i)
}

/// Whether `bytes` holds a byte that JSON strings escape: a control character (below 0x20),
/// `"` or `\\` (serde_json escapes these only).
pub fn needs_json_escape(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // Nonzero when some byte of `x` is below `n` (n <= 0x80); a borrow can only add marks
    // above a byte that is below `n` itself.
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGHS;
    let mut chunks = bytes.chunks_exact(8);
    let mut any = 0;
    for chunk in &mut chunks {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let x = u64::from_le_bytes(word);
        any |= below(x, 0x20) | below(x ^ (ONES * u64::from(b'"')), 1);
        any |= below(x ^ (ONES * u64::from(b'\\')), 1);
    }
    any != 0
        || chunks
            .remainder()
            .iter()
            .any(|&b| b < 0x20 || b == b'"' || b == b'\\')
}

#[cfg(test)]
mod tests {
    use super::{find_byte, needs_json_escape};

    proptest::proptest! {
        /// The same answer as a byte-by-byte check, on any bytes.
        #[test]
        fn escape_check_matches_a_byte_loop(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..70)) {
            let oracle = bytes.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\');
            proptest::prop_assert_eq!(needs_json_escape(&bytes), oracle);
        }

        /// Mostly plain text with the odd escapable byte, anywhere in a word.
        #[test]
        fn escape_check_finds_one_byte_anywhere(text in "[a-zé ]{0,40}", at in 0usize..41, b in proptest::prop_oneof![0u8..0x20, proptest::strategy::Just(b'"'), proptest::strategy::Just(b'\\'), 0x20u8..0x7f]) {
            let mut bytes = text.into_bytes();
            let at = at.min(bytes.len());
            bytes.insert(at, b);
            let oracle = bytes.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\');
            proptest::prop_assert_eq!(needs_json_escape(&bytes), oracle);
        }
    }

    proptest::proptest! {
        /// The same answer as a plain scan, for any bytes and any needle.
        #[test]
        fn finds_what_position_finds(hay in proptest::collection::vec(proptest::num::u8::ANY, 0..80), needle in proptest::num::u8::ANY) {
            proptest::prop_assert_eq!(find_byte(&hay, needle), hay.iter().position(|&b| b == needle));
        }

        /// Needles drawn from a small alphabet, so that most inputs hold several.
        #[test]
        fn finds_the_first_of_many(hay in "[/a-]{0,70}") {
            for needle in [b'/', b'-', b'a'] {
                proptest::prop_assert_eq!(
                    find_byte(hay.as_bytes(), needle),
                    hay.bytes().position(|b| b == needle)
                );
            }
        }
    }
}
