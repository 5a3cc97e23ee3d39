//! The owner edits the site on `/owner`, behind the publish key (absent, 404, on a site without
//! one, like the owner page): `GET`/`PUT`/`DELETE /api/owner/site` (the texts; `DELETE` goes back
//! to the flags' values, picture included) and `PUT`/`DELETE /api/owner/avatar` (the picture's
//! bytes with their type; `DELETE` goes back to the flag's or the built-in avatar). An upload is
//! admitted before its body is read: the key, then its type, then its declared length; its size
//! is capped while it arrives (`http::body`), and its dimensions read from its header are bounded
//! before anyone decodes it (`picture.rs`). Every answer is the editor's view after the change,
//! which the site already shows: no restart.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap};
use axum::Json;
use serde::Serialize;

use super::picture::{self, MAX_PICTURE_BYTES};
use super::stored::{self, StoredPicture};
use super::texts::{TextsEdit, MAX_ABOUT_CHARS};
use super::Site;
use crate::http::admission::{Admission, Caller, KeyRule, Policy};
use crate::http::body;
use crate::http::error::AppError;
use crate::http::extract::JsonBody;
use crate::store::Db;

/// The owner only: the publish key (a site without one has no owner page).
pub struct EditingSite;
impl Policy for EditingSite {
    const ACTIONS: &'static [crate::http::limits::Action] = &[];
    const KEY: KeyRule = KeyRule::Owner;
    const NEEDS_KEY: &'static str =
        "editing the site needs this site's publish key (X-Publish-Key header)";
}

/// The largest `PUT /api/owner/site` body: the About text at four bytes a character, escaped.
const MAX_TEXTS_BODY: usize = 64 * 1024;

/// What the editor shows: the site as it is now, and the flags' values it can go back to.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteAnswer {
    name: String,
    about: Option<String>,
    spotify_url: Option<String>,
    beehive_url: Option<String>,
    avatar_url: String,
    /// The owner saved texts of their own (else the flags' are shown).
    custom_texts: bool,
    /// The owner uploaded the picture (else the flag's or the built-in one is shown).
    custom_avatar: bool,
    defaults: Defaults,
    max_about_chars: usize,
    max_picture_bytes: usize,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Defaults {
    name: String,
    spotify_url: Option<String>,
    beehive_url: Option<String>,
}

fn answer(site: &Site) -> Json<SiteAnswer> {
    Json(editor_view(site))
}

/// The editor's view of the site now (the owner page's answer carries it too, so the page fills at once).
pub fn editor_view(site: &Site) -> SiteAnswer {
    let (profile, flags, custom_texts, custom_avatar) = site.editing();
    SiteAnswer {
        name: profile.name,
        about: profile.about,
        spotify_url: profile.spotify_url,
        beehive_url: profile.beehive_url,
        avatar_url: profile.avatar_url,
        custom_texts,
        custom_avatar,
        defaults: Defaults {
            name: flags.name.clone(),
            spotify_url: flags.spotify_url.clone(),
            beehive_url: flags.beehive_url.clone(),
        },
        max_about_chars: MAX_ABOUT_CHARS,
        max_picture_bytes: MAX_PICTURE_BYTES,
    }
}

/// Without a publish key everyone would be "the owner": the editor does not exist then.
fn owner_only(site: &Site, caller: &Caller<EditingSite>) -> Result<(), AppError> {
    if site.owner_page && caller.owner {
        Ok(())
    } else {
        Err(AppError::NotFound(
            "this site has no owner page (it has no publish key)".into(),
        ))
    }
}

/// `GET /api/owner/site`.
pub async fn read(
    State(site): State<Arc<Site>>,
    caller: Caller<EditingSite>,
) -> Result<Json<SiteAnswer>, AppError> {
    owner_only(&site, &caller)?;
    Ok(answer(&site))
}

/// `PUT /api/owner/site`: the texts, every field (a blank link is hidden).
pub async fn save(
    State(site): State<Arc<Site>>,
    State(db): State<Db>,
    caller: Caller<EditingSite>,
    JsonBody(edit): JsonBody<TextsEdit, MAX_TEXTS_BODY>,
) -> Result<Json<SiteAnswer>, AppError> {
    owner_only(&site, &caller)?;
    let texts = edit.validate()?;
    site.change(&db, move |conn| stored::save_texts(conn, &texts))
        .await?;
    Ok(answer(&site))
}

/// `DELETE /api/owner/site`: the flags' values again, texts and picture.
pub async fn reset(
    State(site): State<Arc<Site>>,
    State(db): State<Db>,
    caller: Caller<EditingSite>,
) -> Result<Json<SiteAnswer>, AppError> {
    owner_only(&site, &caller)?;
    site.change(&db, stored::reset).await?;
    Ok(answer(&site))
}

/// `PUT /api/owner/avatar`: the picture's bytes, with their type as `Content-Type`.
pub async fn upload(
    State(site): State<Arc<Site>>,
    State(db): State<Db>,
    State(admission): State<Arc<Admission>>,
    caller: Caller<EditingSite>,
    headers: HeaderMap,
    raw: Body,
) -> Result<Json<SiteAnswer>, AppError> {
    owner_only(&site, &caller)?;
    let declared = picture::accepted_type(
        headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok()),
    )?;
    let reservation = admission.bytes.reserve(caller.client.key(), 0)?;
    let read = body::read(
        raw,
        &headers,
        MAX_PICTURE_BYTES,
        reservation,
        &admission.body,
    )
    .await
    .map_err(|e| {
        e.into_app_error(|limit| {
            format!("the picture is larger than {limit} bytes: the editor makes it smaller, choose it there")
        })
    })?;
    picture::check(declared, &read.bytes)?;
    let picture = StoredPicture {
        bytes: read.bytes,
        content_type: declared.to_owned(),
    };
    site.change(&db, move |conn| stored::save_picture(conn, &picture))
        .await?;
    Ok(answer(&site))
}

/// `DELETE /api/owner/avatar`: the flag's picture again, or the built-in one.
pub async fn remove_picture(
    State(site): State<Arc<Site>>,
    State(db): State<Db>,
    caller: Caller<EditingSite>,
) -> Result<Json<SiteAnswer>, AppError> {
    owner_only(&site, &caller)?;
    site.change(&db, stored::remove_picture).await?;
    Ok(answer(&site))
}
