//! What sync may store and each client's share of it: counts of vaults and shared decks, the
//! bytes of all of them, the size of one, and how long one nobody reads is kept. By the rule
//! every global resource follows (`fair`): no client (an IPv4 address, an IPv6 /64) may hold
//! more than an eighth of any quota (its /56 and /48 a bounded multiple in aggregate), and the
//! last eighth of each count and of the storage is kept for clients that hold none yet, so a new
//! learner can always start however much others have taken. The messages never tell a client
//! what others use.

use std::time::Duration;

use crate::config::SyncSettings;
use crate::fair::{Held, Level, Refusal, Shares};
use crate::store::StoreError;

/// What a blob holds; each kind has its own count quota, expiry and routes.
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

    fn plural(self) -> &'static str {
        match self {
            Kind::Vault => "sync vaults",
            Kind::Share => "shared decks",
        }
    }

    fn flag(self) -> &'static str {
        match self {
            Kind::Vault => "--max-vaults",
            Kind::Share => "--max-shares",
        }
    }
}

/// One client's share of a quota is this part of it, and this part is kept for newcomers.
const SHARE_DIVISOR: u64 = 8;

/// Limits on what sync may store (`--max-vaults`, `--max-shares`, `--max-vault-size`,
/// `--max-sync-storage`, `--sync-media-quota`, `--vault-expiry`, `--share-expiry`).
#[derive(Debug, Clone, Copy)]
pub struct Quotas {
    pub max_vaults: usize,
    pub max_shares: usize,
    pub max_blob_bytes: usize,
    pub max_storage: u64,
    /// Bytes of the media beside one blob.
    pub media_quota: u64,
    pub vault_expiry: Duration,
    pub share_expiry: Duration,
}

impl Quotas {
    pub fn of(settings: &SyncSettings) -> Quotas {
        Quotas {
            max_vaults: settings.max_vaults,
            max_shares: settings.max_shares,
            max_blob_bytes: settings.max_vault_size,
            max_storage: settings.max_sync_storage,
            media_quota: settings.media_quota,
            vault_expiry: settings.vault_expiry,
            share_expiry: settings.share_expiry,
        }
    }

    pub fn max_count(&self, kind: Kind) -> u64 {
        match kind {
            Kind::Vault => self.max_vaults as u64,
            Kind::Share => self.max_shares as u64,
        }
    }

    pub fn expiry(&self, kind: Kind) -> Duration {
        match kind {
            Kind::Vault => self.vault_expiry,
            Kind::Share => self.share_expiry,
        }
    }

    /// How many of `kind` one client may hold.
    pub fn count_share(&self, kind: Kind) -> u64 {
        (self.max_count(kind) / SHARE_DIVISOR).max(1)
    }

    /// How many bytes one client's blobs may take together.
    pub fn storage_share(&self) -> u64 {
        (self.max_storage / SHARE_DIVISOR).max(self.max_blob_bytes as u64)
    }

    /// The bytes only clients that hold nothing may use: without it, eight clients filling
    /// their shares would leave no room for any new learner's vault, whatever the counts keep.
    fn storage_kept(&self) -> u64 {
        self.max_storage / SHARE_DIVISOR
    }

    fn count_shares(&self, kind: Kind) -> Shares {
        let total = self.max_count(kind);
        Shares {
            total,
            per_client: self.count_share(kind),
            newcomers: total / SHARE_DIVISOR,
            server: 0,
        }
    }

    fn storage_shares(&self) -> Shares {
        Shares {
            total: self.max_storage,
            per_client: self.storage_share(),
            newcomers: self.storage_kept(),
            server: 0,
        }
    }
}

/// What is stored now (expired blobs not counted), all together and by one client's groups
/// (itself, its /56, its /48: see `fair::Level`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Holdings {
    /// Blobs of the kind being made.
    pub count: u64,
    pub counts: [u64; 3],
    /// Bytes of all blobs of both kinds.
    pub bytes: u64,
    pub bytes_by: [u64; 3],
}

impl Holdings {
    fn of_count(&self) -> Held {
        Held {
            total: self.count,
            server: 0,
            by: self.counts,
        }
    }

    fn of_bytes(&self) -> Held {
        Held {
            total: self.bytes,
            server: 0,
            by: self.bytes_by,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error("this server holds as many {what} as its owner allows: ask the site's owner to raise {flag}")]
    Full {
        what: &'static str,
        flag: &'static str,
    },
    #[error("your address already holds its share of this server's {what} ({share}): remove ones you no longer need first")]
    ShareTaken { what: &'static str, share: u64 },
    #[error("your network already holds its share of this server's {what}: remove ones you no longer need first")]
    NetworkShareTaken { what: &'static str },
    #[error("this server is nearly full, and the room left is kept for learners who have no {what} here yet")]
    KeptForNewcomers { what: &'static str },
    #[error("the server's storage for sync is full: revoke shared decks you no longer need, or ask the site's owner to raise --max-sync-storage")]
    StorageFull,
    #[error("your address already uses its share of this server's storage for sync: revoke shared decks you no longer need first")]
    StorageShareTaken,
    #[error("your network already uses its share of this server's storage for sync: revoke shared decks you no longer need first")]
    NetworkStorageShareTaken,
    #[error("the server's storage for sync is nearly full, and the room left is kept for learners who have nothing stored here yet: revoke shared decks you no longer need first")]
    StorageKeptForNewcomers,
    #[error("the upload is {size} bytes, more than the {limit} bytes this server accepts (--max-vault-size)")]
    TooLarge { size: usize, limit: usize },
    /// A write in parts whose vault, manifest and parts together, would be too large.
    #[error("the vault with its parts would be {size} bytes, more than the {limit} bytes this server accepts (--max-vault-size)")]
    VaultTooLarge { size: usize, limit: usize },
    /// A media file would take the blob's media past `--sync-media-quota`.
    #[error("this vault's pictures and sounds would take more than its media quota of {quota} bytes (--sync-media-quota): remove cards' pictures or sounds you no longer need, or ask the site's owner to raise it")]
    MediaQuotaReached { quota: u64 },
    /// A blob holds as many media files as one may.
    #[error("this vault holds {most} pictures and sounds, as many as one may: remove cards' pictures or sounds you no longer need")]
    MediaFilesReached { most: usize },
    /// The id the client chose for a new blob belongs to another one.
    #[error("a vault or shared deck with this id exists already: make a new id and send the create again")]
    IdTaken,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Whether a client holding `h` may make one more blob of `kind` of `size` bytes. The site's
/// owner (publish key) is held to the quotas but not to a client's share.
pub fn check_create(
    kind: Kind,
    h: Holdings,
    size: usize,
    q: &Quotas,
    owner: bool,
) -> Result<(), SyncError> {
    if size > q.max_blob_bytes {
        return Err(SyncError::TooLarge {
            size,
            limit: q.max_blob_bytes,
        });
    }
    let count = q.count_shares(kind);
    let storage = q.storage_shares();
    let size = size as u64;
    if owner {
        count
            .check_server(&h.of_count(), 1)
            .map_err(|r| count_refusal(kind, q, r))?;
        return storage
            .check_server(&h.of_bytes(), size)
            .map_err(storage_refusal);
    }
    // The whole first, then the shares, then the room kept: the message names the first
    // reason that holds.
    count
        .check_server(&h.of_count(), 1)
        .map_err(|r| count_refusal(kind, q, r))?;
    storage
        .check_server(&h.of_bytes(), size)
        .map_err(storage_refusal)?;
    count
        .check_client(&h.of_count(), 1)
        .map_err(|r| count_refusal(kind, q, r))?;
    // Uploads are never empty, so a client with no bytes stored holds nothing.
    storage
        .check_client(&h.of_bytes(), size)
        .map_err(storage_refusal)
}

/// Whether a blob of `old` bytes may become `new` bytes, its maker holding `h`. A write that
/// does not grow is always allowed (the owner may have lowered a quota).
pub fn check_growth(
    h: Holdings,
    old: usize,
    new: usize,
    q: &Quotas,
    owner: bool,
) -> Result<(), SyncError> {
    if new > q.max_blob_bytes {
        return Err(SyncError::TooLarge {
            size: new,
            limit: q.max_blob_bytes,
        });
    }
    if new <= old {
        return Ok(());
    }
    let added = (new - old) as u64;
    let storage = q.storage_shares();
    storage
        .check_server(&h.of_bytes(), added)
        .map_err(storage_refusal)?;
    if owner {
        return Ok(());
    }
    // Whoever grows a blob holds one: the room kept for newcomers is not theirs.
    let mut held = h.of_bytes();
    held.by[Level::Client as usize] = held.by[Level::Client as usize].max(1);
    storage.check_client(&held, added).map_err(storage_refusal)
}

fn count_refusal(kind: Kind, q: &Quotas, refusal: Refusal) -> SyncError {
    match refusal {
        Refusal::Full => SyncError::Full {
            what: kind.plural(),
            flag: kind.flag(),
        },
        Refusal::Share(Level::Client) => SyncError::ShareTaken {
            what: kind.plural(),
            share: q.count_share(kind),
        },
        Refusal::Share(_) => SyncError::NetworkShareTaken {
            what: kind.plural(),
        },
        Refusal::KeptForNewcomers => SyncError::KeptForNewcomers {
            what: kind.plural(),
        },
    }
}

fn storage_refusal(refusal: Refusal) -> SyncError {
    match refusal {
        Refusal::Full => SyncError::StorageFull,
        Refusal::Share(Level::Client) => SyncError::StorageShareTaken,
        Refusal::Share(_) => SyncError::NetworkStorageShareTaken,
        Refusal::KeptForNewcomers => SyncError::StorageKeptForNewcomers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const Q: Quotas = Quotas {
        max_vaults: 80,
        max_shares: 800,
        max_blob_bytes: 1000,
        max_storage: 80_000,
        media_quota: 10_000,
        vault_expiry: Duration::from_secs(1),
        share_expiry: Duration::from_secs(1),
    };

    /// What an IPv4 client holds (its networks are itself).
    fn h(count: u64, client_count: u64, bytes: u64, client_bytes: u64) -> Holdings {
        Holdings {
            count,
            counts: [client_count; 3],
            bytes,
            bytes_by: [client_bytes; 3],
        }
    }

    #[test]
    fn a_client_holds_an_eighth_of_each_quota() {
        let mine = h(20, 10, 1000, 1000);
        assert!(matches!(
            check_create(Kind::Vault, mine, 10, &Q, false),
            Err(SyncError::ShareTaken { share: 10, .. })
        ));
        assert!(
            check_create(Kind::Vault, mine, 10, &Q, true).is_ok(),
            "the owner"
        );
        let storage = h(1, 1, 9_500, 9_500);
        assert!(matches!(
            check_create(Kind::Share, storage, 600, &Q, false),
            Err(SyncError::StorageShareTaken)
        ));
        assert!(matches!(
            check_growth(storage, 100, 700, &Q, false),
            Err(SyncError::StorageShareTaken)
        ));
        assert!(
            check_growth(storage, 700, 100, &Q, false).is_ok(),
            "shrinking"
        );
    }

    #[test]
    fn a_network_holds_a_bounded_multiple_of_a_clients_share() {
        // A /64 that holds nothing, in a /48 whose other /64s hold twice a client's share.
        let crowded = Holdings {
            count: 20,
            counts: [0, 0, 20],
            bytes: 1000,
            bytes_by: [0, 0, 1000],
        };
        assert!(matches!(
            check_create(Kind::Vault, crowded, 10, &Q, false),
            Err(SyncError::NetworkShareTaken { .. })
        ));
        let roomy = Holdings {
            counts: [0, 0, 19],
            ..crowded
        };
        assert!(check_create(Kind::Vault, roomy, 10, &Q, false).is_ok());
    }

    #[test]
    fn the_last_eighth_is_kept_for_clients_holding_none() {
        let nearly_full = h(70, 1, 0, 0);
        assert!(matches!(
            check_create(Kind::Vault, nearly_full, 10, &Q, false),
            Err(SyncError::KeptForNewcomers { .. })
        ));
        let newcomer = h(70, 0, 0, 0);
        assert!(check_create(Kind::Vault, newcomer, 10, &Q, false).is_ok());
        let full = h(80, 0, 0, 0);
        assert!(matches!(
            check_create(Kind::Vault, full, 10, &Q, false),
            Err(SyncError::Full { .. })
        ));
    }

    #[test]
    fn the_last_eighth_of_the_storage_is_kept_for_clients_holding_none() {
        // 70,000 of 80,000 bytes taken: the last 10,000 are kept.
        let holder = h(20, 1, 70_000, 500);
        assert!(matches!(
            check_create(Kind::Share, holder, 10, &Q, false),
            Err(SyncError::StorageKeptForNewcomers)
        ));
        assert!(matches!(
            check_growth(holder, 100, 110, &Q, false),
            Err(SyncError::StorageKeptForNewcomers)
        ));
        assert!(
            check_growth(holder, 110, 100, &Q, false).is_ok(),
            "shrinking"
        );
        let newcomer = h(20, 0, 70_000, 0);
        assert!(check_create(Kind::Vault, newcomer, 1000, &Q, false).is_ok());
        // A holder of the other kind holds something too.
        let sharer = h(20, 0, 70_000, 500);
        assert!(matches!(
            check_create(Kind::Vault, sharer, 10, &Q, false),
            Err(SyncError::StorageKeptForNewcomers)
        ));
        assert!(
            check_create(Kind::Share, holder, 10, &Q, true).is_ok(),
            "the owner"
        );
        // Below the kept room, holders make and grow as before.
        let roomy = h(20, 1, 60_000, 500);
        assert!(check_create(Kind::Share, roomy, 1000, &Q, false).is_ok());
        assert!(check_growth(roomy, 100, 900, &Q, false).is_ok());
    }

    #[test]
    fn messages_never_tell_what_others_use() {
        for e in [
            SyncError::Full {
                what: "sync vaults",
                flag: "--max-vaults",
            },
            SyncError::StorageFull,
            SyncError::StorageShareTaken,
            SyncError::NetworkStorageShareTaken,
            SyncError::StorageKeptForNewcomers,
            SyncError::KeptForNewcomers {
                what: "sync vaults",
            },
            SyncError::NetworkShareTaken {
                what: "sync vaults",
            },
        ] {
            let text = e.to_string();
            assert!(!text.chars().any(|c| c.is_ascii_digit()), "{text}");
        }
    }
}
