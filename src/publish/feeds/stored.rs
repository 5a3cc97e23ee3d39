//! Feed copies in SQLite: the room a publish reserves before fetching, loading a copy back, and
//! saving one only within the room its address has (`storage.rs`): a copy that grows makes room
//! by dropping the address's oldest kept events first, and is not stored if that is not enough.

use axum::body::Bytes;
use rusqlite::{params, OptionalExtension};

use std::sync::Arc;

use super::copy::{version_of, FeedCopy};
use super::history::MAX_KEPT_PER_FEED;
use super::{FeedError, Feeds};
use crate::clock::{from_millis, to_millis};
use crate::http::client::ClientKey;
use crate::publish::feed_source::copy_key;
use crate::publish::fetch::Login;
use crate::publish::health::Fetch;
use crate::publish::storage::{address_bytes, room_for, trim_kept, FeedReservation};
use crate::store::{client_tags, StoreError};

impl Feeds {
    /// Room in the database for a copy of `url`, at most `want` bytes, before it is fetched for
    /// `publisher` (none: the site's owner, who has no share); `None` when a copy of it is stored
    /// already (a later fetch is checked when it is saved), once the publisher may be charged
    /// for it too.
    pub async fn reserve(
        &self,
        url: &reqwest::Url,
        login: Option<&Login>,
        want: u64,
        publisher: Option<ClientKey>,
    ) -> Result<Option<FeedReservation>, FeedError> {
        let key = copy_key(url.as_str(), login);
        let storage = self.storage.clone();
        let reserved = self
            .db
            .read(move |conn| {
                let tags = publisher.map(|c| client_tags(conn, c)).transpose()?;
                let stored = conn
                    .query_row("SELECT 1 FROM feed_copies WHERE url = ?1", [&key], |_| {
                        Ok(())
                    })
                    .optional()?
                    .is_some();
                if stored {
                    let checked = match &tags {
                        Some(tags) => storage.check_adding(conn, &key, tags),
                        None => Ok(()),
                    };
                    return Ok(checked.map(|()| None));
                }
                Ok(storage.reserve(conn, &key, tags.as_ref(), want).map(Some))
            })
            .await?;
        Ok(reserved?)
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
        let storage = self.storage.clone();
        let url = key.clone();
        let trimmed = self
            .db
            .write(move |conn| {
                let tx = conn.transaction()?;
                // Charged on save, in the one writer: the copy and the address's kept events
                // must fit the room it has (its publishers' shares, and the whole with what is
                // stored and reserved for other addresses). A copy that does not grow is never
                // refused (the owner may have lowered the budget).
                let room = room_for(&tx, &key, &storage)?;
                let (old, kept) = address_bytes(&tx, &key)?;
                let new = body.len() as u64;
                let mut trimmed = 0;
                if new > old && new + kept > room.bytes {
                    // Subscribers need the copy; past events give way, the oldest first.
                    let left = room.bytes.saturating_sub(new);
                    trimmed = trim_kept(&tx, &key, left, MAX_KEPT_PER_FEED)?;
                    let (_, kept) = address_bytes(&tx, &key)?;
                    if new + kept > room.bytes {
                        // Nothing is stored, nothing is dropped.
                        return Ok(Err(room.refusal()));
                    }
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
                Ok(Ok(trimmed))
            })
            .await??;
        if trimmed > 0 {
            self.note_trimmed(&url, trimmed);
        }
        Ok(())
    }
}
