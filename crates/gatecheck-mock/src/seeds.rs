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

/// An [`Account`] (field for field).
pub(crate) struct AccountSeed {
    pub id: i64,
    pub username: &'static str,
    pub access_token: &'static str,
    pub groups: &'static [&'static str],
}

/// A [`KeyRecord`] (field for field; the secret without `sk-`, as the mock stores it).
pub(crate) struct KeySeed {
    pub id: i64,
    pub user_id: i64,
    pub key: &'static str,
    pub status: i64,
    pub name: &'static str,
    pub created_time: i64,
    pub accessed_time: i64,
    pub expired_time: i64,
    pub remain_quota: i64,
    pub unlimited_quota: bool,
    pub model_limits_enabled: bool,
    pub model_limits: &'static str,
    pub allow_ips: Option<&'static str>,
    pub used_quota: i64,
    pub group: &'static str,
    pub cross_group_retry: bool,
}

/// A [`ModelRecord`] of the catalog (field for field).
pub(crate) struct ModelSeed {
    pub created: i64,
    pub id: &'static str,
    pub code: &'static str,
    pub provider: &'static str,
    pub provider_code: &'static str,
    pub name: &'static str,
    pub model_type: &'static str,
    pub features: &'static [&'static str],
    pub endpoints: EndpointsSeed,
    pub pricing: PricingSeed,
}

/// [`Endpoints`].
pub(crate) enum EndpointsSeed {
    Encoded(&'static str),
    Formats(&'static [&'static str]),
}

/// [`Pricing`].
pub(crate) struct PricingSeed {
    pub currency: &'static str,
    pub input: Option<f64>,
    pub output: Option<f64>,
    pub per_request: Option<f64>,
    pub per_second: Option<f64>,
}

/// [`ModelCapabilities`].
pub(crate) struct CapabilitiesSeed {
    pub image: Option<ImageSeed>,
    pub speech: Option<SpeechSeed>,
    pub transcription: Option<TranscriptionSeed>,
    pub video: Option<VideoSeed>,
}

/// [`ImageCapability`].
pub(crate) struct ImageSeed {
    pub sizes: &'static [&'static str],
    pub output: &'static str,
}

/// [`SpeechCapability`].
pub(crate) struct SpeechSeed {
    pub voices: &'static [&'static str],
    pub formats: &'static [&'static str],
}

/// [`TranscriptionCapability`].
pub(crate) struct TranscriptionSeed {
    pub translation: bool,
    pub transcription: bool,
}

/// [`VideoCapability`].
pub(crate) struct VideoSeed {
    pub sizes: &'static [&'static str],
    pub seconds: &'static [i64],
    pub default_size: &'static str,
    pub default_seconds: i64,
}

/// [`VideoConfig`] (its timing and outcomes are plain values already).
pub(crate) struct VideoConfigSeed {
    pub timing: VideoTiming,
    pub poll_after_ms: u64,
    pub outcomes: &'static [OutcomeSeed],
    pub default_outcome: VideoOutcome,
}

/// [`OutcomeRule`].
pub(crate) struct OutcomeSeed {
    pub prompt_contains: &'static str,
    pub outcome: VideoOutcome,
    pub code: &'static str,
    pub message: &'static str,
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_owned()).collect()
}

/// The embedded accounts.
pub(crate) fn accounts() -> Vec<Account> {
    embedded::ACCOUNTS
        .iter()
        .map(|a| Account {
            id: a.id,
            username: a.username.to_owned(),
            access_token: a.access_token.to_owned(),
            groups: strings(a.groups),
        })
        .collect()
}

/// The embedded keys.
pub(crate) fn keys() -> Vec<KeyRecord> {
    embedded::KEYS
        .iter()
        .map(|k| KeyRecord {
            id: k.id,
            user_id: k.user_id,
            key: k.key.to_owned(),
            status: k.status,
            name: k.name.to_owned(),
            created_time: k.created_time,
            accessed_time: k.accessed_time,
            expired_time: k.expired_time,
            remain_quota: k.remain_quota,
            unlimited_quota: k.unlimited_quota,
            model_limits_enabled: k.model_limits_enabled,
            model_limits: k.model_limits.to_owned(),
            allow_ips: k.allow_ips.map(str::to_owned),
            used_quota: k.used_quota,
            group: k.group.to_owned(),
            cross_group_retry: k.cross_group_retry,
        })
        .collect()
}

/// The embedded catalog, in order.
pub(crate) fn catalog() -> Vec<ModelRecord> {
    embedded::CATALOG
        .iter()
        .map(|m| ModelRecord {
            created: m.created,
            id: m.id.to_owned(),
            code: m.code.to_owned(),
            provider: m.provider.to_owned(),
            provider_code: m.provider_code.to_owned(),
            name: m.name.to_owned(),
            model_type: m.model_type.to_owned(),
            features: strings(m.features),
            endpoints: match &m.endpoints {
                EndpointsSeed::Encoded(s) => Endpoints::Encoded((*s).to_owned()),
                EndpointsSeed::Formats(f) => Endpoints::Formats(strings(f)),
            },
            pricing: Pricing {
                currency: m.pricing.currency.to_owned(),
                input: m.pricing.input,
                output: m.pricing.output,
                per_request: m.pricing.per_request,
                per_second: m.pricing.per_second,
            },
        })
        .collect()
}

/// The embedded capabilities, by model id.
pub(crate) fn capabilities() -> BTreeMap<String, ModelCapabilities> {
    embedded::CAPABILITIES
        .iter()
        .map(|(id, c)| {
            let caps = ModelCapabilities {
                image: c.image.as_ref().map(|i| ImageCapability {
                    sizes: strings(i.sizes),
                    output: i.output.to_owned(),
                }),
                speech: c.speech.as_ref().map(|s| SpeechCapability {
                    voices: strings(s.voices),
                    formats: strings(s.formats),
                }),
                transcription: c.transcription.as_ref().map(|t| TranscriptionCapability {
                    translation: t.translation,
                    transcription: t.transcription,
                }),
                video: c.video.as_ref().map(|v| VideoCapability {
                    sizes: strings(v.sizes),
                    seconds: v.seconds.to_vec(),
                    default_size: v.default_size.to_owned(),
                    default_seconds: v.default_seconds,
                }),
            };
            ((*id).to_owned(), caps)
        })
        .collect()
}

/// The embedded video configuration.
pub(crate) fn video() -> VideoConfig {
    let v = &embedded::VIDEO;
    VideoConfig {
        timing: v.timing,
        poll_after_ms: v.poll_after_ms,
        outcomes: v
            .outcomes
            .iter()
            .map(|o| OutcomeRule {
                prompt_contains: o.prompt_contains.to_owned(),
                outcome: o.outcome,
                code: o.code.to_owned(),
                message: o.message.to_owned(),
            })
            .collect(),
        default_outcome: v.default_outcome,
    }
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
