//! The sync API: `GET /api/sync` (on, its limits and expiries), `POST /api/sync/{vaults|shares}`
//! (store a new encrypted blob under the write token, and the id when it sends one, that the
//! client made; answers its id), and
//! `GET|PUT|DELETE /api/sync/{kind}/{id}` (read by id; replace with the token and
//! `If-Match: "v{version}"`, a vault maybe in parts named by `Sync-Parts`; remove with the
//! token), and `GET /api/sync/vaults/{id}/parts/{name}` (one part). Bodies are ciphertext as
//! `application/octet-stream`: nothing here can or tries to read them. Every handler admits
//! first (who, key, allowances, quotas) and reads a body only then.

use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use std::future::Future;

use super::blobs::{self, DeleteOutcome, UpdateOutcome};
use super::errors::RouteError;
use super::frame::{self, FrameError};
use super::parts::{PartHead, PartWrite, Upload};
use super::quotas::Kind;
use super::SyncState;
use crate::config::SyncSettings;
use crate::http::admission::{Caller, KeyRule, Policy};
use crate::http::body;
use crate::http::client::ClientAddr;
use crate::http::conditional::etag_matches;
use crate::http::error::AppError;
use crate::http::headers::bearer_token;
use crate::http::limits::{Action, BlobAction};
use crate::secret::Token;
use crate::store::StoreError;

const DAY_SECONDS: u64 = 24 * 60 * 60;

/// The header that carries the id a client made for a new blob.
const BLOB_ID_HEADER: &str = "x-blob-id";

/// The header that names every part a vault's new version references (`frame.rs`).
const PARTS_HEADER: &str = "sync-parts";

/// What `GET /api/sync` answers, or `None` with `--no-sync`; `key_required`: making a vault
/// needs the site's sync or publish key. The index page carries the same value, so the app
/// knows before its first render whether to show sync's controls.
pub fn public_info(settings: &SyncSettings, key_required: bool) -> Option<serde_json::Value> {
    settings.enabled.then(|| {
        json!({
            "maxBytes": settings.max_vault_size,
            "mediaQuota": settings.media_quota,
            "keyRequired": key_required,
            "vaultExpiryDays": settings.vault_expiry.as_secs() / DAY_SECONDS,
            "shareExpiryDays": settings.share_expiry.as_secs() / DAY_SECONDS,
        })
    })
}

/// Making a vault or a shared deck: an invitation (the sync key, else the publish key) when the
/// site has one.
pub struct Creating;
impl Policy for Creating {
    const ACTIONS: &'static [Action] = &[Action::SyncClient];
    const KEY: KeyRule = KeyRule::Invitation;
    const NEEDS_KEY: &'static str =
        "making a vault or a shared deck needs this site's sync key (X-Sync-Key header)";
}

/// Reading, changing or removing one: the id and the write token are the keys.
pub struct UsingBlobs;
impl Policy for UsingBlobs {
    const ACTIONS: &'static [Action] = &[Action::SyncClient];
    const KEY: KeyRule = KeyRule::Open;
}

/// `GET /api/sync`: sync is on (with `--no-sync` this answers 404 like every sync route).
pub async fn status(State(state): State<SyncState>) -> Response {
    match public_info(&state.settings, state.key_required) {
        Some(info) => Json(info).into_response(),
        None => turned_off().await.into_response(),
    }
}

/// Every sync route with `--no-sync`.
pub async fn turned_off() -> AppError {
    RouteError::TurnedOff.into()
}

pub(super) fn kind_of(segment: &str) -> Result<Kind, AppError> {
    Ok(Kind::from_segment(segment).ok_or_else(|| RouteError::NoRoute(segment.to_owned()))?)
}

/// A 404 for a blob that is not there, counted against the client's allowance of misses so
/// that ids cannot be guessed quickly.
pub(super) fn missing(state: &SyncState, client: ClientAddr) -> AppError {
    if let Err(throttled) = state.admission.limits.check(Action::SyncMiss, client.key()) {
        return throttled;
    }
    RouteError::Missing.into()
}

/// The id of a blob that may exist (anything else is a miss).
pub(super) fn existing_id(
    state: &SyncState,
    client: ClientAddr,
    id: &str,
) -> Result<String, AppError> {
    if blobs::valid_id(id) {
        Ok(id.to_owned())
    } else {
        Err(missing(state, client))
    }
}

/// Uploads are ciphertext, sent as the app sends them: no cross-site form can send this type,
/// so no other web page can make vaults from its visitors' browsers.
pub(super) fn require_octets(headers: &HeaderMap) -> Result<(), AppError> {
    let octets = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/octet-stream"));
    if octets {
        Ok(())
    } else {
        Err(RouteError::NotOctets.into())
    }
}

/// Reads an upload of at most the blob size, against the byte budget.
pub(super) async fn read_upload(
    state: &SyncState,
    client: ClientAddr,
    headers: &HeaderMap,
    raw: Body,
) -> Result<body::ReadBody, AppError> {
    let limit = state.blobs.quotas().max_blob_bytes;
    let reservation = state.admission.bytes.reserve(client.key(), 0)?;
    let read = body::read(raw, headers, limit, reservation, &state.admission.body)
        .await
        .map_err(|e| {
            e.into_app_error(|limit| {
                format!(
                    "the upload is larger than the {limit} bytes this server accepts \
                     (--max-vault-size)"
                )
            })
        })?;
    if read.bytes.is_empty() {
        return Err(RouteError::Empty.into());
    }
    Ok(read)
}

/// A blob's version as its entity tag, `"v7"`.
fn version_tag(version: i64) -> String {
    format!("\"v{version}\"")
}

fn with_version(mut response: Response, version: i64) -> Response {
    if let Ok(v) = HeaderValue::from_str(&version_tag(version)) {
        response.headers_mut().insert(header::ETAG, v);
    }
    response
}

/// `"v7"` (or `W/"v7"`, or a bare `7`) as 7.
fn parse_version(value: &str) -> Option<i64> {
    let v = value.trim().trim_start_matches("W/").trim_matches('"');
    v.strip_prefix('v').unwrap_or(v).parse().ok()
}

/// `POST /api/sync/{kind}`, with `Authorization: Bearer TOKEN` carrying the write token the
/// client made (a client that sends none gets one made here) and, optionally, `X-Blob-Id`
/// the id it made (409 when another blob has it). Sending the same token again
/// answers the blob it made (200) instead of making another: a create whose answer was lost
/// is retried without leaving a blob nobody can remove.
pub async fn create(
    State(state): State<SyncState>,
    caller: Caller<Creating>,
    Path(segment): Path<String>,
    headers: HeaderMap,
    raw: Body,
) -> Result<Response, AppError> {
    let kind = kind_of(&segment)?;
    let client = caller.client;
    if headers.contains_key(PARTS_HEADER) {
        return Err(RouteError::PartsOnCreate.into());
    }
    if !caller.owner {
        let allowance = match kind {
            Kind::Vault => Action::VaultCreate,
            Kind::Share => Action::ShareCreate,
        };
        state.admission.limits.check(allowance, client.key())?;
    }
    require_octets(&headers)?;
    let token = match bearer_token(&headers) {
        Some(given) => Token::made_by_client(given.as_str()).ok_or(RouteError::BadToken)?,
        None => Token::generate(),
    };
    let chosen = chosen_id(&headers)?;
    if let Some(made) = state.blobs.made_with(kind, &token).await? {
        return Ok(created_answer(StatusCode::OK, made, &token));
    }
    if let Some(id) = &chosen {
        if state.blobs.id_taken(id.clone()).await? {
            return Err(super::quotas::SyncError::IdTaken.into());
        }
    }
    let declared = body::declared_length(&headers).map_or(1, |n| n as usize);
    state
        .blobs
        .may_create(kind, client.key(), declared, caller.owner)
        .await?;
    let upload = read_upload(&state, client, &headers, raw).await?;
    let made = state
        .blobs
        .create(
            kind,
            client.key(),
            token.clone(),
            chosen,
            upload.bytes,
            caller.owner,
        )
        .await?;
    let status = if made.new {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok(created_answer(status, made, &token))
}

/// The id the client made for its new blob (`X-Blob-Id`), so that it can seal the first body
/// for it: 32 lowercase hex digits, as the server makes them.
fn chosen_id(headers: &HeaderMap) -> Result<Option<String>, AppError> {
    let Some(value) = headers.get(BLOB_ID_HEADER) else {
        return Ok(None);
    };
    let id = value.to_str().map_err(|_| RouteError::BadId)?;
    let lower_hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    if id.len() == 32 && id.bytes().all(lower_hex) {
        Ok(Some(id.to_owned()))
    } else {
        Err(RouteError::BadId.into())
    }
}

fn created_answer(status: StatusCode, made: blobs::Created, token: &Token) -> Response {
    let version = made.version;
    let response = (
        status,
        Json(json!({ "id": made.id, "token": token.as_str(), "version": version })),
    )
        .into_response();
    with_version(response, version)
}

/// `GET|HEAD /api/sync/{kind}/{id}`: the ciphertext, or 304 when `If-None-Match` names the
/// version stored (the cheap poll every device makes). Either keeps the blob alive.
pub async fn read(
    State(state): State<SyncState>,
    caller: Caller<UsingBlobs>,
    Path((segment, id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let kind = kind_of(&segment)?;
    let client = caller.client;
    let id = existing_id(&state, client, &id)?;
    state.admission.limits.check_blob(BlobAction::Read, &id)?;
    let Some(head) = state.blobs.head(kind, id.clone()).await? else {
        return Err(missing(&state, client));
    };
    state.blobs.touch(kind, id.clone()).await?;
    if etag_matches(&headers, &version_tag(head.version)) {
        return Ok(with_version(
            StatusCode::NOT_MODIFIED.into_response(),
            head.version,
        ));
    }
    let body = copy_of(&state, client, &id, head.version, head.size, || {
        state.blobs.body(kind, id.clone(), head.version)
    })
    .await?;
    Ok(with_version(octets(body), head.version))
}

/// The bytes of what is stored under `key` at `version` (`size` bytes), from the copy being
/// sent already or loaded by `load` into the byte budget.
pub(super) async fn copy_of<F, Fut>(
    state: &SyncState,
    client: ClientAddr,
    key: &str,
    version: i64,
    size: usize,
    load: F,
) -> Result<Bytes, AppError>
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = Result<Option<Vec<u8>>, StoreError>>,
{
    if let Some(shared) = state.copies.shared(key, version) {
        return Ok(shared);
    }
    // Readers arriving together load it once: the later ones find that copy.
    let _turn = state.copies.load_turn(key).await;
    if let Some(shared) = state.copies.shared(key, version) {
        return Ok(shared);
    }
    let reservation = state.copies.reserve(client.key(), size)?;
    let Some(loaded) = load().await? else {
        // Written or removed since the head was read: the client asks again.
        return Err(RouteError::ChangedWhileRead.into());
    };
    Ok(state.copies.keep(key, version, loaded, reservation))
}

/// Ciphertext as an answer.
pub(super) fn octets(body: Bytes) -> Response {
    let mut response = Body::from(body).into_response();
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    // Each poll must reach the server; nothing in between needs a copy of it.
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// `GET /api/sync/vaults/{id}/parts/{name}`: one part of a vault written in parts. Counted
/// against the vault's read allowance, and keeps the vault alive as a read does. A vault that
/// is not there is a miss; a vault without that part is a 404 that is not.
pub async fn read_part(
    State(state): State<SyncState>,
    caller: Caller<UsingBlobs>,
    Path((segment, id, name)): Path<(String, String, String)>,
) -> Result<Response, AppError> {
    if kind_of(&segment)? != Kind::Vault {
        return Err(RouteError::NoRoute(format!("{segment}/{id}/parts/{name}")).into());
    }
    let client = caller.client;
    let id = existing_id(&state, client, &id)?;
    if !frame::valid_name(&name) {
        return Err(FrameError::BadName.into());
    }
    state.admission.limits.check_blob(BlobAction::Read, &id)?;
    let (version, size) = match state.blobs.part_head(id.clone(), name.clone()).await? {
        PartHead::NoVault => return Err(missing(&state, client)),
        PartHead::NoPart => return Err(RouteError::NoSuchPart(name).into()),
        PartHead::Found { version, size } => (version, size),
    };
    state.blobs.touch(Kind::Vault, id.clone()).await?;
    let key = format!("{id}/parts/{name}");
    let body = copy_of(&state, client, &key, version, size, || {
        state.blobs.part_body(id.clone(), name.clone(), version)
    })
    .await?;
    Ok(octets(body))
}

/// The parts a write names in `Sync-Parts` (`None` without the header: a body written whole).
/// Only vaults have parts. Read before the body, so a bad list is refused before it is sent.
fn listed_parts(kind: Kind, headers: &HeaderMap) -> Result<Option<Vec<String>>, AppError> {
    let mut values = headers.get_all(PARTS_HEADER).iter().peekable();
    if values.peek().is_none() {
        return Ok(None);
    }
    if kind != Kind::Vault {
        return Err(RouteError::PartsOnShare.into());
    }
    // Repeated, the header's lists are one list (RFC 9110, 5.3).
    let mut joined = Vec::new();
    for value in values {
        joined.push(value.to_str().map_err(|_| FrameError::BadName)?);
    }
    Ok(Some(frame::parse_names(&joined.join(","))?))
}

/// The body of a write: whole, or framed as the manifest and the parts sent.
fn upload_of(bytes: Vec<u8>, listed: Option<Vec<String>>) -> Result<Upload, AppError> {
    let Some(names) = listed else {
        return Ok(Upload::whole(bytes));
    };
    let framed = frame::split(&bytes, &names)?;
    Ok(Upload {
        body: framed.manifest,
        parts: Some(PartWrite {
            names,
            sent: framed.parts,
        }),
    })
}

/// `PUT /api/sync/{kind}/{id}` with `Authorization: Bearer <token>` and
/// `If-Match: "v{version}"`: 200 `{version}`, or 409 `{error, version}` when another device
/// wrote first (the client then pulls, merges and tries again). The token, the version and the
/// room are checked before the body is read.
pub async fn update(
    State(state): State<SyncState>,
    caller: Caller<UsingBlobs>,
    Path((segment, id)): Path<(String, String)>,
    headers: HeaderMap,
    raw: Body,
) -> Result<Response, AppError> {
    let kind = kind_of(&segment)?;
    let client = caller.client;
    let id = existing_id(&state, client, &id)?;
    state.admission.limits.check_blob(BlobAction::Write, &id)?;
    let base = headers
        .get(header::IF_MATCH)
        .and_then(|v| v.to_str().ok())
        .and_then(parse_version)
        .ok_or(RouteError::NoBase)?;
    require_octets(&headers)?;
    let listed = listed_parts(kind, &headers)?;
    // The write token is compared only once paid for from the caller's wrong keys.
    let mut presented = state
        .admission
        .present(client.key(), bearer_token(&headers))?;
    let token = presented.token.clone();
    let refused = state
        .blobs
        .refuses_update(kind, id.clone(), token.clone(), base)
        .await?;
    if refused != Some(UpdateOutcome::Forbidden) {
        presented.was_right();
    }
    let outcome = match refused {
        Some(outcome) => outcome,
        None => {
            let upload = read_upload(&state, client, &headers, raw).await?;
            let body::ReadBody { bytes, reservation } = upload;
            let upload = upload_of(bytes, listed)?;
            let outcome = state
                .blobs
                .update(kind, id, token, base, upload, caller.owner)
                .await?;
            drop(reservation);
            outcome
        }
    };
    match outcome {
        UpdateOutcome::Updated { version } => Ok(with_version(
            Json(json!({ "version": version })).into_response(),
            version,
        )),
        // Another device wrote first: the outcome of the compare-and-swap, answered with the
        // version now stored (in the body and the ETag) so the app can merge; not an error.
        UpdateOutcome::Conflict { current } => Ok(with_version(
            (
                StatusCode::CONFLICT,
                Json(json!({
                    "error": format!("another device wrote version {current} first: fetch it, merge and write again"),
                    "version": current,
                })),
            )
                .into_response(),
            current,
        )),
        UpdateOutcome::NotFound => Err(missing(&state, client)),
        UpdateOutcome::Forbidden => Err(RouteError::WriteNeedsToken.into()),
        UpdateOutcome::MissingPart { name } => Err(RouteError::MissingPart(name).into()),
    }
}

/// `DELETE /api/sync/{kind}/{id}` with the token: revokes a shared deck, or removes a vault.
pub async fn remove(
    State(state): State<SyncState>,
    caller: Caller<UsingBlobs>,
    Path((segment, id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let kind = kind_of(&segment)?;
    let client = caller.client;
    let id = existing_id(&state, client, &id)?;
    state.admission.limits.check_blob(BlobAction::Write, &id)?;
    let mut presented = state
        .admission
        .present(client.key(), bearer_token(&headers))?;
    let outcome = state
        .blobs
        .delete(kind, id, presented.token.clone())
        .await?;
    if outcome != DeleteOutcome::Forbidden {
        presented.was_right();
    }
    match outcome {
        DeleteOutcome::Deleted => Ok(StatusCode::NO_CONTENT.into_response()),
        DeleteOutcome::NotFound => Err(missing(&state, client)),
        DeleteOutcome::Forbidden => Err(RouteError::RemoveNeedsToken.into()),
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
