//! Byte search for the per-request parsers (path segments, key suffixes): eight bytes at a
//! time. The mock runs these on every request, over paths and keys of 30-60 bytes, where a
//! byte-by-byte loop costs several instructions per byte and `str::split` sets up a searcher
//! per call.

/// The index of the first `needle` in `hay`.
pub(crate) fn find_byte(hay: &[u8], needle: u8) -> Option<usize> {
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

#[cfg(test)]
mod tests {
    use super::find_byte;

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
