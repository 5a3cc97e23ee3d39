//! Past events that stay, on the feeds' side: when a new copy of an address replaces the
//! stored one and a calendar reading that address keeps history, the events the new copy
//! dropped after they ended are kept (within the feed storage, at most `MAX_KEPT_PER_FEED` per
//! address, pruned after the longest `history.keepDays` of the calendars reading it); those
//! that come back are kept no longer. The calendar's render merges them after its feeds.

use std::sync::Arc;

use axum::body::Bytes;
use rusqlite::params;

use super::{FeedCopy, Feeds};
use crate::calendar::{self, Limits};
use crate::publish::cache::Kind;
use crate::publish::quotas::stored_besides;
use crate::store::StoreError;

/// Most past events kept for one address.
pub const MAX_KEPT_PER_FEED: usize = 5_000;

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
        let max = self.storage.max();
        let reserved = self.storage.reserved_besides(url);
        let oldest = now - i64::from(days) * 86_400;
        self.db
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
                let mut count: i64 = tx.query_row(
                    "SELECT count(*) FROM kept_events WHERE url = ?1",
                    [&key],
                    |r| r.get(0),
                )?;
                let (mut used, _) = stored_besides(&tx, &key)?;
                used += reserved;
                for event in vanished.ended.iter().filter(|e| e.ends_at >= oldest) {
                    let size = event.text.len() as u64;
                    if usize::try_from(count).unwrap_or(usize::MAX) >= MAX_KEPT_PER_FEED
                        || used + size > max
                    {
                        tracing::warn!(url = %key, "past events not kept: the feed storage or the count per feed is full");
                        break;
                    }
                    let changed = tx.execute(
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
                    count += i64::try_from(changed).unwrap_or(0);
                    used += size;
                }
                tx.commit()?;
                Ok(())
            })
            .await?;
        self.cache.forget(Kind::Feed, &cache_key(url));
        Ok(())
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
