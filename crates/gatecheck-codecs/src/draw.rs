//! Seeded draws that stay the same from one `rand` release to the next.
//!
//! A seed (`serve --seed`, `check --seed`, the library's `seed`) promises the same ids, the same
//! request sequence and the same fault draws in every gatecheck release: recordings, golden
//! snapshots and replayed runs depend on it. `rand` is free to change how it expands a `u64` seed
//! and how it maps raw bits onto a range between minor versions (0.9 changed both), so every
//! seeded draw goes through [`Draw`]: rand's xoshiro256++ (what `SmallRng` is on 64-bit targets;
//! its output is fixed by its authors' reference, and naming it keeps 32-bit targets the same), seeded through `rand_core`'s PCG32 expansion (which `rand_core`
//! documents as value-stable), and sampled with the widening-multiply method gatecheck has
//! always used. The unit tests pin the values.
//!
//! Unseeded randomness (a run's seed when none is given, a scratch key's name) uses `rand`
//! directly: nothing depends on its values.
//!
//! The mock draws its ids and fault odds here, the runner its standard sequence and backoff
//! jitter; [`splitmix`] is the generator of the media encoders (PNG colours, tones, tints).

use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng as _, SeedableRng};

/// A seeded source of draws: integers in a range, a choice from a slice, a fraction.
#[derive(Debug, Clone)]
pub struct Draw(Xoshiro256PlusPlus);

/// Only the seed's expansion: `rand_core`'s default `seed_from_u64` (PCG32 over 32 bytes), which
/// xoshiro overrides with its own (SplitMix64).
struct Expanded([u8; 32]);

impl SeedableRng for Expanded {
    type Seed = [u8; 32];
    fn from_seed(seed: [u8; 32]) -> Self {
        Self(seed)
    }
}

impl Draw {
    /// A source seeded with `seed`; the same seed gives the same draws.
    pub fn seeded(seed: u64) -> Self {
        Self(Xoshiro256PlusPlus::from_seed(
            Expanded::seed_from_u64(seed).0,
        ))
    }

    /// A uniform index in `0..n` over 64-bit words (how ids pick their characters). `n` must
    /// not be 0.
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0, "an empty range");
        self.up_to(n as u64 - 1) as usize
    }

    /// A uniform value in `0..=high` over 64-bit words.
    pub fn up_to(&mut self, high: u64) -> u64 {
        let range = high.wrapping_add(1);
        if range == 0 {
            return self.0.next_u64();
        }
        let zone = (range << range.leading_zeros()).wrapping_sub(1);
        loop {
            let wide = u128::from(self.0.next_u64()) * u128::from(range);
            if wide as u64 <= zone {
                return (wide >> 64) as u64;
            }
        }
    }

    /// A uniform value in `low..=high` over 32-bit words. `low` must not exceed `high`.
    pub fn between(&mut self, low: u32, high: u32) -> u32 {
        debug_assert!(low <= high, "an empty range");
        let range = high.wrapping_sub(low).wrapping_add(1);
        if range == 0 {
            return self.0.next_u32();
        }
        let zone = (range << range.leading_zeros()).wrapping_sub(1);
        loop {
            let wide = u64::from(self.0.next_u32()) * u64::from(range);
            if wide as u32 <= zone {
                return low.wrapping_add((wide >> 32) as u32);
            }
        }
    }

    /// One element of `xs`, uniformly (`None` when it is empty).
    pub fn choose<'a, T>(&mut self, xs: &'a [T]) -> Option<&'a T> {
        match xs.len() {
            0 => None,
            n => {
                let i = match u32::try_from(n) {
                    Ok(n) => self.between(0, n - 1) as usize,
                    Err(_) => self.below(n),
                };
                xs.get(i)
            }
        }
    }

    /// A fraction in `[0, 1)` with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        const SCALE: f64 = 1.0 / (1u64 << 53) as f64;
        SCALE * (self.0.next_u64() >> 11) as f64
    }
}

/// The SplitMix64 generator: advances `state` and returns the next value.
///
/// ```
/// let mut s = 7;
/// let a = gatecheck_codecs::draw::splitmix(&mut s);
/// assert_ne!(a, gatecheck_codecs::draw::splitmix(&mut s));
/// ```
pub fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::Draw;

    /// Per seed, what gatecheck's seeded runs drew before this module existed (rand 0.8's
    /// `SmallRng::seed_from_u64`, `gen_range` and `SliceRandom::choose`), in this order from one
    /// source: 12 × `0..62usize`, 12 choices of 7, 6 choices of 40, 8 × `3..=6i32`,
    /// 8 × `3..99i32`, 8 × `200..900u32`, `0..=span` for 5 spans, 6 fractions (as bits).
    type Row = (
        u64,
        [usize; 12],
        [u32; 12],
        [u32; 6],
        [u32; 8],
        [u32; 8],
        [u32; 8],
        [u64; 5],
        [u64; 6],
    );

    const SPANS: [u64; 5] = [1, 250, 4999, u64::MAX / 3, u64::MAX];

    #[rustfmt::skip]
    const PINNED: [Row; 5] = [
        (0x0, [27, 27, 60, 28, 55, 58, 36, 28, 24, 50, 14, 60], [4, 0, 6, 1, 1, 2, 5, 5, 4, 1, 1, 6], [15, 36, 1, 17, 0, 37], [4, 4, 4, 3, 6, 4, 4, 4], [81, 63, 12, 92, 21, 74, 20, 16], [323, 872, 626, 634, 226, 280, 477, 238], [1, 250, 3776, 3294285182427203896, 7570080342396087173], [4594936196663965624, 4602722125822163041, 4598178151771629652, 4607012620459328443, 4597957852421020080, 4604837959784449109]),
        (0x7, [60, 19, 27, 16, 25, 47, 32, 6, 11, 42, 21, 22], [3, 2, 2, 6, 0, 3, 5, 4, 2, 2, 5, 0], [5, 16, 34, 29, 13, 19], [5, 6, 5, 5, 5, 5, 4, 4], [81, 87, 72, 7, 21, 57, 76, 30], [382, 571, 731, 360, 345, 852, 640, 249], [1, 72, 3862, 895658635031984191, 11560225480049514965], [4606250022686455170, 4591656898887561272, 4594241926621578088, 4603633612137632699, 4598671642414825826, 4595027978737674004]),
        (0xb, [6, 5, 58, 6, 18, 59, 0, 24, 7, 18, 0, 5], [2, 2, 6, 5, 5, 4, 2, 4, 5, 1, 4, 2], [37, 5, 13, 4, 39, 17], [4, 5, 4, 4, 5, 4, 6, 6], [95, 67, 83, 69, 90, 3, 46, 45], [839, 370, 337, 595, 505, 363, 713, 577], [1, 84, 4575, 4045055689484138903, 10658488595021568714], [4595816552452239492, 4601669555847970268, 4605657047949715306, 4603396046955678189, 4584399196369297792, 4599520661192223560]),
        (0x5353453a, [32, 45, 3, 42, 52, 29, 58, 11, 23, 17, 53, 24], [6, 3, 2, 0, 0, 6, 5, 6, 2, 2, 5, 5], [22, 7, 25, 9, 13, 23], [6, 3, 4, 4, 6, 4, 5, 6], [93, 9, 30, 36, 39, 20, 66, 94], [418, 747, 408, 616, 477, 439, 259, 627], [0, 202, 4761, 1563241615124743333, 7359517572898588687], [4606340664249673889, 4596058107554579568, 4600055540352770548, 4605769285737923303, 4595718722469463640, 4603438856942634707]),
        (0xffffffffffffffff, [38, 7, 52, 20, 54, 32, 8, 38, 51, 58, 60, 53], [6, 0, 4, 5, 5, 5, 5, 1, 2, 5, 4, 3], [16, 26, 29, 17, 22, 29], [3, 4, 3, 6, 3, 3, 6, 5], [59, 36, 25, 71, 15, 72, 46, 13], [495, 858, 806, 303, 396, 604, 482, 749], [1, 205, 1325, 4170078359193486486, 13533863433994701090], [4605335176813694693, 4606283726512048701, 4595496712756773360, 4604327388126814040, 4601804613740241188, 4602247907390036196]),
    ];

    fn drawn<const N: usize, T>(mut f: impl FnMut() -> T) -> [T; N] {
        std::array::from_fn(|_| f())
    }

    #[test]
    fn draws_are_the_pinned_values() {
        let sevens: Vec<u32> = (0..7).collect();
        let forties: Vec<u32> = (0..40).collect();
        for (seed, below, choose7, choose40, small, mid, wav, spans, units) in PINNED {
            let mut d = Draw::seeded(seed);
            assert_eq!(drawn(|| d.below(62)), below, "seed {seed:#x}: below");
            assert_eq!(
                drawn(|| *d.choose(&sevens).unwrap()),
                choose7,
                "seed {seed:#x}"
            );
            assert_eq!(
                drawn(|| *d.choose(&forties).unwrap()),
                choose40,
                "seed {seed:#x}"
            );
            assert_eq!(drawn(|| d.between(3, 6)), small, "seed {seed:#x}: 3..=6");
            assert_eq!(drawn(|| d.between(3, 98)), mid, "seed {seed:#x}: 3..99");
            assert_eq!(
                drawn(|| d.between(200, 899)),
                wav,
                "seed {seed:#x}: 200..900"
            );
            assert_eq!(SPANS.map(|s| d.up_to(s)), spans, "seed {seed:#x}: spans");
            assert_eq!(drawn(|| d.unit().to_bits()), units, "seed {seed:#x}: units");
        }
    }

    #[test]
    fn draws_stay_in_their_ranges() {
        let mut d = Draw::seeded(99);
        for _ in 0..10_000 {
            assert!(d.below(62) < 62);
            assert!((5..=9).contains(&d.between(5, 9)));
            assert!(d.up_to(3) <= 3);
            assert!((0.0..1.0).contains(&d.unit()));
        }
        assert_eq!(d.choose::<u8>(&[]), None);
        assert_eq!(d.between(7, 7), 7);
        let _ = d.between(0, u32::MAX);
    }
}
