//! A JSON body extractor whose every rejection is a JSON error naming what is wrong: the field
//! (with its path) for a wrong type, the position for malformed JSON, 413 for a body too large.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
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
            .is_some_and(|v| v.trim_start().starts_with("application/json"));
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
        let deserializer = &mut serde_json::Deserializer::from_slice(&bytes);
        serde_path_to_error::deserialize(deserializer)
            .map(JsonBody)
            .map_err(|e| {
                let path = e.path().to_string();
                let inner = e.into_inner();
                if path == "." || path.is_empty() {
                    AppError::BadRequest(format!("invalid JSON: {inner}"))
                } else {
                    AppError::BadRequest(format!("{path}: {inner}"))
                }
            })
    }
}
