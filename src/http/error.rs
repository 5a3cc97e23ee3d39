//! One error type for every handler: each variant maps to a status code and a JSON body
//! `{"error": "..."}`. Internals of 5xx errors are logged (with the request id from the span),
//! never sent to the client.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    MethodNotAllowed(String),
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error("{0}")]
    Misdirected(String),
    #[error("{}", wait_message(*.retry_after))]
    TooManyRequests { retry_after: u64 },
    #[error("{0}")]
    BadGateway(String),
    #[error("{0}")]
    Unavailable(String),
    /// 507: a quota or the disk is full; the owner must act, retrying will not help.
    #[error("{0}")]
    InsufficientStorage(String),
    #[error("database: {0}")]
    Store(#[from] StoreError),
    #[error("{0}")]
    Internal(String),
}

/// What a client is told when a write failed for lack of disk space.
pub const DISK_FULL: &str =
    "the server's disk is full, so nothing was saved: the site's owner needs to free space on it";

impl AppError {
    pub fn status(&self) -> StatusCode {
        match self {
            AppError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AppError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            AppError::Forbidden(_) => StatusCode::FORBIDDEN,
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
            AppError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            AppError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            AppError::Misdirected(_) => StatusCode::MISDIRECTED_REQUEST,
            AppError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            AppError::BadGateway(_) => StatusCode::BAD_GATEWAY,
            AppError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            AppError::InsufficientStorage(_) => StatusCode::INSUFFICIENT_STORAGE,
            AppError::Store(e) if e.is_disk_full() => StatusCode::INSUFFICIENT_STORAGE,
            AppError::Store(_) | AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let status = self.status();
        let message = match &self {
            AppError::Store(e) if e.is_disk_full() => {
                tracing::error!(error = %self, "request failed: the disk is full");
                DISK_FULL.to_owned()
            }
            _ if status == StatusCode::INTERNAL_SERVER_ERROR => {
                tracing::error!(error = %self, "request failed");
                "internal error: the server log has the details".to_owned()
            }
            _ => self.to_string(),
        };
        let mut response = json_error(status, message);
        if let AppError::TooManyRequests { retry_after } = self {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after));
        }
        response
    }
}

/// The words of a 429, so the editor can show them as they are.
fn wait_message(seconds: u64) -> String {
    let unit = if seconds == 1 { "second" } else { "seconds" };
    format!("too many requests from your address: try again in {seconds} {unit}")
}

/// A JSON error body with the given status.
pub fn json_error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(json!({ "error": message.into() }))).into_response()
}
