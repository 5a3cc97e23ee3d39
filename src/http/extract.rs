//! Extractors whose every rejection is a JSON error naming what is wrong: for JSON bodies the
//! field (with its path) for a wrong type, the position for malformed JSON or trailing data, 413
//! for a body too large, 415 for another content type; for query strings the parameter. Bodies
//! are read through the byte budget and the body rules (`body.rs`), never buffered whole first.

use std::sync::Arc;

use axum::extract::{FromRef, FromRequest, FromRequestParts, Query, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::admission::Admission;
use super::body;
use super::client::ClientAddr;
use super::error::AppError;

/// Largest JSON body a route accepts unless it names its own limit.
pub const DEFAULT_JSON_BYTES: usize = 1024 * 1024;

/// A JSON body of at most `MAX` bytes. Put it last among a handler's extractors: those before it
/// (the caller's admission) run first, so nothing is read for a request that is refused.
pub struct JsonBody<T, const MAX: usize = DEFAULT_JSON_BYTES>(pub T);

impl<S, T, const MAX: usize> FromRequest<S> for JsonBody<T, MAX>
where
    S: Send + Sync,
    Arc<Admission>: FromRef<S>,
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
        let admission = Arc::<Admission>::from_ref(state);
        let (parts, body) = req.into_parts();
        let client = ClientAddr::resolve(&admission.proxies, &parts).key();
        let reservation = admission.bytes.reserve(client, 0)?;
        let read = body::read(body, &parts.headers, MAX, reservation, &admission.body)
            .await
            .map_err(|e| {
                e.into_app_error(|limit| format!("the request body is larger than {limit} bytes"))
            })?;
        let mut deserializer = serde_json::Deserializer::from_slice(&read.bytes);
        let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            if path == "." || path.is_empty() {
                AppError::BadRequest(format!("invalid JSON: {inner}"))
            } else {
                AppError::Invalid {
                    field: path,
                    message: inner.to_string(),
                }
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
