//! Stored blobs (vaults and shared decks): made with a random id and the write token the client
//! chose (so a create whose answer was lost is retried, not repeated), read by id (which keeps a
//! blob alive), updated only with the token and the version the writer started from
//! (compare-and-swap), removed with the token, and forgotten once nobody has read them for their
//! kind's expiry. Counts and bytes stay within the quotas and each client's share (`quotas`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension};

use super::parts::{self, PartHead, Upload, PARTS_SIZE};
use super::quotas::{check_create, check_growth, Holdings, Kind, Quotas, SyncError};
use crate::clock::Clock;
use crate::http::client::ClientKey;
use crate::secret::{token_matches, PresentedToken, Token};
use crate::store::{client_tags, ClientTags, Db, StoreError};

/// The bytes of a blob's media (`media.rs`), as an SQL expression over a row of `sync_blobs`
/// (unaliased).
const MEDIA_SIZE: &str = "coalesce((SELECT sum(length(m.body)) FROM sync_media m
                                  WHERE m.blob_id = sync_blobs.id), 0)";

/// A blob's last read is written at most this often, so a device polling every few seconds
/// costs the SD card one write a day.
const TOUCH_EVERY: Duration = Duration::from_secs(24 * 60 * 60);

/// A blob just made (or found again by its token): the client holds the token already.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Created {
    pub id: String,
    pub version: i64,
    /// False when a blob with this token existed: the create was a retry.
    pub new: bool,
}

/// What a reader needs before the body: its version and size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head {
    pub version: i64,
    pub size: usize,
}

#[derive(Debug, PartialEq, Eq)]
pub enum UpdateOutcome {
    Updated {
        version: i64,
    },
    /// Someone wrote first: the version now stored.
    Conflict {
        current: i64,
    },
    NotFound,
    Forbidden,
    /// The write names a part it does not send and the vault does not have.
    MissingPart {
        name: String,
    },
}

#[derive(Debug, PartialEq, Eq)]
pub enum DeleteOutcome {
    Deleted,
    NotFound,
    Forbidden,
}

/// 128 random bits (UUID v4 has 122): unguessable, so the id alone lets a reader in.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// Ids are what `new_id` makes; anything else cannot exist and is not looked up.
pub fn valid_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether a stored blob (of either kind) has the id `id`.
fn id_in_use(conn: &Connection, id: &str) -> rusqlite::Result<bool> {
    Ok(conn
        .query_row("SELECT 1 FROM sync_blobs WHERE id = ?1", [id], |_| Ok(()))
        .optional()?
        .is_some())
}

fn millis(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

fn to_u64(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// The blobs in the database, on the server's clock.
#[derive(Clone)]
pub struct Blobs {
    pub(super) db: Db,
    clock: Clock,
    quotas: Quotas,
}

/// Times that decide what has expired, taken once per call.
#[derive(Debug, Clone, Copy)]
pub(super) struct Now {
    now: i64,
    vault_cutoff: i64,
    share_cutoff: i64,
}

impl Now {
    fn cutoff(&self, kind: Kind) -> i64 {
        match kind {
            Kind::Vault => self.vault_cutoff,
            Kind::Share => self.share_cutoff,
        }
    }
}

/// A blob is alive while it was read or written within its kind's expiry.
const ALIVE: &str = "max(read_at, updated_at) >= ?";

impl Blobs {
    pub fn new(db: Db, clock: Clock, quotas: Quotas) -> Blobs {
        Blobs { db, clock, quotas }
    }

    pub fn quotas(&self) -> &Quotas {
        &self.quotas
    }

    pub(super) fn now(&self) -> Now {
        let wall = self.clock.wall();
        let cutoff = |d: Duration| millis(wall.checked_sub(d).unwrap_or(UNIX_EPOCH));
        Now {
            now: millis(wall),
            vault_cutoff: cutoff(self.quotas.vault_expiry),
            share_cutoff: cutoff(self.quotas.share_expiry),
        }
    }

    /// Removes every blob nobody read or wrote within its kind's expiry; how many went.
    pub async fn expire(&self) -> Result<usize, StoreError> {
        let now = self.now();
        self.db.write(move |conn| expire_in(conn, now)).await
    }

    /// The blob of `kind` made with `token`, if it is alive: a create being retried.
    pub async fn made_with(
        &self,
        kind: Kind,
        token: &Token,
    ) -> Result<Option<Created>, StoreError> {
        let hash = token.hash();
        let now = self.now();
        self.db
            .read(move |conn| {
                Ok(conn
                    .query_row(
                        &format!(
                            "SELECT id, version FROM sync_blobs
                             WHERE kind = ?1 AND token_hash = ?2 AND {}",
                            ALIVE.replace('?', "?3")
                        ),
                        params![kind.as_str(), hash, now.cutoff(kind)],
                        |r| {
                            Ok(Created {
                                id: r.get(0)?,
                                version: r.get(1)?,
                                new: false,
                            })
                        },
                    )
                    .optional()?)
            })
            .await
    }

    /// Whether `client` may make a blob of `kind` of `size` bytes, as things stand: checked
    /// before the body is read (and again, exactly, when it is stored).
    pub async fn may_create(
        &self,
        kind: Kind,
        client: ClientKey,
        size: usize,
        owner: bool,
    ) -> Result<(), SyncError> {
        let now = self.now();
        let quotas = self.quotas;
        self.db
            .read(move |conn| {
                let tags = client_tags(conn, client)?;
                Ok(check_create(
                    kind,
                    holdings(conn, kind, &tags, now)?,
                    size,
                    &quotas,
                    owner,
                ))
            })
            .await?
    }

    /// Whether a blob (of either kind, live or not yet expired away) has the id `id`.
    pub async fn id_taken(&self, id: String) -> Result<bool, StoreError> {
        self.db.read(move |conn| Ok(id_in_use(conn, &id)?)).await
    }

    /// Stores a new blob at version 1 under `token`, or finds the one already made with it.
    /// Its id is `chosen` when the client made one (so it could seal the first body for that
    /// id), refused when another blob has it; else a new random one. The quotas are checked in
    /// the write transaction, so concurrent creates cannot pass them together; expired blobs
    /// are removed first.
    pub async fn create(
        &self,
        kind: Kind,
        client: ClientKey,
        token: Token,
        chosen: Option<String>,
        body: Vec<u8>,
        owner: bool,
    ) -> Result<Created, SyncError> {
        let now = self.now();
        let quotas = self.quotas;
        self.db
            .write(move |conn| {
                let tx = conn.transaction()?;
                expire_in(&tx, now)?;
                let hash = token.hash();
                let existing: Option<(String, i64)> = tx
                    .query_row(
                        "SELECT id, version FROM sync_blobs WHERE kind = ?1 AND token_hash = ?2",
                        params![kind.as_str(), hash],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .optional()?;
                if let Some((id, version)) = existing {
                    tx.commit()?;
                    return Ok(Ok(Created {
                        id,
                        version,
                        new: false,
                    }));
                }
                let tags = client_tags(&tx, client)?;
                let held = holdings(&tx, kind, &tags, now)?;
                if let Err(e) = check_create(kind, held, body.len(), &quotas, owner) {
                    return Ok(Err(e));
                }
                let id = match chosen {
                    Some(id) => {
                        if id_in_use(&tx, &id)? {
                            return Ok(Err(SyncError::IdTaken));
                        }
                        id
                    }
                    None => new_id(),
                };
                tx.execute(
                    "INSERT INTO sync_blobs
                       (id, kind, token_hash, version, body, created_at, updated_at, read_at, client, net56, net48)
                     VALUES (?1, ?2, ?3, 1, ?4, ?5, ?5, ?5, ?6, ?7, ?8)",
                    params![id, kind.as_str(), hash, body, now.now, tags.client, tags.net56, tags.net48],
                )?;
                tx.commit()?;
                Ok(Ok(Created {
                    id,
                    version: 1,
                    new: true,
                }))
            })
            .await?
    }

    /// A live blob's version and size, without its body.
    pub async fn head(&self, kind: Kind, id: String) -> Result<Option<Head>, StoreError> {
        let now = self.now();
        self.db
            .read(move |conn| {
                Ok(conn
                    .query_row(
                        &format!(
                            "SELECT version, length(body) FROM sync_blobs
                             WHERE id = ?1 AND kind = ?2 AND {}",
                            ALIVE.replace('?', "?3")
                        ),
                        params![id, kind.as_str(), now.cutoff(kind)],
                        |r| {
                            Ok(Head {
                                version: r.get(0)?,
                                size: usize::try_from(r.get::<_, i64>(1)?).unwrap_or(0),
                            })
                        },
                    )
                    .optional()?)
            })
            .await
    }

    /// Notes that a blob was read (at most once a day), which keeps it from expiring.
    pub async fn touch(&self, kind: Kind, id: String) -> Result<(), StoreError> {
        let now = self.now();
        let stale = now.now - i64::try_from(TOUCH_EVERY.as_millis()).unwrap_or(i64::MAX);
        let due: bool = self
            .db
            .read({
                let id = id.clone();
                move |conn| {
                    Ok(conn
                        .query_row(
                            "SELECT read_at < ?3 FROM sync_blobs WHERE id = ?1 AND kind = ?2",
                            params![id, kind.as_str(), stale],
                            |r| r.get(0),
                        )
                        .optional()?
                        .unwrap_or(false))
                }
            })
            .await?;
        if due {
            self.db
                .write(move |conn| {
                    conn.execute(
                        "UPDATE sync_blobs SET read_at = ?3 WHERE id = ?1 AND kind = ?2",
                        params![id, kind.as_str(), now.now],
                    )?;
                    Ok(())
                })
                .await?;
        }
        Ok(())
    }

    /// A live blob's body at `version` (`None` when it is gone or has moved on).
    pub async fn body(
        &self,
        kind: Kind,
        id: String,
        version: i64,
    ) -> Result<Option<Vec<u8>>, StoreError> {
        let now = self.now();
        self.db
            .read(move |conn| {
                Ok(conn
                    .query_row(
                        &format!(
                            "SELECT body FROM sync_blobs
                             WHERE id = ?1 AND kind = ?2 AND version = ?3 AND {}",
                            ALIVE.replace('?', "?4")
                        ),
                        params![id, kind.as_str(), version, now.cutoff(kind)],
                        |r| r.get(0),
                    )
                    .optional()?)
            })
            .await
    }

    /// Whether the live vault `id` has the part `name`: its version and the part's size.
    pub async fn part_head(&self, id: String, name: String) -> Result<PartHead, StoreError> {
        let now = self.now();
        self.db
            .read(move |conn| {
                let Some((_, version, ..)) = stored_for_write(conn, &id, Kind::Vault, now)? else {
                    return Ok(PartHead::NoVault);
                };
                Ok(match parts::size_of(conn, &id, &name)? {
                    None => PartHead::NoPart,
                    Some(size) => PartHead::Found { version, size },
                })
            })
            .await
    }

    /// The part `name` of the live vault `id` at `version` (`None` when the vault is gone, has
    /// moved on, or no longer has the part).
    pub async fn part_body(
        &self,
        id: String,
        name: String,
        version: i64,
    ) -> Result<Option<Vec<u8>>, StoreError> {
        let now = self.now();
        self.db
            .read(
                move |conn| match stored_for_write(conn, &id, Kind::Vault, now)? {
                    None => Ok(None),
                    Some(_) => parts::body_of(conn, &id, &name, version),
                },
            )
            .await
    }

    /// What an update would meet, before its body is read: the outcome it would have if it
    /// cannot succeed, else `None`.
    pub async fn refuses_update(
        &self,
        kind: Kind,
        id: String,
        token: Option<PresentedToken>,
        base: i64,
    ) -> Result<Option<UpdateOutcome>, StoreError> {
        let now = self.now();
        self.db
            .read(move |conn| {
                Ok(match stored_for_write(conn, &id, kind, now)? {
                    None => Some(UpdateOutcome::NotFound),
                    Some((hash, _, _, _)) if !token_matches(token.as_ref(), &hash) => {
                        Some(UpdateOutcome::Forbidden)
                    }
                    Some((_, current, _, _)) if current != base => {
                        Some(UpdateOutcome::Conflict { current })
                    }
                    Some(_) => None,
                })
            })
            .await
    }

    /// Replaces the body (and the parts, `parts::replace`) when `token` is the blob's and `base`
    /// is the version stored now; the version then rises by one. Otherwise nothing changes and
    /// the outcome says why. The size checked is the vault's with its parts.
    pub async fn update(
        &self,
        kind: Kind,
        id: String,
        token: Option<PresentedToken>,
        base: i64,
        upload: Upload,
        owner: bool,
    ) -> Result<UpdateOutcome, SyncError> {
        let now = self.now();
        let quotas = self.quotas;
        self.db
            .write(move |conn| {
                let tx = conn.transaction()?;
                let Some((hash, current, old_size, tags)) = stored_for_write(&tx, &id, kind, now)?
                else {
                    return Ok(Ok(UpdateOutcome::NotFound));
                };
                if !token_matches(token.as_ref(), &hash) {
                    return Ok(Ok(UpdateOutcome::Forbidden));
                }
                if current != base {
                    return Ok(Ok(UpdateOutcome::Conflict { current }));
                }
                let Upload { body, parts } = upload;
                let new_size = match &parts {
                    None => body.len(),
                    Some(write) => match parts::planned_size(&tx, &id, body.len(), write)? {
                        Ok(size) if size > quotas.max_blob_bytes => {
                            return Ok(Err(SyncError::VaultTooLarge {
                                size,
                                limit: quotas.max_blob_bytes,
                            }))
                        }
                        Ok(size) => size,
                        Err(name) => return Ok(Ok(UpdateOutcome::MissingPart { name })),
                    },
                };
                let held = holdings(&tx, kind, &tags, now)?;
                if let Err(e) = check_growth(held, old_size, new_size, &quotas, owner) {
                    return Ok(Err(e));
                }
                let version = current + 1;
                tx.execute(
                    "UPDATE sync_blobs SET body = ?2, version = ?3, updated_at = ?4, read_at = ?4
                     WHERE id = ?1",
                    params![id, body, version, now.now],
                )?;
                parts::replace(&tx, &id, parts.as_ref())?;
                tx.commit()?;
                Ok(Ok(UpdateOutcome::Updated { version }))
            })
            .await?
    }

    pub async fn delete(
        &self,
        kind: Kind,
        id: String,
        token: Option<PresentedToken>,
    ) -> Result<DeleteOutcome, StoreError> {
        let now = self.now();
        self.db
            .write(move |conn| {
                let tx = conn.transaction()?;
                let outcome = match stored_for_write(&tx, &id, kind, now)? {
                    None => DeleteOutcome::NotFound,
                    Some((hash, ..)) if token_matches(token.as_ref(), &hash) => {
                        tx.execute("DELETE FROM sync_blobs WHERE id = ?1", [&id])?;
                        DeleteOutcome::Deleted
                    }
                    Some(_) => DeleteOutcome::Forbidden,
                };
                tx.commit()?;
                Ok(outcome)
            })
            .await
    }
}

/// A live blob's token hash, version, size (with its parts) and maker's tags.
pub(super) fn stored_for_write(
    conn: &Connection,
    id: &str,
    kind: Kind,
    now: Now,
) -> Result<Option<(String, i64, usize, ClientTags)>, StoreError> {
    Ok(conn
        .query_row(
            &format!(
                "SELECT token_hash, version, length(body) + {PARTS_SIZE}, client, net56, net48 FROM sync_blobs
                 WHERE id = ?1 AND kind = ?2 AND {}",
                ALIVE.replace('?', "?3")
            ),
            params![id, kind.as_str(), now.cutoff(kind)],
            |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    usize::try_from(r.get::<_, i64>(2)?).unwrap_or(0),
                    ClientTags {
                        client: r.get(3)?,
                        net56: r.get(4)?,
                        net48: r.get(5)?,
                    },
                ))
            },
        )
        .optional()?)
}

fn expire_in(conn: &Connection, now: Now) -> Result<usize, StoreError> {
    Ok(conn.execute(
        "DELETE FROM sync_blobs
         WHERE (kind = 'vault' AND max(read_at, updated_at) < ?1)
            OR (kind = 'share' AND max(read_at, updated_at) < ?2)",
        params![now.vault_cutoff, now.share_cutoff],
    )?)
}

/// What is stored now, all together and by the client tagged `tags` and its networks (live
/// blobs only, with their parts and media).
pub(super) fn holdings(
    conn: &Connection,
    kind: Kind,
    tags: &ClientTags,
    now: Now,
) -> Result<Holdings, StoreError> {
    let alive = "((kind = 'vault' AND max(read_at, updated_at) >= ?1)
                  OR (kind = 'share' AND max(read_at, updated_at) >= ?2))";
    let size = format!("length(body) + {PARTS_SIZE} + {MEDIA_SIZE}");
    let row: [i64; 8] = conn.query_row(
        &format!(
            "SELECT
               coalesce(sum(kind = ?3), 0),
               coalesce(sum(kind = ?3 AND client = ?4), 0),
               coalesce(sum(kind = ?3 AND net56 = ?5), 0),
               coalesce(sum(kind = ?3 AND net48 = ?6), 0),
               coalesce(sum({size}), 0),
               coalesce(sum(CASE WHEN client = ?4 THEN {size} ELSE 0 END), 0),
               coalesce(sum(CASE WHEN net56 = ?5 THEN {size} ELSE 0 END), 0),
               coalesce(sum(CASE WHEN net48 = ?6 THEN {size} ELSE 0 END), 0)
             FROM sync_blobs WHERE {alive}"
        ),
        params![
            now.vault_cutoff,
            now.share_cutoff,
            kind.as_str(),
            tags.client,
            tags.net56,
            tags.net48
        ],
        |r| {
            let mut row = [0i64; 8];
            for (i, cell) in row.iter_mut().enumerate() {
                *cell = r.get(i)?;
            }
            Ok(row)
        },
    )?;
    let n = |i: usize| to_u64(row[i]);
    Ok(Holdings {
        count: n(0),
        counts: [n(1), n(2), n(3)],
        bytes: n(4),
        bytes_by: [n(5), n(6), n(7)],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: Duration = Duration::from_secs(24 * 60 * 60);

    fn quotas() -> Quotas {
        Quotas {
            max_vaults: 16,
            max_shares: 16,
            max_blob_bytes: 1024,
            max_storage: 16 * 1024,
            media_quota: 4 * 1024,
            vault_expiry: 10 * DAY,
            share_expiry: 5 * DAY,
        }
    }

    fn client(n: u8) -> ClientKey {
        ClientKey::of(std::net::IpAddr::from([198, 51, 100, n]))
    }

    async fn blobs() -> (tempfile::TempDir, Blobs, Clock) {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(dir.path()).expect("db");
        let clock = Clock::manual();
        (dir, Blobs::new(db, clock.clone(), quotas()), clock)
    }

    #[tokio::test]
    async fn a_write_needs_the_token_and_the_current_version() {
        let (_dir, blobs, _) = blobs().await;
        let token = Token::generate();
        let created = blobs
            .create(
                Kind::Vault,
                client(1),
                token.clone(),
                None,
                b"one".to_vec(),
                false,
            )
            .await
            .expect("created");
        assert!(created.new);
        let up = |t: Option<&Token>, base: i64, body: &[u8]| {
            blobs.update(
                Kind::Vault,
                created.id.clone(),
                t.cloned().map(crate::secret::presented_in_a_test),
                base,
                Upload::whole(body.to_vec()),
                false,
            )
        };
        assert_eq!(
            up(None, 1, b"x").await.expect("ran"),
            UpdateOutcome::Forbidden
        );
        assert_eq!(
            up(Some(&token), 1, b"two").await.expect("ran"),
            UpdateOutcome::Updated { version: 2 }
        );
        assert_eq!(
            up(Some(&token), 1, b"stale").await.expect("ran"),
            UpdateOutcome::Conflict { current: 2 }
        );
        let head = blobs
            .head(Kind::Vault, created.id.clone())
            .await
            .expect("read")
            .expect("found");
        assert_eq!(
            head,
            Head {
                version: 2,
                size: 3
            }
        );
        assert_eq!(
            blobs
                .body(Kind::Vault, created.id.clone(), 2)
                .await
                .expect("read")
                .as_deref(),
            Some(&b"two"[..])
        );
        // A vault is not a share.
        assert!(blobs
            .head(Kind::Share, created.id.clone())
            .await
            .expect("read")
            .is_none());
    }

    #[tokio::test]
    async fn a_retried_create_finds_the_blob_its_token_made() {
        let (_dir, blobs, _) = blobs().await;
        let token = Token::generate();
        let first = blobs
            .create(
                Kind::Vault,
                client(1),
                token.clone(),
                None,
                b"a".to_vec(),
                false,
            )
            .await
            .expect("created");
        let again = blobs
            .create(
                Kind::Vault,
                client(1),
                token.clone(),
                None,
                b"a".to_vec(),
                false,
            )
            .await
            .expect("found");
        assert_eq!((again.id.as_str(), again.new), (first.id.as_str(), false));
        assert_eq!(
            blobs.made_with(Kind::Vault, &token).await.expect("read"),
            Some(Created {
                id: first.id,
                version: 1,
                new: false
            })
        );
    }

    #[tokio::test]
    async fn blobs_nobody_reads_expire_and_reading_keeps_them() {
        let (_dir, blobs, clock) = blobs().await;
        let make = |n: u8| {
            blobs.create(
                Kind::Vault,
                client(n),
                Token::generate(),
                None,
                b"v".to_vec(),
                false,
            )
        };
        let kept = make(1).await.expect("created");
        let left = make(2).await.expect("created");
        clock.advance(6 * DAY);
        blobs
            .touch(Kind::Vault, kept.id.clone())
            .await
            .expect("touched");
        clock.advance(6 * DAY);
        assert!(blobs
            .head(Kind::Vault, kept.id.clone())
            .await
            .expect("read")
            .is_some());
        assert!(
            blobs
                .head(Kind::Vault, left.id.clone())
                .await
                .expect("read")
                .is_none(),
            "12 days unread: gone before it is swept"
        );
        assert_eq!(blobs.expire().await.expect("swept"), 1);
    }

    #[tokio::test]
    async fn each_client_holds_its_share() {
        let (_dir, blobs, _) = blobs().await;
        // 16 vaults: a client's share is 2.
        for _ in 0..2 {
            blobs
                .create(
                    Kind::Vault,
                    client(1),
                    Token::generate(),
                    None,
                    b"v".to_vec(),
                    false,
                )
                .await
                .expect("within the share");
        }
        let refused = blobs
            .create(
                Kind::Vault,
                client(1),
                Token::generate(),
                None,
                b"v".to_vec(),
                false,
            )
            .await;
        assert!(matches!(
            refused,
            Err(SyncError::ShareTaken { share: 2, .. })
        ));
        assert!(matches!(
            blobs.may_create(Kind::Vault, client(1), 1, false).await,
            Err(SyncError::ShareTaken { .. })
        ));
        assert!(blobs
            .may_create(Kind::Vault, client(2), 1, false)
            .await
            .is_ok());
    }
}
