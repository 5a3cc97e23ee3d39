//! Live claims on a resource all visitors share (connections, bytes in flight, requests under
//! way), held to [`Shares`]: a claim that does not fit its client's share is refused, and one that
//! does not fit what is left makes room by evicting the heaviest holder's oldest claim (the
//! heaviest site first, an IPv6 /48 or an IPv4 address, then its heaviest client), but only from
//! a holder that would still hold more than the claimant, so nobody trades places and a newcomer
//! is always let in. The server's own claims are never evicted. Not thread-safe: its owner keeps
//! it behind a lock and tells evicted claims' holders once the lock is released.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::key::{Group, Holder, Level};
use super::shares::{Held, Refusal, Shares};

/// A claim's number: they only grow, so a smaller one is an older claim.
pub type ClaimId = u64;

struct Claim<T> {
    holder: Holder,
    amount: u64,
    /// Whether making room for others may take it.
    evictable: bool,
    payload: T,
}

/// The claims on one resource; `T` is what an evicted claim's holder is told through.
pub struct Ledger<T> {
    shares: Shares,
    next: ClaimId,
    claims: BTreeMap<ClaimId, Claim<T>>,
    /// What each client and network holds.
    used: HashMap<Group, u64>,
    total: u64,
    /// What the server's own claims hold.
    server: u64,
}

impl<T> Ledger<T> {
    pub fn new(shares: Shares) -> Ledger<T> {
        Ledger {
            shares,
            next: 0,
            claims: BTreeMap::new(),
            used: HashMap::new(),
            total: 0,
            server: 0,
        }
    }

    pub fn shares(&self) -> &Shares {
        &self.shares
    }

    /// Everything held now.
    pub fn used(&self) -> u64 {
        self.total
    }

    /// Claims held now.
    pub fn len(&self) -> usize {
        self.claims.len()
    }

    pub fn is_empty(&self) -> bool {
        self.claims.is_empty()
    }

    /// What `holder` holds now (a client's own, not its networks').
    pub fn held_by(&self, holder: Holder) -> u64 {
        match holder {
            Holder::Server => self.server,
            Holder::Client(client) => usage(&self.used, client.group(Level::Client)),
        }
    }

    /// Takes `amount` for `holder`, evicting others' claims if that is what makes room: the
    /// claim's id and the payloads of the claims evicted for it (their holders must be told).
    pub fn claim(
        &mut self,
        holder: Holder,
        amount: u64,
        evictable: bool,
        payload: T,
    ) -> Result<(ClaimId, Vec<T>), Refusal> {
        self.claim_checked(holder, amount, evictable, payload, true)
    }

    /// [`Ledger::claim`] held to the room left only, not to the holder's share: a trusted
    /// proxy's connection, which belongs to the visitor its requests name once they come.
    pub fn claim_unshared(
        &mut self,
        holder: Holder,
        amount: u64,
        evictable: bool,
        payload: T,
    ) -> Result<(ClaimId, Vec<T>), Refusal> {
        self.claim_checked(holder, amount, evictable, payload, false)
    }

    fn claim_checked(
        &mut self,
        holder: Holder,
        amount: u64,
        evictable: bool,
        payload: T,
        shared: bool,
    ) -> Result<(ClaimId, Vec<T>), Refusal> {
        let evicted = self.make_room_except(holder, amount, None, shared)?;
        self.next += 1;
        let id = self.next;
        self.count(holder, amount, true);
        self.claims.insert(
            id,
            Claim {
                holder,
                amount,
                evictable,
                payload,
            },
        );
        Ok((id, evicted))
    }

    /// Adds `more` to claim `id` by the same rule; what it holds stays when refused.
    pub fn grow(&mut self, id: ClaimId, more: u64) -> Result<Vec<T>, Refusal> {
        let Some(holder) = self.claims.get(&id).map(|c| c.holder) else {
            return Err(Refusal::Full);
        };
        let evicted = self.make_room_except(holder, more, Some(id), true)?;
        if let Some(claim) = self.claims.get_mut(&id) {
            claim.amount += more;
            self.count(holder, more, true);
        }
        Ok(evicted)
    }

    /// Gives claim `id` back (a claim already evicted is gone: nothing happens).
    pub fn release(&mut self, id: ClaimId) -> Option<T> {
        let claim = self.claims.remove(&id)?;
        self.count(claim.holder, claim.amount, false);
        Some(claim.payload)
    }

    /// Counts claim `id` for `holder` from now on, without a check: a connection from a trusted
    /// proxy belongs to the visitor whose request it carries.
    pub fn reassign(&mut self, id: ClaimId, holder: Holder) {
        let Some((old, amount)) = self.claims.get(&id).map(|c| (c.holder, c.amount)) else {
            return;
        };
        if old == holder {
            return;
        }
        self.count(old, amount, false);
        self.count(holder, amount, true);
        if let Some(claim) = self.claims.get_mut(&id) {
            claim.holder = holder;
        }
    }

    fn count(&mut self, holder: Holder, amount: u64, add: bool) {
        if add {
            self.total = self.total.saturating_add(amount);
        } else {
            self.total = self.total.saturating_sub(amount);
        }
        if let Holder::Server = holder {
            self.server = if add {
                self.server.saturating_add(amount)
            } else {
                self.server.saturating_sub(amount)
            };
        }
        if let Holder::Client(client) = holder {
            for group in client.groups() {
                let n = self.used.entry(group).or_insert(0);
                *n = if add {
                    n.saturating_add(amount)
                } else {
                    n.saturating_sub(amount)
                };
                if *n == 0 {
                    self.used.remove(&group);
                }
            }
        }
    }

    fn held(used: &HashMap<Group, u64>, total: u64, server: u64, holder: Holder) -> Held {
        let mut held = Held {
            total,
            server,
            by: [0; 3],
        };
        if let Holder::Client(client) = holder {
            for level in Level::ALL {
                held.by[level as usize] = usage(used, client.group(level));
            }
        }
        held
    }

    /// Plans evictions on a copy of the counts first, so nothing is evicted for a claim that
    /// would be refused anyway; then carries them out.
    fn make_room_except(
        &mut self,
        holder: Holder,
        amount: u64,
        keep: Option<ClaimId>,
        shared: bool,
    ) -> Result<Vec<T>, Refusal> {
        let server = holder == Holder::Server;
        let held = Self::held(&self.used, self.total, self.server, holder);
        if shared && !server {
            self.shares.check_share(&held, amount)?;
        }
        let Err(_) = self.shares.check_room(server, &held, amount) else {
            return Ok(Vec::new());
        };
        let mut used = self.used.clone();
        let mut total = self.total;
        let mut planned: HashSet<ClaimId> = HashSet::new();
        loop {
            match self.shares.check_room(
                server,
                &Self::held(&used, total, self.server, holder),
                amount,
            ) {
                Ok(()) => break,
                Err(refusal) => {
                    let mine = match holder {
                        Holder::Server => 0,
                        Holder::Client(client) => {
                            usage(&used, client.site()).saturating_add(amount)
                        }
                    };
                    let Some(victim) = self.victim(&used, &planned, keep, mine) else {
                        return Err(refusal);
                    };
                    let claim = &self.claims[&victim];
                    total = total.saturating_sub(claim.amount);
                    if let Holder::Client(client) = claim.holder {
                        for group in client.groups() {
                            if let Some(n) = used.get_mut(&group) {
                                *n = n.saturating_sub(claim.amount);
                            }
                        }
                    }
                    planned.insert(victim);
                }
            }
        }
        let mut evicted = Vec::with_capacity(planned.len());
        let mut ids: Vec<ClaimId> = planned.into_iter().collect();
        ids.sort_unstable();
        for id in ids {
            if let Some(payload) = self.release(id) {
                evicted.push(payload);
            }
        }
        Ok(evicted)
    }

    /// The claim to evict next: the oldest evictable claim of the heaviest client of the
    /// heaviest site, when that site holds more than `mine` (what the claimant's site would
    /// hold with its claim).
    fn victim(
        &self,
        used: &HashMap<Group, u64>,
        planned: &HashSet<ClaimId>,
        keep: Option<ClaimId>,
        mine: u64,
    ) -> Option<ClaimId> {
        let mut best: Option<((u64, u64), ClaimId)> = None;
        for (id, claim) in &self.claims {
            let Holder::Client(client) = claim.holder else {
                continue;
            };
            if !claim.evictable || planned.contains(id) || Some(*id) == keep {
                continue;
            }
            let site = usage(used, client.site());
            if site <= mine {
                continue;
            }
            let weight = (site, usage(used, client.group(Level::Client)));
            // Claims come oldest first: only a heavier one replaces the best so far.
            if best.is_none_or(|(w, _)| weight > w) {
                best = Some((weight, *id));
            }
        }
        best.map(|(_, id)| id)
    }
}

fn usage(used: &HashMap<Group, u64>, group: Group) -> u64 {
    used.get(&group).copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fair::ClientKey;

    fn client(ip: &str) -> Holder {
        Holder::Client(ClientKey::of(ip.parse().expect("ip")))
    }

    fn shares(total: u64, per_client: u64, newcomers: u64) -> Shares {
        Shares {
            total,
            per_client,
            newcomers,
            server: 0,
        }
    }

    #[test]
    fn a_full_ledger_evicts_the_heaviest_holders_oldest_claim_for_a_newcomer() {
        let mut ledger: Ledger<&str> = Ledger::new(shares(4, 3, 0));
        let heavy = client("192.0.2.1");
        let (oldest, _) = ledger.claim(heavy, 1, true, "oldest").expect("1");
        ledger.claim(heavy, 1, true, "second").expect("2");
        ledger.claim(heavy, 1, true, "third").expect("3");
        ledger
            .claim(client("192.0.2.2"), 1, true, "other")
            .expect("4");
        let (_, evicted) = ledger
            .claim(client("192.0.2.3"), 1, true, "newcomer")
            .expect("room made");
        assert_eq!(evicted, ["oldest"]);
        assert!(ledger.release(oldest).is_none(), "gone already");
        assert_eq!(ledger.held_by(heavy), 2);
        assert_eq!(ledger.used(), 4);
        // The heaviest now holds two and the newcomer one: no trading places.
        assert_eq!(
            ledger.claim(client("192.0.2.3"), 1, true, "again").err(),
            Some(Refusal::Full)
        );
    }

    #[test]
    fn a_site_of_many_64s_is_the_heaviest_holder() {
        let mut ledger: Ledger<String> = Ledger::new(shares(20, 8, 0));
        // An IPv4 client with 6, and 14 from seven /64s of one /48 (2 each).
        for n in 0..6 {
            ledger
                .claim(client("198.51.100.1"), 1, true, format!("v4-{n}"))
                .expect("v4");
        }
        for n in 0..14 {
            // Seven /56s of one /48, two claims each.
            let ip = format!("2001:db8:48:{:x}00::1", n / 2);
            ledger
                .claim(client(&ip), 1, true, format!("v6-{n}"))
                .expect("v6");
        }
        let (_, evicted) = ledger
            .claim(client("203.0.113.9"), 1, true, "bystander".into())
            .expect("room");
        assert_eq!(evicted, ["v6-0"], "the /48's oldest, not the IPv4 client's");
    }

    #[test]
    fn nothing_is_evicted_for_a_claim_that_is_refused_anyway() {
        let mut ledger: Ledger<u32> = Ledger::new(shares(10, 6, 0));
        ledger.claim(client("192.0.2.1"), 6, true, 1).expect("a");
        ledger.claim(client("192.0.2.2"), 4, true, 2).expect("b");
        // 192.0.2.2 holds 4; with 6 more it would hold 10, more than anyone: no victim.
        assert_eq!(
            ledger.claim(client("192.0.2.2"), 6, true, 3).err(),
            Some(Refusal::Share(Level::Client))
        );
        assert_eq!(
            ledger.claim(client("192.0.2.3"), 6, true, 4).err(),
            Some(Refusal::Full),
            "freeing 6 would leave the newcomer as heavy as the victim"
        );
        assert_eq!(ledger.used(), 10);
    }

    #[test]
    fn the_server_evicts_visitors_and_is_never_evicted() {
        let mut ledger: Ledger<&str> = Ledger::new(Shares {
            server: 2,
            ..shares(10, 8, 0)
        });
        ledger
            .claim(client("192.0.2.1"), 8, true, "visitor")
            .expect("a");
        let (_, evicted) = ledger
            .claim(Holder::Server, 2, false, "s1")
            .expect("own room");
        assert!(evicted.is_empty());
        let (_, evicted) = ledger
            .claim(Holder::Server, 3, false, "s2")
            .expect("evicts");
        assert_eq!(evicted, ["visitor"]);
        assert_eq!(ledger.held_by(Holder::Server), 5);
        // Visitors have what the server neither holds nor keeps, and never take its claims.
        assert_eq!(
            ledger.claim(client("192.0.2.2"), 6, true, "b").err(),
            Some(Refusal::Full)
        );
        ledger
            .claim(client("192.0.2.2"), 5, true, "b")
            .expect("fits");
    }

    #[test]
    fn a_growing_claim_keeps_what_it_holds_and_unevictable_claims_stay() {
        let mut ledger: Ledger<&str> = Ledger::new(shares(10, 6, 0));
        let (id, _) = ledger
            .claim(client("192.0.2.1"), 2, true, "body")
            .expect("a");
        ledger.grow(id, 2).expect("grows");
        assert_eq!(
            ledger.grow(id, 3),
            Err(Refusal::Share(Level::Client)),
            "past its share"
        );
        assert_eq!(ledger.held_by(client("192.0.2.1")), 4);
        ledger
            .claim(client("192.0.2.2"), 6, false, "answer")
            .expect("b");
        assert_eq!(
            ledger
                .claim(client("192.0.2.3"), 1, true, "c")
                .map(|(_, e)| e),
            Ok(vec!["body"]),
            "the evictable one goes"
        );
        assert_eq!(
            ledger.claim(client("192.0.2.4"), 4, true, "d").err(),
            Some(Refusal::Full),
            "an answer being written is not evicted"
        );
    }

    #[test]
    fn claims_can_change_hands_and_the_counts_follow() {
        let mut ledger: Ledger<()> = Ledger::new(shares(10, 2, 0));
        let proxy = client("127.0.0.1");
        let visitor = client("2001:db8::7");
        let (id, _) = ledger.claim(proxy, 1, true, ()).expect("proxy");
        ledger.reassign(id, visitor);
        assert_eq!((ledger.held_by(proxy), ledger.held_by(visitor)), (0, 1));
        ledger.release(id);
        assert!(ledger.used.is_empty() && ledger.used() == 0);
    }
}
