//! Extractors whose every rejection is a JSON error naming what is wrong: for JSON bodies the
//! field (with its path) for a wrong type, the position for malformed JSON or trailing data, 413
//! for a body too large, 415 for another content type; for query strings the parameter.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Query, Request};
use axum::http::request::Parts;
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

use super::error::AppError;

pub struct JsonBody<T>(pub T);

impl<S, T> FromRequest<S> for JsonBody<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let json_type = req
            .headers()
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(is_json_type);
        if !json_type {
            return Err(AppError::UnsupportedMediaType(
                "send the body as JSON (Content-Type: application/json)".into(),
            ));
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                AppError::PayloadTooLarge("the request body is too large".into())
            } else {
                AppError::BadRequest(format!("the request body could not be read: {rejection}"))
            }
        })?;
        let mut deserializer = serde_json::Deserializer::from_slice(&bytes);
        let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            if path == "." || path.is_empty() {
                AppError::BadRequest(format!("invalid JSON: {inner}"))
            } else {
                AppError::BadRequest(format!("{path}: {inner}"))
            }
        })?;
        // One JSON value and nothing after it but white space.
        deserializer
            .end()
            .map_err(|e| AppError::BadRequest(format!("invalid JSON: {e}")))?;
        Ok(JsonBody(value))
    }
}

/// `application/json`, any case, optionally followed by parameters (`; charset=utf-8`).
fn is_json_type(value: &str) -> bool {
    let essence = value.split(';').next().unwrap_or_default();
    essence.trim().eq_ignore_ascii_case("application/json")
}

/// A query-string extractor answering bad parameters with a JSON 400 (axum's own answers text).
pub struct QueryParams<T>(pub T);

impl<S, T> FromRequestParts<S> for QueryParams<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Query::try_from_uri(&parts.uri)
            .map(|Query(value)| QueryParams(value))
            .map_err(|rejection| {
                let text = rejection.body_text();
                let detail = text
                    .strip_prefix("Failed to deserialize query string: ")
                    .unwrap_or(&text);
                AppError::BadRequest(format!("query string: {detail}"))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::is_json_type;

    #[test]
    fn only_json_with_optional_parameters_is_json() {
        for ok in [
            "application/json",
            "application/json; charset=utf-8",
            "Application/JSON;charset=UTF-8",
            " application/json ",
        ] {
            assert!(is_json_type(ok), "{ok}");
        }
        for bad in [
            "application/jsonfoo",
            "application/json-patch+json",
            "text/json",
            "application/x-www-form-urlencoded",
            "",
        ] {
            assert!(!is_json_type(bad), "{bad}");
        }
    }
}
