//! Allowances that refill with the server's clock, kept per client and, in aggregate, per /56 and
//! /48 (each at its multiple, see [`Level::factor`]): rate limits (a call's allowance), engine
//! time (charged after the job), wrong keys (spent before a key is compared, given back when it
//! was right). One bucket per group; a spend must fit every bucket of the payer, so rotating
//! through the /64s of one /48 does not multiply anything. Other payers (a stored blob, an
//! upstream host, a publisher known by its stored tags) name their own buckets through
//! [`Keyed`]. What is remembered stays bounded.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::key::{ClientKey, Group};
use crate::clock::Clock;
use crate::lock::lock;

/// What an allowance is kept for: the buckets a spend must fit, each with how much more than
/// one payer's allowance it holds (1 for the payer's own).
pub trait Keyed {
    type Bucket: Clone + Eq + Hash;
    fn buckets(&self) -> Vec<(Self::Bucket, f64)>;
}

impl Keyed for ClientKey {
    type Bucket = Group;
    fn buckets(&self) -> Vec<(Group, f64)> {
        self.groups().map(|g| (g, g.level.factor())).collect()
    }
}

/// Anything named by text alone (a blob id, an upstream host) has one bucket.
impl Keyed for String {
    type Bucket = String;
    fn buckets(&self) -> Vec<(String, f64)> {
        vec![(self.clone(), 1.0)]
    }
}

/// Groups remembered before those whose allowance is full again are forgotten (they are
/// indistinguishable from new ones); past it even then, every allowance starts afresh.
const MAX_TRACKED: usize = 30_000;

/// An allowance: `burst` units at once, and `per_second` units back every second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    pub burst: f64,
    pub per_second: f64,
}

impl Rate {
    /// `burst` at once, then one more every `every`.
    pub fn every(burst: u32, every: Duration) -> Rate {
        Rate {
            burst: f64::from(burst.max(1)),
            per_second: 1.0 / every.as_secs_f64().max(0.001),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    /// Units left; below zero after a charge larger than what was left.
    units: f64,
    at: Instant,
}

/// One allowance, per payer (a client and its networks, by default).
pub struct Allowance<K: Keyed = ClientKey> {
    rate: Rate,
    clock: Clock,
    buckets: Mutex<HashMap<K::Bucket, Bucket>>,
}

impl<K: Keyed> std::fmt::Debug for Allowance<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Allowance")
            .field("rate", &self.rate)
            .finish()
    }
}

impl<K: Keyed> Allowance<K> {
    pub fn new(rate: Rate, clock: Clock) -> Allowance<K> {
        Allowance {
            rate,
            clock,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// A bucket's units now, refilled to `now`.
    fn units(&self, bucket: Option<&Bucket>, factor: f64, now: Instant) -> f64 {
        let burst = self.rate.burst * factor;
        match bucket {
            None => burst,
            Some(b) => {
                let gained = now.saturating_duration_since(b.at).as_secs_f64()
                    * self.rate.per_second
                    * factor;
                (b.units + gained).min(burst)
            }
        }
    }

    /// How long until every bucket of `payer` has `amount` units (zero: now).
    fn wait_for(&self, buckets: &HashMap<K::Bucket, Bucket>, payer: &K, amount: f64) -> Duration {
        let now = self.clock.now();
        payer
            .buckets()
            .into_iter()
            .map(|(b, factor)| {
                let short = amount - self.units(buckets.get(&b), factor, now);
                if short <= 0.0 {
                    Duration::ZERO
                } else {
                    let refill = (self.rate.per_second * factor).max(f64::EPSILON);
                    // Never zero while short, however little: zero means "now".
                    Duration::from_secs_f64((short / refill).min(1e9)).max(Duration::from_nanos(1))
                }
            })
            .max()
            .unwrap_or(Duration::ZERO)
    }

    fn add(&self, buckets: &mut HashMap<K::Bucket, Bucket>, payer: &K, delta: f64) {
        let now = self.clock.now();
        if buckets.len() >= MAX_TRACKED {
            // A full bucket is no different from a bucket never made.
            let rate = self.rate;
            buckets.retain(|_, b| {
                b.units + now.saturating_duration_since(b.at).as_secs_f64() * rate.per_second
                    < rate.burst
            });
            if buckets.len() >= MAX_TRACKED {
                tracing::warn!(
                    buckets = MAX_TRACKED,
                    "an allowance is full of active clients: starting afresh"
                );
                buckets.clear();
            }
        }
        for (key, factor) in payer.buckets() {
            let units = self.units(buckets.get(&key), factor, now) + delta;
            buckets.insert(
                key,
                Bucket {
                    units: units.min(self.rate.burst * factor),
                    at: now,
                },
            );
        }
    }

    /// Spends `amount` of `payer`'s allowance, or says how long until it could.
    pub fn take(&self, payer: &K, amount: f64) -> Result<(), Duration> {
        let mut buckets = lock(&self.buckets);
        let wait = self.wait_for(&buckets, payer, amount);
        if wait > Duration::ZERO {
            return Err(wait);
        }
        self.add(&mut buckets, payer, -amount);
        Ok(())
    }

    /// Whether `payer` has any allowance left (a charge afterwards may take it below zero).
    pub fn ready(&self, payer: &K) -> Result<(), Duration> {
        let buckets = lock(&self.buckets);
        let wait = self.wait_for(&buckets, payer, f64::EPSILON);
        if wait > Duration::ZERO {
            Err(wait)
        } else {
            Ok(())
        }
    }

    /// Takes `amount` from `payer` whatever is left (what a finished job cost).
    pub fn charge(&self, payer: &K, amount: f64) {
        self.add(&mut lock(&self.buckets), payer, -amount);
    }

    /// Gives `amount` back to `payer` (never above the burst).
    pub fn refund(&self, payer: &K, amount: f64) {
        self.add(&mut lock(&self.buckets), payer, amount);
    }

    /// What `payer`'s own bucket (its first) holds now (tests and the owner's view).
    pub fn left(&self, payer: &K) -> f64 {
        let buckets = lock(&self.buckets);
        let now = self.clock.now();
        payer
            .buckets()
            .first()
            .map_or(self.rate.burst, |(b, factor)| {
                self.units(buckets.get(b), *factor, now)
            })
    }

    /// Buckets remembered now.
    pub fn tracked(&self) -> usize {
        lock(&self.buckets).len()
    }
}

impl Allowance<ClientKey> {
    /// Spends one unit that is given back if the attempt it pays for succeeds (a key that was
    /// right costs nothing).
    pub fn attempt(self: &Arc<Self>, client: ClientKey) -> Result<Attempt, Duration> {
        self.take(&client, 1.0)?;
        Ok(Attempt {
            allowance: self.clone(),
            client,
            refunded: false,
        })
    }
}

/// One unit spent on an attempt; [`Attempt::succeeded`] gives it back.
#[derive(Debug)]
pub struct Attempt {
    allowance: Arc<Allowance<ClientKey>>,
    client: ClientKey,
    refunded: bool,
}

/// That an attempt was paid for: what comparing a key asks for (`secret`), so no key or token
/// can be compared without spending an allowance first.
#[derive(Debug, Clone, Copy)]
pub struct Paid(());

impl Paid {
    /// A payment made up by a unit test (the crate's own tests only).
    #[cfg(test)]
    pub(crate) fn in_a_test() -> Paid {
        Paid(())
    }
}

impl Attempt {
    /// The proof that this attempt was paid for.
    pub fn paid(&self) -> Paid {
        Paid(())
    }

    pub fn succeeded(&mut self) {
        if !self.refunded {
            self.refunded = true;
            self.allowance.refund(&self.client, 1.0);
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
    fn the_burst_passes_then_the_clock_refills_it() {
        let clock = Clock::manual();
        let a: Allowance = Allowance::new(Rate::every(2, Duration::from_secs(30)), clock.clone());
        let me = key("198.51.100.1");
        assert!(a.take(&me, 1.0).is_ok());
        assert!(a.take(&me, 1.0).is_ok());
        let wait = a.take(&me, 1.0).expect_err("spent");
        assert!((29..=30).contains(&wait.as_secs()), "{wait:?}");
        assert!(a.take(&key("198.51.100.2"), 1.0).is_ok(), "another client");
        clock.advance(Duration::from_secs(30));
        assert!(a.take(&me, 1.0).is_ok());
    }

    #[test]
    fn the_64s_of_one_48_share_twice_a_clients_allowance() {
        let a: Allowance = Allowance::new(Rate::every(2, Duration::from_secs(60)), Clock::manual());
        let mut passed = 0;
        for n in 0..16 {
            let ip = format!("2001:db8:48:{n:x}00::1");
            while a.take(&key(&ip), 1.0).is_ok() {
                passed += 1;
            }
        }
        assert_eq!(passed, 4, "the /48 has twice one client's burst");
        assert!(a.take(&key("2001:db8:49::1"), 1.0).is_ok(), "another /48");
    }

    #[test]
    fn a_charge_may_go_below_zero_and_refills_first() {
        let clock = Clock::manual();
        let a: Allowance = Allowance::new(
            Rate {
                burst: 2000.0,
                per_second: 250.0,
            },
            clock.clone(),
        );
        let me = key("198.51.100.1");
        a.charge(&me, 2500.0);
        let wait = a.ready(&me).expect_err("below zero");
        assert_eq!(wait.as_secs_f64().ceil() as u64, 2);
        clock.advance(Duration::from_secs(4));
        assert!(a.ready(&me).is_ok());
    }

    #[test]
    fn a_successful_attempt_costs_nothing() {
        let a = Arc::new(Allowance::new(
            Rate::every(1, Duration::from_secs(60)),
            Clock::manual(),
        ));
        let me = key("198.51.100.1");
        for _ in 0..5 {
            let mut right = a.attempt(me).expect("allowed");
            right.succeeded();
        }
        let wrong = a.attempt(me).expect("allowed");
        drop(wrong);
        assert!(a.attempt(me).is_err(), "the wrong one was spent");
    }

    #[test]
    fn text_keys_have_one_bucket_each() {
        let a: Allowance<String> =
            Allowance::new(Rate::every(1, Duration::from_secs(60)), Clock::manual());
        assert!(a.take(&"vault-a".to_owned(), 1.0).is_ok());
        assert!(a.take(&"vault-a".to_owned(), 1.0).is_err());
        assert!(a.take(&"vault-b".to_owned(), 1.0).is_ok());
    }

    #[test]
    fn what_is_remembered_stays_bounded() {
        let a: Allowance =
            Allowance::new(Rate::every(1, Duration::from_secs(3600)), Clock::manual());
        for n in 0..(MAX_TRACKED as u32 + 50) {
            let ip = std::net::IpAddr::from(std::net::Ipv4Addr::from(0x0a00_0000 + n));
            let _ = a.take(&ClientKey::of(ip), 1.0);
        }
        assert!(a.tracked() <= MAX_TRACKED, "{}", a.tracked());
    }
}
