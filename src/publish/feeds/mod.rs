//! Upstream feed copies: fetched at most once per TTL per address, one fetch shared by every
//! concurrent caller, the last good copy kept in SQLite and served when upstream fails. A
//! subscriber who can be given a copy gets it at once; a copy past its TTL is refreshed in the
//! background. Bodies live in the shared memory budget (`cache`), not here.

mod connections;
mod copy;
mod counts;
mod dav;
pub mod history;
mod slots;
mod stored;
pub mod uid_notes;
pub mod upstream;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;

pub use copy::{version_of, FeedCopy, FeedOutcome};
pub use counts::FetchCounts;
use slots::Slot;

use super::cache::{Cache, Kind};
use super::caldav;
use super::feed_source::{copy_key, Reading};
use super::fetch::{FetchError, Fetched, Fetcher, Validators};
use super::health::{self, Fetch};
use super::quotas::QuotaError;
use super::storage::FeedStorage;
use super::workers::{WorkError, Workers};
use crate::calendar::config::SourceKind;
use crate::calendar::{self, Limits};
use crate::clock::Clock;
use crate::config::UpstreamLimits;
use crate::fair::Holder;
use crate::http::budget::ByteBudget;
use crate::http::client::ClientKey;
use crate::store::{Db, StoreError};

/// After a failed fetch, how long a held copy is served before upstream is tried again.
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(60);

/// Addresses tracked at once (fetch locks and failure notes). Idle ones are dropped first; the
/// copies themselves live in the cache.
const MAX_SLOTS: usize = 4096;

#[derive(Debug, thiserror::Error)]
pub enum FeedError {
    #[error(transparent)]
    Fetch(#[from] FetchError),
    #[error("the address did not return a calendar: {0}")]
    NotCalendar(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Busy(#[from] WorkError),
    /// Storing the copy would take the feed copies past `--max-feed-storage`.
    #[error(transparent)]
    Quota(#[from] QuotaError),
    /// The fetch's budget (its client's, its upstream host's) is spent for now.
    #[error(transparent)]
    Throttled(#[from] upstream::Throttled),
}

/// What one caller asks of [`Feeds::get`].
#[derive(Debug, Clone, Copy)]
pub struct Ask {
    /// The oldest copy it takes without asking upstream.
    pub max_age: Duration,
    /// Save a new copy to SQLite (a hosted calendar's feed), or keep it in memory only (the
    /// editor's).
    pub persist: bool,
    pub want: Want,
    /// A fetch may bring at most this many bytes (a publish's reservation of storage).
    pub limit: Option<usize>,
    /// The client a fetch is for: its body counts against that client's share of the bytes in
    /// flight, and an editor's copy against its share of the cache. `None`: the server's own.
    pub client: Option<ClientKey>,
    /// The site's owner asked (a publish with the publish key): its fetches spend no visitor's
    /// allowance of fetches upstream (they still count against its bytes in flight).
    pub owner: bool,
}

impl Ask {
    /// An editor's for `client`: a copy at most `max_age` old, in memory only, counted against
    /// the client's shares of the cache and of bytes in flight.
    pub fn editor(max_age: Duration, client: ClientKey) -> Ask {
        Ask {
            max_age,
            persist: false,
            want: Want::Fresh,
            limit: None,
            client: Some(client),
            owner: false,
        }
    }

    /// A subscriber's: any copy at once, refreshed in the background, kept.
    pub fn subscriber(max_age: Duration) -> Ask {
        Ask {
            max_age,
            persist: true,
            want: Want::Available,
            limit: None,
            client: None,
            owner: false,
        }
    }
}

/// How a caller wants its copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// A copy younger than `max_age`, waiting for upstream if needed (the editor, publishing).
    Fresh,
    /// Any copy at once; one past `max_age` is refreshed in the background. Only a caller
    /// with no copy at all waits for upstream (subscribers).
    Available,
}

pub struct Feeds {
    fetcher: Fetcher,
    db: Db,
    limits: Limits,
    cache: Arc<Cache>,
    workers: Workers,
    clock: Clock,
    slots: Mutex<HashMap<String, Arc<Slot>>>,
    /// The room feed copies may take in the database, and what publishes hold of it.
    storage: Arc<FeedStorage>,
    /// Bytes in flight: a fetch's body counts here until it is a copy.
    bytes: Arc<ByteBudget>,
    /// Upstream fetches since the start by outcome (the metrics read them).
    fetches: FetchCounts,
    /// What fetches for visitors may spend, and connections per upstream host.
    upstream: upstream::UpstreamBudgets,
    /// When kept events of an address last had to go for room (its calendars' status says so).
    trims: history::TrimNotes,
    /// Addresses whose last change brought most events back under new UIDs.
    uid_notes: uid_notes::UidNotes,
}

/// A body is a calendar when the engine reads it and finds a VCALENDAR in it (without building
/// the tree).
pub fn check_calendar(bytes: &[u8], limits: &Limits) -> Result<(), FeedError> {
    match calendar::check(bytes, limits) {
        Ok(checked) if checked.has_calendar => Ok(()),
        Ok(_) => Err(FeedError::NotCalendar(
            "no BEGIN:VCALENDAR found (is this an .ics address?)".into(),
        )),
        Err(e) => Err(FeedError::NotCalendar(e.to_string())),
    }
}

/// What the feeds may take: room in the database for copies (`--max-feed-storage`), the bytes
/// in flight their fetches draw on, and the budgets of fetches made upstream.
pub struct FeedBudgets {
    pub max_storage: u64,
    pub bytes: Arc<ByteBudget>,
    pub upstream: UpstreamLimits,
}

impl Feeds {
    pub fn new(
        fetcher: Fetcher,
        db: Db,
        cache: Arc<Cache>,
        workers: Workers,
        clock: Clock,
        budgets: FeedBudgets,
    ) -> Feeds {
        let FeedBudgets {
            max_storage,
            bytes,
            upstream,
        } = budgets;
        Feeds {
            upstream: upstream::UpstreamBudgets::new(upstream, &clock),
            fetcher,
            db,
            limits: Limits::default(),
            cache,
            workers,
            clock,
            slots: Mutex::new(HashMap::new()),
            storage: FeedStorage::new(max_storage),
            bytes,
            fetches: FetchCounts::default(),
            trims: history::TrimNotes::default(),
            uid_notes: uid_notes::UidNotes::default(),
        }
    }

    /// Upstream fetches since the start by outcome.
    pub fn fetches(&self) -> &FetchCounts {
        &self.fetches
    }

    /// A copy of the feed at `url` as `ask` says, fetching upstream if needed. Concurrent
    /// callers for the same address share one fetch.
    pub async fn get(
        self: &Arc<Self>,
        url: &reqwest::Url,
        ask: Ask,
    ) -> Result<FeedOutcome, FeedError> {
        self.get_read(url, &Reading::default(), ask).await
    }

    /// As [`Feeds::get`], for a source read as `read` says: a CalDAV calendar, a login (such a
    /// copy is kept under its address and its login's tag, so nobody without that same login is
    /// given it, nor does a copy of the address without a login stand in for it).
    pub async fn get_read(
        self: &Arc<Self>,
        url: &reqwest::Url,
        read: &Reading,
        ask: Ask,
    ) -> Result<FeedOutcome, FeedError> {
        let key = copy_key(url.as_str(), read.login.as_ref());
        // The common case, a fresh copy in memory, touches no slot.
        let held = self.cache.get::<FeedCopy>(Kind::Feed, &key);
        if let Some(copy) = &held {
            if copy.fresh(self.clock.now(), ask.max_age) {
                return self.taken(&key, copy.clone(), ask).await;
            }
        }
        let slot = self.slot(&key);
        let result = self.get_in(&slot, &key, (url, read), held, ask).await;
        self.release(&key, slot);
        result
    }

    /// A fresh copy given without a fetch; a publish (which keeps what it fetches) keeps it
    /// first, as it may have lived in memory only (`keep_taken`).
    async fn taken(
        &self,
        key: &str,
        copy: Arc<FeedCopy>,
        ask: Ask,
    ) -> Result<FeedOutcome, FeedError> {
        if ask.persist && ask.want == Want::Fresh {
            self.keep_taken(key, &copy).await?;
        }
        Ok(self.outcome(copy, None, false))
    }

    /// `held`: the copy `get` already found in memory, if any.
    async fn get_in(
        self: &Arc<Self>,
        slot: &Arc<Slot>,
        key: &str,
        source: (&reqwest::Url, &Reading),
        held: Option<Arc<FeedCopy>>,
        ask: Ask,
    ) -> Result<FeedOutcome, FeedError> {
        if let Some(copy) = &held {
            if let Some(outcome) = self.without_fetch(slot, key, source, copy, ask) {
                return self.kept_if_fresh(key, outcome, ask).await;
            }
        }
        let _fetching = slot.fetch.lock().await;
        // Another caller may have fetched or loaded the copy while this one waited.
        let copy = self.held_or_stored(key).await?;
        if let Some(copy) = &copy {
            if let Some(outcome) = self.without_fetch(slot, key, source, copy, ask) {
                return self.kept_if_fresh(key, outcome, ask).await;
            }
        }
        self.fetch_and_keep(slot, key, source, copy, ask).await
    }

    /// `outcome` as it is, or, when it is a fresh copy, as `taken` gives it.
    async fn kept_if_fresh(
        &self,
        key: &str,
        outcome: FeedOutcome,
        ask: Ask,
    ) -> Result<FeedOutcome, FeedError> {
        if outcome.stale.is_some() || outcome.expired {
            return Ok(outcome);
        }
        self.taken(key, outcome.copy, ask).await
    }

    /// The answer that needs no fetch now, if there is one: a fresh copy, any copy for a
    /// subscriber (refreshed in the background), or a copy whose upstream failed a moment ago.
    fn without_fetch(
        self: &Arc<Self>,
        slot: &Arc<Slot>,
        key: &str,
        (url, read): (&reqwest::Url, &Reading),
        copy: &Arc<FeedCopy>,
        ask: Ask,
    ) -> Option<FeedOutcome> {
        let (max_age, want) = (ask.max_age, ask.want);
        let now = self.clock.now();
        if copy.fresh(now, max_age) {
            return Some(self.outcome(copy.clone(), None, false));
        }
        let mut state = slot.state();
        let failed = state
            .failed
            .as_ref()
            .filter(|(at, _)| now.saturating_duration_since(*at) < RETRY_AFTER_FAILURE.min(max_age))
            .map(|(_, e)| e.clone());
        match want {
            Want::Available => {
                if failed.is_none() && !state.refreshing {
                    state.refreshing = true;
                    let source = (url.clone(), read.clone());
                    self.refresh_in_background(slot.clone(), key.to_owned(), source, ask);
                }
                Some(self.outcome(copy.clone(), failed, true))
            }
            Want::Fresh => failed.map(|e| self.outcome(copy.clone(), Some(e), true)),
        }
    }

    /// Refreshes a copy for subscribers, as the server's own work.
    fn refresh_in_background(
        self: &Arc<Self>,
        slot: Arc<Slot>,
        key: String,
        (url, read): (reqwest::Url, Reading),
        ask: Ask,
    ) {
        let ask = Ask {
            want: Want::Available,
            limit: None,
            client: None,
            ..ask
        };
        let feeds = self.clone();
        tokio::spawn(async move {
            {
                let _fetching = slot.fetch.lock().await;
                let copy = feeds.held_or_stored(&key).await.ok().flatten();
                // Another caller may have refreshed it while this task waited.
                let now = feeds.clock.now();
                let fresh = copy.as_ref().is_some_and(|c| c.fresh(now, ask.max_age));
                if !fresh {
                    let source = (&url, &read);
                    let refreshed = feeds.fetch_and_keep(&slot, &key, source, copy, ask).await;
                    if let Err(e) = refreshed {
                        tracing::warn!(url = %key, error = %e, "background refresh failed");
                    }
                }
            }
            slot.state().refreshing = false;
            feeds.release(&key, slot);
        });
    }

    /// Fetches upstream (conditionally against `old`) and keeps what it gets; the caller holds
    /// the slot's fetch lock.
    async fn fetch_and_keep(
        &self,
        slot: &Slot,
        key: &str,
        source: (&reqwest::Url, &Reading),
        old: Option<Arc<FeedCopy>>,
        ask: Ask,
    ) -> Result<FeedOutcome, FeedError> {
        let (persist, want) = (ask.persist, ask.want);
        let previous = old.clone();
        let validators = old
            .as_ref()
            .map(|c| Validators {
                etag: c.etag.clone(),
                last_modified: c.last_modified.clone(),
            })
            .unwrap_or_default();
        let result = self.fetch_checked(source, &validators, ask).await;
        // A copy's age counts from when its fetch finished.
        let (now, wall) = (self.clock.now(), self.clock.wall());
        let count = |counter: &AtomicU64| counter.fetch_add(1, Ordering::Relaxed);
        let copy = match result {
            Ok(Fetched::NotModified) => {
                count(&self.fetches.unchanged);
                let Some(old) = old else {
                    return Err(FeedError::Fetch(FetchError::Other(
                        "the server answered 304 Not Modified to an unconditional request".into(),
                    )));
                };
                Arc::new(FeedCopy {
                    body: old.body.clone(),
                    etag: old.etag.clone(),
                    last_modified: old.last_modified.clone(),
                    fetched_at: wall,
                    changed_at: old.changed_at,
                    version: old.version,
                    confirmed: Some(now),
                })
            }
            Ok(Fetched::Body {
                bytes,
                etag,
                last_modified,
            }) => {
                let unchanged = old
                    .as_ref()
                    .filter(|c| *c.body == *bytes)
                    .map(|c| (c.changed_at, c.version, c.body.clone()));
                let (changed_at, version, body) = match unchanged {
                    Some(same) => {
                        count(&self.fetches.unchanged);
                        same
                    }
                    None => {
                        count(&self.fetches.changed);
                        (wall, version_of(&bytes), Bytes::from(bytes))
                    }
                };
                Arc::new(FeedCopy {
                    body,
                    etag,
                    last_modified,
                    fetched_at: wall,
                    changed_at,
                    version,
                    confirmed: Some(now),
                })
            }
            Err(error @ (FeedError::Busy(_) | FeedError::Throttled(_))) => {
                // The machine is busy, or the fetch's budget is spent: upstream did nothing
                // wrong, so no failure is noted, and the copy held (if any) serves meanwhile.
                return match old {
                    Some(copy) => Ok(self.outcome(copy, None, true)),
                    None => Err(error),
                };
            }
            Err(error) => {
                count(&self.fetches.failed);
                let fetch_error = match &error {
                    FeedError::Fetch(e) => e.clone(),
                    other => FetchError::Other(other.to_string()),
                };
                if persist {
                    self.note(key, wall, Fetch::Failed(fetch_error.to_string()))
                        .await;
                }
                return match old {
                    Some(copy) => {
                        tracing::warn!(url = %key, error = %fetch_error, "upstream failed: serving the last good copy");
                        slot.state().failed = Some((now, fetch_error.clone()));
                        Ok(self.outcome(copy, Some(fetch_error), true))
                    }
                    None => Err(error),
                };
            }
        };
        if persist {
            self.note(key, wall, Fetch::Good(copy.body.clone())).await;
            // An upsert, not an update: the copy may so far have lived only in memory. A copy
            // that cannot be saved (a full disk) still reaches subscribers from memory; a
            // publish, which must know its copy is kept, fails.
            if let Err(e) = self.save(key, &copy).await {
                if want == Want::Fresh {
                    return Err(e);
                }
                tracing::warn!(url = %key, error = %e, "could not save the feed copy: serving it from memory");
            } else if let Some(previous) = previous.filter(|p| p.version != copy.version) {
                // The stored copy changed: what it dropped after it ended may be kept.
                self.keep_history(key, &previous, &copy).await;
                self.note_uids(key, &previous, &copy).await;
            }
        } else if let Some(previous) = previous.filter(|p| p.version != copy.version) {
            // An editor's Refetch of a copy it held: its UIDs may have changed too.
            self.note_uids(key, &previous, &copy).await;
        }
        // An editor's copy counts against its client's share of the cache; a kept one, nobody's.
        let owner = if persist { None } else { ask.client };
        self.keep(key, &copy, owner);
        slot.state().failed = None;
        Ok(self.outcome(copy, None, false))
    }

    /// Notes how a hosted calendar's fetch went, for its owner (a failure to note it is
    /// logged: it must not fail the fetch).
    async fn note(&self, key: &str, at: std::time::SystemTime, fetch: Fetch) {
        if let Err(e) = health::note(&self.db, key.to_owned(), at, fetch).await {
            tracing::warn!(url = %key, error = %e, "could not note the fetch's outcome");
        }
    }

    fn outcome(
        &self,
        copy: Arc<FeedCopy>,
        stale: Option<FetchError>,
        expired: bool,
    ) -> FeedOutcome {
        let age = self
            .clock
            .wall()
            .duration_since(copy.fetched_at)
            .unwrap_or_default();
        FeedOutcome {
            copy,
            stale,
            expired,
            age,
        }
    }

    /// Fetches and checks that a new body is a calendar (on an engine thread), so a broken
    /// upstream (an HTML error page with status 200) never replaces a good copy.
    async fn fetch_checked(
        &self,
        (url, read): (&reqwest::Url, &Reading),
        validators: &Validators,
        ask: Ask,
    ) -> Result<Fetched, FeedError> {
        let max = ask.limit.unwrap_or(usize::MAX);
        // A visitor's fetch spends its allowance and its host's, and every fetch waits for one
        // of its host's few connections (the server's own have their own).
        let connection = self
            .upstream
            .admit(ask.client.filter(|_| !ask.owner), url, &self.fetcher)
            .await
            .map_err(|refused| match refused {
                upstream::Refused::Throttled(t) => FeedError::Throttled(t),
                upstream::Refused::Fetch(e) => FeedError::Fetch(e),
            })?;
        // The body counts against its client's share of the bytes in flight as it arrives; the
        // server's own fetches (a subscriber's, a background refresh) have room of their own.
        let who = ask.client.map_or(Holder::Server, Holder::Client);
        let reservation = self.bytes.reserve(who, 0).map_err(|_| WorkError::Busy)?;
        // A visitor's connection may be taken for a newcomer (its client held the most of the
        // host's): the fetch stops.
        // The one place a source's kind chooses its request: a GET of a feed, or a CalDAV REPORT
        // (its answer made one VCALENDAR) within the calendar's window.
        let fetching = async {
            match read.kind {
                SourceKind::Feed => Ok(self
                    .fetcher
                    .fetch_at_most(url, validators, max, Some(reservation), read.login.as_ref())
                    .await?),
                SourceKind::Caldav => {
                    let now = self.clock.wall();
                    let fetcher = &self.fetcher;
                    caldav::report(fetcher, &self.workers, url, read, now, max, reservation).await
                }
            }
        };
        let fetched: Result<Fetched, FeedError> = tokio::select! {
            fetched = fetching => fetched,
            () = connection.taken() => {
                let host = url.host_str().unwrap_or_default().to_owned();
                return Err(FeedError::Throttled(upstream::busy(host)));
            }
        };
        let fetched = match fetched {
            Ok(fetched) => fetched,
            Err(FeedError::Fetch(FetchError::InFlight)) => {
                return Err(FeedError::Busy(WorkError::Busy))
            }
            Err(e) => return Err(e),
        };
        let Fetched::Body {
            bytes,
            etag,
            last_modified,
        } = fetched
        else {
            return Ok(fetched);
        };
        let limits = self.limits;
        let (checked, bytes) = self
            .workers
            .run(move || (check_calendar(&bytes, &limits), bytes))
            .await?;
        checked?;
        Ok(Fetched::Body {
            bytes,
            etag,
            last_modified,
        })
    }

    /// Keeps `copy` in the memory budget; `owner`: the visitor whose editor fetched it.
    fn keep(&self, key: &str, copy: &Arc<FeedCopy>, owner: Option<ClientKey>) {
        let size = copy.body.len() + key.len() + 256;
        self.cache.put(Kind::Feed, key, copy.clone(), size, owner);
    }

    /// The copy in memory, else the one in SQLite (then kept in memory too).
    async fn held_or_stored(&self, key: &str) -> Result<Option<Arc<FeedCopy>>, FeedError> {
        if let Some(copy) = self.cache.get::<FeedCopy>(Kind::Feed, key) {
            return Ok(Some(copy));
        }
        let loaded = self.load(key).await?.map(Arc::new);
        if let Some(copy) = &loaded {
            self.keep(key, copy, None);
        }
        Ok(loaded)
    }
}
