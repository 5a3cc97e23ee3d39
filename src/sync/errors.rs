//! How sync's errors reach HTTP: quotas and shares are 507 (room must be made first), an
//! oversized upload 413.

use super::quotas::SyncError;
use crate::http::error::AppError;

impl From<SyncError> for AppError {
    fn from(error: SyncError) -> AppError {
        match error {
            SyncError::Store(e) => AppError::Store(e),
            too_large @ SyncError::TooLarge { .. } => {
                AppError::PayloadTooLarge(too_large.to_string())
            }
            other => AppError::InsufficientStorage(other.to_string()),
        }
    }
}
