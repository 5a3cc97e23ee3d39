//! Flashcard sync and shared decks: opaque blobs the browser encrypted (AES-GCM, key only in the
//! link's fragment), kept in SQLite behind a write token and a version number, within quotas of
//! which each client holds only its share, and forgotten when nobody reads them for long. A
//! vault or shared deck may hold sealed media files beside it (pictures and sounds, `media.rs`),
//! within a media quota of its own.

pub mod api;
pub mod blobs;
mod copies;
mod errors;
pub mod frame;
pub mod media;
pub mod media_api;
pub mod parts;
pub mod quotas;

use std::sync::Arc;
use std::time::Duration;

use crate::clock::Clock;
use crate::config::SyncSettings;
use crate::http::admission::Admission;
use crate::store::Db;

pub use blobs::Blobs;
pub use quotas::{Kind, Quotas};

/// How often blobs past their expiry are removed (reads already ignore them in between).
const EXPIRE_EVERY: Duration = Duration::from_secs(60 * 60);

/// What the sync handlers share (made once; the router hands out clones).
#[derive(Clone)]
pub struct SyncState {
    pub settings: SyncSettings,
    /// Making a vault needs the site's sync or publish key.
    pub key_required: bool,
    pub blobs: Blobs,
    copies: Arc<copies::Copies>,
    pub admission: Arc<Admission>,
}

impl SyncState {
    pub fn new(
        settings: SyncSettings,
        db: Db,
        clock: Clock,
        admission: Arc<Admission>,
    ) -> SyncState {
        let blobs = Blobs::new(db, clock, Quotas::of(&settings));
        SyncState {
            copies: Arc::new(copies::Copies::new(admission.bytes.clone())),
            key_required: admission.keys.invitation_needed().is_some(),
            settings,
            blobs,
            admission,
        }
    }

    /// Removes expired blobs now and then every hour, for as long as the server runs.
    pub fn spawn_expiry(&self) {
        if !self.settings.enabled {
            return;
        }
        let blobs = self.blobs.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(EXPIRE_EVERY);
            loop {
                every.tick().await;
                match blobs.expire().await {
                    Ok(0) => {}
                    Ok(n) => tracing::info!(removed = n, "removed sync blobs nobody read"),
                    Err(e) => tracing::warn!(error = %e, "could not remove expired sync blobs"),
                }
            }
        });
    }
}
