//! One good copy of an upstream feed, how old it is, and what a caller gets with it; the
//! version a body is known by, and the times SQLite stores.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use axum::body::Bytes;

use crate::publish::fetch::FetchError;

/// One good copy of an upstream feed.
#[derive(Debug)]
pub struct FeedCopy {
    /// `Bytes`: made from the fetched or loaded `Vec` without a copy, shared without one.
    pub body: Bytes,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// Wall-clock time upstream last confirmed this copy (200 or 304): stored and shown.
    pub fetched_at: SystemTime,
    /// When the body last changed.
    pub changed_at: SystemTime,
    /// A digest of the body (see [`version_of`]): the same bytes have the same version however
    /// often they are fetched or read back, so a render made from them stays valid.
    pub version: u64,
    /// Monotonic time the confirming fetch finished, for freshness; `None` when unknown (a copy
    /// read back from SQLite whose age the monotonic clock cannot express): treated as expired.
    pub confirmed: Option<Instant>,
}

impl FeedCopy {
    pub(super) fn age(&self, now: Instant) -> Option<Duration> {
        self.confirmed.map(|at| now.saturating_duration_since(at))
    }

    pub(super) fn fresh(&self, now: Instant, max_age: Duration) -> bool {
        self.age(now).is_some_and(|age| age < max_age)
    }
}

/// A copy and whether it may be out of date.
#[derive(Debug, Clone)]
pub struct FeedOutcome {
    pub copy: Arc<FeedCopy>,
    /// Upstream failed the last time it was asked.
    pub stale: Option<FetchError>,
    /// The copy is past the age the caller asked for (a refresh is under way or failed).
    pub expired: bool,
    /// Wall-clock age of the copy, for the `X-Hearth-Stale` header.
    pub age: Duration,
}

/// The version of a body: a 64-bit digest of its bytes (SipHash with fixed keys, so the same
/// body gives the same number in every process).
pub fn version_of(body: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    #[allow(deprecated)] // SipHasher's fixed keys are the point: versions must be reproducible.
    let mut hasher = std::hash::SipHasher::new();
    body.hash(&mut hasher);
    hasher.finish()
}
