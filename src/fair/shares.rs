//! The one fairness rule every resource all visitors share follows, as a pure decision: a client
//! may hold a small share (its /56 and /48 a bounded multiple of it, see [`Level::cap`]), the
//! top of the resource is kept for clients that hold none of it yet, and a part only the
//! server's own work may use. Live resources ([`super::Ledger`]) add eviction of the heaviest
//! holder when full; stored ones (calendars, vaults, feed storage) ask the same question with
//! what the database counts.

use super::key::{Holder, Level};

/// How one resource is shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shares {
    /// All there is.
    pub total: u64,
    /// One client's share; its networks in aggregate get [`Level::cap`] of it.
    pub per_client: u64,
    /// Room at the top that only a client holding none of the resource may take.
    pub newcomers: u64,
    /// Room that only the server's own work may take.
    pub server: u64,
}

impl Shares {
    /// The usual split: one client a `divisor`th part (at least `at_least`, what one claim may
    /// need), and one `divisor`th part kept for newcomers; nothing kept for the server.
    pub fn divided(total: u64, divisor: u64, at_least: u64) -> Shares {
        let part = total / divisor.max(1);
        Shares {
            total,
            per_client: part.max(at_least).min(total),
            newcomers: part,
            server: 0,
        }
    }

    /// With `server` kept for the server's own work.
    pub fn keeping_for_server(self, server: u64) -> Shares {
        Shares {
            server: server.min(self.total),
            ..self
        }
    }

    /// What one group at `level` may hold.
    pub fn cap(&self, level: Level) -> u64 {
        level.cap(self.per_client)
    }

    /// Whether `holder`, with `held` in use now, may take `amount` more.
    pub fn check(&self, holder: Holder, held: &Held, amount: u64) -> Result<(), Refusal> {
        match holder {
            Holder::Server => self.check_server(held, amount),
            Holder::Client(_) => self.check_client(held, amount),
        }
    }

    /// [`Shares::check`] for a client (what is stored knows its tags, not its address).
    pub fn check_client(&self, held: &Held, amount: u64) -> Result<(), Refusal> {
        self.check_share(held, amount)?;
        self.check_room(false, held, amount)
    }

    /// [`Shares::check`] for the server's own work (and the site's owner, who has no share).
    pub fn check_server(&self, held: &Held, amount: u64) -> Result<(), Refusal> {
        self.check_room(true, held, amount)
    }

    /// Whether a client stays within its share (and its networks'), whatever is left.
    pub fn check_share(&self, held: &Held, amount: u64) -> Result<(), Refusal> {
        for level in Level::ALL {
            if held.by[level as usize].saturating_add(amount) > self.cap(level) {
                return Err(Refusal::Share(level));
            }
        }
        Ok(())
    }

    /// Whether what is left has room for `amount` more of a client's (or the server's own).
    pub fn check_room(&self, server: bool, held: &Held, amount: u64) -> Result<(), Refusal> {
        if server {
            return if held.total.saturating_add(amount) > self.total {
                Err(Refusal::Full)
            } else {
                Ok(())
            };
        }
        // Visitors have what the server does not hold or keep: its room is its own even when it
        // holds less, and what it holds past that room is everyone's loss.
        let room = self.total.saturating_sub(self.server.max(held.server));
        let after = held
            .total
            .saturating_sub(held.server)
            .saturating_add(amount);
        if after > room {
            return Err(Refusal::Full);
        }
        if held.by[Level::Client as usize] > 0 && after > room.saturating_sub(self.newcomers) {
            return Err(Refusal::KeptForNewcomers);
        }
        Ok(())
    }
}

/// What is held now: everything together, by the server's own work, and by the claimant's
/// groups (its client, /56, /48; for IPv4 all three are the address's own).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Held {
    pub total: u64,
    pub server: u64,
    pub by: [u64; 3],
}

/// Why a claim was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The client (or its network, at this level) holds its share already.
    #[error("your address holds its share of this already")]
    Share(Level),
    /// What is left is kept for clients that hold none.
    #[error("what is left is kept for clients that hold none yet")]
    KeptForNewcomers,
    /// Nothing is left (that this holder may use).
    #[error("nothing is left")]
    Full,
}

impl Refusal {
    /// The client's own doing (its share), not everyone's (the whole).
    pub fn is_share(self) -> bool {
        matches!(self, Refusal::Share(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fair::ClientKey;

    fn client() -> Holder {
        Holder::Client(ClientKey::of("198.51.100.1".parse().expect("ip")))
    }

    fn held(total: u64, mine: u64) -> Held {
        Held {
            total,
            server: 0,
            by: [mine, mine, mine],
        }
    }

    #[test]
    fn a_client_holds_its_share_and_newcomers_the_top() {
        let s = Shares::divided(80, 8, 1);
        assert_eq!((s.per_client, s.newcomers), (10, 10));
        assert_eq!(s.check(client(), &held(0, 0), 10), Ok(()));
        assert_eq!(
            s.check(client(), &held(10, 10), 1),
            Err(Refusal::Share(Level::Client))
        );
        // 70 taken: the last 10 are kept for clients holding none.
        assert_eq!(
            s.check(client(), &held(70, 1), 1),
            Err(Refusal::KeptForNewcomers)
        );
        assert_eq!(s.check(client(), &held(70, 0), 10), Ok(()));
        assert_eq!(s.check(client(), &held(80, 0), 1), Err(Refusal::Full));
    }

    #[test]
    fn networks_are_held_to_a_multiple_of_the_share() {
        let s = Shares::divided(160, 16, 1);
        let v6 = Holder::Client(ClientKey::of("2001:db8::1".parse().expect("ip")));
        let crowded = Held {
            total: 30,
            server: 0,
            by: [0, 10, 20],
        };
        assert_eq!(s.check(v6, &crowded, 1), Err(Refusal::Share(Level::Net48)));
        let household = Held {
            total: 15,
            server: 0,
            by: [5, 15, 15],
        };
        assert_eq!(
            s.check(v6, &household, 1),
            Err(Refusal::Share(Level::Net56))
        );
    }

    #[test]
    fn the_server_has_room_of_its_own() {
        let s = Shares::divided(80, 8, 1).keeping_for_server(8);
        assert_eq!(s.check(client(), &held(72, 0), 1), Err(Refusal::Full));
        assert_eq!(s.check(Holder::Server, &held(72, 0), 8), Ok(()));
        assert_eq!(s.check(Holder::Server, &held(80, 0), 1), Err(Refusal::Full));
        // While the server holds less than its room, visitors still have the rest.
        let busy = Held {
            total: 75,
            server: 5,
            by: [0; 3],
        };
        assert_eq!(s.check(client(), &busy, 2), Ok(()));
        assert_eq!(s.check(client(), &busy, 3), Err(Refusal::Full));
        // Past its room, what the server holds is taken from the visitors'.
        let busier = Held {
            total: 79,
            server: 10,
            by: [0; 3],
        };
        assert_eq!(s.check(client(), &busier, 1), Ok(()));
        assert_eq!(s.check(client(), &busier, 2), Err(Refusal::Full));
    }

    #[test]
    fn a_share_is_at_least_what_one_claim_needs() {
        let s = Shares::divided(48, 16, 10);
        assert_eq!(s.per_client, 10);
        assert_eq!(
            Shares::divided(4, 8, 10).per_client,
            4,
            "never above the total"
        );
    }
}
