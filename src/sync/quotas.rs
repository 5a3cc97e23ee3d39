//! What sync may store and each client's share of it: counts of vaults and shared decks, the
//! bytes of all of them, the size of one, and how long one nobody reads is kept. No client (an
//! IPv4 address, an IPv6 /64) may hold more than an eighth of any quota, and the last eighth of
//! each count and of the storage is kept for clients that hold none yet, so a new learner can
//! always start however much others have taken. The messages never tell a client what others use.

use std::time::Duration;

use crate::config::SyncSettings;
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
/// `--max-sync-storage`, `--vault-expiry`, `--share-expiry`).
#[derive(Debug, Clone, Copy)]
pub struct Quotas {
    pub max_vaults: usize,
    pub max_shares: usize,
    pub max_blob_bytes: usize,
    pub max_storage: u64,
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
}

/// What is stored now (expired blobs not counted), all together and for one client.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Holdings {
    /// Blobs of the kind being made.
    pub count: u64,
    pub client_count: u64,
    /// Bytes of all blobs of both kinds.
    pub bytes: u64,
    pub client_bytes: u64,
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
    #[error("this server is nearly full, and the room left is kept for learners who have no {what} here yet")]
    KeptForNewcomers { what: &'static str },
    #[error("the server's storage for sync is full: revoke shared decks you no longer need, or ask the site's owner to raise --max-sync-storage")]
    StorageFull,
    #[error("your address already uses its share of this server's storage for sync: revoke shared decks you no longer need first")]
    StorageShareTaken,
    #[error("the server's storage for sync is nearly full, and the room left is kept for learners who have nothing stored here yet: revoke shared decks you no longer need first")]
    StorageKeptForNewcomers,
    #[error("the upload is {size} bytes, more than the {limit} bytes this server accepts (--max-vault-size)")]
    TooLarge { size: usize, limit: usize },
    /// A write in parts whose vault, manifest and parts together, would be too large.
    #[error("the vault with its parts would be {size} bytes, more than the {limit} bytes this server accepts (--max-vault-size)")]
    VaultTooLarge { size: usize, limit: usize },
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
    let max = q.max_count(kind);
    if h.count >= max {
        return Err(SyncError::Full {
            what: kind.plural(),
            flag: kind.flag(),
        });
    }
    let size = size as u64;
    if h.bytes.saturating_add(size) > q.max_storage {
        return Err(SyncError::StorageFull);
    }
    if owner {
        return Ok(());
    }
    if h.client_count >= q.count_share(kind) {
        return Err(SyncError::ShareTaken {
            what: kind.plural(),
            share: q.count_share(kind),
        });
    }
    if h.client_bytes.saturating_add(size) > q.storage_share() {
        return Err(SyncError::StorageShareTaken);
    }
    let kept = max / SHARE_DIVISOR;
    if h.client_count > 0 && h.count >= max - kept {
        return Err(SyncError::KeptForNewcomers {
            what: kind.plural(),
        });
    }
    // Uploads are never empty, so a client with no bytes stored holds nothing.
    if h.client_bytes > 0
        && h.bytes.saturating_add(size) > q.max_storage.saturating_sub(q.storage_kept())
    {
        return Err(SyncError::StorageKeptForNewcomers);
    }
    Ok(())
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
    if h.bytes.saturating_add(added) > q.max_storage {
        return Err(SyncError::StorageFull);
    }
    if owner {
        return Ok(());
    }
    if h.client_bytes.saturating_add(added) > q.storage_share() {
        return Err(SyncError::StorageShareTaken);
    }
    // Whoever grows a blob holds one: the room kept for newcomers is not theirs.
    if h.bytes.saturating_add(added) > q.max_storage.saturating_sub(q.storage_kept()) {
        return Err(SyncError::StorageKeptForNewcomers);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const Q: Quotas = Quotas {
        max_vaults: 80,
        max_shares: 800,
        max_blob_bytes: 1000,
        max_storage: 80_000,
        vault_expiry: Duration::from_secs(1),
        share_expiry: Duration::from_secs(1),
    };

    #[test]
    fn a_client_holds_an_eighth_of_each_quota() {
        let mine = Holdings {
            count: 20,
            client_count: 10,
            bytes: 1000,
            client_bytes: 1000,
        };
        assert!(matches!(
            check_create(Kind::Vault, mine, 10, &Q, false),
            Err(SyncError::ShareTaken { share: 10, .. })
        ));
        assert!(
            check_create(Kind::Vault, mine, 10, &Q, true).is_ok(),
            "the owner"
        );
        let storage = Holdings {
            count: 1,
            client_count: 1,
            bytes: 9_500,
            client_bytes: 9_500,
        };
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
    fn the_last_eighth_is_kept_for_clients_holding_none() {
        let nearly_full = Holdings {
            count: 70,
            client_count: 1,
            bytes: 0,
            client_bytes: 0,
        };
        assert!(matches!(
            check_create(Kind::Vault, nearly_full, 10, &Q, false),
            Err(SyncError::KeptForNewcomers { .. })
        ));
        let newcomer = Holdings {
            client_count: 0,
            ..nearly_full
        };
        assert!(check_create(Kind::Vault, newcomer, 10, &Q, false).is_ok());
        let full = Holdings {
            count: 80,
            ..newcomer
        };
        assert!(matches!(
            check_create(Kind::Vault, full, 10, &Q, false),
            Err(SyncError::Full { .. })
        ));
    }

    #[test]
    fn the_last_eighth_of_the_storage_is_kept_for_clients_holding_none() {
        // 70,000 of 80,000 bytes taken: the last 10,000 are kept.
        let holder = Holdings {
            count: 20,
            client_count: 1,
            bytes: 70_000,
            client_bytes: 500,
        };
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
        let newcomer = Holdings {
            client_count: 0,
            client_bytes: 0,
            ..holder
        };
        assert!(check_create(Kind::Vault, newcomer, 1000, &Q, false).is_ok());
        // A holder of the other kind holds something too.
        let sharer = Holdings {
            client_count: 0,
            ..holder
        };
        assert!(matches!(
            check_create(Kind::Vault, sharer, 10, &Q, false),
            Err(SyncError::StorageKeptForNewcomers)
        ));
        assert!(
            check_create(Kind::Share, holder, 10, &Q, true).is_ok(),
            "the owner"
        );
        // Below the kept room, holders make and grow as before.
        let roomy = Holdings {
            bytes: 60_000,
            ..holder
        };
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
            SyncError::StorageKeptForNewcomers,
            SyncError::KeptForNewcomers {
                what: "sync vaults",
            },
        ] {
            let text = e.to_string();
            assert!(!text.chars().any(|c| c.is_ascii_digit()), "{text}");
        }
    }
}
