//! Stored blobs (vaults and shared decks): create with a fresh random id and write token, read by
//! id, update only with the token and the version the writer started from (compare-and-swap),
//! remove with the token. Counts and bytes stay within the owner's quotas.

use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{params, OptionalExtension};
use sha2::{Digest, Sha256};

use crate::config::Config;
use crate::secret::same;
use crate::store::{Db, StoreError};

/// What a blob holds; each kind has its own count quota and its own routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// All decks, review logs and calendars of one learner's devices.
    Vault,
    /// One deck, read-only for whoever has the link.
    Share,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Vault => "vault",
            Kind::Share => "share",
        }
    }

    /// The path segment of its routes (`vaults`, `shares`).
    pub fn from_segment(segment: &str) -> Option<Kind> {
        match segment {
            "vaults" => Some(Kind::Vault),
            "shares" => Some(Kind::Share),
            _ => None,
        }
    }
}

/// Limits on what sync may store (`--max-vaults`, `--max-shares`, `--max-vault-size`,
/// `--max-sync-storage`).
#[derive(Debug, Clone, Copy)]
pub struct Quotas {
    pub max_vaults: usize,
    pub max_shares: usize,
    pub max_blob_bytes: usize,
    pub max_storage: u64,
}

impl Quotas {
    pub fn of(config: &Config) -> Quotas {
        Quotas {
            max_vaults: config.max_vaults,
            max_shares: config.max_shares,
            max_blob_bytes: config.max_vault_size,
            max_storage: config.max_sync_storage,
        }
    }

    fn max_count(&self, kind: Kind) -> usize {
        match kind {
            Kind::Vault => self.max_vaults,
            Kind::Share => self.max_shares,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error(
        "this server already holds its limit of {limit} {what}: ask the site's owner to raise {flag}"
    )]
    TooMany {
        limit: usize,
        what: &'static str,
        flag: &'static str,
    },
    #[error(
        "the server's storage for sync is full ({used} of {limit} bytes used): revoke shared decks \
         you no longer need, or ask the site's owner to raise --max-sync-storage"
    )]
    StorageFull { used: u64, limit: u64 },
    #[error("the upload is {size} bytes, more than the {limit} bytes this server accepts (--max-vault-size)")]
    TooLarge { size: usize, limit: usize },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A blob just created: the token is shown this once.
#[derive(Debug)]
pub struct Created {
    pub id: String,
    pub token: String,
    pub version: i64,
}

/// A stored blob as readers get it.
#[derive(Debug)]
pub struct Blob {
    pub version: i64,
    pub body: Vec<u8>,
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

fn new_token() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

fn hash_token(token: &str) -> String {
    crate::hex::encode(&Sha256::digest(token.trim().as_bytes()))
}

fn token_matches(token: Option<&str>, stored_hash: &str) -> bool {
    token.is_some_and(|t| same(&hash_token(t), stored_hash))
}

fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

fn to_u64(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// Bytes of all stored blobs (`length` of a blob reads its header, not its content).
pub fn stored_bytes(conn: &rusqlite::Connection) -> Result<u64, StoreError> {
    let used: i64 = conn.query_row(
        "SELECT coalesce(sum(length(body)), 0) FROM sync_blobs",
        [],
        |r| r.get(0),
    )?;
    Ok(to_u64(used))
}

fn check_size(size: usize, quotas: Quotas) -> Result<(), SyncError> {
    if size > quotas.max_blob_bytes {
        return Err(SyncError::TooLarge {
            size,
            limit: quotas.max_blob_bytes,
        });
    }
    Ok(())
}

/// Refuses a write that would take all blobs together past the budget.
fn check_budget(used: u64, freed: u64, added: usize, quotas: Quotas) -> Result<(), SyncError> {
    let after = used.saturating_sub(freed).saturating_add(added as u64);
    if after > quotas.max_storage && added as u64 > freed {
        return Err(SyncError::StorageFull {
            used,
            limit: quotas.max_storage,
        });
    }
    Ok(())
}

/// Stores a new blob at version 1. The count and the budget are checked in the write
/// transaction, so concurrent creations cannot pass them together.
pub async fn create(
    db: &Db,
    kind: Kind,
    body: Vec<u8>,
    quotas: Quotas,
) -> Result<Created, SyncError> {
    check_size(body.len(), quotas)?;
    db.write(move |conn| {
        let tx = conn.transaction()?;
        let count: i64 = tx.query_row(
            "SELECT count(*) FROM sync_blobs WHERE kind = ?1",
            [kind.as_str()],
            |r| r.get(0),
        )?;
        if usize::try_from(count).unwrap_or(usize::MAX) >= quotas.max_count(kind) {
            return Ok(Err(SyncError::TooMany {
                limit: quotas.max_count(kind),
                what: match kind {
                    Kind::Vault => "sync vaults",
                    Kind::Share => "shared decks",
                },
                flag: match kind {
                    Kind::Vault => "--max-vaults",
                    Kind::Share => "--max-shares",
                },
            }));
        }
        if let Err(e) = check_budget(stored_bytes(&tx)?, 0, body.len(), quotas) {
            return Ok(Err(e));
        }
        let id = new_id();
        let token = new_token();
        let now = now_millis();
        tx.execute(
            "INSERT INTO sync_blobs (id, kind, token_hash, version, body, created_at, updated_at)
             VALUES (?1, ?2, ?3, 1, ?4, ?5, ?5)",
            params![id, kind.as_str(), hash_token(&token), body, now],
        )?;
        tx.commit()?;
        Ok(Ok(Created {
            id,
            token,
            version: 1,
        }))
    })
    .await?
}

/// The stored version of a blob, without reading its body (for conditional reads).
pub async fn version(db: &Db, kind: Kind, id: String) -> Result<Option<i64>, StoreError> {
    db.read(move |conn| {
        Ok(conn
            .query_row(
                "SELECT version FROM sync_blobs WHERE id = ?1 AND kind = ?2",
                params![id, kind.as_str()],
                |r| r.get(0),
            )
            .optional()?)
    })
    .await
}

pub async fn get(db: &Db, kind: Kind, id: String) -> Result<Option<Blob>, StoreError> {
    db.read(move |conn| {
        Ok(conn
            .query_row(
                "SELECT version, body FROM sync_blobs WHERE id = ?1 AND kind = ?2",
                params![id, kind.as_str()],
                |r| {
                    Ok(Blob {
                        version: r.get(0)?,
                        body: r.get(1)?,
                    })
                },
            )
            .optional()?)
    })
    .await
}

/// Replaces the body when `token` is the blob's and `base` is the version stored now; the
/// version then rises by one. Otherwise nothing changes and the outcome says why.
pub async fn update(
    db: &Db,
    kind: Kind,
    id: String,
    token: Option<String>,
    base: i64,
    body: Vec<u8>,
    quotas: Quotas,
) -> Result<UpdateOutcome, SyncError> {
    check_size(body.len(), quotas)?;
    db.write(move |conn| {
        let tx = conn.transaction()?;
        let stored: Option<(String, i64, i64)> = tx
            .query_row(
                "SELECT token_hash, version, length(body) FROM sync_blobs WHERE id = ?1 AND kind = ?2",
                params![id, kind.as_str()],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let Some((hash, current, old_size)) = stored else {
            return Ok(Ok(UpdateOutcome::NotFound));
        };
        if !token_matches(token.as_deref(), &hash) {
            return Ok(Ok(UpdateOutcome::Forbidden));
        }
        if current != base {
            return Ok(Ok(UpdateOutcome::Conflict { current }));
        }
        if let Err(e) = check_budget(stored_bytes(&tx)?, to_u64(old_size), body.len(), quotas) {
            return Ok(Err(e));
        }
        let version = current + 1;
        tx.execute(
            "UPDATE sync_blobs SET body = ?2, version = ?3, updated_at = ?4 WHERE id = ?1",
            params![id, body, version, now_millis()],
        )?;
        tx.commit()?;
        Ok(Ok(UpdateOutcome::Updated { version }))
    })
    .await?
}

pub async fn delete(
    db: &Db,
    kind: Kind,
    id: String,
    token: Option<String>,
) -> Result<DeleteOutcome, StoreError> {
    db.write(move |conn| {
        let tx = conn.transaction()?;
        let hash: Option<String> = tx
            .query_row(
                "SELECT token_hash FROM sync_blobs WHERE id = ?1 AND kind = ?2",
                params![id, kind.as_str()],
                |r| r.get(0),
            )
            .optional()?;
        let outcome = match hash {
            None => DeleteOutcome::NotFound,
            Some(hash) if token_matches(token.as_deref(), &hash) => {
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

#[cfg(test)]
mod tests {
    use super::*;

    const PLENTY: Quotas = Quotas {
        max_vaults: 10,
        max_shares: 10,
        max_blob_bytes: 1024,
        max_storage: 4096,
    };

    #[test]
    fn ids_are_128_bit_hex_and_tokens_are_stored_hashed() {
        let id = new_id();
        assert!(valid_id(&id), "{id}");
        assert!(!valid_id("../etc"));
        assert!(!valid_id(&"g".repeat(32)));
        let token = new_token();
        assert!(token_matches(Some(&token), &hash_token(&token)));
        assert!(!token_matches(Some("x"), &hash_token(&token)));
        assert!(!token_matches(None, &hash_token(&token)));
    }

    #[test]
    fn the_budget_refuses_growth_past_it_but_never_a_shrinking_write() {
        assert!(check_budget(4000, 0, 96, PLENTY).is_ok());
        assert!(check_budget(4000, 0, 97, PLENTY).is_err());
        // Already over (the owner lowered the budget): a smaller body is still accepted.
        assert!(check_budget(5000, 500, 100, PLENTY).is_ok());
    }

    #[tokio::test]
    async fn a_write_needs_the_token_and_the_current_version() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(dir.path()).expect("db");
        let created = create(&db, Kind::Vault, b"one".to_vec(), PLENTY)
            .await
            .expect("created");
        let up = |token: Option<&str>, base: i64, body: &[u8]| {
            update(
                &db,
                Kind::Vault,
                created.id.clone(),
                token.map(str::to_owned),
                base,
                body.to_vec(),
                PLENTY,
            )
        };
        assert_eq!(
            up(None, 1, b"x").await.expect("ran"),
            UpdateOutcome::Forbidden
        );
        assert_eq!(
            up(Some(&created.token), 1, b"two").await.expect("ran"),
            UpdateOutcome::Updated { version: 2 }
        );
        assert_eq!(
            up(Some(&created.token), 1, b"stale").await.expect("ran"),
            UpdateOutcome::Conflict { current: 2 }
        );
        let blob = get(&db, Kind::Vault, created.id.clone())
            .await
            .expect("read")
            .expect("found");
        assert_eq!((blob.version, blob.body.as_slice()), (2, &b"two"[..]));
        // A vault is not a share.
        assert!(get(&db, Kind::Share, created.id.clone())
            .await
            .expect("read")
            .is_none());
    }
}
