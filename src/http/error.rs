//! One error type for every handler: each variant maps to a status code and a JSON body
//! `{"error": "..."}` (a field error also names its field: `{"error", "field"}`, so no client
//! parses messages). Internals of 5xx errors are logged (with the request id from the span),
//! never sent to the client. Text answers (hosted feeds, for calendar apps) follow the same rules.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("{0}")]
    BadRequest(String),
    /// 400 about one field of the request (`filters[1].pattern`, `url`, `mapping.SUMMARY`).
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    MethodNotAllowed(String),
    /// 409: the request clashes with what is stored.
    #[error("{0}")]
    Conflict(String),
    /// 410: it was here and will not be again.
    #[error("{0}")]
    Gone(String),
    #[error("{0}")]
    RequestTimeout(String),
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error("{0}")]
    Misdirected(String),
    #[error("{}", wait_message(*.retry_after))]
    TooManyRequests { retry_after: u64 },
    /// 429 with words of its own (an allowance other than a request rate).
    #[error("{message}")]
    Throttled { message: String, retry_after: u64 },
    #[error("{0}")]
    BadGateway(String),
    /// 502 about the upstream one field of the request names (`sources[1].url`).
    #[error("{field}: {message}")]
    UpstreamField { field: String, message: String },
    #[error("{0}")]
    Unavailable(String),
    /// 503 with `Retry-After`: a budget shared by everyone is spent for the moment.
    #[error("{message}")]
    Busy { message: String, retry_after: u64 },
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
            AppError::BadRequest(_) | AppError::Invalid { .. } => StatusCode::BAD_REQUEST,
            AppError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            AppError::Forbidden(_) => StatusCode::FORBIDDEN,
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
            AppError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            AppError::Conflict(_) => StatusCode::CONFLICT,
            AppError::Gone(_) => StatusCode::GONE,
            AppError::RequestTimeout(_) => StatusCode::REQUEST_TIMEOUT,
            AppError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            AppError::Misdirected(_) => StatusCode::MISDIRECTED_REQUEST,
            AppError::TooManyRequests { .. } | AppError::Throttled { .. } => {
                StatusCode::TOO_MANY_REQUESTS
            }
            AppError::BadGateway(_) | AppError::UpstreamField { .. } => StatusCode::BAD_GATEWAY,
            AppError::Unavailable(_) | AppError::Busy { .. } => StatusCode::SERVICE_UNAVAILABLE,
            AppError::InsufficientStorage(_) => StatusCode::INSUFFICIENT_STORAGE,
            AppError::Store(e) if e.is_disk_full() => StatusCode::INSUFFICIENT_STORAGE,
            AppError::Store(_) | AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl AppError {
    /// What the client is told (internals of a 5xx are logged here instead), the field it is
    /// about, and how long to wait before trying again.
    pub fn public(&self) -> (StatusCode, String, Option<&str>, Option<u64>) {
        let status = self.status();
        let message = match self {
            AppError::Store(e) if e.is_disk_full() => {
                tracing::error!(error = %self, "request failed: the disk is full");
                DISK_FULL.to_owned()
            }
            _ if status == StatusCode::INTERNAL_SERVER_ERROR => {
                tracing::error!(error = %self, "request failed");
                "internal error: the server log has the details".to_owned()
            }
            AppError::Invalid { message, .. } | AppError::UpstreamField { message, .. } => {
                message.clone()
            }
            _ => self.to_string(),
        };
        let field = match self {
            AppError::Invalid { field, .. } | AppError::UpstreamField { field, .. } => {
                Some(field.as_str())
            }
            _ => None,
        };
        let retry_after = match self {
            AppError::TooManyRequests { retry_after }
            | AppError::Throttled { retry_after, .. }
            | AppError::Busy { retry_after, .. } => Some(*retry_after),
            _ => None,
        };
        (status, message, field, retry_after)
    }

    /// The same answer as plain text, for clients that show text (calendar apps): the message,
    /// with its field in front when it has one.
    pub fn into_text_response(self) -> Response {
        let (status, message, field, retry_after) = self.public();
        let text = match field {
            Some(field) => format!("{field}: {message}\n"),
            None => format!("{message}\n"),
        };
        let mut response = (
            status,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            text,
        )
            .into_response();
        add_retry_after(&mut response, retry_after);
        response
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let (status, message, field, retry_after) = self.public();
        let body = match field {
            Some(field) => json!({ "error": message, "field": field }),
            None => json!({ "error": message }),
        };
        let mut response = (status, Json(body)).into_response();
        add_retry_after(&mut response, retry_after);
        response
    }
}

fn add_retry_after(response: &mut Response, retry_after: Option<u64>) {
    if let Some(seconds) = retry_after {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
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

#[cfg(test)]
mod tests {
    use super::*;

    async fn body_of(response: Response) -> String {
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 16)
            .await
            .expect("body");
        String::from_utf8_lossy(&bytes).into_owned()
    }

    #[tokio::test]
    async fn a_field_error_names_its_field_beside_the_message() {
        let error = AppError::Invalid {
            field: "filters[1].pattern".into(),
            message: "the pattern does not compile".into(),
        };
        let response = error.into_response();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        let body: serde_json::Value = serde_json::from_str(&body_of(response).await).expect("json");
        assert_eq!(body["field"], "filters[1].pattern");
        assert_eq!(body["error"], "the pattern does not compile");
    }

    #[tokio::test]
    async fn text_answers_follow_the_same_rules() {
        let response = AppError::Internal("secret detail".into()).into_text_response();
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let text = body_of(response).await;
        assert!(!text.contains("secret"), "{text}");
        let response = AppError::Busy {
            message: "busy".into(),
            retry_after: 7,
        }
        .into_text_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()[header::RETRY_AFTER], "7");
        assert_eq!(body_of(response).await, "busy\n");
    }
}
