//! The sync API: `GET /api/sync` (on, and its limits), `POST /api/sync/{vaults|shares}` (store a
//! new encrypted blob; answers its id and write token), `GET|PUT|DELETE /api/sync/{kind}/{id}`
//! (read by id; replace with the token and `If-Match: "v{version}"`; remove with the token).
//! Bodies are ciphertext as `application/octet-stream`: nothing here can or tries to read them.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use super::blobs::{self, DeleteOutcome, Kind, Quotas, UpdateOutcome};
use super::SyncState;
use crate::config::Config;
use crate::http::client::ClientAddr;
use crate::http::conditional::etag_matches;
use crate::http::error::AppError;
use crate::http::headers::bearer_token;
use crate::http::limits::Action;

/// What `GET /api/sync` answers, or `None` with `--no-sync`. The index page carries the same
/// value, so the app knows before its first render whether to show sync's controls.
pub fn public_info(config: &Config) -> Option<serde_json::Value> {
    config.sync_enabled.then(|| {
        json!({
            "maxBytes": config.max_vault_size,
            "keyRequired": config.publish_key.is_some(),
        })
    })
}

/// `GET /api/sync`: sync is on (with `--no-sync` this answers 404 like every sync route).
pub async fn status(State(state): State<SyncState>) -> Response {
    match public_info(&state.config) {
        Some(info) => Json(info).into_response(),
        None => turned_off().await.into_response(),
    }
}

/// Every sync route with `--no-sync`.
pub async fn turned_off() -> AppError {
    AppError::NotFound("sync is turned off on this server".into())
}

fn kind_of(segment: &str) -> Result<Kind, AppError> {
    Kind::from_segment(segment)
        .ok_or_else(|| AppError::NotFound(format!("no API route for /api/sync/{segment}")))
}

fn checked_id(id: &str) -> Result<String, AppError> {
    if blobs::valid_id(id) {
        Ok(id.to_owned())
    } else {
        Err(not_found())
    }
}

fn not_found() -> AppError {
    AppError::NotFound("no such vault or shared deck: it was never made, or it was revoked".into())
}

/// The owner, with the right key, is never throttled. Anyone else is counted first (so wrong
/// keys cannot be guessed quickly); writes then need the key when the site has one, as
/// publishing does. Reads do not: the id is unguessable and the body is ciphertext, like a
/// hosted feed that anyone with its address may fetch.
fn admit(
    state: &SyncState,
    headers: &HeaderMap,
    ClientAddr(client): ClientAddr,
    action: Action,
) -> Result<(), AppError> {
    let Some(expected) = &state.config.publish_key else {
        return state.limits.check(action, client);
    };
    let given = headers
        .get("x-publish-key")
        .and_then(|v| v.to_str().ok())
        .map(str::trim);
    if given.is_some_and(|g| crate::secret::same(g, expected)) {
        return Ok(());
    }
    state.limits.check(action, client)?;
    if action == Action::SyncWrite {
        return Err(AppError::Unauthorized(
            "sync needs this site's publish key (X-Publish-Key header)".into(),
        ));
    }
    Ok(())
}

fn body_of(body: Result<Bytes, BytesRejection>, quotas: Quotas) -> Result<Vec<u8>, AppError> {
    let body = body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            AppError::PayloadTooLarge(format!(
                "the upload is larger than the {} bytes this server accepts (--max-vault-size)",
                quotas.max_blob_bytes
            ))
        } else {
            AppError::BadRequest(format!("the request body could not be read: {rejection}"))
        }
    })?;
    if body.is_empty() {
        return Err(AppError::BadRequest("the upload is empty".into()));
    }
    Ok(body.to_vec())
}

/// A blob's version as its entity tag, `"v7"`.
fn version_tag(version: i64) -> String {
    format!("\"v{version}\"")
}

fn etag(version: i64) -> HeaderValue {
    HeaderValue::from_str(&version_tag(version)).unwrap_or(HeaderValue::from_static("\"\""))
}

/// `"v7"` (or `W/"v7"`, or a bare `7`) as 7.
fn parse_version(value: &str) -> Option<i64> {
    let v = value.trim().trim_start_matches("W/").trim_matches('"');
    v.strip_prefix('v').unwrap_or(v).parse().ok()
}

/// `POST /api/sync/{kind}`.
pub async fn create(
    State(state): State<SyncState>,
    headers: HeaderMap,
    client: ClientAddr,
    Path(segment): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, AppError> {
    let kind = kind_of(&segment)?;
    admit(&state, &headers, client, Action::SyncWrite)?;
    let quotas = Quotas::of(&state.config);
    let body = body_of(body, quotas)?;
    let created = blobs::create(&state.db, kind, body, quotas).await?;
    let mut response = (
        StatusCode::CREATED,
        Json(json!({ "id": created.id, "token": created.token, "version": created.version })),
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::ETAG, etag(created.version));
    Ok(response)
}

/// `GET|HEAD /api/sync/{kind}/{id}`: the ciphertext, or 304 when `If-None-Match` names the
/// version stored (the cheap poll every device makes).
pub async fn read(
    State(state): State<SyncState>,
    headers: HeaderMap,
    client: ClientAddr,
    Path((segment, id)): Path<(String, String)>,
) -> Result<Response, AppError> {
    let kind = kind_of(&segment)?;
    admit(&state, &headers, client, Action::SyncRead)?;
    let id = checked_id(&id)?;
    if headers.contains_key(header::IF_NONE_MATCH) {
        let current = blobs::version(&state.db, kind, id.clone())
            .await?
            .ok_or_else(not_found)?;
        if etag_matches(&headers, &version_tag(current)) {
            let mut response = StatusCode::NOT_MODIFIED.into_response();
            response.headers_mut().insert(header::ETAG, etag(current));
            return Ok(response);
        }
    }
    let blob = blobs::get(&state.db, kind, id)
        .await?
        .ok_or_else(not_found)?;
    let mut response = blob.body.into_response();
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    h.insert(header::ETAG, etag(blob.version));
    // Each poll must reach the server; nothing in between needs a copy of it.
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}

/// `PUT /api/sync/{kind}/{id}` with `Authorization: Bearer <token>` and
/// `If-Match: "v{version}"`: 200 `{version}`, or 409 `{error, version}` when another device
/// wrote first (the client then pulls, merges and tries again).
pub async fn update(
    State(state): State<SyncState>,
    headers: HeaderMap,
    client: ClientAddr,
    Path((segment, id)): Path<(String, String)>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, AppError> {
    let kind = kind_of(&segment)?;
    admit(&state, &headers, client, Action::SyncWrite)?;
    let id = checked_id(&id)?;
    let base = headers
        .get(header::IF_MATCH)
        .and_then(|v| v.to_str().ok())
        .and_then(parse_version)
        .ok_or_else(|| {
            AppError::BadRequest(
                "send the version this write starts from as If-Match: \"v{version}\"".into(),
            )
        })?;
    let quotas = Quotas::of(&state.config);
    let body = body_of(body, quotas)?;
    let token = bearer_token(&headers);
    match blobs::update(&state.db, kind, id, token, base, body, quotas).await? {
        UpdateOutcome::Updated { version } => {
            let mut response = Json(json!({ "version": version })).into_response();
            response.headers_mut().insert(header::ETAG, etag(version));
            Ok(response)
        }
        UpdateOutcome::Conflict { current } => {
            let mut response = (
                StatusCode::CONFLICT,
                Json(json!({
                    "error": format!("another device wrote version {current} first: fetch it, merge and write again"),
                    "version": current,
                })),
            )
                .into_response();
            response.headers_mut().insert(header::ETAG, etag(current));
            Ok(response)
        }
        UpdateOutcome::NotFound => Err(not_found()),
        UpdateOutcome::Forbidden => Err(AppError::Forbidden(
            "writing needs the write token given when this was made (Authorization: Bearer)".into(),
        )),
    }
}

/// `DELETE /api/sync/{kind}/{id}` with the token: revokes a shared deck, or removes a vault.
pub async fn remove(
    State(state): State<SyncState>,
    headers: HeaderMap,
    client: ClientAddr,
    Path((segment, id)): Path<(String, String)>,
) -> Result<Response, AppError> {
    let kind = kind_of(&segment)?;
    admit(&state, &headers, client, Action::SyncWrite)?;
    let id = checked_id(&id)?;
    match blobs::delete(&state.db, kind, id, bearer_token(&headers)).await? {
        DeleteOutcome::Deleted => Ok(StatusCode::NO_CONTENT.into_response()),
        DeleteOutcome::NotFound => Err(not_found()),
        DeleteOutcome::Forbidden => Err(AppError::Forbidden(
            "removing needs the write token given when this was made (Authorization: Bearer)"
                .into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_version;

    #[test]
    fn versions_read_from_etags_and_plain_numbers() {
        assert_eq!(parse_version("\"v7\""), Some(7));
        assert_eq!(parse_version("W/\"v12\""), Some(12));
        assert_eq!(parse_version("3"), Some(3));
        assert_eq!(parse_version("\"abc\""), None);
    }
}
