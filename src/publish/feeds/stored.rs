//! Feed copies in SQLite: the room a publish reserves before fetching, loading a copy back, and
//! saving one only while it fits in `--max-feed-storage` with every reservation held.

use axum::body::Bytes;
use rusqlite::{params, OptionalExtension};

use std::sync::Arc;

use super::copy::{version_of, FeedCopy};
use super::{FeedError, Feeds};
use crate::clock::{from_millis, to_millis};
use crate::publish::health::Fetch;
use crate::publish::quotas::{stored_besides, FeedReservation, QuotaError};
use crate::store::StoreError;

impl Feeds {
    /// Room in the database for a copy of `url`, at most `want` bytes, before it is fetched;
    /// `None` when a copy of it is stored already (a later fetch is checked when it is saved).
    pub async fn reserve(
        &self,
        url: &reqwest::Url,
        want: u64,
    ) -> Result<Option<FeedReservation>, FeedError> {
        let key = url.as_str().to_owned();
        let (elsewhere, stored) = self
            .db
            .read({
                let key = key.clone();
                move |conn| stored_besides(conn, &key)
            })
            .await?;
        if stored {
            return Ok(None);
        }
        Ok(Some(self.storage.reserve(&key, elsewhere, want)?))
    }

    pub(super) async fn load(&self, key: &str) -> Result<Option<FeedCopy>, FeedError> {
        let key = key.to_owned();
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
        let (now, wall) = (self.clock.now(), self.clock.wall());
        Ok(row.map(|(body, etag, last_modified, fetched, changed)| {
            let fetched_at = from_millis(fetched);
            // The stored time is wall-clock; carried over to the monotonic clock once.
            let age = wall.duration_since(fetched_at).unwrap_or_default();
            FeedCopy {
                version: version_of(&body),
                body: Bytes::from(body),
                etag,
                last_modified,
                fetched_at,
                changed_at: from_millis(changed),
                confirmed: now.checked_sub(age),
            }
        }))
    }

    /// A publish takes a fresh copy that an editor's read left in memory only: it is kept now as
    /// the publish's own fetch would have kept it (stored, its fetch noted in the health, the
    /// events it dropped kept), or the calendar would go live with no stored copy and no record
    /// of the fetch it shows. Nothing is written for a copy stored already.
    pub(super) async fn keep_taken(
        &self,
        key: &str,
        copy: &Arc<FeedCopy>,
    ) -> Result<(), FeedError> {
        let stored = self.load(key).await?.map(Arc::new);
        if stored
            .as_ref()
            .is_some_and(|s| s.version == copy.version && s.fetched_at >= copy.fetched_at)
        {
            return Ok(());
        }
        self.save(key, copy).await?;
        self.note(key, copy.fetched_at, Fetch::Good(copy.body.clone()))
            .await;
        if let Some(previous) = stored.filter(|p| p.version != copy.version) {
            self.keep_history(key, &previous, copy).await;
        }
        // Kept: no longer counted against the editor's share of the cache.
        self.keep(key, copy, None);
        Ok(())
    }

    pub(super) async fn save(&self, key: &str, copy: &FeedCopy) -> Result<(), FeedError> {
        let key = key.to_owned();
        let body = copy.body.clone();
        let etag = copy.etag.clone();
        let last_modified = copy.last_modified.clone();
        let fetched = to_millis(copy.fetched_at);
        let changed = to_millis(copy.changed_at);
        let reserved_elsewhere = self.storage.reserved_besides(&key);
        let max = self.storage.max();
        self.db
            .write(move |conn| {
                let tx = conn.transaction()?;
                // Charged on save, in the one writer: what is stored for other addresses, what
                // publishes under way hold for theirs, and this copy must fit together. A copy
                // that does not grow is never refused (the owner may have lowered the budget).
                let (elsewhere, _) = stored_besides(&tx, &key)?;
                let old: i64 = tx
                    .query_row(
                        "SELECT coalesce(length(body), 0) FROM feed_copies WHERE url = ?1",
                        [&key],
                        |r| r.get(0),
                    )
                    .optional()?
                    .unwrap_or(0);
                let new = body.len() as u64;
                let grows = new > u64::try_from(old).unwrap_or(0);
                if grows && elsewhere + reserved_elsewhere + new > max {
                    return Ok(Err(QuotaError::FeedStorageFull));
                }
                tx.execute(
                    "INSERT INTO feed_copies (url, body, etag, last_modified, fetched_at, changed_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                     ON CONFLICT (url) DO UPDATE SET body = excluded.body, etag = excluded.etag,
                       last_modified = excluded.last_modified, fetched_at = excluded.fetched_at,
                       changed_at = excluded.changed_at",
                    params![key, &body[..], etag, last_modified, fetched, changed],
                )?;
                tx.commit()?;
                Ok(Ok(()))
            })
            .await??;
        Ok(())
    }
}
