//! The media of a vault or shared deck (`sync_media`, beside its blob): pictures and sounds the
//! client sealed one by one and named by a keyed hash of their content, so a file is sent once
//! and every device fetches it once. They are written with the blob's write token (no version:
//! a name is its content), within the blob's media quota (`--sync-media-quota`) and at most
//! `MAX_FILES` files, and count toward the storage quotas and the blob maker's share like its
//! parts. They go with the blob (the foreign key's cascade) and are removed one by one with the
//! token when no card refers to them any more.

use rusqlite::{params, Connection, OptionalExtension};

use super::blobs::{holdings, stored_for_write, Blobs};
use super::quotas::{check_growth, Kind, SyncError};
use crate::secret::{token_matches, PresentedToken};
use crate::store::StoreError;

/// Most files one blob may hold: a language deck of a few thousand notes with a picture and a
/// sound each, and a bound on the list a device reads.
pub const MAX_FILES: usize = 10_000;

/// What the blob's media hold now: its names (sorted) and their bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaList {
    pub names: Vec<String>,
    pub bytes: u64,
}

/// What a reader of one file finds before loading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaHead {
    /// No live blob of the kind has the id.
    NoBlob,
    /// The blob lives but holds no file of that name.
    NoFile,
    Found {
        size: usize,
    },
}

/// What a write of one file did, or would do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaWrite {
    /// Stored now (or, asked before the body, may be).
    Stored,
    /// The blob holds a file of that name already: its content is the same, nothing is sent.
    Held,
    NotFound,
    Forbidden,
}

/// Whether the blob may take one more file of `size` bytes: its own media quota and file
/// count, then the storage quotas and its maker's share (as growing the blob by `size`).
fn check_room(
    conn: &Connection,
    blobs: &Blobs,
    id: &str,
    kind: Kind,
    tags: &crate::store::ClientTags,
    size: usize,
    owner: bool,
) -> Result<Result<(), SyncError>, StoreError> {
    let quotas = blobs.quotas();
    let (files, bytes): (i64, i64) = conn.query_row(
        "SELECT count(*), coalesce(sum(length(body)), 0) FROM sync_media WHERE blob_id = ?1",
        [id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let files = usize::try_from(files).unwrap_or(usize::MAX);
    let bytes = u64::try_from(bytes).unwrap_or(u64::MAX);
    if files >= MAX_FILES {
        return Ok(Err(SyncError::MediaFilesReached { most: MAX_FILES }));
    }
    if bytes.saturating_add(size as u64) > quotas.media_quota {
        return Ok(Err(SyncError::MediaQuotaReached {
            quota: quotas.media_quota,
        }));
    }
    let held = holdings(conn, kind, tags, blobs.now())?;
    Ok(check_growth(held, 0, size, quotas, owner))
}

fn media_size(conn: &Connection, id: &str, name: &str) -> Result<Option<usize>, StoreError> {
    let size: Option<i64> = conn
        .query_row(
            "SELECT length(body) FROM sync_media WHERE blob_id = ?1 AND name = ?2",
            params![id, name],
            |r| r.get(0),
        )
        .optional()?;
    Ok(size.map(|n| usize::try_from(n).unwrap_or(0)))
}

impl Blobs {
    /// The media of the live blob `id` of `kind`; `None` when there is no such blob.
    pub async fn media_list(
        &self,
        kind: Kind,
        id: String,
    ) -> Result<Option<MediaList>, StoreError> {
        let now = self.now();
        self.db
            .read(move |conn| {
                if stored_for_write(conn, &id, kind, now)?.is_none() {
                    return Ok(None);
                }
                let mut statement = conn.prepare(
                    "SELECT name, length(body) FROM sync_media WHERE blob_id = ?1 ORDER BY name",
                )?;
                let rows = statement
                    .query_map([&id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
                let mut list = MediaList {
                    names: Vec::new(),
                    bytes: 0,
                };
                for row in rows {
                    let (name, size) = row?;
                    list.names.push(name);
                    list.bytes += u64::try_from(size).unwrap_or(0);
                }
                Ok(Some(list))
            })
            .await
    }

    /// Whether the live blob has the file `name`, and its size.
    pub async fn media_head(
        &self,
        kind: Kind,
        id: String,
        name: String,
    ) -> Result<MediaHead, StoreError> {
        let now = self.now();
        self.db
            .read(move |conn| {
                if stored_for_write(conn, &id, kind, now)?.is_none() {
                    return Ok(MediaHead::NoBlob);
                }
                Ok(match media_size(conn, &id, &name)? {
                    None => MediaHead::NoFile,
                    Some(size) => MediaHead::Found { size },
                })
            })
            .await
    }

    /// The file `name` of the live blob `id` (`None` when it or the blob is gone).
    pub async fn media_body(
        &self,
        kind: Kind,
        id: String,
        name: String,
    ) -> Result<Option<Vec<u8>>, StoreError> {
        let now = self.now();
        self.db
            .read(move |conn| {
                if stored_for_write(conn, &id, kind, now)?.is_none() {
                    return Ok(None);
                }
                Ok(conn
                    .query_row(
                        "SELECT body FROM sync_media WHERE blob_id = ?1 AND name = ?2",
                        params![id, name],
                        |r| r.get(0),
                    )
                    .optional()?)
            })
            .await
    }

    /// What writing the file `name` of `size` bytes (as declared) would meet, before its body is
    /// read: a file already held or a refusal is answered without taking the body.
    pub async fn may_put_media(
        &self,
        kind: Kind,
        id: String,
        token: Option<PresentedToken>,
        name: String,
        size: usize,
        owner: bool,
    ) -> Result<MediaWrite, SyncError> {
        let now = self.now();
        let blobs = self.clone();
        self.db
            .read(move |conn| {
                let Some((hash, _, _, tags)) = stored_for_write(conn, &id, kind, now)? else {
                    return Ok(Ok(MediaWrite::NotFound));
                };
                if !token_matches(token.as_ref(), &hash) {
                    return Ok(Ok(MediaWrite::Forbidden));
                }
                if media_size(conn, &id, &name)?.is_some() {
                    return Ok(Ok(MediaWrite::Held));
                }
                Ok(check_room(conn, &blobs, &id, kind, &tags, size, owner)?
                    .map(|()| MediaWrite::Stored))
            })
            .await?
    }

    /// Stores the file `name` of blob `id` with its token, within the quotas (checked in the
    /// write's transaction, so concurrent writes cannot pass them together).
    pub async fn put_media(
        &self,
        kind: Kind,
        id: String,
        token: Option<PresentedToken>,
        name: String,
        body: Vec<u8>,
        owner: bool,
    ) -> Result<MediaWrite, SyncError> {
        let now = self.now();
        let blobs = self.clone();
        self.db
            .write(move |conn| {
                let tx = conn.transaction()?;
                let Some((hash, _, _, tags)) = stored_for_write(&tx, &id, kind, now)? else {
                    return Ok(Ok(MediaWrite::NotFound));
                };
                if !token_matches(token.as_ref(), &hash) {
                    return Ok(Ok(MediaWrite::Forbidden));
                }
                if media_size(&tx, &id, &name)?.is_some() {
                    return Ok(Ok(MediaWrite::Held));
                }
                if let Err(e) = check_room(&tx, &blobs, &id, kind, &tags, body.len(), owner)? {
                    return Ok(Err(e));
                }
                tx.execute(
                    "INSERT INTO sync_media (blob_id, name, body) VALUES (?1, ?2, ?3)",
                    params![id, name, body],
                )?;
                tx.commit()?;
                Ok(Ok(MediaWrite::Stored))
            })
            .await?
    }

    /// Removes the file `name` with the blob's token (`Stored` when it is gone now, held or not).
    pub async fn delete_media(
        &self,
        kind: Kind,
        id: String,
        token: Option<PresentedToken>,
        name: String,
    ) -> Result<MediaWrite, StoreError> {
        let now = self.now();
        self.db
            .write(move |conn| {
                let Some((hash, ..)) = stored_for_write(conn, &id, kind, now)? else {
                    return Ok(MediaWrite::NotFound);
                };
                if !token_matches(token.as_ref(), &hash) {
                    return Ok(MediaWrite::Forbidden);
                }
                conn.execute(
                    "DELETE FROM sync_media WHERE blob_id = ?1 AND name = ?2",
                    params![id, name],
                )?;
                Ok(MediaWrite::Stored)
            })
            .await
    }
}
