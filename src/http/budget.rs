//! Bytes in flight: one global budget for request bodies being read and large answers being
//! written from memory, with a per-client share of it. A reservation is taken before the bytes
//! exist (before a body is read, before a vault is loaded) and given back when they are gone, so
//! what does not fit is refused at once with a 429 or 503 instead of being buffered.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::client::ClientKey;
use super::error::AppError;
use crate::lock::lock;

/// Why a reservation was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BudgetRefusal {
    /// This client already has its share in flight: its own requests must finish first.
    #[error(
        "your address has too much being sent or received at once: try again in a few seconds"
    )]
    Client,
    /// Everyone together has the whole budget in flight.
    #[error("the server is receiving and sending too much at once: try again in a few seconds")]
    Server,
}

impl From<BudgetRefusal> for AppError {
    fn from(refusal: BudgetRefusal) -> AppError {
        match refusal {
            BudgetRefusal::Client => AppError::TooManyRequests { retry_after: 5 },
            BudgetRefusal::Server => AppError::Busy {
                message: refusal.to_string(),
                retry_after: 5,
            },
        }
    }
}

#[derive(Default)]
struct Held {
    used: usize,
    by_client: HashMap<ClientKey, usize>,
    /// IPv6 /48s in aggregate (IPv4 clients are their own network and are not kept twice).
    by_network: HashMap<ClientKey, usize>,
}

/// The budget: `total` bytes in flight, at most `per_client` of them for one client (and its
/// network in aggregate, see [`ClientKey::network`]).
pub struct ByteBudget {
    total: usize,
    per_client: usize,
    held: Mutex<Held>,
}

impl std::fmt::Debug for ByteBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ByteBudget")
            .field("total", &self.total)
            .field("per_client", &self.per_client)
            .field("used", &self.used())
            .finish()
    }
}

impl ByteBudget {
    pub fn new(total: usize, per_client: usize) -> Arc<ByteBudget> {
        Arc::new(ByteBudget {
            total,
            per_client: per_client.min(total),
            held: Mutex::new(Held::default()),
        })
    }

    /// Bytes reserved now.
    pub fn used(&self) -> usize {
        lock(&self.held).used
    }

    /// Bytes `client` has reserved now.
    pub fn used_by(&self, client: ClientKey) -> usize {
        lock(&self.held)
            .by_client
            .get(&client)
            .copied()
            .unwrap_or(0)
    }

    /// The largest single reservation this budget can ever grant one client.
    pub fn per_client(&self) -> usize {
        self.per_client
    }

    /// Reserves `bytes` for `client`, or says why not; never waits.
    pub fn reserve(
        self: &Arc<Self>,
        client: ClientKey,
        bytes: usize,
    ) -> Result<Reservation, BudgetRefusal> {
        let mut reservation = Reservation {
            budget: self.clone(),
            client,
            bytes: 0,
        };
        reservation.grow(bytes)?;
        Ok(reservation)
    }

    fn take(&self, client: ClientKey, bytes: usize) -> Result<(), BudgetRefusal> {
        if bytes == 0 {
            return Ok(());
        }
        let mut held = lock(&self.held);
        let network = client.network();
        let aggregate = network != client;
        let mine = held.by_client.get(&client).copied().unwrap_or(0);
        // A network (an IPv6 /48) gets twice one client's share, so rotating through its /64s
        // does not multiply it.
        let ours = held.by_network.get(&network).copied().unwrap_or(0);
        if mine.saturating_add(bytes) > self.per_client
            || (aggregate && ours.saturating_add(bytes) > self.per_client.saturating_mul(2))
        {
            return Err(BudgetRefusal::Client);
        }
        if held.used.saturating_add(bytes) > self.total {
            return Err(BudgetRefusal::Server);
        }
        held.used += bytes;
        *held.by_client.entry(client).or_insert(0) += bytes;
        if aggregate {
            *held.by_network.entry(network).or_insert(0) += bytes;
        }
        Ok(())
    }

    fn give_back(&self, client: ClientKey, bytes: usize) {
        if bytes == 0 {
            return;
        }
        let mut held = lock(&self.held);
        held.used = held.used.saturating_sub(bytes);
        release(&mut held.by_client, client, bytes);
        let network = client.network();
        if network != client {
            release(&mut held.by_network, network, bytes);
        }
    }
}

fn release(map: &mut HashMap<ClientKey, usize>, key: ClientKey, bytes: usize) {
    if let Some(n) = map.get_mut(&key) {
        *n = n.saturating_sub(bytes);
        if *n == 0 {
            map.remove(&key);
        }
    }
}

/// Bytes held for one client until dropped.
#[derive(Debug)]
pub struct Reservation {
    budget: Arc<ByteBudget>,
    client: ClientKey,
    bytes: usize,
}

impl Reservation {
    /// Reserves `more` bytes on top, or says why not (what is held stays held).
    pub fn grow(&mut self, more: usize) -> Result<(), BudgetRefusal> {
        self.budget.take(self.client, more)?;
        self.bytes += more;
        Ok(())
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.budget.give_back(self.client, self.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(ip: &str) -> ClientKey {
        ClientKey::of(ip.parse().expect("ip"))
    }

    #[test]
    fn a_client_gets_its_share_and_the_server_its_total() {
        let budget = ByteBudget::new(100, 40);
        let a = key("198.51.100.1");
        let first = budget.reserve(a, 30).expect("within the share");
        assert_eq!(budget.reserve(a, 11).err(), Some(BudgetRefusal::Client));
        let _b = budget
            .reserve(key("198.51.100.2"), 40)
            .expect("another client");
        let _c = budget
            .reserve(key("198.51.100.3"), 30)
            .expect("fills the total");
        assert_eq!(
            budget.reserve(key("198.51.100.4"), 1).err(),
            Some(BudgetRefusal::Server)
        );
        drop(first);
        assert_eq!(budget.used(), 70);
        assert!(budget.reserve(key("198.51.100.4"), 30).is_ok());
    }

    #[test]
    fn a_growing_reservation_keeps_what_it_holds_when_refused() {
        let budget = ByteBudget::new(100, 50);
        let a = key("198.51.100.1");
        let mut r = budget.reserve(a, 10).expect("first");
        r.grow(30).expect("grows");
        assert_eq!(r.grow(20), Err(BudgetRefusal::Client));
        assert_eq!((r.bytes(), budget.used_by(a)), (40, 40));
        drop(r);
        assert_eq!(budget.used(), 0);
        assert_eq!(budget.used_by(a), 0);
    }

    #[test]
    fn the_64s_of_one_48_share_twice_a_clients_share() {
        let budget = ByteBudget::new(1000, 40);
        let held: Vec<Reservation> = (1..=2)
            .map(|n| {
                budget
                    .reserve(key(&format!("2001:db8:7:{n}::1")), 40)
                    .expect("two /64s")
            })
            .collect();
        assert_eq!(
            budget.reserve(key("2001:db8:7:3::1"), 1).err(),
            Some(BudgetRefusal::Client),
            "a third /64 of the same /48"
        );
        assert!(budget.reserve(key("2001:db8:8:1::1"), 40).is_ok());
        drop(held);
        assert_eq!(budget.used(), 0);
    }
}
