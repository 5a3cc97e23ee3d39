//! Who a share is counted for: one key type for every budget. A client is an IPv4 address or an
//! IPv6 /64 (one household or server gets a whole /64, and could otherwise rotate through it);
//! an IPv6 client is also counted in aggregate under its /56 and its /48 (what one site is
//! usually given), each at a bounded multiple of one client's share, so the /64s of one /48 are
//! not sixteen clients. The server's own work is a holder too, with room of its own.

use std::fmt;
use std::net::{IpAddr, Ipv6Addr};

/// The key a client is counted under: the address itself for IPv4, its /64 for IPv6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClientKey(IpAddr);

/// How wide a group a share is counted for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// One client: an IPv4 address, an IPv6 /64.
    Client = 0,
    /// An IPv6 /56 in aggregate (a household's delegation).
    Net56 = 1,
    /// An IPv6 /48 in aggregate (a site's).
    Net48 = 2,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::Client, Level::Net56, Level::Net48];

    /// What a group of this level may hold when one client may hold `share`: a /56 one and a
    /// half times it, a /48 twice. Never below the share itself, never overflowing.
    pub fn cap(self, share: u64) -> u64 {
        match self {
            Level::Client => share,
            Level::Net56 => share.saturating_add(share / 2),
            Level::Net48 => share.saturating_mul(2),
        }
    }

    /// The same as [`Level::cap`] for a rate: how much faster a group's allowance refills.
    pub fn factor(self) -> f64 {
        match self {
            Level::Client => 1.0,
            Level::Net56 => 1.5,
            Level::Net48 => 2.0,
        }
    }

    fn prefix(self) -> u8 {
        match self {
            Level::Client => 64,
            Level::Net56 => 56,
            Level::Net48 => 48,
        }
    }
}

/// One key a share is counted under: a client, or one of its networks in aggregate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Group {
    pub level: Level,
    network: IpAddr,
}

impl fmt::Display for Group {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.network {
            IpAddr::V4(v4) => write!(f, "{v4}"),
            IpAddr::V6(v6) => write!(f, "{v6}/{}", self.level.prefix()),
        }
    }
}

/// The top `prefix` bits of an IPv6 address.
fn masked(v6: Ipv6Addr, prefix: u8) -> Ipv6Addr {
    let shift = 128 - u32::from(prefix.min(128));
    if shift >= 128 {
        return Ipv6Addr::UNSPECIFIED;
    }
    Ipv6Addr::from((u128::from(v6) >> shift) << shift)
}

impl ClientKey {
    pub fn of(ip: IpAddr) -> ClientKey {
        match ip.to_canonical() {
            IpAddr::V4(v4) => ClientKey(IpAddr::V4(v4)),
            IpAddr::V6(v6) => ClientKey(IpAddr::V6(masked(v6, 64))),
        }
    }

    /// The address (IPv4) or the /64's first address (IPv6).
    pub fn ip(self) -> IpAddr {
        self.0
    }

    /// The groups this client is counted under, narrowest first: itself, and for IPv6 its
    /// /56 and /48. An IPv4 address is its own network and is counted once.
    pub fn groups(self) -> impl Iterator<Item = Group> {
        let levels: &'static [Level] = match self.0 {
            IpAddr::V4(_) => &Level::ALL[..1],
            IpAddr::V6(_) => &Level::ALL,
        };
        levels.iter().map(move |level| self.group(*level))
    }

    /// This client's group at `level` (for IPv4 every level is the address itself).
    pub fn group(self, level: Level) -> Group {
        match self.0 {
            IpAddr::V4(_) => Group {
                level: Level::Client,
                network: self.0,
            },
            IpAddr::V6(v6) => Group {
                level,
                network: IpAddr::V6(masked(v6, level.prefix())),
            },
        }
    }

    /// The widest group: what fairness between sites compares (an IPv6 /48, an IPv4 address).
    pub fn site(self) -> Group {
        self.group(Level::Net48)
    }
}

impl fmt::Display for ClientKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.group(Level::Client).fmt(f)
    }
}

/// Who holds a claim on a shared resource: a client, or the server's own work (background
/// refreshes, backups, renders for subscribers), which has room of its own and never waits
/// behind visitors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Holder {
    Server,
    Client(ClientKey),
}

impl From<ClientKey> for Holder {
    fn from(client: ClientKey) -> Holder {
        Holder::Client(client)
    }
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Holder::Server => f.write_str("the server"),
            Holder::Client(client) => client.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(ip: &str) -> ClientKey {
        ClientKey::of(ip.parse().expect("ip"))
    }

    #[test]
    fn ipv6_clients_are_64s_counted_in_their_56_and_48() {
        let a = key("2001:db8:1:2:aaaa::1");
        assert_eq!(a, key("2001:db8:1:2::9"), "one /64");
        assert_eq!(a.to_string(), "2001:db8:1:2::/64");
        let groups: Vec<String> = a.groups().map(|g| g.to_string()).collect();
        assert_eq!(
            groups,
            ["2001:db8:1:2::/64", "2001:db8:1::/56", "2001:db8:1::/48"]
        );
        let b = key("2001:db8:1:3ff::1");
        assert_ne!(a.group(Level::Net56), b.group(Level::Net56));
        assert_eq!(a.site(), b.site());
        assert_eq!(
            key("2001:db8:1:12::1").group(Level::Net56),
            a.group(Level::Net56)
        );
    }

    #[test]
    fn ipv4_clients_are_their_own_network() {
        let v4 = key("::ffff:198.51.100.2");
        assert_eq!(v4.to_string(), "198.51.100.2");
        assert_eq!(v4.groups().count(), 1);
        assert_eq!(v4.site(), v4.group(Level::Client));
    }

    #[test]
    fn a_network_gets_a_bounded_multiple_of_a_clients_share() {
        assert_eq!(Level::Client.cap(32), 32);
        assert_eq!(Level::Net56.cap(32), 48);
        assert_eq!(Level::Net48.cap(32), 64);
        assert_eq!(Level::Net48.cap(u64::MAX), u64::MAX);
    }
}
