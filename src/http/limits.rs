//! Per-address rate limits on the calls that cost the server something (publishing, fetching
//! feeds for the editor, rendering previews, sync), kept by `governor`; answered 429 with Retry-After.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::RwLock;
use std::time::Duration;

use governor::clock::Clock;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use super::client::limit_key;
use super::error::AppError;

/// A per-address allowance: `burst` requests at once, then one more every `every`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    pub burst: u32,
    pub every: Duration,
}

/// The allowances per client address of the calls that cost the server work. Anyone presenting
/// the publish key is never counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimits {
    /// `POST /api/calendars`: each one fetches a feed and writes to the SD card.
    pub publish: RateLimit,
    /// `DELETE /api/calendars/{id}`.
    pub unpublish: RateLimit,
    /// `GET /api/feed`: may fetch upstream.
    pub feed: RateLimit,
    /// `POST /api/render`: the editor's live preview, about four a second while typing.
    pub render: RateLimit,
    /// `GET /api/sync/...`: every device of a household polls its vault, all behind one address.
    pub sync_read: RateLimit,
    /// Creating, updating and removing vaults and shared decks: each one writes to the SD card.
    pub sync_write: RateLimit,
}

impl RateLimits {
    /// The same allowance for every call (tests raise or lower them all together).
    pub fn all(limit: RateLimit) -> RateLimits {
        RateLimits {
            publish: limit,
            unpublish: limit,
            feed: limit,
            render: limit,
            sync_read: limit,
            sync_write: limit,
        }
    }
}

impl Default for RateLimits {
    fn default() -> Self {
        RateLimits {
            publish: RateLimit {
                burst: 10,
                every: Duration::from_secs(20),
            },
            unpublish: RateLimit {
                burst: 10,
                every: Duration::from_secs(10),
            },
            feed: RateLimit {
                burst: 40,
                every: Duration::from_secs(2),
            },
            render: RateLimit {
                burst: 60,
                every: Duration::from_millis(200),
            },
            sync_read: RateLimit {
                burst: 120,
                every: Duration::from_millis(500),
            },
            sync_write: RateLimit {
                burst: 60,
                every: Duration::from_secs(2),
            },
        }
    }
}

/// Addresses remembered per limiter before forgotten ones are dropped; past it even after that
/// (thousands of addresses active at once) the limiter starts afresh rather than grow.
const MAX_TRACKED: usize = 10_000;

/// What a request is about to do; each has its own allowance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Publish,
    Unpublish,
    Feed,
    Render,
    SyncRead,
    SyncWrite,
}

struct Limiter {
    quota: Quota,
    /// Replaced whole (write lock) only when it outgrows `MAX_TRACKED`.
    inner: RwLock<DefaultKeyedRateLimiter<IpAddr>>,
}

impl Limiter {
    fn new(limit: RateLimit) -> Limiter {
        let quota = quota(limit);
        Limiter {
            quota,
            inner: RwLock::new(RateLimiter::keyed(quota)),
        }
    }

    /// `Err(wait)` when `key` has used its allowance.
    fn check(&self, key: IpAddr) -> Result<(), Duration> {
        let (outcome, full) = {
            let limiter = self.inner.read().unwrap_or_else(|e| e.into_inner());
            let outcome = limiter
                .check_key(&key)
                .map_err(|not_until| not_until.wait_time_from(limiter.clock().now()));
            if limiter.len() > MAX_TRACKED {
                // Addresses whose allowance is full again are indistinguishable from new ones.
                limiter.retain_recent();
                limiter.shrink_to_fit();
            }
            (outcome, limiter.len() > MAX_TRACKED)
        };
        if full {
            tracing::warn!(
                addresses = MAX_TRACKED,
                "rate limiter full of active addresses: starting afresh"
            );
            *self.inner.write().unwrap_or_else(|e| e.into_inner()) = RateLimiter::keyed(self.quota);
        }
        outcome
    }
}

fn quota(limit: RateLimit) -> Quota {
    let burst = NonZeroU32::new(limit.burst).unwrap_or(NonZeroU32::MIN);
    Quota::with_period(limit.every.max(Duration::from_millis(1)))
        .unwrap_or_else(|| Quota::per_second(NonZeroU32::MIN))
        .allow_burst(burst)
}

/// One limiter per action, keyed by client address (IPv6 by /64).
pub struct RateLimiters {
    publish: Limiter,
    unpublish: Limiter,
    feed: Limiter,
    render: Limiter,
    sync_read: Limiter,
    sync_write: Limiter,
}

impl RateLimiters {
    pub fn new(limits: &RateLimits) -> RateLimiters {
        RateLimiters {
            publish: Limiter::new(limits.publish),
            unpublish: Limiter::new(limits.unpublish),
            feed: Limiter::new(limits.feed),
            render: Limiter::new(limits.render),
            sync_read: Limiter::new(limits.sync_read),
            sync_write: Limiter::new(limits.sync_write),
        }
    }

    /// Counts one `action` from `client`; a 429 error saying how long to wait once it is over.
    pub fn check(&self, action: Action, client: IpAddr) -> Result<(), AppError> {
        let limiter = match action {
            Action::Publish => &self.publish,
            Action::Unpublish => &self.unpublish,
            Action::Feed => &self.feed,
            Action::Render => &self.render,
            Action::SyncRead => &self.sync_read,
            Action::SyncWrite => &self.sync_write,
        };
        limiter.check(limit_key(client)).map_err(|wait| {
            // Whole seconds, rounded up, and never 0 (which would invite an immediate retry).
            let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            AppError::TooManyRequests {
                retry_after: seconds.max(1),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(burst: u32, every: Duration) -> RateLimits {
        RateLimits::all(RateLimit { burst, every })
    }

    #[test]
    fn the_burst_passes_then_the_wait_is_in_whole_seconds() {
        let limiters = RateLimiters::new(&limits(2, Duration::from_secs(30)));
        let me: IpAddr = "198.51.100.1".parse().expect("ip");
        assert!(limiters.check(Action::Publish, me).is_ok());
        assert!(limiters.check(Action::Publish, me).is_ok());
        match limiters.check(Action::Publish, me) {
            Err(AppError::TooManyRequests { retry_after }) => {
                assert!((29..=30).contains(&retry_after), "{retry_after}")
            }
            other => panic!("expected 429, got {other:?}"),
        }
        // Other actions and other addresses have their own allowance.
        assert!(limiters.check(Action::Feed, me).is_ok());
        let other: IpAddr = "198.51.100.2".parse().expect("ip");
        assert!(limiters.check(Action::Publish, other).is_ok());
    }

    #[test]
    fn an_ipv6_client_cannot_rotate_through_its_64() {
        let limiters = RateLimiters::new(&limits(1, Duration::from_secs(60)));
        let a: IpAddr = "2001:db8:0:1::1".parse().expect("ip");
        let b: IpAddr = "2001:db8:0:1::2".parse().expect("ip");
        assert!(limiters.check(Action::Render, a).is_ok());
        assert!(limiters.check(Action::Render, b).is_err());
    }

    #[test]
    fn the_number_of_remembered_addresses_stays_bounded() {
        let limiters = RateLimiters::new(&limits(1, Duration::from_secs(3600)));
        for n in 0..(MAX_TRACKED as u32 + 50) {
            let ip = IpAddr::from(std::net::Ipv4Addr::from(0x0a00_0000 + n));
            let _ = limiters.check(Action::Feed, ip);
        }
        let len = limiters
            .feed
            .inner
            .read()
            .map(|l| l.len())
            .unwrap_or(usize::MAX);
        assert!(len <= MAX_TRACKED, "{len} addresses remembered");
    }
}
