//! Flashcard sync and shared decks: opaque blobs the browser encrypted (AES-GCM, key only in the
//! link's fragment), kept in SQLite behind a write token and a version number, within quotas.

pub mod api;
pub mod blobs;
mod errors;

use std::sync::Arc;

use crate::config::Config;
use crate::http::limits::RateLimiters;
use crate::store::Db;

pub use blobs::{Kind, Quotas};

/// What the sync handlers share (the router gives it from the app's state).
#[derive(Clone)]
pub struct SyncState {
    pub config: Arc<Config>,
    pub db: Db,
    pub limits: Arc<RateLimiters>,
}
