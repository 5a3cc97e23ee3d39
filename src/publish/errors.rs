//! How the publishing side's errors reach HTTP: one conversion per domain error, so the status a
//! failure gets is decided here and nowhere else.

use super::feeds::FeedError;
use super::hosted::RenderError;
use super::publishing::PublishError;
use super::quotas::QuotaError;
use super::validate::Invalid;
use super::validate::MappingTooLarge;
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

/// What the calendar routes refuse themselves (besides the errors of the parts they call).
#[derive(Debug, thiserror::Error)]
pub enum RouteError {
    #[error("send either a mapping or a template, not both")]
    MappingAndTemplate,
    #[error("mapping: send a mapping or a template to render")]
    NothingToRender,
    #[error("the request has no valid Host header")]
    NoHost,
    /// Engine work stopped at its time budget; the engine's words say what to simplify.
    #[error("{0}")]
    TooSlow(String),
    #[error("not a calendar: {0}")]
    NotACalendar(String),
    #[error("no published calendar '{0}'")]
    NoSuchCalendar(String),
    /// A hosted feed that is not there (a subscriber is told no more).
    #[error("no such calendar")]
    NoSuchFeed,
    #[error("unpublishing needs the calendar's edit token (Authorization: Bearer)")]
    EditTokenNeeded,
    #[error("a calendar's status needs its edit token (Authorization: Bearer) or the publish key")]
    StatusTokenNeeded,
    /// A hosted feed whose calendar was deleted: calendar apps may stop asking.
    #[error("this calendar was deleted by its owner")]
    Deleted,
}

impl From<RouteError> for AppError {
    fn from(error: RouteError) -> AppError {
        match error {
            RouteError::MappingAndTemplate
            | RouteError::NothingToRender
            | RouteError::NoHost
            | RouteError::TooSlow(_) => AppError::BadRequest(error.to_string()),
            RouteError::NotACalendar(_) => AppError::BadGateway(error.to_string()),
            RouteError::NoSuchCalendar(_) | RouteError::NoSuchFeed => {
                AppError::NotFound(error.to_string())
            }
            RouteError::EditTokenNeeded | RouteError::StatusTokenNeeded => {
                AppError::Forbidden(error.to_string())
            }
            RouteError::Deleted => AppError::Gone(error.to_string()),
        }
    }
}

impl From<MappingTooLarge> for AppError {
    fn from(error: MappingTooLarge) -> AppError {
        Invalid::new(format!("mapping.{}", error.field), error.to_string()).into()
    }
}

impl From<PublishError> for AppError {
    fn from(error: PublishError) -> AppError {
        match error {
            // A merged calendar's feed: its failure, named on that source's address.
            // A merged calendar's feed: its failure, named on that source's address (or on its
            // login, when the login is what failed).
            PublishError::Source { index, error } => {
                let about_login = matches!(
                    &*error,
                    PublishError::Feed(FeedError::Fetch(e)) if e.is_about_login()
                );
                let field = if about_login {
                    format!("sources[{index}].auth")
                } else {
                    format!("sources[{index}].url")
                };
                match AppError::from(*error) {
                    AppError::Invalid { message, .. } => AppError::Invalid { field, message },
                    AppError::BadGateway(message) => AppError::UpstreamField { field, message },
                    other => other,
                }
            }
            PublishError::Invalid(e) => e.into(),
            PublishError::Quota(e) => e.into(),
            // Addresses that cannot be fetched are the request's fault, named on its field.
            PublishError::Feed(FeedError::Fetch(e)) if e.is_client_error() => AppError::Invalid {
                field: "url".into(),
                message: e.to_string(),
            },
            PublishError::Feed(e) => match AppError::from(e) {
                AppError::BadGateway(m) => {
                    AppError::BadGateway(format!("the feed could not be fetched: {m}"))
                }
                other => other,
            },
            PublishError::TooLarge(e) => e.into(),
            PublishError::TooSlow(message) => AppError::BadRequest(message),
            forbidden @ PublishError::Forbidden(_) => AppError::Forbidden(forbidden.to_string()),
            PublishError::Work(e) => e.into(),
            PublishError::Store(e) => AppError::Store(e),
            PublishError::Sealing(e) => AppError::Internal(e.to_string()),
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
            WorkError::Spent { retry_after } | WorkError::PublisherSpent { retry_after } => {
                AppError::Throttled {
                    message: error.to_string(),
                    retry_after,
                }
            }
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
            FeedError::Quota(e) => e.into(),
            FeedError::Throttled(t) => AppError::Throttled {
                retry_after: t.retry_after().as_secs_f64().ceil().max(1.0) as u64,
                message: t.to_string(),
            },
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
            login @ LoadError::Login { .. } => AppError::Internal(login.to_string()),
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
            HostedError::Feed(FeedError::Quota(e)) => e.into(),
            HostedError::Feed(other) => AppError::BadGateway(format!(
                "the calendar's source feed is unavailable and no copy is kept: {other}"
            )),
        }
    }
}
