//! Generation: proptest strategies for valid and invalid requests and media, and the seeded
//! proptest runner they draw from. The property runner that sends them to a target is
//! `checks::property` (generation knows nothing of checks).

pub(crate) mod media;
pub(crate) mod strategies;

use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// A seeded proptest runner for `cases` cases.
pub fn test_runner(seed: u64, cases: u32) -> TestRunner {
    let mut bytes = [0u8; 32];
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        chunk.copy_from_slice(
            &(seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)).to_le_bytes(),
        );
    }
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
}
