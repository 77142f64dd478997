//! The embedded fixtures as static data: what [`Fixtures::embedded`] builds the mock's
//! accounts, keys, catalog and capabilities from, instead of parsing the JSON files at the
//! first start of a process.
//!
//! The first `MockServer::start()` of a process spent most of its time parsing the embedded
//! JSON: the serde code of every fixture type ran for the first time, page by page
//! (BENCHMARKS.md, "Ninth session"). The seeds are plain `static` data (no code runs to make
//! them), and building the owned values from them is a handful of small loops.
//!
//! `seeds/embedded.rs` is generated from the JSON files (`crates/gatecheck-mock/fixtures/`),
//! which stay the source of truth: the tests check that the seeds build the very values the
//! files parse to, and that the generated file is what the files give today
//! (`GATECHECK_BLESS=1 cargo test -p gatecheck-mock --lib seeds` rewrites it).
//!
//! [`Fixtures::embedded`]: crate::Fixtures::embedded

use gatecheck_schemas::rules::video::{OutcomeRule, VideoConfig, VideoOutcome, VideoTiming};
use gatecheck_schemas::types::{
    Account, Endpoints, ImageCapability, KeyRecord, ModelCapabilities, ModelRecord, Pricing,
    SpeechCapability, TranscriptionCapability, VideoCapability,
};
use std::collections::BTreeMap;

#[rustfmt::skip]
mod embedded;

/// A seed builds the owned value it stands for: a `&'static str` a `String`, a slice a
/// `Vec`, a plain value itself.
trait Own {
    /// The owned value.
    type Owned;
    /// Builds it.
    fn own(&self) -> Self::Owned;
}

impl Own for &'static str {
    type Owned = String;
    fn own(&self) -> String {
        (*self).to_owned()
    }
}

impl<T: Own> Own for &'static [T] {
    type Owned = Vec<T::Owned>;
    fn own(&self) -> Self::Owned {
        self.iter().map(Own::own).collect()
    }
}

impl<T: Own> Own for Option<T> {
    type Owned = Option<T::Owned>;
    fn own(&self) -> Self::Owned {
        self.as_ref().map(Own::own)
    }
}

/// Plain values are their own seeds.
macro_rules! plain {
    ($($ty:ty),*) => {$(
        impl Own for $ty {
            type Owned = $ty;
            fn own(&self) -> $ty {
                *self
            }
        }
    )*};
}

plain!(i64, u64, bool, f64, VideoTiming, VideoOutcome);

/// Declares each seed struct from one field list, and builds its owned type from the same
/// list: a field the owned type lacks, or one it has and the seed does not, is a compile
/// error, so a seed cannot drift from the type it stands for.
macro_rules! seeds {
    ($(
        $(#[$doc:meta])*
        $seed:ident => $owned:ident { $($field:ident: $ty:ty),* $(,)? }
    )*) => {$(
        $(#[$doc])*
        pub(crate) struct $seed {
            $(pub $field: $ty),*
        }

        impl Own for $seed {
            type Owned = $owned;
            fn own(&self) -> $owned {
                $owned { $($field: Own::own(&self.$field)),* }
            }
        }
    )*};
}

seeds! {
    /// An [`Account`].
    AccountSeed => Account {
        id: i64, username: &'static str, access_token: &'static str,
        groups: &'static [&'static str],
    }

    /// A [`KeyRecord`] (the secret without `sk-`, as the mock stores it).
    KeySeed => KeyRecord {
        id: i64, user_id: i64, key: &'static str, status: i64, name: &'static str,
        created_time: i64, accessed_time: i64, expired_time: i64,
        remain_quota: i64, unlimited_quota: bool, used_quota: i64,
        model_limits_enabled: bool, model_limits: &'static str,
        allow_ips: Option<&'static str>, group: &'static str, cross_group_retry: bool,
    }

    /// A [`ModelRecord`] of the catalog.
    ModelSeed => ModelRecord {
        created: i64, id: &'static str, code: &'static str, provider: &'static str,
        provider_code: &'static str, name: &'static str, model_type: &'static str,
        features: &'static [&'static str], endpoints: EndpointsSeed, pricing: PricingSeed,
    }

    /// [`Pricing`].
    PricingSeed => Pricing {
        currency: &'static str, input: Option<f64>, output: Option<f64>,
        per_request: Option<f64>, per_second: Option<f64>,
    }

    /// [`ModelCapabilities`].
    CapabilitiesSeed => ModelCapabilities {
        image: Option<ImageSeed>, speech: Option<SpeechSeed>,
        transcription: Option<TranscriptionSeed>, video: Option<VideoSeed>,
    }

    /// [`ImageCapability`].
    ImageSeed => ImageCapability { sizes: &'static [&'static str], output: &'static str }

    /// [`SpeechCapability`].
    SpeechSeed => SpeechCapability {
        voices: &'static [&'static str], formats: &'static [&'static str],
    }

    /// [`TranscriptionCapability`].
    TranscriptionSeed => TranscriptionCapability { translation: bool, transcription: bool }

    /// [`VideoCapability`].
    VideoSeed => VideoCapability {
        sizes: &'static [&'static str], seconds: &'static [i64],
        default_size: &'static str, default_seconds: i64,
    }

    /// [`VideoConfig`] (its timing and outcomes are plain values already).
    VideoConfigSeed => VideoConfig {
        timing: VideoTiming, poll_after_ms: u64, outcomes: &'static [OutcomeSeed],
        default_outcome: VideoOutcome,
    }

    /// [`OutcomeRule`].
    OutcomeSeed => OutcomeRule {
        prompt_contains: &'static str, outcome: VideoOutcome, code: &'static str,
        message: &'static str,
    }
}

/// [`Endpoints`].
pub(crate) enum EndpointsSeed {
    Encoded(&'static str),
    Formats(&'static [&'static str]),
}

impl Own for EndpointsSeed {
    type Owned = Endpoints;
    fn own(&self) -> Endpoints {
        match self {
            EndpointsSeed::Encoded(s) => Endpoints::Encoded(s.own()),
            EndpointsSeed::Formats(f) => Endpoints::Formats(f.own()),
        }
    }
}

/// The embedded accounts.
pub(crate) fn accounts() -> Vec<Account> {
    embedded::ACCOUNTS.own()
}

/// The embedded keys.
pub(crate) fn keys() -> Vec<KeyRecord> {
    embedded::KEYS.own()
}

/// The embedded catalog, in order.
pub(crate) fn catalog() -> Vec<ModelRecord> {
    embedded::CATALOG.own()
}

/// The embedded capabilities, by model id.
pub(crate) fn capabilities() -> BTreeMap<String, ModelCapabilities> {
    embedded::CAPABILITIES
        .iter()
        .map(|(id, c)| (id.own(), c.own()))
        .collect()
}

/// The embedded video configuration.
pub(crate) fn video() -> VideoConfig {
    embedded::VIDEO.own()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::Fixtures;

    /// The seeds build exactly what the JSON files parse to.
    #[test]
    fn seeds_build_what_the_json_files_parse_to() {
        let parsed = Fixtures::parse_embedded_json().expect("the embedded JSON parses");
        assert_eq!(accounts(), parsed.accounts);
        assert_eq!(keys(), parsed.keys);
        assert_eq!(catalog(), parsed.catalog);
        assert_eq!(capabilities(), parsed.capabilities);
        assert_eq!(video(), parsed.video);
    }

    /// `seeds/embedded.rs` is what the JSON files give today; `GATECHECK_BLESS=1` rewrites it.
    #[test]
    fn generated_seeds_are_up_to_date() {
        let parsed = Fixtures::parse_embedded_json().expect("the embedded JSON parses");
        let want = render(&parsed);
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/seeds/embedded.rs");
        if std::env::var_os("GATECHECK_BLESS").is_some() {
            std::fs::write(path, &want).expect("writing seeds/embedded.rs");
        }
        let have = std::fs::read_to_string(path).expect("reading seeds/embedded.rs");
        assert!(
            have == want,
            "src/seeds/embedded.rs is stale: rerun with GATECHECK_BLESS=1"
        );
    }

    /// Rust source of the seeds: each value's `Debug` form is a Rust literal once its type
    /// names are the seeds' and its lists are borrowed slices (a compile error or the test
    /// above catches any value for which that would not hold).
    fn render(f: &Fixtures) -> String {
        fn literal(value: &impl std::fmt::Debug) -> String {
            let mut s = format!("{value:?}");
            for (from, to) in [
                ("ModelRecord {", "ModelSeed {"),
                ("KeyRecord {", "KeySeed {"),
                ("Account {", "AccountSeed {"),
                ("Pricing {", "PricingSeed {"),
                ("ModelCapabilities {", "CapabilitiesSeed {"),
                ("ImageCapability {", "ImageSeed {"),
                ("SpeechCapability {", "SpeechSeed {"),
                ("TranscriptionCapability {", "TranscriptionSeed {"),
                ("VideoCapability {", "VideoSeed {"),
                ("endpoints: Encoded(", "endpoints: EndpointsSeed::Encoded("),
                (
                    "endpoints: Formats([",
                    "endpoints: EndpointsSeed::Formats(&[",
                ),
                ("VideoConfig {", "VideoConfigSeed {"),
                ("OutcomeRule {", "OutcomeSeed {"),
                // `outcome` and `default_outcome` alike.
                ("outcome: ", "outcome: VideoOutcome::"),
                (": [", ": &["),
            ] {
                s = s.replace(from, to);
            }
            s
        }
        let list = |items: Vec<String>| {
            items
                .iter()
                .map(|i| format!("    {i},\n"))
                .collect::<String>()
        };
        let mut out = String::from(
            "//! Generated from crates/gatecheck-mock/fixtures/*.json by the tests of\n\
             //! `seeds.rs` (`GATECHECK_BLESS=1 cargo test -p gatecheck-mock --lib seeds`).\n\
             //! Do not edit: change the JSON files and rerun.\n\n\
             use super::*;\n\n",
        );
        out += "pub(super) static ACCOUNTS: &[AccountSeed] = &[\n";
        out += &list(f.accounts.iter().map(literal).collect());
        out += "];\n\npub(super) static KEYS: &[KeySeed] = &[\n";
        out += &list(f.keys.iter().map(literal).collect());
        out += "];\n\npub(super) static CATALOG: &[ModelSeed] = &[\n";
        out += &list(f.catalog.iter().map(literal).collect());
        out += "];\n\npub(super) static CAPABILITIES: &[(&str, CapabilitiesSeed)] = &[\n";
        out += &list(
            f.capabilities
                .iter()
                .map(|(id, c)| format!("({id:?}, {})", literal(c)))
                .collect(),
        );
        out += "];\n\npub(super) static VIDEO: VideoConfigSeed = ";
        out += &literal(&f.video);
        out += ";\n";
        out
    }
}
