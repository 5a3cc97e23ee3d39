//! Past events that stay, on the feeds' side: when a new copy of an address replaces the
//! stored one and a calendar reading that address keeps history, the events the new copy
//! dropped after they ended are kept (pruned after the longest `history.keepDays` of the
//! calendars reading it); those that come back are kept no longer. They are feed storage: at
//! most `MAX_KEPT_PER_FEED` per address, within the room the address has beside its own copy
//! (its publishers' shares and the whole, `storage.rs`), the oldest dropped first when that room
//! is short, which the calendar's status then says. The calendar's render merges them after its
//! feeds.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::SystemTime;

use axum::body::Bytes;
use rusqlite::params;

use super::{FeedCopy, Feeds};
use crate::calendar::{self, Limits};
use crate::lock::lock;
use crate::publish::cache::Kind;
use crate::publish::storage::{address_bytes, room_for, trim_kept};
use crate::store::StoreError;

/// Most past events kept for one address.
pub const MAX_KEPT_PER_FEED: usize = 5_000;

/// Addresses whose last trim is remembered (the oldest note goes first past it).
const MAX_TRIM_NOTES: usize = 4096;

/// Kept events dropped to stay within the room of an address: the last time, and how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trimmed {
    pub at: SystemTime,
    pub events: usize,
}

/// The last trim of each address, in memory (a restart forgets them; the next refresh that is
/// short of room notes it again).
#[derive(Debug, Default)]
pub struct TrimNotes(std::sync::Mutex<HashMap<String, Trimmed>>);

/// One kept event: when it ended and its lines.
#[derive(Debug, Clone)]
pub struct KeptRow {
    pub ends_at: i64,
    pub component: Bytes,
}

/// The kept events of one address, as the cache holds them.
pub struct KeptEvents(pub Vec<KeptRow>);

fn cache_key(url: &str) -> String {
    format!("kept:{url}")
}

/// The most days any calendar reading `url` keeps history, if one does.
fn keep_days(conn: &rusqlite::Connection, url: &str) -> Result<Option<u32>, StoreError> {
    let days: Option<i64> = conn.query_row(
        "SELECT max(json_extract(c.options, '$.history.keepDays'))
         FROM calendar_urls u JOIN calendars c ON c.id = u.calendar_id WHERE u.url = ?1",
        [url],
        |r| r.get(0),
    )?;
    Ok(days.and_then(|d| u32::try_from(d).ok()))
}

fn seconds(time: std::time::SystemTime) -> i64 {
    time.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

impl Feeds {
    /// After `new` replaced `old` as the stored copy of `url`: keeps what it dropped after it
    /// ended, when a calendar of `url` keeps history. Failures are logged: history must never
    /// fail a fetch.
    pub(super) async fn keep_history(&self, url: &str, old: &Arc<FeedCopy>, new: &Arc<FeedCopy>) {
        if let Err(e) = self.keep_history_in(url, old, new).await {
            tracing::warn!(url, error = %e, "could not keep the events the feed dropped");
        }
    }

    async fn keep_history_in(
        &self,
        url: &str,
        old: &Arc<FeedCopy>,
        new: &Arc<FeedCopy>,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let key = url.to_owned();
        let Some(days) = self.db.read(move |c| keep_days(c, &key)).await? else {
            return Ok(());
        };
        let now = seconds(self.clock.wall());
        let (old_body, new_body) = (old.body.clone(), new.body.clone());
        let vanished = self
            .workers
            .run(move || calendar::vanished_events(&old_body, &new_body, now, &Limits::default()))
            .await??;
        let key = url.to_owned();
        let storage = self.storage.clone();
        let oldest = now - i64::from(days) * 86_400;
        let trimmed = self
            .db
            .write(move |conn| {
                let tx = conn.transaction()?;
                // Those that came back, and those kept long enough, go.
                let kept: Vec<String> = tx
                    .prepare("SELECT uid FROM kept_events WHERE url = ?1")?
                    .query_map([&key], |r| r.get(0))?
                    .collect::<Result<_, _>>()?;
                for uid in kept.iter().filter(|u| vanished.present.contains(*u)) {
                    tx.execute("DELETE FROM kept_events WHERE url = ?1 AND uid = ?2", [&key, uid])?;
                }
                tx.execute(
                    "DELETE FROM kept_events WHERE url = ?1 AND ends_at < ?2",
                    params![key, oldest],
                )?;
                for event in vanished.ended.iter().filter(|e| e.ends_at >= oldest) {
                    tx.execute(
                        "INSERT INTO kept_events (url, uid, recurrence_id, ends_at, component)
                         VALUES (?1, ?2, ?3, ?4, ?5)
                         ON CONFLICT (url, uid, recurrence_id) DO UPDATE SET
                           ends_at = excluded.ends_at, component = excluded.component",
                        params![
                            key,
                            event.uid,
                            event.recurrence_id.clone().unwrap_or_default(),
                            event.ends_at,
                            event.text
                        ],
                    )?;
                }
                // Then the address keeps what its room holds beside its own copy, the newest
                // first: a source that drops events at every fetch never grows it past that.
                let room = room_for(&tx, &key, &storage)?;
                let (copy, _) = address_bytes(&tx, &key)?;
                let trimmed =
                    trim_kept(&tx, &key, room.bytes.saturating_sub(copy), MAX_KEPT_PER_FEED)?;
                if trimmed > 0 {
                    tracing::info!(url = %key, trimmed, "past events dropped, the oldest first: the feed storage or its share is full");
                }
                tx.commit()?;
                Ok(trimmed)
            })
            .await?;
        if trimmed > 0 {
            self.note_trimmed(url, trimmed);
        }
        self.cache.forget(Kind::Feed, &cache_key(url));
        Ok(())
    }

    /// Notes that `events` kept events of `url` were dropped for room just now.
    pub(super) fn note_trimmed(&self, url: &str, events: usize) {
        let mut notes = lock(&self.trims.0);
        if notes.len() >= MAX_TRIM_NOTES && !notes.contains_key(url) {
            let oldest = notes
                .iter()
                .min_by_key(|(_, t)| t.at)
                .map(|(u, _)| u.clone());
            if let Some(oldest) = oldest {
                notes.remove(&oldest);
            }
        }
        notes.insert(
            url.to_owned(),
            Trimmed {
                at: self.clock.wall(),
                events,
            },
        );
    }

    /// The last time kept events of `url` were dropped for room, if this server did.
    pub fn trimmed(&self, url: &str) -> Option<Trimmed> {
        lock(&self.trims.0).get(url).copied()
    }

    /// The past events kept for `url` (from memory once read), whatever their age.
    pub async fn kept_events(&self, url: &str) -> Result<Arc<KeptEvents>, StoreError> {
        let cache_key = cache_key(url);
        if let Some(kept) = self.cache.get::<KeptEvents>(Kind::Feed, &cache_key) {
            return Ok(kept);
        }
        let key = url.to_owned();
        let rows = self
            .db
            .read(move |conn| {
                let mut statement = conn.prepare(
                    "SELECT ends_at, component FROM kept_events WHERE url = ?1 ORDER BY ends_at, uid",
                )?;
                let rows = statement
                    .query_map([&key], |r| {
                        Ok(KeptRow {
                            ends_at: r.get(0)?,
                            component: Bytes::from(r.get::<_, Vec<u8>>(1)?),
                        })
                    })?
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(rows)
            })
            .await?;
        let size = rows.iter().map(|r| r.component.len() + 32).sum::<usize>() + 64;
        let kept = Arc::new(KeptEvents(rows));
        self.cache
            .put(Kind::Feed, &cache_key, kept.clone(), size, None);
        Ok(kept)
    }
}
