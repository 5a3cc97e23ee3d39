//! How sync's errors reach HTTP, decided here and nowhere else: quotas and shares are 507 (room
//! must be made first), an oversized upload or vault 413, an id another blob has 409, a bad
//! `Sync-Parts` header or frame 400, what the routes refuse themselves as below.

use super::frame::FrameError;
use super::quotas::SyncError;
use crate::http::error::AppError;

/// What the sync routes refuse themselves (besides quotas and the parts they call).
#[derive(Debug, thiserror::Error)]
pub enum RouteError {
    #[error("sync is turned off on this server")]
    TurnedOff,
    #[error("no API route for /api/sync/{0}")]
    NoRoute(String),
    #[error(
        "no such vault or shared deck: it was never made, it was revoked, or nobody opened it \
         for too long and it expired"
    )]
    Missing,
    #[error("send the upload as Content-Type: application/octet-stream")]
    NotOctets,
    #[error("the upload is empty")]
    Empty,
    #[error("the write token must be 32 to 128 letters, digits, '-' or '_'")]
    BadToken,
    #[error("X-Blob-Id must be 32 lowercase hexadecimal digits")]
    BadId,
    #[error("send the version this write starts from as If-Match: \"v{{version}}\"")]
    NoBase,
    /// Written or removed between reading its version and its body: the client asks again.
    #[error("this vault changed while it was being read: try again")]
    ChangedWhileRead,
    #[error("writing needs the write token given when this was made (Authorization: Bearer)")]
    WriteNeedsToken,
    #[error("removing needs the write token given when this was made (Authorization: Bearer)")]
    RemoveNeedsToken,
    #[error("shared decks have no parts: send a shared deck whole, without Sync-Parts")]
    PartsOnShare,
    #[error("a new vault is sent whole: send parts with a write (PUT) of the vault it made")]
    PartsOnCreate,
    /// Named in `Sync-Parts`, neither sent nor stored: nothing was written.
    #[error("missing part {0}: Sync-Parts names it, the body does not send it and this vault does not have it; send it")]
    MissingPart(String),
    #[error("this vault has no part {0}")]
    NoSuchPart(String),
    #[error("a media file's name must be 1 to 43 letters, digits, '-' or '_'")]
    BadMediaName,
    #[error("this vault or shared deck holds no media file {0}")]
    NoSuchMedia(String),
}

impl From<RouteError> for AppError {
    fn from(error: RouteError) -> AppError {
        let message = error.to_string();
        match error {
            RouteError::TurnedOff
            | RouteError::NoRoute(_)
            | RouteError::Missing
            | RouteError::NoSuchPart(_)
            | RouteError::NoSuchMedia(_) => AppError::NotFound(message),
            RouteError::NotOctets => AppError::UnsupportedMediaType(message),
            RouteError::Empty
            | RouteError::BadToken
            | RouteError::BadId
            | RouteError::NoBase
            | RouteError::PartsOnShare
            | RouteError::PartsOnCreate
            | RouteError::MissingPart(_)
            | RouteError::BadMediaName => AppError::BadRequest(message),
            RouteError::ChangedWhileRead => AppError::Busy {
                message,
                retry_after: 1,
            },
            RouteError::WriteNeedsToken | RouteError::RemoveNeedsToken => {
                AppError::Forbidden(message)
            }
        }
    }
}

impl From<SyncError> for AppError {
    fn from(error: SyncError) -> AppError {
        match error {
            SyncError::Store(e) => AppError::Store(e),
            too_large @ (SyncError::TooLarge { .. } | SyncError::VaultTooLarge { .. }) => {
                AppError::PayloadTooLarge(too_large.to_string())
            }
            taken @ SyncError::IdTaken => AppError::Conflict(taken.to_string()),
            other => AppError::InsufficientStorage(other.to_string()),
        }
    }
}

/// A bad `Sync-Parts` header, part name or framed body: the client sent something malformed.
impl From<FrameError> for AppError {
    fn from(error: FrameError) -> AppError {
        AppError::BadRequest(error.to_string())
    }
}
