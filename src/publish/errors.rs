//! How the publishing side's errors reach HTTP: one conversion per domain error, so the status a
//! failure gets is decided here and nowhere else.

use super::calendars::{Invalid, QuotaError};
use super::feeds::FeedError;
use super::hosted::RenderError;
use super::workers::WorkError;
use super::{HostedError, LoadError};
use crate::http::error::AppError;

impl From<QuotaError> for AppError {
    fn from(error: QuotaError) -> AppError {
        match error {
            QuotaError::Store(e) => AppError::Store(e),
            other => AppError::InsufficientStorage(other.to_string()),
        }
    }
}

impl From<Invalid> for AppError {
    fn from(error: Invalid) -> AppError {
        AppError::Invalid {
            field: error.field,
            message: error.message,
        }
    }
}

impl From<WorkError> for AppError {
    fn from(error: WorkError) -> AppError {
        match error {
            WorkError::Busy => AppError::Busy {
                message: error.to_string(),
                retry_after: 5,
            },
            WorkError::Spent { retry_after } => AppError::Throttled {
                message: error.to_string(),
                retry_after,
            },
            WorkError::Stopped => AppError::Internal(error.to_string()),
        }
    }
}

impl From<FeedError> for AppError {
    fn from(error: FeedError) -> AppError {
        match error {
            FeedError::Fetch(e) if e.is_client_error() => AppError::BadRequest(e.to_string()),
            FeedError::Fetch(e) => AppError::BadGateway(e.to_string()),
            FeedError::NotCalendar(m) => AppError::BadGateway(format!("not a calendar: {m}")),
            FeedError::Store(e) => AppError::Store(e),
            FeedError::Busy(e) => e.into(),
        }
    }
}

impl From<LoadError> for AppError {
    fn from(error: LoadError) -> AppError {
        match error {
            LoadError::Store(e) => AppError::Store(e),
            LoadError::Busy(e) => e.into(),
            mapping @ LoadError::Mapping { .. } => AppError::BadGateway(format!(
                "{mapping}: republish the calendar with a mapping that does"
            )),
            url @ LoadError::StoredUrl(_) => AppError::Internal(url.to_string()),
        }
    }
}

impl From<RenderError> for AppError {
    fn from(error: RenderError) -> AppError {
        match error {
            RenderError::Busy(e) => e.into(),
            other => AppError::BadGateway(other.to_string()),
        }
    }
}

impl From<HostedError> for AppError {
    fn from(error: HostedError) -> AppError {
        match error {
            HostedError::Load(e) => e.into(),
            HostedError::Render(e) => e.into(),
            HostedError::Feed(FeedError::Store(e)) => AppError::Store(e),
            HostedError::Feed(FeedError::Busy(e)) => e.into(),
            HostedError::Feed(other) => AppError::BadGateway(format!(
                "the calendar's source feed is unavailable and no copy is kept: {other}"
            )),
        }
    }
}
