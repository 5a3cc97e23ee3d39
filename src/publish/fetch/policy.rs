//! The fetcher's policy on where it may connect, for a security reviewer to read alone: every
//! address a feed's host name resolves to, and every literal address (redirects included), is
//! checked before a connection is made; loopback, private, link-local and other special ranges
//! are refused unless `--allow-private-feeds`, and a name whose addresses are all refused is not
//! fetched at all.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::errors::FetchError;

/// Decides which addresses may not be contacted.
pub type RefusePolicy = Arc<dyn Fn(IpAddr) -> bool + Send + Sync>;

/// Resolves with the system resolver and drops every refused address, so the connection can
/// only go to an address that passed the check (no DNS-rebinding gap between check and use).
pub(super) struct CheckingResolver {
    pub(super) refuse: RefusePolicy,
    pub(super) hosts: HashMap<String, Vec<IpAddr>>,
}

impl Resolve for CheckingResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let refuse = self.refuse.clone();
        let host = name.as_str().to_owned();
        let fixed = self.hosts.get(&host.to_ascii_lowercase()).cloned();
        Box::pin(async move {
            type BoxError = Box<dyn std::error::Error + Send + Sync>;
            match allowed_addresses(&host, fixed, &refuse).await {
                Ok(allowed) => Ok(Box::new(allowed.into_iter()) as Addrs),
                Err(e) => Err(Box::new(e) as BoxError),
            }
        })
    }
}

/// The addresses of `host` a connection may go to: `fixed` ones or the system resolver's, less
/// the refused ones; an error when there are none.
pub(super) async fn allowed_addresses(
    host: &str,
    fixed: Option<Vec<IpAddr>>,
    refuse: &RefusePolicy,
) -> Result<Vec<SocketAddr>, FetchError> {
    let addrs: Vec<SocketAddr> = match fixed {
        Some(ips) => ips.into_iter().map(|ip| SocketAddr::new(ip, 0)).collect(),
        None => match tokio::net::lookup_host((host, 0)).await {
            Ok(found) => found.collect(),
            Err(e) => {
                tracing::debug!(host = %host, error = %e, "resolving a feed's host failed");
                return Err(FetchError::Dns);
            }
        },
    };
    if addrs.is_empty() {
        return Err(FetchError::Dns);
    }
    // Only the allowed addresses are handed on: a name with a public and a private address is
    // reached on the public one only.
    let allowed: Vec<SocketAddr> = addrs.into_iter().filter(|a| !refuse(a.ip())).collect();
    if allowed.is_empty() {
        return Err(FetchError::RefusedHost);
    }
    Ok(allowed)
}

/// Addresses a feed may not live on: anything not on the public internet.
pub fn is_refused(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_refused_v4(v4),
        IpAddr::V6(v6) => is_refused_v6(v6),
    }
}

fn is_refused_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_multicast()
        || ip.is_broadcast()
        || ip.is_documentation()
        || a == 0 // "this network"
        || (a == 100 && (64..128).contains(&b)) // CGNAT 100.64.0.0/10
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 240 // reserved
}

fn is_refused_v6(ip: Ipv6Addr) -> bool {
    let segments = ip.segments();
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_refused_v4(v4);
    }
    // IPv4-compatible (::a.b.c.d, deprecated) and NAT64 (64:ff9b::/96) embed an IPv4 address.
    let embedded = Ipv4Addr::new(
        (segments[6] >> 8) as u8,
        segments[6] as u8,
        (segments[7] >> 8) as u8,
        segments[7] as u8,
    );
    if segments[..6] == [0, 0, 0, 0, 0, 0] && !ip.is_unspecified() && !ip.is_loopback() {
        return is_refused_v4(embedded);
    }
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return is_refused_v4(embedded);
    }
    // Local-use NAT64 (64:ff9b:1::/48, RFC 8215) translates into the operator's own networks.
    if segments[..3] == [0x64, 0xff9b, 1] {
        return true;
    }
    // SIIT IPv4-translated addresses (::ffff:0:a.b.c.d, RFC 7915) and Teredo (2001::/32), whose
    // embedded IPv4 address is obfuscated: neither is a place a feed lives.
    if segments[..6] == [0, 0, 0, 0, 0xffff, 0] || segments[..2] == [0x2001, 0] {
        return true;
    }
    // 6to4 (2002::/16) embeds the IPv4 address in the next 32 bits.
    if segments[0] == 0x2002 {
        let v4 = Ipv4Addr::new(
            (segments[1] >> 8) as u8,
            segments[1] as u8,
            (segments[2] >> 8) as u8,
            segments[2] as u8,
        );
        if is_refused_v4(v4) {
            return true;
        }
    }
    ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || (segments[0] & 0xffc0) == 0xfe80 // link-local fe80::/10
        || (segments[0] & 0xffc0) == 0xfec0 // site-local fec0::/10 (deprecated)
        || (segments[0] & 0xfe00) == 0xfc00 // unique-local fc00::/7
        || (segments[0] == 0x2001 && segments[1] == 0x0db8) // documentation
        || (segments[0] == 0x2001 && segments[1] == 0x0002 && segments[2] == 0) // benchmarking 2001:2::/48
        || segments[..4] == [0x0100, 0, 0, 0] // discard-only 100::/64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(s: &str) -> bool {
        is_refused(s.parse().expect("address"))
    }

    #[test]
    fn private_loopback_link_local_and_special_addresses_are_refused() {
        for ip in [
            "127.0.0.1",
            "127.8.9.10",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "100.127.255.254",
            "0.0.0.0",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fe80::1",
            "fc00::1",
            "fd12:3456::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::1",
            // Local-use NAT64, whatever it embeds.
            "64:ff9b:1::808:808",
            "64:ff9b:1:ffff::1",
            // SIIT IPv4-translated, even of a public address.
            "::ffff:0:7f00:1",
            "::ffff:0:a00:1",
            "::ffff:0:808:808",
            // Teredo, the whole prefix.
            "2001::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001:0:ffff:ffff:ffff:ffff:ffff:ffff",
            "2001:2::1",
            "100::1",
        ] {
            assert!(refused(ip), "{ip} should be refused");
        }
    }

    #[test]
    fn public_addresses_are_allowed() {
        for ip in [
            "8.8.8.8",
            "1.1.1.1",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2001:4860:4860::8888",
            "2a00:1450:4001::1",
        ] {
            assert!(!refused(ip), "{ip} should be allowed");
        }
    }

    async fn resolve(hosts: &[(&str, &[&str])], name: &str) -> Result<Vec<IpAddr>, String> {
        let resolver = CheckingResolver {
            refuse: Arc::new(is_refused),
            hosts: hosts
                .iter()
                .map(|(n, ips)| {
                    let ips = ips.iter().map(|ip| ip.parse().expect("ip")).collect();
                    ((*n).to_owned(), ips)
                })
                .collect(),
        };
        let name: Name = name.parse().expect("name");
        match resolver.resolve(name).await {
            Ok(addrs) => Ok(addrs.map(|a| a.ip()).collect()),
            Err(e) => Err(e.to_string()),
        }
    }

    #[tokio::test]
    async fn a_name_with_public_and_private_addresses_resolves_to_the_public_ones_only() {
        let hosts: &[(&str, &[&str])] = &[
            (
                "mixed.example",
                &["10.0.0.5", "93.184.215.14", "::1", "2606:4700::1"],
            ),
            (
                "inside.example",
                &["192.168.1.10", "fd00::10", "::ffff:0:a00:1"],
            ),
        ];
        assert_eq!(
            resolve(hosts, "mixed.example").await.expect("resolves"),
            [
                "93.184.215.14".parse::<IpAddr>().expect("ip"),
                "2606:4700::1".parse().expect("ip")
            ]
        );
        let err = resolve(hosts, "inside.example").await.expect_err("refused");
        assert_eq!(err, FetchError::RefusedHost.to_string());
        assert!(!err.contains("192.168") && !err.contains("fd00"), "{err}");
    }
}
