//! The `allow_ips` allowlist of a key.

use ipnet::IpNet;
use std::net::IpAddr;

/// The entries of an `allow_ips` value: split on `\n`, each trimmed, empty ones skipped.
///
/// ```
/// use gatecheck_schemas::rules::ip::entries;
/// assert_eq!(entries(Some(" 1.2.3.4 \n\n10.0.0.0/8")), vec!["1.2.3.4", "10.0.0.0/8"]);
/// assert!(entries(None).is_empty());
/// ```
pub fn entries(allow_ips: Option<&str>) -> Vec<&str> {
    allow_ips
        .unwrap_or("")
        .split('\n')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .collect()
}

/// Whether `allow_ips` restricts the key at all (null, empty or blank: no restriction).
///
/// ```
/// use gatecheck_schemas::rules::ip::is_restricted;
/// assert!(!is_restricted(None));
/// assert!(!is_restricted(Some(" \n ")));
/// assert!(is_restricted(Some("10.0.0.1")));
/// ```
pub fn is_restricted(allow_ips: Option<&str>) -> bool {
    !entries(allow_ips).is_empty()
}

/// Whether one allowlist entry (an IPv4/IPv6 address or CIDR) matches `ip`.
/// A malformed entry never matches. IPv4-mapped IPv6 addresses are compared as IPv4.
///
/// ```
/// use gatecheck_schemas::rules::ip::entry_matches;
/// assert!(entry_matches("10.0.0.0/8", "10.1.2.3".parse().unwrap()));
/// assert!(entry_matches("2001:db8::/32", "2001:db8::1".parse().unwrap()));
/// assert!(!entry_matches("not-an-ip", "10.1.2.3".parse().unwrap()));
/// ```
pub fn entry_matches(entry: &str, ip: IpAddr) -> bool {
    let ip = canonical(ip);
    if entry.contains('/') {
        match entry.parse::<IpNet>() {
            Ok(net) => net.contains(&ip),
            Err(_) => false,
        }
    } else {
        match entry.parse::<IpAddr>() {
            Ok(addr) => canonical(addr) == ip,
            Err(_) => false,
        }
    }
}

/// Whether a client at `ip` may use a key with this `allow_ips` value.
///
/// Unrestricted keys allow every address; otherwise some entry must match.
///
/// ```
/// use gatecheck_schemas::rules::ip::allows;
/// let list = Some("203.0.113.7\n2001:db8::/32\n198.51.100.0/24");
/// assert!(allows(list, "198.51.100.9".parse().unwrap()));
/// assert!(allows(list, "2001:db8::5".parse().unwrap()));
/// assert!(!allows(list, "127.0.0.1".parse().unwrap()));
/// assert!(allows(Some(""), "127.0.0.1".parse().unwrap()));
/// ```
pub fn allows(allow_ips: Option<&str>, ip: IpAddr) -> bool {
    let list = entries(allow_ips);
    list.is_empty() || list.iter().any(|e| entry_matches(e, ip))
}

fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(v6),
        },
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::net::{Ipv4Addr, Ipv6Addr};

    proptest! {
        #[test]
        fn an_address_allows_itself_and_its_prefixes(a in any::<u32>(), prefix in 0u8..=32) {
            let ip = Ipv4Addr::from(a);
            prop_assert!(allows(Some(&ip.to_string()), IpAddr::V4(ip)));
            let net = ipnet::Ipv4Net::new(ip, prefix).unwrap().trunc();
            let list = format!(" \n{}\n", net);
            prop_assert!(allows(Some(&list), IpAddr::V4(ip)));
        }

        #[test]
        fn ipv6_cidr_contains_what_ipnet_says(a in any::<u128>(), b in any::<u128>(), prefix in 0u8..=128) {
            let net = ipnet::Ipv6Net::new(Ipv6Addr::from(a), prefix).unwrap().trunc();
            let ip = Ipv6Addr::from(b);
            prop_assert_eq!(allows(Some(&net.to_string()), IpAddr::V6(ip)), net.contains(&ip));
        }

        #[test]
        fn garbage_never_matches(entry in "[a-z!@#]{1,12}", a in any::<u32>()) {
            prop_assert!(!allows(Some(&entry), IpAddr::V4(Ipv4Addr::from(a))));
        }
    }

    #[test]
    fn ipv4_mapped_ipv6_peers_match_ipv4_entries() {
        let mapped: IpAddr = "::ffff:10.1.2.3".parse().unwrap();
        assert!(allows(Some("10.0.0.0/8"), mapped));
    }
}
