//! Connections to one upstream host at once. Visitors' fetches share a host's few connections by
//! the one fairness rule (a client a quarter of them, its /56 and /48 at their multiples, a
//! quarter kept for clients holding none; when they are all taken, the heaviest client's oldest
//! fetch is stopped for a newcomer), so a client asking slow addresses of a host cannot hold its
//! connections from everyone else. The server's own fetches have as many again of their own and
//! wait in turn. Only hosts with a fetch under way or waiting are remembered.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

use crate::fair::{ClaimId, ClientKey, Eviction, Holder, Ledger, Shares};
use crate::lock::lock;

/// Longest wait for one of a host's connections.
const CONNECTION_WAIT: Duration = Duration::from_secs(10);

/// Visitors' connections to each host, shared fairly.
pub(super) struct Visitors {
    shares: Shares,
    hosts: Mutex<HashMap<String, Ledger<Arc<Eviction>>>>,
    /// Told whenever a connection is given back.
    freed: Notify,
}

impl Visitors {
    pub(super) fn new(per_host: usize) -> Arc<Visitors> {
        let total = per_host.max(1) as u64;
        Arc::new(Visitors {
            shares: Shares::divided(total, 4, 1),
            hosts: Mutex::new(HashMap::new()),
            freed: Notify::new(),
        })
    }

    /// One of `key`'s connections for `client`, waiting for one at most [`CONNECTION_WAIT`].
    pub(super) async fn take(self: &Arc<Self>, key: &str, client: ClientKey) -> Option<Connection> {
        let deadline = tokio::time::Instant::now() + CONNECTION_WAIT;
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            freed.as_mut().enable();
            if let Some(connection) = self.try_take(key, client) {
                return Some(connection);
            }
            if tokio::time::timeout_at(deadline, freed).await.is_err() {
                return None;
            }
        }
    }

    fn try_take(self: &Arc<Self>, key: &str, client: ClientKey) -> Option<Connection> {
        let taken = Arc::new(Eviction::default());
        let mut hosts = lock(&self.hosts);
        let ledger = hosts
            .entry(key.to_owned())
            .or_insert_with(|| Ledger::new(self.shares));
        match ledger.claim(Holder::Client(client), 1, true, taken.clone()) {
            Ok((id, evicted)) => {
                for other in evicted {
                    other.evict();
                }
                Some(Connection(Held::Visitor {
                    visitors: self.clone(),
                    key: key.to_owned(),
                    id,
                    taken,
                }))
            }
            Err(_) => {
                if ledger.is_empty() {
                    hosts.remove(key);
                }
                None
            }
        }
    }

    fn give_back(&self, key: &str, id: ClaimId) {
        let mut hosts = lock(&self.hosts);
        if let Some(ledger) = hosts.get_mut(key) {
            ledger.release(id);
            if ledger.is_empty() {
                hosts.remove(key);
            }
        }
        drop(hosts);
        self.freed.notify_waiters();
    }

    #[cfg(test)]
    pub(super) fn remembered(&self) -> usize {
        lock(&self.hosts).len()
    }
}

/// The server's own connections to each host: a semaphore for each host in use.
pub(super) struct Server {
    per_host: usize,
    open: Mutex<HashMap<String, Arc<Semaphore>>>,
}

impl Server {
    pub(super) fn new(per_host: usize) -> Arc<Server> {
        Arc::new(Server {
            per_host: per_host.max(1),
            open: Mutex::new(HashMap::new()),
        })
    }

    pub(super) async fn take(self: &Arc<Self>, key: &str) -> Option<Connection> {
        let semaphore = lock(&self.open)
            .entry(key.to_owned())
            .or_insert_with(|| Arc::new(Semaphore::new(self.per_host)))
            .clone();
        let permit = tokio::time::timeout(CONNECTION_WAIT, semaphore.acquire_owned()).await;
        match permit {
            Ok(Ok(permit)) => Some(Connection(Held::Server {
                permit: Some(permit),
                server: self.clone(),
                key: key.to_owned(),
            })),
            _ => {
                self.forget_idle(key);
                None
            }
        }
    }

    /// Used by nothing any more: forgotten.
    fn forget_idle(&self, key: &str) {
        let mut open = lock(&self.open);
        if open
            .get(key)
            .is_some_and(|s| Arc::strong_count(s) == 1 && s.available_permits() == self.per_host)
        {
            open.remove(key);
        }
    }

    #[cfg(test)]
    pub(super) fn remembered(&self) -> usize {
        lock(&self.open).len()
    }
}

/// One of a host's connections, until dropped.
pub struct Connection(Held);

enum Held {
    Visitor {
        visitors: Arc<Visitors>,
        key: String,
        id: ClaimId,
        taken: Arc<Eviction>,
    },
    Server {
        permit: Option<OwnedSemaphorePermit>,
        server: Arc<Server>,
        key: String,
    },
}

impl Connection {
    /// Resolves when the connection is taken for a newcomer (a visitor's only; the server's
    /// are never taken): the fetch on it must stop.
    pub async fn taken(&self) {
        match &self.0 {
            Held::Visitor { taken, .. } => taken.until_evicted().await,
            Held::Server { .. } => std::future::pending().await,
        }
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        match &mut self.0 {
            Held::Visitor {
                visitors, key, id, ..
            } => visitors.give_back(key, *id),
            Held::Server {
                permit,
                server,
                key,
            } => {
                drop(permit.take());
                server.forget_idle(key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(ip: &str) -> ClientKey {
        ClientKey::of(ip.parse().expect("ip"))
    }

    #[tokio::test(start_paused = true)]
    async fn a_client_asking_slow_addresses_cannot_hold_a_hosts_connections_from_a_newcomer() {
        let visitors = Visitors::new(8);
        // Four attackers take what they may: two each, but the last two are kept for clients
        // holding none, so the fourth gets one of them...
        let mut held = Vec::new();
        for n in 1..=4 {
            for _ in 0..3 {
                if let Some(c) = visitors.try_take("h", client(&format!("198.51.100.{n}"))) {
                    held.push(c);
                }
            }
        }
        assert_eq!(held.len(), 7);
        // ... a bystander gets the last, and the next one too: the heaviest's oldest fetch is
        // stopped for it.
        let first = visitors.take("h", client("203.0.113.9")).await;
        assert!(first.is_some());
        assert_eq!(
            futures_ready(held.iter().map(|c| Box::pin(c.taken())).collect()),
            0
        );
        let second = visitors.take("h", client("203.0.113.10")).await;
        assert!(second.is_some());
        let stopped = futures_ready(held.iter().map(|c| Box::pin(c.taken())).collect());
        assert_eq!(stopped, 1, "one attacker's fetch was stopped");
        drop((held, first, second));
        assert_eq!(visitors.remembered(), 0, "idle hosts are forgotten");
    }

    #[tokio::test(start_paused = true)]
    async fn a_visitor_past_its_share_waits_for_its_own_and_then_gives_up() {
        let visitors = Visitors::new(8);
        let me = client("198.51.100.1");
        let first = visitors.take("h", me).await;
        let second = visitors.take("h", me).await;
        assert!(first.is_some() && second.is_some());
        let third = visitors.take("h", me);
        tokio::pin!(third);
        tokio::time::sleep(Duration::from_secs(1)).await;
        drop(first);
        let third = third.await;
        assert!(third.is_some(), "the one it gave back");
        assert!(
            visitors.take("h", me).await.is_none(),
            "past its share for ten seconds"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_server_has_connections_of_its_own() {
        let server = Server::new(1);
        let one = server.take("h").await;
        assert!(one.is_some());
        assert!(server.take("h").await.is_none(), "waits, then gives up");
        drop(one);
        assert!(server.take("h").await.is_some());
    }

    /// How many of `futures` are ready when polled once.
    fn futures_ready<F: std::future::Future + Unpin>(mut futures: Vec<F>) -> usize {
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        futures
            .iter_mut()
            .map(|f| std::pin::Pin::new(f).poll(&mut cx).is_ready())
            .filter(|ready| *ready)
            .count()
    }
}
