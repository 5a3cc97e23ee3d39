//! Budgets of the fetches Hearth makes to other servers, so that nobody can use it to hammer a
//! third party (one preview names ten sources, each with its own query string): a visitor's
//! fetch spends its client's allowance (its /56 and /48 counted in aggregate) and the upstream
//! host's, the host known by its name as normalised and by the address a connection goes to
//! (so another spelling of it, or another name for the same server, is the same host within a
//! bounded multiple), and waits for one of the few connections a host may have at once
//! (`connections.rs`, shared by the fairness rule). The
//! server's own fetches (refreshing hosted calendars) spend neither allowance and have as many
//! connections again of their own, so they never wait behind visitors. A host's allowance keeps
//! room for clients new to it: as much again, of which one client (its /56 and /48 at their
//! multiples) takes at most one fetch every five minutes, so a few clients spending a host's
//! allowance do not lock everyone else out of it.

use std::sync::Arc;
use std::time::Duration;

use crate::clock::Clock;
use crate::config::UpstreamLimits;
use crate::fair::{Allowance, ClientKey, Group, Keyed, Rate};
use crate::publish::fetch::{FetchError, Fetcher, Upstream};

use super::connections::{self, Connection};

/// The address of a host holds this many times its name's allowance: names of one server
/// (a wildcard's) share it, and servers of one provider behind one address are not starved.
const ADDRESS_FACTOR: f64 = 4.0;

/// A client new to a host may take one fetch from the room kept for newcomers, and one more
/// once this long has passed.
const NEWCOMER_EVERY: Duration = Duration::from_secs(300);

/// What a visitor is told when a host's connections stay taken (its Retry-After).
const BUSY_RETRY: Duration = Duration::from_secs(5);

impl Keyed for Upstream {
    type Bucket = String;
    fn buckets(&self) -> Vec<(String, f64)> {
        let mut buckets = vec![(format!("host {}", self.host), 1.0)];
        if let Some(addr) = self.addr {
            buckets.push((format!("address {addr}"), ADDRESS_FACTOR));
        }
        buckets
    }
}

/// A client's fetches of one host from the room kept for newcomers, counted per client and per
/// /56 and /48 at their multiples.
struct NewToHost {
    client: ClientKey,
    host: String,
}

impl Keyed for NewToHost {
    type Bucket = (Group, String);
    fn buckets(&self) -> Vec<((Group, String), f64)> {
        self.client
            .groups()
            .map(|g| ((g, self.host.clone()), g.level.factor()))
            .collect()
    }
}

/// Why a fetch was not made now; the visitor may try again after `retry_after`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Throttled {
    #[error(
        "the feed's server ({host}) was asked too often from here: try again in {} seconds",
        seconds(*.retry_after)
    )]
    Host { host: String, retry_after: Duration },
    #[error(
        "your address asked for too many feeds to be fetched: try again in {} seconds",
        seconds(*.retry_after)
    )]
    Client { retry_after: Duration },
    #[error(
        "the feed's server ({host}) is busy with other fetches from here: try again in {} seconds",
        seconds(*.retry_after)
    )]
    Busy { host: String, retry_after: Duration },
}

impl Throttled {
    pub fn retry_after(&self) -> Duration {
        match self {
            Throttled::Host { retry_after, .. }
            | Throttled::Client { retry_after }
            | Throttled::Busy { retry_after, .. } => *retry_after,
        }
    }
}

/// Whole seconds, at least one.
fn seconds(wait: Duration) -> u64 {
    wait.as_secs_f64().ceil().max(1.0) as u64
}

/// What a visitor is told when a host's connections stay taken, or its own was taken for a
/// newcomer.
pub fn busy(host: String) -> Throttled {
    Throttled::Busy {
        host,
        retry_after: BUSY_RETRY,
    }
}

/// Why a fetch may not start: its budget, or the upstream itself (its name does not resolve, or
/// only to refused addresses), which the fetch would have met too.
#[derive(Debug)]
pub enum Refused {
    Throttled(Throttled),
    Fetch(FetchError),
}

/// The allowances and connections of fetches made upstream.
pub struct UpstreamBudgets {
    clients: Allowance<ClientKey>,
    hosts: Allowance<Upstream>,
    /// Room kept past a host's allowance for clients new to it, and what each took of it.
    kept: Allowance<Upstream>,
    newcomers: Allowance<NewToHost>,
    /// Connections to each host for visitors, and for the server's own fetches.
    visitors: Arc<connections::Visitors>,
    server: Arc<connections::Server>,
}

impl UpstreamBudgets {
    pub fn new(limits: UpstreamLimits, clock: &Clock) -> UpstreamBudgets {
        UpstreamBudgets {
            clients: Allowance::new(
                Rate::every(limits.client_burst, limits.client_every),
                clock.clone(),
            ),
            hosts: Allowance::new(
                Rate::every(limits.host_burst, limits.host_every),
                clock.clone(),
            ),
            kept: Allowance::new(
                Rate::every(limits.host_burst, limits.host_every),
                clock.clone(),
            ),
            newcomers: Allowance::new(Rate::every(1, NEWCOMER_EVERY), clock.clone()),
            visitors: connections::Visitors::new(limits.connections_per_host),
            server: connections::Server::new(limits.connections_per_host),
        }
    }

    /// Admits a fetch of `url` for `client` (`None`: the server's own), holding one of its
    /// host's connections until the returned slot is dropped.
    pub async fn admit(
        &self,
        client: Option<ClientKey>,
        url: &reqwest::Url,
        fetcher: &Fetcher,
    ) -> Result<Connection, Refused> {
        if let Some(client) = client {
            self.clients
                .take(&client, 1.0)
                .map_err(|retry_after| Refused::Throttled(Throttled::Client { retry_after }))?;
        }
        let upstream = fetcher.upstream_of(url).await.map_err(Refused::Fetch)?;
        if let Some(client) = client {
            self.spend_host(client, &upstream).map_err(|retry_after| {
                Refused::Throttled(Throttled::Host {
                    host: upstream.host.clone(),
                    retry_after,
                })
            })?;
        }
        // Connections count per server: by the address when it is known.
        let key = upstream
            .addr
            .map_or_else(|| upstream.host.clone(), |a| a.to_string());
        let connection = match client {
            Some(client) => self.visitors.take(&key, client).await,
            None => self.server.take(&key).await,
        };
        connection.ok_or(Refused::Throttled(busy(upstream.host)))
    }
}

impl UpstreamBudgets {
    /// Spends one fetch of `upstream`'s allowance, or of the room kept for clients new to it.
    fn spend_host(&self, client: ClientKey, upstream: &Upstream) -> Result<(), Duration> {
        let Err(retry_after) = self.hosts.take(upstream, 1.0) else {
            return Ok(());
        };
        let new = NewToHost {
            client,
            host: upstream.host.clone(),
        };
        if self.newcomers.take(&new, 1.0).is_err() {
            return Err(retry_after);
        }
        self.kept.take(upstream, 1.0).map_err(|_| {
            // Nothing was fetched: the newcomer keeps its turn for when there is room.
            self.newcomers.refund(&new, 1.0);
            retry_after
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> UpstreamLimits {
        UpstreamLimits {
            client_burst: 30,
            client_every: Duration::from_secs(2),
            host_burst: 3,
            host_every: Duration::from_secs(10),
            connections_per_host: 2,
        }
    }

    fn fetcher() -> Fetcher {
        Fetcher::new(true, 1 << 20).expect("fetcher")
    }

    fn url(s: &str) -> reqwest::Url {
        reqwest::Url::parse(s).expect("url")
    }

    fn client(ip: &str) -> Option<ClientKey> {
        Some(ClientKey::of(ip.parse().expect("ip")))
    }

    #[tokio::test]
    async fn a_host_is_one_host_however_it_is_spelled_and_whoever_asks() {
        let clock = Clock::manual();
        let budgets = UpstreamBudgets::new(limits(), &clock);
        let fetcher = fetcher();
        for (n, spelled) in [
            "http://127.0.0.1:1/a.ics?x=1",
            "http://127.0.0.1:2/b.ics?x=2",
            "http://0x7f.1/c.ics",
        ]
        .iter()
        .enumerate()
        {
            let from = format!("198.51.100.{n}");
            assert!(
                budgets
                    .admit(client(&from), &url(spelled), &fetcher)
                    .await
                    .is_ok(),
                "{spelled}"
            );
        }
        // Past the host's allowance, the room kept for clients new to it (three, one each)...
        for from in ["198.51.100.6", "198.51.100.7", "198.51.100.8"] {
            assert!(budgets
                .admit(client(from), &url("http://127.1/d.ics?y"), &fetcher)
                .await
                .is_ok());
        }
        // ... and then nothing, whoever asks.
        let refused = budgets
            .admit(client("198.51.100.9"), &url("http://127.1/d.ics"), &fetcher)
            .await;
        let Err(Refused::Throttled(Throttled::Host { retry_after, .. })) = refused else {
            panic!("the host's allowance is spent");
        };
        assert_eq!(retry_after, Duration::from_secs(10));
        // The server's own fetches spend nothing.
        assert!(budgets
            .admit(None, &url("http://127.0.0.1/e.ics"), &fetcher)
            .await
            .is_ok());
        clock.advance(Duration::from_secs(10));
        assert!(budgets
            .admit(
                client("198.51.100.9"),
                &url("http://127.0.0.1/f.ics"),
                &fetcher
            )
            .await
            .is_ok());
    }

    #[tokio::test]
    async fn a_few_clients_spending_a_hosts_allowance_leave_room_for_a_newcomer() {
        let clock = Clock::manual();
        let budgets = UpstreamBudgets::new(limits(), &clock);
        let fetcher = fetcher();
        let u = url("http://127.0.0.1/x.ics?n=1");
        // Four attackers spend the host's allowance (3) and the room kept for newcomers (3, one
        // each), ...
        let mut taken = 0;
        for n in 0..4 {
            let from = format!("198.51.100.{}", 10 + n);
            for _ in 0..5 {
                if budgets.admit(client(&from), &u, &fetcher).await.is_ok() {
                    taken += 1;
                }
            }
        }
        assert_eq!(taken, 3 + 3, "the allowance and the kept room, no more");
        // ... sixteen /64s of one /48 take no more than its two ...
        let mut v6 = 0;
        for n in 1..=16 {
            let from = format!("2001:db8:48:{n:x}::1");
            if budgets.admit(client(&from), &u, &fetcher).await.is_ok() {
                v6 += 1;
            }
        }
        assert_eq!(v6, 0, "the kept room is spent");
        // ... and once the kept room refills, a newcomer gets in while the attackers do not.
        clock.advance(Duration::from_secs(20));
        assert!(budgets
            .admit(client("198.51.100.10"), &u, &fetcher)
            .await
            .is_ok());
        clock.advance(Duration::from_secs(20));
        for n in 0..4 {
            let from = format!("198.51.100.{}", 10 + n);
            let _ = budgets.admit(client(&from), &u, &fetcher).await;
        }
        assert!(
            budgets
                .admit(client("192.0.2.77"), &u, &fetcher)
                .await
                .is_ok(),
            "a bystander new to the host is answered"
        );
    }

    #[tokio::test]
    async fn a_host_has_a_few_connections_for_visitors_and_as_many_for_the_server() {
        let clock = Clock::manual();
        let budgets = UpstreamBudgets::new(
            UpstreamLimits {
                host_burst: 100,
                connections_per_host: 4,
                ..limits()
            },
            &clock,
        );
        let fetcher = fetcher();
        let u = url("http://127.0.0.1/x.ics");
        // Four connections for visitors, one client holding one of them, one kept for newcomers.
        let mut held = Vec::new();
        for n in 1..=4 {
            if let Ok(c) = budgets
                .admit(client(&format!("198.51.100.{n}")), &u, &fetcher)
                .await
            {
                held.push(c);
            }
        }
        assert_eq!(held.len(), 4);
        // All visitors' connections are taken; the server has its own.
        let server = budgets.admit(None, &u, &fetcher).await;
        assert!(server.is_ok());
        let waiting = budgets.admit(client("198.51.100.1"), &u, &fetcher);
        tokio::pin!(waiting);
        assert!(
            futures_pending(waiting.as_mut()),
            "a visitor holding its share waits for a connection"
        );
        // Another client's given back does not make room past its share; its own does.
        held.remove(1);
        assert!(futures_pending(waiting.as_mut()));
        held.remove(0);
        assert!(waiting.await.is_ok(), "and gets the one given back");
        drop((held, server));
        assert_eq!(budgets.visitors.remembered(), 0, "idle hosts are forgotten");
        assert_eq!(budgets.server.remembered(), 0);
    }

    /// Polls a future once: whether it is still pending.
    fn futures_pending<F: std::future::Future>(f: std::pin::Pin<&mut F>) -> bool {
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        f.poll(&mut cx).is_pending()
    }

    #[tokio::test]
    async fn a_client_and_its_48_have_an_allowance_of_fetches() {
        let clock = Clock::manual();
        let budgets = UpstreamBudgets::new(
            UpstreamLimits {
                client_burst: 2,
                host_burst: 100,
                connections_per_host: 100,
                ..limits()
            },
            &clock,
        );
        let fetcher = fetcher();
        let u = url("http://127.0.0.1/x.ics");
        // Four /64s of one /48: the /48 holds twice one client's allowance.
        let mut admitted = 0;
        // Each in a /56 of its own, so that the /48 is what binds.
        for n in 1..=4 {
            let from = format!("2001:db8:48:{n}00::1");
            for _ in 0..2 {
                if budgets.admit(client(&from), &u, &fetcher).await.is_ok() {
                    admitted += 1;
                }
            }
        }
        assert_eq!(admitted, 4);
        let refused = budgets
            .admit(client("2001:db8:48:9::1"), &u, &fetcher)
            .await;
        assert!(matches!(
            refused,
            Err(Refused::Throttled(Throttled::Client { .. }))
        ));
    }
}
