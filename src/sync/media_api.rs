//! The media routes of a vault or shared deck (`media.rs`): `GET /api/sync/{kind}/{id}/media`
//! (the names it holds, so a push sends only the files the server lacks), and
//! `GET|PUT|DELETE /api/sync/{kind}/{id}/media/{name}` (one sealed file: read by anyone with the
//! id; written and removed with the write token). A write of a name already held is answered
//! without its body. Each is admitted as every sync call (who, allowances, bytes in flight), on
//! the blob's media allowance, and reads a body only once the token and the room are checked.

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use super::api::{
    copy_of, existing_id, kind_of, missing, octets, read_upload, require_octets, UsingBlobs,
};
use super::errors::RouteError;
use super::frame;
use super::media::{MediaHead, MediaWrite};
use super::SyncState;
use crate::http::admission::Caller;
use crate::http::body;
use crate::http::error::AppError;
use crate::http::headers::bearer_token;
use crate::http::limits::BlobAction;

fn media_name(name: &str) -> Result<(), AppError> {
    if frame::valid_name(name) {
        Ok(())
    } else {
        Err(RouteError::BadMediaName.into())
    }
}

/// `GET /api/sync/{kind}/{id}/media`: `{names, bytes, quota}`, the names sorted. Counted as a
/// read of the blob, and keeps it alive.
pub async fn list(
    State(state): State<SyncState>,
    caller: Caller<UsingBlobs>,
    Path((segment, id)): Path<(String, String)>,
) -> Result<Response, AppError> {
    let kind = kind_of(&segment)?;
    let client = caller.client;
    let id = existing_id(&state, client, &id)?;
    state.admission.limits.check_blob(BlobAction::Read, &id)?;
    let Some(list) = state.blobs.media_list(kind, id.clone()).await? else {
        return Err(missing(&state, client));
    };
    state.blobs.touch(kind, id).await?;
    let mut response = Json(json!({
        "names": list.names,
        "bytes": list.bytes,
        "quota": state.blobs.quotas().media_quota,
    }))
    .into_response();
    response.headers_mut().insert(
        axum::http::header::CACHE_CONTROL,
        axum::http::HeaderValue::from_static("no-store"),
    );
    Ok(response)
}

/// `GET /api/sync/{kind}/{id}/media/{name}`: the sealed file.
pub async fn read(
    State(state): State<SyncState>,
    caller: Caller<UsingBlobs>,
    Path((segment, id, name)): Path<(String, String, String)>,
) -> Result<Response, AppError> {
    let kind = kind_of(&segment)?;
    let client = caller.client;
    let id = existing_id(&state, client, &id)?;
    media_name(&name)?;
    state.admission.limits.check_blob(BlobAction::Media, &id)?;
    let size = match state
        .blobs
        .media_head(kind, id.clone(), name.clone())
        .await?
    {
        MediaHead::NoBlob => return Err(missing(&state, client)),
        MediaHead::NoFile => return Err(RouteError::NoSuchMedia(name).into()),
        MediaHead::Found { size } => size,
    };
    state.blobs.touch(kind, id.clone()).await?;
    let key = format!("{id}/media/{name}");
    // A file never changes under its name: version 0 for every copy of it.
    let body = copy_of(&state, client, &key, 0, size, || {
        state.blobs.media_body(kind, id.clone(), name.clone())
    })
    .await?;
    Ok(octets(body))
}

fn written(outcome: MediaWrite, state: &SyncState, caller: &Caller<UsingBlobs>) -> Response {
    match outcome {
        MediaWrite::Stored => {
            (StatusCode::CREATED, Json(json!({ "stored": true }))).into_response()
        }
        MediaWrite::Held => (StatusCode::OK, Json(json!({ "stored": false }))).into_response(),
        MediaWrite::NotFound => missing(state, caller.client).into_response(),
        MediaWrite::Forbidden => AppError::from(RouteError::WriteNeedsToken).into_response(),
    }
}

/// `PUT /api/sync/{kind}/{id}/media/{name}` with `Authorization: Bearer <token>`: 201 when
/// stored, 200 when the blob holds that name already (its body is not read then), 507 naming
/// the media quota or the storage that is full, 413 for a file larger than `--max-vault-size`.
pub async fn put(
    State(state): State<SyncState>,
    caller: Caller<UsingBlobs>,
    Path((segment, id, name)): Path<(String, String, String)>,
    headers: HeaderMap,
    raw: Body,
) -> Result<Response, AppError> {
    let kind = kind_of(&segment)?;
    let client = caller.client;
    let id = existing_id(&state, client, &id)?;
    media_name(&name)?;
    state.admission.limits.check_blob(BlobAction::Media, &id)?;
    require_octets(&headers)?;
    let mut presented = state
        .admission
        .present(client.key(), bearer_token(&headers))?;
    let token = presented.token.clone();
    let declared = body::declared_length(&headers).map_or(1, |n| n as usize);
    let first = state
        .blobs
        .may_put_media(
            kind,
            id.clone(),
            token.clone(),
            name.clone(),
            declared,
            caller.owner,
        )
        .await;
    if !matches!(first, Ok(MediaWrite::Forbidden)) {
        presented.was_right();
    }
    let first = first?;
    if first != MediaWrite::Stored {
        return Ok(written(first, &state, &caller));
    }
    let upload = read_upload(&state, client, &headers, raw).await?;
    let body::ReadBody { bytes, reservation } = upload;
    let outcome = state
        .blobs
        .put_media(kind, id, token, name, bytes, caller.owner)
        .await?;
    drop(reservation);
    Ok(written(outcome, &state, &caller))
}

/// `DELETE /api/sync/{kind}/{id}/media/{name}` with the token: 204 (also when it was not held).
pub async fn remove(
    State(state): State<SyncState>,
    caller: Caller<UsingBlobs>,
    Path((segment, id, name)): Path<(String, String, String)>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let kind = kind_of(&segment)?;
    let client = caller.client;
    let id = existing_id(&state, client, &id)?;
    media_name(&name)?;
    state.admission.limits.check_blob(BlobAction::Media, &id)?;
    let mut presented = state
        .admission
        .present(client.key(), bearer_token(&headers))?;
    let outcome = state
        .blobs
        .delete_media(kind, id, presented.token.clone(), name)
        .await?;
    if outcome != MediaWrite::Forbidden {
        presented.was_right();
    }
    Ok(match outcome {
        MediaWrite::Stored | MediaWrite::Held => StatusCode::NO_CONTENT.into_response(),
        other => written(other, &state, &caller),
    })
}
