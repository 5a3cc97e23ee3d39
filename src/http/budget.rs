//! Bytes in flight: one global budget for request bodies being read, upstream feeds being
//! fetched and large answers being written from memory, shared by the one fairness rule
//! (`fair`): a client may hold a small share, the top is kept for clients holding none, the
//! server's own fetches have room of their own, and when it is full the heaviest holder loses
//! its oldest claim to the newcomer. Claims follow use: a body or a fetch holds what has arrived
//! (plus a small window), never what it declares, so slow senders hold little; what they hold
//! can be taken back. Answers already in memory are held whole and never taken back.

use std::sync::{Arc, Mutex};

use super::error::AppError;
use crate::fair::{ClaimId, Eviction, Holder, Ledger, Refusal, Shares};
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
    /// The room this held was given to a client holding less (this one held the most).
    #[error(
        "the server needed room for others while this was being sent: try again in a few seconds"
    )]
    Evicted,
}

impl From<BudgetRefusal> for AppError {
    fn from(refusal: BudgetRefusal) -> AppError {
        match refusal {
            BudgetRefusal::Client => AppError::TooManyRequests { retry_after: 5 },
            BudgetRefusal::Server | BudgetRefusal::Evicted => AppError::Busy {
                message: refusal.to_string(),
                retry_after: 5,
            },
        }
    }
}

impl From<Refusal> for BudgetRefusal {
    fn from(refusal: Refusal) -> BudgetRefusal {
        if refusal.is_share() {
            BudgetRefusal::Client
        } else {
            BudgetRefusal::Server
        }
    }
}

/// The budget of bytes in flight.
pub struct ByteBudget {
    ledger: Mutex<Ledger<Arc<Eviction>>>,
}

impl std::fmt::Debug for ByteBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ledger = lock(&self.ledger);
        f.debug_struct("ByteBudget")
            .field("shares", ledger.shares())
            .field("used", &ledger.used())
            .finish()
    }
}

/// Bytes a body or a fetch reserves ahead of what has arrived.
pub const WINDOW: usize = 64 * 1024;

impl ByteBudget {
    pub fn new(shares: Shares) -> Arc<ByteBudget> {
        Arc::new(ByteBudget {
            ledger: Mutex::new(Ledger::new(shares)),
        })
    }

    /// The server's split of `total`: a client an eighth, or `largest` (the most one request
    /// may need to hold: a vault, a feed) if that is more; an eighth kept for clients holding
    /// none, and an eighth for the server's own fetches.
    pub fn split(total: usize, largest: usize) -> Arc<ByteBudget> {
        let total = total as u64;
        ByteBudget::new(Shares::divided(total, 8, largest as u64).keeping_for_server(total / 8))
    }

    /// Bytes reserved now.
    pub fn used(&self) -> usize {
        lock(&self.ledger).used() as usize
    }

    /// Bytes `holder` has reserved now.
    pub fn used_by(&self, holder: impl Into<Holder>) -> usize {
        lock(&self.ledger).held_by(holder.into()) as usize
    }

    /// The largest reservation this budget can ever grant one client.
    pub fn per_client(&self) -> usize {
        lock(&self.ledger).shares().per_client as usize
    }

    /// Reserves `bytes` for `holder` for something that grows with use (a body being read, a
    /// feed being fetched), or says why not; never waits. Making room may take older claims of
    /// heavier holders; this one may be taken in turn (see [`Reservation::evicted`]).
    pub fn reserve(
        self: &Arc<Self>,
        holder: impl Into<Holder>,
        bytes: usize,
    ) -> Result<Reservation, BudgetRefusal> {
        self.claim(holder.into(), bytes, true)
    }

    /// Reserves `bytes` already in memory for an answer being written: never taken back (the
    /// write deadline bounds how long it is held).
    pub fn hold(
        self: &Arc<Self>,
        holder: impl Into<Holder>,
        bytes: usize,
    ) -> Result<Reservation, BudgetRefusal> {
        self.claim(holder.into(), bytes, false)
    }

    fn claim(
        self: &Arc<Self>,
        holder: Holder,
        bytes: usize,
        evictable: bool,
    ) -> Result<Reservation, BudgetRefusal> {
        let eviction = Arc::new(Eviction::default());
        let (id, evicted) =
            lock(&self.ledger).claim(holder, bytes as u64, evictable, eviction.clone())?;
        tell(evicted);
        Ok(Reservation {
            budget: self.clone(),
            id,
            bytes,
            eviction,
        })
    }
}

fn tell(evicted: Vec<Arc<Eviction>>) {
    if !evicted.is_empty() {
        tracing::debug!(
            claims = evicted.len(),
            "bytes in flight full: the heaviest holder's oldest claims were taken back"
        );
    }
    for eviction in evicted {
        eviction.evict();
    }
}

/// Bytes held until dropped, or until taken back for a lighter holder.
#[derive(Debug)]
pub struct Reservation {
    budget: Arc<ByteBudget>,
    id: ClaimId,
    bytes: usize,
    eviction: Arc<Eviction>,
}

impl Reservation {
    /// Reserves `more` bytes on top, or says why not (what is held stays held).
    pub fn grow(&mut self, more: usize) -> Result<(), BudgetRefusal> {
        if self.evicted() {
            return Err(BudgetRefusal::Evicted);
        }
        if more == 0 {
            return Ok(());
        }
        let evicted = lock(&self.budget.ledger).grow(self.id, more as u64)?;
        tell(evicted);
        self.bytes += more;
        Ok(())
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Whether the room was taken back: whoever reads or fetches into it must stop.
    pub fn evicted(&self) -> bool {
        self.eviction.is_evicted()
    }

    /// Resolves once the room is taken back (never, for an answer held whole).
    pub async fn until_evicted(&self) {
        self.eviction.until_evicted().await;
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        lock(&self.budget.ledger).release(self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fair::ClientKey;

    fn key(ip: &str) -> ClientKey {
        ClientKey::of(ip.parse().expect("ip"))
    }

    fn budget(total: u64, per_client: u64, newcomers: u64, server: u64) -> Arc<ByteBudget> {
        ByteBudget::new(Shares {
            total,
            per_client,
            newcomers,
            server,
        })
    }

    #[test]
    fn a_client_gets_its_share_and_a_full_budget_takes_back_from_the_heaviest() {
        let budget = budget(100, 40, 0, 0);
        let a = key("198.51.100.1");
        let first = budget.reserve(a, 30).expect("within the share");
        assert_eq!(budget.reserve(a, 11).err(), Some(BudgetRefusal::Client));
        let b = budget
            .reserve(key("198.51.100.2"), 40)
            .expect("another client");
        let _c = budget
            .reserve(key("198.51.100.3"), 30)
            .expect("fills the total");
        // Full: the heaviest holder (b, 40) loses its claim to a newcomer.
        let d = budget.reserve(key("198.51.100.4"), 10).expect("room made");
        assert!(b.evicted() && !first.evicted());
        drop(b);
        assert_eq!(budget.used(), 70);
        assert_eq!(budget.used_by(key("198.51.100.4")), d.bytes());
    }

    #[test]
    fn a_growing_reservation_keeps_what_it_holds_when_refused() {
        let budget = budget(100, 50, 0, 0);
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
        let budget = budget(1000, 40, 0, 0);
        let held: Vec<Reservation> = (1..=2)
            .map(|n| {
                budget
                    .reserve(key(&format!("2001:db8:7:{n}00::1")), 40)
                    .expect("two /64s")
            })
            .collect();
        assert_eq!(
            budget.reserve(key("2001:db8:7:300::1"), 1).err(),
            Some(BudgetRefusal::Client),
            "a third /64 of the same /48"
        );
        assert!(budget.reserve(key("2001:db8:8:1::1"), 40).is_ok());
        drop(held);
        assert_eq!(budget.used(), 0);
    }

    #[tokio::test]
    async fn an_evicted_holder_hears_of_it_and_cannot_grow() {
        let budget = budget(100, 60, 0, 0);
        let mut heavy = budget.reserve(key("198.51.100.1"), 60).expect("heavy");
        let _light = budget.reserve(key("198.51.100.2"), 40).expect("light");
        let waiting = {
            let budget = budget.clone();
            tokio::spawn(async move {
                let _newcomer = budget.reserve(key("198.51.100.3"), 5).expect("room");
            })
        };
        heavy.until_evicted().await;
        waiting.await.expect("joins");
        assert_eq!(heavy.grow(1), Err(BudgetRefusal::Evicted));
    }

    #[test]
    fn answers_held_whole_are_never_taken_back_and_the_server_has_its_room() {
        let budget = budget(100, 60, 0, 20);
        let answer = budget.hold(key("198.51.100.1"), 60).expect("answer");
        let _other = budget
            .reserve(key("198.51.100.2"), 20)
            .expect("fills the visitors' room");
        assert_eq!(
            budget.reserve(key("198.51.100.3"), 30).err(),
            Some(BudgetRefusal::Server)
        );
        assert!(!answer.evicted());
        let _refresh = budget
            .reserve(Holder::Server, 20)
            .expect("the server's own room");
        let split = ByteBudget::split(48 << 20, 10 << 20);
        assert_eq!(
            split.per_client(),
            10 << 20,
            "an eighth, or the largest body"
        );
    }
}
