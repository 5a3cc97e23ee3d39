//! Deleted calendars, held in memory: calendar apps keep polling a feed for months after it is
//! deleted, and each poll is answered 410 Gone from this set, with no database work. The set is
//! read from the database once at start; ids deleted over a year ago are forgotten.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::RwLock;
use std::time::{Duration, SystemTime};

use crate::clock::to_millis;
use crate::store::{Db, StoreError};

/// How long a deleted id is answered 410 (after that: 404, like any unknown id).
pub const REMEMBERED_FOR: Duration = Duration::from_secs(365 * 24 * 60 * 60);
/// The most ids held; the oldest are forgotten first.
const MAX_REMEMBERED: i64 = 100_000;

#[derive(Default)]
pub struct Gone {
    ids: RwLock<HashSet<String>>,
    /// Polls answered 410 since the start (the metrics read it).
    answered: AtomicU64,
}

impl Gone {
    /// Reads the deleted ids, forgetting those deleted before `now - REMEMBERED_FOR`.
    pub async fn load(&self, db: &Db, now: SystemTime) -> Result<usize, StoreError> {
        let cutoff = to_millis(
            now.checked_sub(REMEMBERED_FOR)
                .unwrap_or(SystemTime::UNIX_EPOCH),
        );
        let ids = db
            .write(move |conn| {
                conn.execute(
                    "DELETE FROM deleted_calendars WHERE deleted_at < ?1",
                    [cutoff],
                )?;
                let mut statement = conn.prepare(
                    "SELECT id FROM deleted_calendars ORDER BY deleted_at DESC LIMIT ?1",
                )?;
                let ids = statement
                    .query_map([MAX_REMEMBERED], |r| r.get::<_, String>(0))?
                    .collect::<Result<HashSet<_>, _>>()?;
                Ok(ids)
            })
            .await?;
        let count = ids.len();
        *self.ids.write().unwrap_or_else(|e| e.into_inner()) = ids;
        Ok(count)
    }

    /// Whether `id` was deleted; counts the answer when it was.
    pub fn answers(&self, id: &str) -> bool {
        let gone = self
            .ids
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .contains(id);
        if gone {
            self.answered.fetch_add(1, Ordering::Relaxed);
        }
        gone
    }

    pub fn insert(&self, id: &str) {
        let mut ids = self.ids.write().unwrap_or_else(|e| e.into_inner());
        if ids.len() < MAX_REMEMBERED as usize {
            ids.insert(id.to_owned());
        }
    }

    /// `id` is published again.
    pub fn remove(&self, id: &str) {
        self.ids
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id);
    }

    pub fn answered(&self) -> u64 {
        self.answered.load(Ordering::Relaxed)
    }
}
