//! Rate allowances on the server's clock (`fair::Allowance`): per client for the calls that cost
//! the server work (an IPv4 address, an IPv6 /64, and in aggregate its /56 and /48 at their
//! multiples, so rotating through a /48 does not multiply them), and per stored blob for sync, so
//! that a household of learners behind one router each has their own vault's allowance. Answered
//! 429 with Retry-After.

use std::time::Duration;

use super::client::ClientKey;
use super::error::AppError;
use crate::clock::Clock;
use crate::fair::{Allowance, Rate};

/// An allowance: `burst` calls at once, then one more every `every`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    pub burst: u32,
    pub every: Duration,
}

impl RateLimit {
    const fn new(burst: u32, every: Duration) -> RateLimit {
        RateLimit { burst, every }
    }

    /// `n` a day, all of them at once if need be.
    const fn per_day(n: u32) -> RateLimit {
        RateLimit::new(n, Duration::from_secs(24 * 60 * 60 / n as u64))
    }
}

/// The allowances. Anyone presenting the publish key is never counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimits {
    /// `POST /api/calendars`: each one fetches a feed and writes to the SD card.
    pub publish: RateLimit,
    /// `DELETE /api/calendars/{id}`.
    pub unpublish: RateLimit,
    /// `GET /api/feed`: may fetch upstream.
    pub feed: RateLimit,
    /// `POST /api/render` and `/api/preview`: the editor's live preview.
    pub render: RateLimit,
    /// `GET /cal/{id}.ics` per client: calendar apps poll every few minutes to hours.
    pub poll: RateLimit,
    /// Reads of one vault or shared deck (every device of its learner polls it).
    pub sync_read: RateLimit,
    /// Writes to one vault or shared deck (a push per graded card, roughly).
    pub sync_write: RateLimit,
    /// Reads and writes of one vault's or shared deck's media files (a new device fetches each
    /// once, a deck import sends a few thousand): its own allowance, so they never hold up the
    /// vault's own writes.
    pub sync_media: RateLimit,
    /// Every sync call of one client together: a ceiling a household stays far below.
    pub sync_client: RateLimit,
    /// Sync calls of one client that name no stored blob (guessing ids).
    pub sync_miss: RateLimit,
    /// Vaults one client may make, and shared decks.
    pub vault_create: RateLimit,
    pub share_create: RateLimit,
    /// Keys and tokens one client may present before one is compared (a right one is given
    /// back): on every route together, so a key is guessed a handful of times a minute.
    pub wrong_key: RateLimit,
}

impl RateLimits {
    /// The same allowance for every call (tests raise or lower them all together).
    pub fn all(limit: RateLimit) -> RateLimits {
        RateLimits {
            publish: limit,
            unpublish: limit,
            feed: limit,
            render: limit,
            poll: limit,
            sync_read: limit,
            sync_write: limit,
            sync_media: limit,
            sync_client: limit,
            sync_miss: limit,
            vault_create: limit,
            share_create: limit,
            wrong_key: limit,
        }
    }
}

impl Default for RateLimits {
    fn default() -> Self {
        RateLimits {
            publish: RateLimit::new(10, Duration::from_secs(20)),
            unpublish: RateLimit::new(10, Duration::from_secs(10)),
            feed: RateLimit::new(40, Duration::from_secs(2)),
            render: RateLimit::new(60, Duration::from_millis(200)),
            poll: RateLimit::new(120, Duration::from_secs(1)),
            sync_read: RateLimit::new(120, Duration::from_millis(500)),
            sync_write: RateLimit::new(60, Duration::from_secs(2)),
            // 600 files at once, then ten a second: a deck of 2,000 pictures and sounds in
            // about four minutes.
            sync_media: RateLimit::new(600, Duration::from_millis(100)),
            sync_client: RateLimit::new(600, Duration::from_millis(50)),
            sync_miss: RateLimit::new(30, Duration::from_secs(2)),
            vault_create: RateLimit::per_day(20),
            share_create: RateLimit::per_day(100),
            // Five at once, then one every 12 s: at most ten in the first minute, five a minute
            // after (a /48 twice that, for all its /64s together).
            wrong_key: RateLimit::new(5, Duration::from_secs(12)),
        }
    }
}

/// What a client is about to do; each has its own allowance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Publish,
    Unpublish,
    Feed,
    Render,
    Poll,
    SyncClient,
    SyncMiss,
    VaultCreate,
    ShareCreate,
}

/// What is done to one stored blob; keyed by its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlobAction {
    Read,
    Write,
    /// Reading or writing one of its media files.
    Media,
}

/// The allowance of `limit` on the server's clock.
pub fn rate(limit: RateLimit) -> Rate {
    Rate::every(limit.burst, limit.every)
}

/// The allowances, one per action.
pub struct RateLimiters {
    by_client: [(Action, Allowance); 9],
    blob_read: Allowance<String>,
    blob_write: Allowance<String>,
    blob_media: Allowance<String>,
}

impl RateLimiters {
    pub fn new(limits: &RateLimits, clock: &Clock) -> RateLimiters {
        let l = |limit| Allowance::new(rate(limit), clock.clone());
        RateLimiters {
            by_client: [
                (Action::Publish, l(limits.publish)),
                (Action::Unpublish, l(limits.unpublish)),
                (Action::Feed, l(limits.feed)),
                (Action::Render, l(limits.render)),
                (Action::Poll, l(limits.poll)),
                (Action::SyncClient, l(limits.sync_client)),
                (Action::SyncMiss, l(limits.sync_miss)),
                (Action::VaultCreate, l(limits.vault_create)),
                (Action::ShareCreate, l(limits.share_create)),
            ],
            blob_read: Allowance::new(rate(limits.sync_read), clock.clone()),
            blob_write: Allowance::new(rate(limits.sync_write), clock.clone()),
            blob_media: Allowance::new(rate(limits.sync_media), clock.clone()),
        }
    }

    /// Counts one `action` of `client`; a 429 saying how long to wait once it is over.
    pub fn check(&self, action: Action, client: ClientKey) -> Result<(), AppError> {
        let allowance = self
            .by_client
            .iter()
            .find(|(a, _)| *a == action)
            .map(|(_, l)| l)
            .ok_or_else(|| AppError::Internal(format!("no allowance for {action:?}")))?;
        allowance.take(&client, 1.0).map_err(too_many)
    }

    /// Counts one `action` on the blob `id` (whoever does it).
    pub fn check_blob(&self, action: BlobAction, id: &str) -> Result<(), AppError> {
        let allowance = match action {
            BlobAction::Read => &self.blob_read,
            BlobAction::Write => &self.blob_write,
            BlobAction::Media => &self.blob_media,
        };
        allowance.take(&id.to_owned(), 1.0).map_err(too_many)
    }
}

fn too_many(wait: Duration) -> AppError {
    // Whole seconds, rounded up, and never 0 (which would invite an immediate retry).
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    AppError::TooManyRequests {
        retry_after: seconds.max(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(burst: u32, every: Duration) -> RateLimits {
        RateLimits::all(RateLimit { burst, every })
    }

    fn key(ip: &str) -> ClientKey {
        ClientKey::of(ip.parse().expect("ip"))
    }

    #[test]
    fn the_burst_passes_then_the_wait_is_in_whole_seconds() {
        let clock = Clock::manual();
        let limiters = RateLimiters::new(&limits(2, Duration::from_secs(30)), &clock);
        let me = key("198.51.100.1");
        assert!(limiters.check(Action::Publish, me).is_ok());
        assert!(limiters.check(Action::Publish, me).is_ok());
        match limiters.check(Action::Publish, me) {
            Err(AppError::TooManyRequests { retry_after }) => {
                assert!((29..=30).contains(&retry_after), "{retry_after}")
            }
            other => panic!("expected 429, got {other:?}"),
        }
        // Other actions and other clients have their own allowance.
        assert!(limiters.check(Action::Feed, me).is_ok());
        assert!(limiters.check(Action::Publish, key("198.51.100.2")).is_ok());
        // The server's clock refills it.
        clock.advance(Duration::from_secs(30));
        assert!(limiters.check(Action::Publish, me).is_ok());
    }

    #[test]
    fn the_64s_of_one_48_share_a_multiple_of_one_allowance() {
        let limiters = RateLimiters::new(&limits(1, Duration::from_secs(60)), &Clock::manual());
        let passed = (0..16)
            .filter(|n| {
                limiters
                    .check(Action::Publish, key(&format!("2001:db8:48:{n:x}00::1")))
                    .is_ok()
            })
            .count();
        assert_eq!(passed, 2, "the /48 has twice one client's burst");
    }

    #[test]
    fn an_ipv6_client_cannot_rotate_through_its_64() {
        let limiters = RateLimiters::new(&limits(1, Duration::from_secs(60)), &Clock::manual());
        assert!(limiters
            .check(Action::Render, key("2001:db8:0:1::1"))
            .is_ok());
        assert!(limiters
            .check(Action::Render, key("2001:db8:0:1::2"))
            .is_err());
    }

    #[test]
    fn each_blob_has_its_own_allowance() {
        let limiters = RateLimiters::new(&limits(1, Duration::from_secs(60)), &Clock::manual());
        assert!(limiters.check_blob(BlobAction::Write, "a").is_ok());
        assert!(limiters.check_blob(BlobAction::Write, "a").is_err());
        assert!(limiters.check_blob(BlobAction::Write, "b").is_ok());
        assert!(limiters.check_blob(BlobAction::Read, "a").is_ok());
    }

    #[test]
    fn creations_are_counted_per_day() {
        let clock = Clock::manual();
        let limiters = RateLimiters::new(&RateLimits::default(), &clock);
        let me = key("198.51.100.1");
        for _ in 0..20 {
            assert!(limiters.check(Action::VaultCreate, me).is_ok());
        }
        assert!(limiters.check(Action::VaultCreate, me).is_err());
        clock.advance(Duration::from_secs(24 * 60 * 60));
        for _ in 0..20 {
            assert!(limiters.check(Action::VaultCreate, me).is_ok());
        }
    }
}
