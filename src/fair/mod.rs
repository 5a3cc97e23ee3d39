//! Fair shares, one mechanism for every budget a resource all visitors share: one client key
//! (an IPv4 address; an IPv6 /64, with its /56 and /48 in aggregate), one rule for a share of
//! anything global (a small part per client, the top kept for newcomers, room for the server's
//! own work, and when full the heaviest holder's oldest claim evicted), allowances that refill
//! with the clock (rates, engine time, wrong keys), and turns on the engine taken round-robin
//! by site. A budget takes a [`ClientKey`] or a [`Holder`]: one that cannot name its client does
//! not compile.

mod allowance;
mod eviction;
mod key;
mod ledger;
mod shares;
mod turns;

pub use allowance::{Allowance, Attempt, Keyed, Paid, Rate};
pub use eviction::Eviction;
pub use key::{ClientKey, Group, Holder, Level};
pub use ledger::{ClaimId, Ledger};
pub use shares::{Held, Refusal, Shares};
pub use turns::{TimedOut, Turn, Turns};
