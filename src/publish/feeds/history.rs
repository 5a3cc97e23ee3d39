//! Past events that stay, on the feeds' side: when a new copy of an address replaces the
//! stored one and a calendar reading that address keeps history, the events the new copy
//! dropped after they ended are kept (pruned after the longest `history.keepDays` of the
//! calendars reading it); those that come back are kept no longer. They are feed storage: at
//! most `MAX_KEPT_PER_FEED` per address, within the room the address has beside its own copy
//! (its publishers' shares and the whole, `storage.rs`), the oldest dropped first when that room
//! is short, which the calendar's status then says. The calendar's render merges them after its
//! feeds, reading their text only when a render is due (a poll reads their small index).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::SystemTime;

use axum::body::Bytes;
use rusqlite::params;
use rusqlite::types::ValueRef;

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

/// The kept events of one address in the order of their ends: when each ends and where its
/// lines start in the text they are kept in, and a version of them all. Small: it is what every
/// poll reads (the text itself is read only when a render is due).
#[derive(Debug)]
pub struct KeptIndex {
    ends: Vec<i64>,
    starts: Vec<usize>,
    pub version: u64,
}

impl KeptIndex {
    /// The first kept event that ended at or after `oldest`, and how many from there.
    fn first_since(&self, oldest: i64) -> (usize, usize) {
        let first = self.ends.partition_point(|end| *end < oldest);
        (first, self.ends.len() - first)
    }

    /// How many ended at or after `oldest`.
    pub fn count_since(&self, oldest: i64) -> usize {
        self.first_since(oldest).1
    }

    /// A version of those that ended at or after `oldest` (they are a tail of the whole).
    pub fn version_since(&self, oldest: i64) -> u64 {
        let (first, _) = self.first_since(oldest);
        let mut key = self.version.to_le_bytes().to_vec();
        key.extend_from_slice(&(first as u64).to_le_bytes());
        super::version_of(&key)
    }
}

/// The kept events' lines one after the other (bare components, as a merge takes them), with
/// their index.
pub struct KeptText {
    pub index: KeptIndex,
    text: Bytes,
}

impl KeptText {
    /// The lines of those that ended at or after `oldest`: one slice of the text, no copy.
    pub fn since(&self, oldest: i64) -> Bytes {
        let (first, _) = self.index.first_since(oldest);
        let start = self
            .index
            .starts
            .get(first)
            .copied()
            .unwrap_or(self.text.len());
        self.text.slice(start..)
    }
}

fn cache_key(url: &str) -> String {
    format!("kept:{url}")
}

fn index_key(url: &str) -> String {
    format!("kept-index:{url}")
}

/// The most days any calendar reading `url` keeps history, if one does, and whether one of
/// those gives its events UIDs made from their content (`"uids": "content"`): then the copies
/// are compared, and their past events kept, by those UIDs, so that a source whose UIDs change
/// at every fetch neither loses nor doubles them.
fn keep_days(conn: &rusqlite::Connection, url: &str) -> Result<Option<(u32, bool)>, StoreError> {
    let (days, content): (Option<i64>, Option<i64>) = conn.query_row(
        "SELECT max(json_extract(c.options, '$.history.keepDays')),
                max(json_extract(c.options, '$.history.keepDays') IS NOT NULL
                    AND json_extract(c.options, '$.uids') = 'content')
         FROM calendar_urls u JOIN calendars c ON c.id = u.calendar_id WHERE u.url = ?1",
        [url],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    Ok(days
        .and_then(|d| u32::try_from(d).ok())
        .map(|d| (d, content.unwrap_or(0) == 1)))
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
        let Some((days, content)) = self.db.read(move |c| keep_days(c, &key)).await? else {
            return Ok(());
        };
        let now = seconds(self.clock.wall());
        let (old_body, new_body) = (old.body.clone(), new.body.clone());
        let source = url.to_owned();
        let vanished = self
            .workers
            .run(
                move || -> Result<_, Box<dyn std::error::Error + Send + Sync>> {
                    let limits = Limits::default();
                    if content {
                        let old = calendar::content_uids(&old_body, &source, &limits, None)?;
                        let new = calendar::content_uids(&new_body, &source, &limits, None)?;
                        Ok(calendar::vanished_events(&old, &new, now, &limits)?)
                    } else {
                        Ok(calendar::vanished_events(
                            &old_body, &new_body, now, &limits,
                        )?)
                    }
                },
            )
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
        self.cache.forget(Kind::Feed, &index_key(url));
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

    /// The index of the past events kept for `url` (from memory once read), whatever their age:
    /// read a row at a time, their lines hashed into its version and not kept.
    pub async fn kept_index(&self, url: &str) -> Result<Arc<KeptIndex>, StoreError> {
        if let Some(index) = self.cache.get::<KeptIndex>(Kind::Feed, &index_key(url)) {
            return Ok(index);
        }
        let key = url.to_owned();
        let index = self
            .db
            .read(move |conn| {
                use std::hash::Hasher;
                #[allow(deprecated)] // Fixed keys, as `version_of`: the same rows, the same version.
                let mut hasher = std::hash::SipHasher::new();
                let (mut ends, mut starts, mut at) = (Vec::new(), Vec::new(), 0usize);
                let mut statement = conn.prepare(
                    "SELECT ends_at, component FROM kept_events WHERE url = ?1 ORDER BY ends_at, uid",
                )?;
                let mut rows = statement.query([&key])?;
                while let Some(row) = rows.next()? {
                    let end: i64 = row.get(0)?;
                    ends.push(end);
                    starts.push(at);
                    hasher.write_i64(end);
                    if let ValueRef::Blob(lines) | ValueRef::Text(lines) = row.get_ref(1)? {
                        hasher.write(lines);
                        at += lines.len();
                    }
                }
                Ok(KeptIndex {
                    ends,
                    starts,
                    version: hasher.finish(),
                })
            })
            .await?;
        let index = Arc::new(index);
        let size = index.ends.len() * 16 + 64;
        self.cache
            .put(Kind::Feed, &index_key(url), index.clone(), size, None);
        Ok(index)
    }

    /// The past events kept for `url` with their lines (from memory while it holds them): what
    /// a render due reads.
    pub async fn kept_text(&self, url: &str) -> Result<Arc<KeptText>, StoreError> {
        if let Some(kept) = self.cache.get::<KeptText>(Kind::Feed, &cache_key(url)) {
            return Ok(kept);
        }
        self.load_kept(url).await
    }

    /// Reads the kept events of `url` into one text (its size known first, so it is made once,
    /// with no copy growing behind it), and keeps it in memory.
    async fn load_kept(&self, url: &str) -> Result<Arc<KeptText>, StoreError> {
        let key = url.to_owned();
        let kept = self
            .db
            .read(move |conn| {
                let (count, bytes): (i64, i64) = conn.query_row(
                    "SELECT count(*), coalesce(sum(length(component)), 0) FROM kept_events WHERE url = ?1",
                    [&key],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )?;
                let count = usize::try_from(count).unwrap_or(0);
                let mut text = Vec::with_capacity(usize::try_from(bytes).unwrap_or(0));
                let mut ends = Vec::with_capacity(count);
                let mut starts = Vec::with_capacity(count);
                let mut statement = conn.prepare(
                    "SELECT ends_at, component FROM kept_events WHERE url = ?1 ORDER BY ends_at, uid",
                )?;
                let mut rows = statement.query([&key])?;
                while let Some(row) = rows.next()? {
                    ends.push(row.get::<_, i64>(0)?);
                    starts.push(text.len());
                    if let ValueRef::Blob(lines) | ValueRef::Text(lines) = row.get_ref(1)? {
                        text.extend_from_slice(lines);
                    }
                }
                Ok(KeptText {
                    // The text is sliced by this index, never compared by its version.
                    index: KeptIndex {
                        version: 0,
                        ends,
                        starts,
                    },
                    text: Bytes::from(text),
                })
            })
            .await?;
        let kept = Arc::new(kept);
        let size = kept.text.len() + kept.index.ends.len() * 16 + 64;
        self.cache
            .put(Kind::Feed, &cache_key(url), kept.clone(), size, None);
        Ok(kept)
    }
}
