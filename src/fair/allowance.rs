//! Allowances that refill with the server's clock, kept per client and, in aggregate, per /56 and
//! /48 (each at its multiple, see [`Level::factor`]): rate limits (a call's allowance), engine
//! time (charged after the job), wrong keys (spent before a key is compared, given back when it
//! was right). One bucket per group; a spend must fit every bucket of the client, so rotating
//! through the /64s of one /48 does not multiply anything. What is remembered stays bounded.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::key::{ClientKey, Group};
use crate::clock::Clock;
use crate::lock::lock;

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

/// One allowance, per client and network.
pub struct Allowance {
    rate: Rate,
    clock: Clock,
    buckets: Mutex<HashMap<Group, Bucket>>,
}

impl std::fmt::Debug for Allowance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Allowance")
            .field("rate", &self.rate)
            .finish()
    }
}

impl Allowance {
    pub fn new(rate: Rate, clock: Clock) -> Allowance {
        Allowance {
            rate,
            clock,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    pub fn rate(&self) -> Rate {
        self.rate
    }

    fn burst(&self, group: Group) -> f64 {
        self.rate.burst * group.level.factor()
    }

    fn refill(&self, group: Group) -> f64 {
        self.rate.per_second * group.level.factor()
    }

    /// `group`'s units now, refilled to `now`.
    fn units(&self, bucket: Option<&Bucket>, group: Group, now: Instant) -> f64 {
        match bucket {
            None => self.burst(group),
            Some(b) => {
                let gained = now.saturating_duration_since(b.at).as_secs_f64() * self.refill(group);
                (b.units + gained).min(self.burst(group))
            }
        }
    }

    /// How long until every group of `client` has `amount` units (zero: now).
    fn wait_for(
        &self,
        buckets: &HashMap<Group, Bucket>,
        client: ClientKey,
        amount: f64,
    ) -> Duration {
        let now = self.clock.now();
        client
            .groups()
            .map(|g| {
                let short = amount - self.units(buckets.get(&g), g, now);
                if short <= 0.0 {
                    Duration::ZERO
                } else {
                    Duration::from_secs_f64(short / self.refill(g).max(f64::EPSILON))
                }
            })
            .max()
            .unwrap_or(Duration::ZERO)
    }

    fn add(&self, buckets: &mut HashMap<Group, Bucket>, client: ClientKey, delta: f64) {
        let now = self.clock.now();
        if buckets.len() >= MAX_TRACKED {
            buckets.retain(|g, b| self.units(Some(b), *g, now) < self.burst(*g));
            if buckets.len() >= MAX_TRACKED {
                tracing::warn!(
                    groups = MAX_TRACKED,
                    "an allowance is full of active clients: starting afresh"
                );
                buckets.clear();
            }
        }
        for group in client.groups() {
            let units = self.units(buckets.get(&group), group, now) + delta;
            buckets.insert(
                group,
                Bucket {
                    units: units.min(self.burst(group)),
                    at: now,
                },
            );
        }
    }

    /// Spends `amount` of `client`'s allowance, or says how long until it could.
    pub fn take(&self, client: ClientKey, amount: f64) -> Result<(), Duration> {
        let mut buckets = lock(&self.buckets);
        let wait = self.wait_for(&buckets, client, amount);
        if wait > Duration::ZERO {
            return Err(wait);
        }
        self.add(&mut buckets, client, -amount);
        Ok(())
    }

    /// Whether `client` has any allowance left (a charge afterwards may take it below zero).
    pub fn ready(&self, client: ClientKey) -> Result<(), Duration> {
        let buckets = lock(&self.buckets);
        let wait = self.wait_for(&buckets, client, f64::EPSILON);
        if wait > Duration::ZERO {
            Err(wait)
        } else {
            Ok(())
        }
    }

    /// Takes `amount` from `client` whatever is left (what a finished job cost).
    pub fn charge(&self, client: ClientKey, amount: f64) {
        self.add(&mut lock(&self.buckets), client, -amount);
    }

    /// Gives `amount` back to `client` (never above the burst).
    pub fn refund(&self, client: ClientKey, amount: f64) {
        self.add(&mut lock(&self.buckets), client, amount);
    }

    /// What `client` itself has left now (tests and the owner's view).
    pub fn left(&self, client: ClientKey) -> f64 {
        let buckets = lock(&self.buckets);
        let group = client.group(super::key::Level::Client);
        self.units(buckets.get(&group), group, self.clock.now())
    }

    /// Groups remembered now.
    pub fn tracked(&self) -> usize {
        lock(&self.buckets).len()
    }

    /// Spends one unit that is given back if the attempt it pays for succeeds (a key that was
    /// right costs nothing).
    pub fn attempt(self: &Arc<Self>, client: ClientKey) -> Result<Attempt, Duration> {
        self.take(client, 1.0)?;
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
    allowance: Arc<Allowance>,
    client: ClientKey,
    refunded: bool,
}

impl Attempt {
    pub fn succeeded(&mut self) {
        if !self.refunded {
            self.refunded = true;
            self.allowance.refund(self.client, 1.0);
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
        let a = Allowance::new(Rate::every(2, Duration::from_secs(30)), clock.clone());
        let me = key("198.51.100.1");
        assert!(a.take(me, 1.0).is_ok());
        assert!(a.take(me, 1.0).is_ok());
        let wait = a.take(me, 1.0).expect_err("spent");
        assert!((29..=30).contains(&wait.as_secs()), "{wait:?}");
        assert!(a.take(key("198.51.100.2"), 1.0).is_ok(), "another client");
        clock.advance(Duration::from_secs(30));
        assert!(a.take(me, 1.0).is_ok());
    }

    #[test]
    fn the_64s_of_one_48_share_twice_a_clients_allowance() {
        let a = Allowance::new(Rate::every(2, Duration::from_secs(60)), Clock::manual());
        let mut passed = 0;
        for n in 0..16 {
            let ip = format!("2001:db8:48:{n:x}00::1");
            while a.take(key(&ip), 1.0).is_ok() {
                passed += 1;
            }
        }
        assert_eq!(passed, 4, "the /48 has twice one client's burst");
        assert!(a.take(key("2001:db8:49::1"), 1.0).is_ok(), "another /48");
    }

    #[test]
    fn a_charge_may_go_below_zero_and_refills_first() {
        let clock = Clock::manual();
        let a = Allowance::new(
            Rate {
                burst: 2000.0,
                per_second: 250.0,
            },
            clock.clone(),
        );
        let me = key("198.51.100.1");
        a.charge(me, 2500.0);
        let wait = a.ready(me).expect_err("below zero");
        assert_eq!(wait.as_secs_f64().ceil() as u64, 2);
        clock.advance(Duration::from_secs(4));
        assert!(a.ready(me).is_ok());
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
    fn what_is_remembered_stays_bounded() {
        let a = Allowance::new(Rate::every(1, Duration::from_secs(3600)), Clock::manual());
        for n in 0..(MAX_TRACKED as u32 + 50) {
            let ip = std::net::IpAddr::from(std::net::Ipv4Addr::from(0x0a00_0000 + n));
            let _ = a.take(ClientKey::of(ip), 1.0);
        }
        assert!(a.tracked() <= MAX_TRACKED, "{}", a.tracked());
    }
}
