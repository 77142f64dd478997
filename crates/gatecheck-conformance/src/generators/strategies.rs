//! Strategies for the requests of every route: boundary names, temperatures, response formats,
//! allowlists, auth headers and key updates.

use gatecheck_schemas::rules::media::TEMPERATURE;
use gatecheck_schemas::rules::token::MAX_NAME_LEN;
use gatecheck_schemas::types::TranscriptFormat;
use proptest::collection::vec;
use proptest::prelude::*;
use std::net::{Ipv4Addr, Ipv6Addr};

/// Letters that take 1, 2, 3 and 4 UTF-8 bytes, emoji included.
const LETTERS: &[char] = &[
    'a', 'Z', '7', '-', 'é', 'ß', 'Ж', 'ع', '中', '文', 'ア', '한', '😀', '🚀', '🦀', '𝔘',
];

fn letter() -> impl Strategy<Value = char> {
    prop::sample::select(LETTERS)
}

/// A name of exactly `n` Unicode characters mixing 1- to 4-byte letters.
pub fn name_of_len(n: usize) -> impl Strategy<Value = String> {
    vec(letter(), n).prop_map(String::from_iter)
}

/// A valid key name: 1 to `MAX_NAME_LEN` characters, half the time exactly `MAX_NAME_LEN`.
pub fn valid_name() -> impl Strategy<Value = String> {
    prop_oneof![
        name_of_len(MAX_NAME_LEN),
        (1usize..=MAX_NAME_LEN).prop_flat_map(name_of_len),
    ]
}

/// A name over the limit: `MAX_NAME_LEN + 1` to `+ 10` characters, half the time just over.
pub fn long_name() -> impl Strategy<Value = String> {
    let over = MAX_NAME_LEN + 1;
    prop_oneof![
        name_of_len(over),
        (over..=MAX_NAME_LEN + 10).prop_flat_map(name_of_len)
    ]
}

/// A valid plain ASCII name (the same in characters and bytes), for stateful sequences.
pub fn ascii_name() -> impl Strategy<Value = String> {
    "[a-z0-9-]{0,40}"
}

/// A temperature within `rules::media::TEMPERATURE`, at the bounds half the time.
pub fn valid_temperature() -> impl Strategy<Value = f64> {
    let (lo, hi) = (*TEMPERATURE.start(), *TEMPERATURE.end());
    prop_oneof![
        Just(lo),
        Just(hi),
        Just((lo + hi) / 2.0),
        (0u32..=1000).prop_map(move |n| lo + (hi - lo) * f64::from(n) / 1000.0)
    ]
}

/// A temperature just outside `rules::media::TEMPERATURE` or far outside.
pub fn invalid_temperature() -> impl Strategy<Value = f64> {
    let (lo, hi) = (*TEMPERATURE.start(), *TEMPERATURE.end());
    prop_oneof![
        Just(lo - 0.01),
        Just(hi + 0.01),
        Just(hi + 0.001),
        Just(lo - 0.001),
        Just(hi + 1.0),
        Just(lo - 1.0),
        (1u32..=1000).prop_map(move |n| hi + f64::from(n) / 1000.0),
        (1u32..=1000).prop_map(move |n| lo - f64::from(n) / 1000.0),
    ]
}

/// Every response format of the translation route.
pub fn response_format() -> impl Strategy<Value = TranscriptFormat> {
    prop::sample::select(TranscriptFormat::ALL.to_vec())
}

/// An allowlist entry that never holds a routable client address (documentation ranges).
pub fn foreign_ip_entry() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u8..=255).prop_map(|d| Ipv4Addr::new(203, 0, 113, d).to_string()),
        (0u8..=255).prop_map(|d| Ipv4Addr::new(198, 51, 100, d).to_string()),
        (24u8..=32).prop_map(|p| format!("192.0.2.0/{p}")),
        (0u16..=0xffff).prop_map(|s| Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, s).to_string()),
        (32u8..=128).prop_map(|p| format!("2001:db8::/{p}")),
    ]
}

/// An allowlist entry that holds `client` (or every address, when the client IP is unknown).
pub fn matching_ip_entries(client: Option<std::net::IpAddr>) -> Vec<String> {
    match client {
        Some(std::net::IpAddr::V4(v4)) => {
            let o = v4.octets();
            vec![
                v4.to_string(),
                format!("{}.{}.{}.0/24", o[0], o[1], o[2]),
                format!("{}.0.0.0/8", o[0]),
                "0.0.0.0/0".to_string(),
            ]
        }
        Some(std::net::IpAddr::V6(v6)) => vec![v6.to_string(), "::/0".to_string()],
        None => vec!["0.0.0.0/0\n::/0".to_string()],
    }
}

/// An allowlist: IPv4, IPv6 and CIDR entries, with or without the client; returns the list and
/// whether it admits the client.
pub fn allowlist(client: Option<std::net::IpAddr>) -> impl Strategy<Value = (String, bool)> {
    let matching = matching_ip_entries(client);
    (
        vec(foreign_ip_entry(), 1..4),
        prop::option::of(prop::sample::select(matching)),
        any::<bool>(),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(mut entries, matching, blank_lines, at)| {
            let admits = matching.is_some();
            if let Some(m) = matching {
                let i = at.index(entries.len() + 1);
                entries.insert(i, m);
            }
            let sep = if blank_lines { "\n \n" } else { "\n" };
            (entries.join(sep), admits)
        })
}

/// A wrong `Authorization` value for a model route, built around a valid key (`{key}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BadAuth {
    /// `Basic base64(key)`.
    Basic,
    /// `Token <key>`.
    Token,
    /// `Bearer` and nothing.
    BearerEmpty,
    /// `Bearer <random key>`.
    UnknownKey(String),
    /// `Bearer sk-<random key>`.
    UnknownSkKey(String),
    /// An empty header.
    Empty,
}

impl BadAuth {
    /// The header value, given the valid key.
    pub fn header(&self, key: &str) -> String {
        use base64::Engine;
        match self {
            BadAuth::Basic => format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(format!("{key}:"))
            ),
            BadAuth::Token => format!("Token {key}"),
            BadAuth::BearerEmpty => "Bearer ".to_string(),
            BadAuth::UnknownKey(k) => format!("Bearer {k}"),
            BadAuth::UnknownSkKey(k) => format!("Bearer sk-{k}"),
            BadAuth::Empty => String::new(),
        }
    }
}

/// A wrong auth header.
pub fn bad_auth() -> impl Strategy<Value = BadAuth> {
    prop_oneof![
        Just(BadAuth::Basic),
        Just(BadAuth::Token),
        Just(BadAuth::BearerEmpty),
        Just(BadAuth::Empty),
        "[A-Za-z0-9]{48}".prop_map(BadAuth::UnknownKey),
        "[A-Za-z0-9]{1,60}".prop_map(BadAuth::UnknownSkKey),
    ]
}
