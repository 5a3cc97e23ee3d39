//! Who is asking: the client address behind trusted reverse proxies (`X-Forwarded-For`, else
//! `Forwarded`), and the key every per-client budget counts it under (`fair::ClientKey`: an
//! IPv4 address or an IPv6 /64, and in aggregate its /56 and /48). Headers are believed only
//! from proxies, and only the hop a proxy appended itself.

use std::convert::Infallible;
use std::fmt;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};

pub use crate::fair::ClientKey;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};

use std::sync::Arc;

use axum::extract::{ConnectInfo, FromRef, FromRequestParts};
use axum::http::request::Parts;
use axum::http::HeaderMap;
use serde::{Deserialize, Serialize};

/// One address or a CIDR range (`192.0.2.7`, `10.0.0.0/8`, `2001:db8::/32`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpRange {
    network: IpAddr,
    prefix: u8,
}

impl IpRange {
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.network, ip.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                mask(u128::from(u32::from(net)), self.prefix, 32)
                    == mask(u128::from(u32::from(ip)), self.prefix, 32)
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                mask(u128::from(net), self.prefix, 128) == mask(u128::from(ip), self.prefix, 128)
            }
            _ => false,
        }
    }
}

/// The top `prefix` bits of a `width`-bit number.
fn mask(value: u128, prefix: u8, width: u8) -> u128 {
    let prefix = u32::from(prefix.min(width));
    if prefix == 0 {
        return 0;
    }
    let shift = u32::from(width) - prefix;
    (value >> shift) << shift
}

impl FromStr for IpRange {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        let value = value.trim();
        let bad = || format!("'{value}' is not an IP address or a range like 10.0.0.0/8");
        let (ip, prefix) = match value.split_once('/') {
            Some((ip, prefix)) => (ip, Some(prefix)),
            None => (value, None),
        };
        let network = IpAddr::from_str(ip).map_err(|_| bad())?.to_canonical();
        let width = if network.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= width)
                .ok_or_else(bad)?,
            None => width,
        };
        Ok(IpRange { network, prefix })
    }
}

impl fmt::Display for IpRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.network, self.prefix)
    }
}

/// Loopback peers (unless `--trust-loopback false`) and the `--trusted-proxy` ranges: whose
/// forwarding headers are believed.
#[derive(Debug)]
pub struct TrustedProxies {
    ranges: Vec<IpRange>,
    loopback: bool,
    /// What requests showed of the proxy set-up (for `hearth doctor`).
    seen: Seen,
}

/// Counts of what requests showed of the proxy set-up since the start.
#[derive(Debug, Default)]
struct Seen {
    from_proxies: AtomicU64,
    from_proxies_bare: AtomicU64,
    forwarded_by_others: AtomicU64,
    forwarded_from_loopback: AtomicU64,
}

/// What requests showed of the proxy set-up: kept in the database's `meta` for the doctor.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProxyReport {
    /// Requests from a trusted proxy (loopback included).
    pub from_proxies: u64,
    /// Those of them with no `X-Forwarded-For` or `Forwarded`: a proxy that does not say who
    /// the visitor is, so everyone behind it counts as one client.
    pub from_proxies_bare: u64,
    /// Requests with forwarding headers from a peer that is not trusted (the headers are
    /// ignored): a proxy on another machine missing from `--trusted-proxy`, or a client trying.
    pub forwarded_by_others: u64,
    /// Requests with forwarding headers from this machine while loopback is not trusted: a
    /// proxy on this machine the owner has not named (`--trust-loopback`), or a forwarder
    /// passing its clients' headers through.
    #[serde(default)]
    pub forwarded_from_loopback: u64,
}

impl ProxyReport {
    /// The `meta` key it is kept under.
    pub const KEY: &'static str = "proxy_report";
}

/// A copy trusts the same peers and starts its own counts.
impl Clone for TrustedProxies {
    fn clone(&self) -> TrustedProxies {
        TrustedProxies::new(self.ranges.clone(), self.loopback)
    }
}

impl Default for TrustedProxies {
    /// Loopback only: a reverse proxy on the same machine.
    fn default() -> Self {
        TrustedProxies::new(Vec::new(), true)
    }
}

impl TrustedProxies {
    pub fn new(ranges: Vec<IpRange>, loopback: bool) -> TrustedProxies {
        TrustedProxies {
            ranges,
            loopback,
            seen: Seen::default(),
        }
    }

    /// Notes what a request from `peer` with `headers` shows of the proxy set-up.
    pub fn observe(&self, peer: IpAddr, headers: &HeaderMap) {
        let forwarded =
            headers.contains_key("x-forwarded-for") || headers.contains_key("forwarded");
        let count = |c: &AtomicU64| c.fetch_add(1, Ordering::Relaxed);
        if self.is_trusted(peer.to_canonical()) {
            count(&self.seen.from_proxies);
            if !forwarded {
                count(&self.seen.from_proxies_bare);
            }
        } else if forwarded && peer.to_canonical().is_loopback() {
            count(&self.seen.forwarded_from_loopback);
        } else if forwarded {
            count(&self.seen.forwarded_by_others);
        }
    }

    /// What requests showed since the start.
    pub fn report(&self) -> ProxyReport {
        let read = |c: &AtomicU64| c.load(Ordering::Relaxed);
        ProxyReport {
            from_proxies: read(&self.seen.from_proxies),
            from_proxies_bare: read(&self.seen.from_proxies_bare),
            forwarded_by_others: read(&self.seen.forwarded_by_others),
            forwarded_from_loopback: read(&self.seen.forwarded_from_loopback),
        }
    }

    /// Named with `--trusted-proxy` (loopback is trusted for headers but not listed).
    pub fn is_listed(&self, ip: IpAddr) -> bool {
        self.ranges.iter().any(|r| r.contains(ip))
    }

    pub fn is_trusted(&self, ip: IpAddr) -> bool {
        (self.loopback && ip.to_canonical().is_loopback()) || self.is_listed(ip)
    }

    /// The client of a request from `peer`: the peer itself unless it is trusted, else the
    /// address the peer appended last to the forwarding chain (the right-most entry). Entries
    /// further left are believed only through proxies listed with `--trusted-proxy` (a chain of
    /// proxies, each appending the address it saw), never through a loopback entry: a forwarder
    /// on the same machine (ssh -L, socat) that passes a visitor's header through unchanged
    /// then counts as itself, so the visitor cannot pick its address.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let peer = peer.to_canonical();
        if !self.is_trusted(peer) {
            return peer;
        }
        let mut client = peer;
        for hop in forwarded_chain(headers).iter().rev() {
            let Some(ip) = hop else {
                return client;
            };
            client = ip.to_canonical();
            if !self.is_listed(client) {
                return client;
            }
        }
        client
    }
}

/// The addresses of `X-Forwarded-For` (every header line, in order) or, without it, the `for=`
/// of `Forwarded`; `None` for an entry that is not an address (`unknown`, an obfuscated name).
/// `X-Forwarded-For` wins because Caddy and nginx set it and pass a client's `Forwarded` through.
fn forwarded_chain(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    let xff: Vec<Option<IpAddr>> = headers
        .get_all("x-forwarded-for")
        .iter()
        .flat_map(|v| match v.to_str() {
            Ok(text) => text.split(',').map(parse_node).collect::<Vec<_>>(),
            Err(_) => vec![None],
        })
        .collect();
    if !xff.is_empty() {
        return xff;
    }
    headers
        .get_all("forwarded")
        .iter()
        .flat_map(|v| match v.to_str() {
            Ok(text) => text
                .split(',')
                .map(|element| {
                    element
                        .split(';')
                        .filter_map(|pair| pair.split_once('='))
                        .find(|(k, _)| k.trim().eq_ignore_ascii_case("for"))
                        .and_then(|(_, v)| parse_node(v))
                })
                .collect::<Vec<_>>(),
            Err(_) => vec![None],
        })
        .collect()
}

/// `192.0.2.1`, `192.0.2.1:80`, `2001:db8::1`, `[2001:db8::1]:80`, optionally quoted.
fn parse_node(value: &str) -> Option<IpAddr> {
    let value = value.trim().trim_matches('"');
    if let Ok(ip) = IpAddr::from_str(value) {
        return Some(ip);
    }
    if let Ok(addr) = SocketAddr::from_str(value) {
        return Some(addr.ip());
    }
    let inner = value.strip_prefix('[')?.strip_suffix(']')?;
    Ipv6Addr::from_str(inner).ok().map(IpAddr::V6)
}

/// The request's client address (see `TrustedProxies::client`). The edge (`web`) works it out
/// once per request and keeps it in the request's extensions, so every budget and handler
/// counts the same client; requests that came without a peer address (only in unit tests of
/// the router) count as the unspecified address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub IpAddr);

impl ClientAddr {
    pub fn key(self) -> ClientKey {
        ClientKey::of(self.0)
    }

    /// The client of a request as the edge sees it, from its peer and headers.
    pub fn resolve(proxies: &TrustedProxies, parts: &Parts) -> ClientAddr {
        if let Some(known) = parts.extensions.get::<ClientAddr>() {
            return *known;
        }
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip())
            .unwrap_or(IpAddr::V6(Ipv6Addr::UNSPECIFIED));
        ClientAddr(proxies.client(peer, &parts.headers))
    }
}

impl<S> FromRequestParts<S> for ClientAddr
where
    Arc<TrustedProxies>: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let proxies = Arc::<TrustedProxies>::from_ref(state);
        Ok(ClientAddr::resolve(&proxies, parts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_str(value).expect("header"));
        }
        map
    }

    fn proxies(list: &[&str]) -> TrustedProxies {
        TrustedProxies::new(
            list.iter().map(|r| r.parse().expect("range")).collect(),
            true,
        )
    }

    #[test]
    fn loopback_can_be_a_client_like_any_other() {
        let p = TrustedProxies::new(Vec::new(), false);
        let h = headers(&[("x-forwarded-for", "198.51.100.2")]);
        assert_eq!(p.client(ip("127.0.0.1"), &h), ip("127.0.0.1"));
        assert!(!p.is_trusted(ip("::1")));
    }

    #[test]
    fn ranges_parse_and_match() {
        let range: IpRange = "10.0.0.0/8".parse().expect("parses");
        assert!(range.contains(ip("10.200.1.1")));
        assert!(!range.contains(ip("11.0.0.1")));
        assert!(range.contains(ip("::ffff:10.1.2.3")), "mapped IPv4 counts");
        let single: IpRange = "192.0.2.7".parse().expect("parses");
        assert!(single.contains(ip("192.0.2.7")) && !single.contains(ip("192.0.2.8")));
        let v6: IpRange = "2001:db8::/32".parse().expect("parses");
        assert!(v6.contains(ip("2001:db8:1::5")) && !v6.contains(ip("2001:db9::1")));
        assert!("0.0.0.0/0"
            .parse::<IpRange>()
            .expect("all")
            .contains(ip("8.8.8.8")));
        for bad in ["10.0.0.0/33", "example.org", "10.0.0/8", "::/129", ""] {
            assert!(bad.parse::<IpRange>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_direct_client_cannot_spoof_its_address() {
        let h = headers(&[("x-forwarded-for", "1.2.3.4"), ("forwarded", "for=5.6.7.8")]);
        assert_eq!(
            proxies(&[]).client(ip("203.0.113.9"), &h),
            ip("203.0.113.9")
        );
    }

    #[test]
    fn behind_a_loopback_proxy_the_right_most_untrusted_address_counts() {
        let p = proxies(&[]);
        // The client made up 1.2.3.4; the proxy appended the real peer.
        let h = headers(&[("x-forwarded-for", "1.2.3.4, 198.51.100.2")]);
        assert_eq!(p.client(ip("127.0.0.1"), &h), ip("198.51.100.2"));
        // Without headers the proxy itself is the client.
        assert_eq!(
            p.client(ip("127.0.0.1"), &HeaderMap::new()),
            ip("127.0.0.1")
        );
    }

    #[test]
    fn only_the_hop_a_loopback_proxy_appended_is_believed() {
        let p = proxies(&[]);
        // A forwarder on this machine passed a visitor's made-up chain through: the right-most
        // entry is loopback, which is not a listed proxy, so the forwarder itself counts.
        let h = headers(&[("x-forwarded-for", "203.0.113.50, 127.0.0.1")]);
        assert_eq!(p.client(ip("127.0.0.1"), &h), ip("127.0.0.1"));
        let h = headers(&[("x-forwarded-for", "203.0.113.50, ::1")]);
        assert_eq!(p.client(ip("::1"), &h), ip("::1"));
    }

    #[test]
    fn listed_proxies_are_skipped_along_the_chain() {
        let p = proxies(&["10.0.0.0/8"]);
        let h = headers(&[
            ("x-forwarded-for", "9.9.9.9, 198.51.100.2"),
            ("x-forwarded-for", "10.1.1.1"),
        ]);
        assert_eq!(p.client(ip("10.0.0.5"), &h), ip("198.51.100.2"));
        // An unlisted private peer is a client like any other.
        assert_eq!(p.client(ip("192.168.1.4"), &h), ip("192.168.1.4"));
    }

    #[test]
    fn forwarded_is_read_when_x_forwarded_for_is_absent() {
        let p = proxies(&[]);
        let h = headers(&[(
            "forwarded",
            "for=192.0.2.60;proto=http, For=\"[2001:db8:cafe::17]:4711\";by=127.0.0.1",
        )]);
        assert_eq!(p.client(ip("::1"), &h), ip("2001:db8:cafe::17"));
    }

    #[test]
    fn an_unreadable_entry_stops_the_walk() {
        let p = proxies(&["10.0.0.0/8"]);
        let h = headers(&[("x-forwarded-for", "203.0.113.1, unknown, 10.0.0.9")]);
        assert_eq!(p.client(ip("10.0.0.5"), &h), ip("10.0.0.9"));
        let p = proxies(&[]);
        let h = headers(&[("x-forwarded-for", "203.0.113.1, unknown")]);
        assert_eq!(p.client(ip("127.0.0.1"), &h), ip("127.0.0.1"));
        let h = headers(&[("x-forwarded-for", "198.51.100.7:5050")]);
        assert_eq!(p.client(ip("127.0.0.1"), &h), ip("198.51.100.7"));
    }

    #[test]
    fn loopback_is_a_proxy_only_when_the_owner_says_so() {
        // `make run` with nothing in front: plain requests from this machine are visitors,
        // not a proxy that forgot its header.
        let plain = TrustedProxies::new(Vec::new(), false);
        for _ in 0..30 {
            plain.observe(ip("127.0.0.1"), &HeaderMap::new());
        }
        plain.observe(
            ip("127.0.0.1"),
            &headers(&[("x-forwarded-for", "203.0.113.9")]),
        );
        plain.observe(
            ip("198.51.100.4"),
            &headers(&[("x-forwarded-for", "203.0.113.9")]),
        );
        let report = plain.report();
        assert_eq!(
            (
                report.from_proxies,
                report.forwarded_from_loopback,
                report.forwarded_by_others
            ),
            (0, 1, 1)
        );
        // Said: its bare requests are a proxy's that names nobody.
        let said = TrustedProxies::new(Vec::new(), true);
        said.observe(ip("127.0.0.1"), &HeaderMap::new());
        assert_eq!(said.report().from_proxies_bare, 1);
    }

    #[test]
    fn mapped_ipv4_peers_are_plain_ipv4() {
        let p = proxies(&[]);
        let h = headers(&[("x-forwarded-for", "198.51.100.2")]);
        assert_eq!(p.client(ip("::ffff:127.0.0.1"), &h), ip("198.51.100.2"));
        assert_eq!(p.client(ip("::ffff:203.0.113.5"), &h), ip("203.0.113.5"));
    }
}
