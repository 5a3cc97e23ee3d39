//! Upstream feed copies: fetched at most once per TTL per address, one fetch shared by every
//! concurrent caller, the last good copy kept in SQLite and served when upstream fails.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{params, OptionalExtension};
use tokio::sync::Mutex as AsyncMutex;

use super::fetch::{FetchError, Fetched, Fetcher, Validators};
use crate::calendar::{self, Limits};
use crate::store::{Db, StoreError};

/// After a failed fetch, how long a held copy is served before upstream is tried again.
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(60);

/// Feed bodies kept in memory beyond those in use; older ones are reloaded from SQLite.
const MAX_MEMORY_BYTES: usize = 64 * 1024 * 1024;

/// One good copy of an upstream feed.
#[derive(Debug)]
pub struct FeedCopy {
    pub body: Arc<[u8]>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// Last time upstream confirmed this copy (200 or 304).
    pub fetched_at: SystemTime,
    /// When the body last changed.
    pub changed_at: SystemTime,
    /// Distinguishes bodies within this process, for render caches.
    pub version: u64,
}

/// A copy and, when upstream failed, why it may be out of date.
#[derive(Debug, Clone)]
pub struct FeedOutcome {
    pub copy: Arc<FeedCopy>,
    pub stale: Option<FetchError>,
}

impl FeedOutcome {
    /// How old the copy is (since upstream last confirmed it).
    pub fn age(&self) -> Duration {
        SystemTime::now()
            .duration_since(self.copy.fetched_at)
            .unwrap_or_default()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FeedError {
    #[error(transparent)]
    Fetch(#[from] FetchError),
    #[error("the address did not return a calendar: {0}")]
    NotCalendar(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Default)]
struct Slot {
    copy: Option<Arc<FeedCopy>>,
    loaded: bool,
    failed: Option<(SystemTime, FetchError)>,
}

pub struct Feeds {
    fetcher: Fetcher,
    db: Db,
    limits: Limits,
    slots: Mutex<HashMap<String, Arc<AsyncMutex<Slot>>>>,
    next_version: AtomicU64,
}

impl Feeds {
    pub fn new(fetcher: Fetcher, db: Db) -> Feeds {
        Feeds {
            fetcher,
            db,
            limits: Limits::default(),
            slots: Mutex::new(HashMap::new()),
            next_version: AtomicU64::new(1),
        }
    }

    /// A copy of `url` no older than `max_age`, fetching upstream if needed. Concurrent callers
    /// for the same address wait for one fetch. With `persist`, a new copy is saved to SQLite.
    pub async fn get(
        &self,
        url: &reqwest::Url,
        max_age: Duration,
        persist: bool,
    ) -> Result<FeedOutcome, FeedError> {
        let key = url.as_str().to_owned();
        let slot = self.slot(&key);
        let mut slot = slot.lock().await;

        if !slot.loaded {
            slot.copy = self.load(&key).await?.map(Arc::new);
            slot.loaded = true;
        }
        let now = SystemTime::now();
        if let Some(copy) = &slot.copy {
            let age = now.duration_since(copy.fetched_at).unwrap_or_default();
            if age < max_age {
                return Ok(FeedOutcome {
                    copy: copy.clone(),
                    stale: None,
                });
            }
            if let Some((at, error)) = &slot.failed {
                if now.duration_since(*at).unwrap_or_default() < RETRY_AFTER_FAILURE.min(max_age) {
                    return Ok(FeedOutcome {
                        copy: copy.clone(),
                        stale: Some(error.clone()),
                    });
                }
            }
        }

        let validators = slot
            .copy
            .as_ref()
            .map(|c| Validators {
                etag: c.etag.clone(),
                last_modified: c.last_modified.clone(),
            })
            .unwrap_or_default();
        let result = self.fetch_checked(url, &validators).await;
        match result {
            Ok(Fetched::NotModified) => {
                let Some(old) = slot.copy.clone() else {
                    return Err(FeedError::Fetch(FetchError::Other(
                        "the server answered 304 Not Modified to an unconditional request".into(),
                    )));
                };
                let copy = Arc::new(FeedCopy {
                    body: old.body.clone(),
                    etag: old.etag.clone(),
                    last_modified: old.last_modified.clone(),
                    fetched_at: now,
                    changed_at: old.changed_at,
                    version: old.version,
                });
                if persist {
                    // An upsert, not an update: the copy may so far have lived only in memory.
                    self.save(&key, &copy).await?;
                }
                slot.copy = Some(copy.clone());
                slot.failed = None;
                Ok(FeedOutcome { copy, stale: None })
            }
            Ok(Fetched::Body {
                bytes,
                etag,
                last_modified,
            }) => {
                let unchanged = slot
                    .copy
                    .as_ref()
                    .filter(|c| *c.body == *bytes)
                    .map(|c| (c.changed_at, c.version, c.body.clone()));
                let (changed_at, version, body) = match unchanged {
                    Some(same) => same,
                    None => (
                        now,
                        self.next_version.fetch_add(1, Ordering::Relaxed),
                        Arc::from(bytes.into_boxed_slice()),
                    ),
                };
                let copy = Arc::new(FeedCopy {
                    body,
                    etag,
                    last_modified,
                    fetched_at: now,
                    changed_at,
                    version,
                });
                if persist {
                    self.save(&key, &copy).await?;
                }
                slot.copy = Some(copy.clone());
                slot.failed = None;
                drop(slot);
                self.trim_memory();
                Ok(FeedOutcome { copy, stale: None })
            }
            Err(error) => {
                let fetch_error = match &error {
                    FeedError::Fetch(e) => e.clone(),
                    FeedError::NotCalendar(m) => FetchError::Other(m.clone()),
                    FeedError::Store(e) => FetchError::Other(e.to_string()),
                };
                match slot.copy.clone() {
                    Some(copy) => {
                        tracing::warn!(url = %key, error = %fetch_error, "upstream failed: serving the last good copy");
                        slot.failed = Some((now, fetch_error.clone()));
                        Ok(FeedOutcome {
                            copy,
                            stale: Some(fetch_error),
                        })
                    }
                    None => Err(error),
                }
            }
        }
    }

    /// Fetches and checks that a new body is a calendar, so a broken upstream (an HTML error
    /// page with status 200) never replaces a good copy.
    async fn fetch_checked(
        &self,
        url: &reqwest::Url,
        validators: &Validators,
    ) -> Result<Fetched, FeedError> {
        let fetched = self.fetcher.fetch(url, validators).await?;
        if let Fetched::Body { bytes, .. } = &fetched {
            check_calendar(bytes, &self.limits)?;
        }
        Ok(fetched)
    }

    fn slot(&self, key: &str) -> Arc<AsyncMutex<Slot>> {
        let mut slots = self
            .slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        slots.entry(key.to_owned()).or_default().clone()
    }

    /// Drops idle in-memory copies once they add up to more than the budget; persisted ones
    /// come back from SQLite when next needed.
    fn trim_memory(&self) {
        let mut slots = self
            .slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut total = 0usize;
        let mut idle = Vec::new();
        for (key, slot) in slots.iter() {
            if let Ok(s) = slot.try_lock() {
                let size = s.copy.as_ref().map_or(0, |c| c.body.len());
                total += size;
                if Arc::strong_count(slot) == 1 {
                    let fetched = s.copy.as_ref().map_or(UNIX_EPOCH, |c| c.fetched_at);
                    idle.push((fetched, size, key.clone()));
                }
            }
        }
        if total <= MAX_MEMORY_BYTES {
            return;
        }
        idle.sort();
        for (_, size, key) in idle {
            if total <= MAX_MEMORY_BYTES {
                break;
            }
            slots.remove(&key);
            total = total.saturating_sub(size);
        }
    }

    async fn load(&self, key: &str) -> Result<Option<FeedCopy>, FeedError> {
        let key = key.to_owned();
        let version = self.next_version.fetch_add(1, Ordering::Relaxed);
        let row = self
            .db
            .read(move |conn| {
                conn.query_row(
                    "SELECT body, etag, last_modified, fetched_at, changed_at
                     FROM feed_copies WHERE url = ?1",
                    [&key],
                    |r| {
                        Ok((
                            r.get::<_, Vec<u8>>(0)?,
                            r.get::<_, Option<String>>(1)?,
                            r.get::<_, Option<String>>(2)?,
                            r.get::<_, i64>(3)?,
                            r.get::<_, i64>(4)?,
                        ))
                    },
                )
                .optional()
                .map_err(StoreError::from)
            })
            .await?;
        Ok(
            row.map(|(body, etag, last_modified, fetched, changed)| FeedCopy {
                body: Arc::from(body.into_boxed_slice()),
                etag,
                last_modified,
                fetched_at: from_millis(fetched),
                changed_at: from_millis(changed),
                version,
            }),
        )
    }

    async fn save(&self, key: &str, copy: &FeedCopy) -> Result<(), FeedError> {
        let key = key.to_owned();
        let body = copy.body.clone();
        let etag = copy.etag.clone();
        let last_modified = copy.last_modified.clone();
        let fetched = to_millis(copy.fetched_at);
        let changed = to_millis(copy.changed_at);
        self.db
            .write(move |conn| {
                conn.execute(
                    "INSERT INTO feed_copies (url, body, etag, last_modified, fetched_at, changed_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                     ON CONFLICT (url) DO UPDATE SET body = excluded.body, etag = excluded.etag,
                       last_modified = excluded.last_modified, fetched_at = excluded.fetched_at,
                       changed_at = excluded.changed_at",
                    params![key, &body[..], etag, last_modified, fetched, changed],
                )?;
                Ok(())
            })
            .await?;
        Ok(())
    }
}

/// A body is a calendar when the engine parses it and finds a VCALENDAR in it.
pub fn check_calendar(bytes: &[u8], limits: &Limits) -> Result<(), FeedError> {
    match calendar::parse(bytes, limits) {
        Ok((doc, _)) if doc.components.iter().any(|c| c.name == "VCALENDAR") => Ok(()),
        Ok(_) => Err(FeedError::NotCalendar(
            "no BEGIN:VCALENDAR found (is this an .ics address?)".into(),
        )),
        Err(e) => Err(FeedError::NotCalendar(e.to_string())),
    }
}

pub fn to_millis(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

pub fn from_millis(ms: i64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(u64::try_from(ms).unwrap_or(0))
}
