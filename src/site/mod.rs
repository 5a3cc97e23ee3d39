//! The owner's profile: `GET /api/site`, the avatar image, and the index page with the profile
//! written into it, so the landing page never flashes a placeholder name. The flags give the
//! first values; what the owner saves on `/owner` (`edit.rs`, kept in SQLite by `stored.rs`)
//! takes their place at once: the profile, the avatar and the index page are one view, rebuilt
//! whole and swapped in on every save, never patched in place.

pub mod assets;
pub mod edit;
mod index;
mod picture;
pub mod routes;
mod stored;
mod texts;

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::config::SiteSettings;
use crate::http::conditional::{etag_for, respond};
use crate::lock::lock;
use crate::store::{Db, StoreError};

pub use index::IndexPage;
pub use stored::{Saved, StoredPicture};
pub use texts::{Texts, MAX_ABOUT_CHARS};

const DEFAULT_AVATAR: &[u8] = include_bytes!("default-avatar.svg");

/// The avatar at its current address never changes, so it may be kept for a year.
const CACHE_IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// What `GET /api/site` answers and what the index page carries.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub name: String,
    /// `/avatar?v=…`: a new address whenever the picture changes.
    pub avatar_url: String,
    /// The owner's About text (plain text: paragraphs and links); `None`: the built-in sentence.
    pub about: Option<String>,
    pub spotify_url: Option<String>,
    pub beehive_url: Option<String>,
    pub version: &'static str,
}

/// What the site shows now: the profile, its avatar and the index page made from them.
#[derive(Debug)]
struct View {
    profile: Profile,
    /// The owner saved texts (else the flags' are shown).
    texts_saved: bool,
    /// The owner uploaded the picture (else the flag's or the built-in one is shown).
    picture_saved: bool,
    avatar: Bytes,
    avatar_type: String,
    /// The address's `v`: the picture's hash, shortened.
    avatar_version: String,
    avatar_etag: String,
    index: Option<IndexPage>,
}

/// The live profile, the first values it falls back to, and what a rebuild needs.
#[derive(Debug)]
pub struct Site {
    view: Mutex<Arc<View>>,
    first: FirstValues,
    /// One save at a time, from the database write to the swap, so a slower save cannot put
    /// back an older view.
    saving: tokio::sync::Mutex<()>,
    /// `/owner` is a page of the app (the site has a publish key); else it is not found.
    pub owner_page: bool,
}

impl Site {
    /// `sync` is what the index page tells the app about sync (`None`: turned off);
    /// `owner_page`: the site has a publish key, so `/owner` exists. The owner's saved profile
    /// is read by [`Site::load`].
    pub fn new(config: &SiteSettings, sync: Option<serde_json::Value>, owner_page: bool) -> Site {
        let flag_picture = match &config.avatar {
            Some(a) => StoredPicture {
                bytes: a.bytes.clone(),
                content_type: a.content_type.to_owned(),
            },
            None => StoredPicture {
                bytes: DEFAULT_AVATAR.to_vec(),
                content_type: "image/svg+xml".to_owned(),
            },
        };
        let flags = Texts {
            name: config.owner_name.clone(),
            about: None,
            spotify_url: config.spotify_url.clone(),
            beehive_url: config.beehive_url.clone(),
        };
        let first = FirstValues {
            flags,
            flag_picture,
            index_html: assets::index_html(),
            sync,
        };
        Site {
            view: Mutex::new(Arc::new(first.build(&Saved::default()))),
            first,
            saving: tokio::sync::Mutex::new(()),
            owner_page,
        }
    }

    /// Shows what the owner saved before (at start).
    pub async fn load(&self, db: &Db) -> Result<(), StoreError> {
        let _one = self.saving.lock().await;
        let saved = db.read(stored::read).await?;
        self.show(&saved);
        Ok(())
    }

    /// Runs `change` on the stored edits (one at a time) and shows what is stored after it.
    pub(crate) async fn change<F>(&self, db: &Db, change: F) -> Result<(), StoreError>
    where
        F: FnOnce(&rusqlite::Connection) -> Result<(), StoreError> + Send + 'static,
    {
        let _one = self.saving.lock().await;
        let saved = db
            .write(move |conn| {
                let tx = conn.transaction()?;
                change(&tx)?;
                let saved = stored::read(&tx)?;
                tx.commit()?;
                Ok(saved)
            })
            .await?;
        self.show(&saved);
        Ok(())
    }

    fn show(&self, saved: &Saved) {
        let view = Arc::new(self.first.build(saved));
        *lock(&self.view) = view;
    }

    fn current(&self) -> Arc<View> {
        lock(&self.view).clone()
    }

    /// The profile as `GET /api/site` answers it.
    pub fn profile(&self) -> Profile {
        self.current().profile.clone()
    }

    /// The index page for the address `path` as it is now (`None`: the UI was not built in).
    pub fn index_response(
        &self,
        path: &str,
        request: &HeaderMap,
        status: StatusCode,
    ) -> Option<Response> {
        let view = self.current();
        view.index
            .as_ref()
            .map(|i| i.response(path, request, status))
    }

    /// The flags' values and what the owner saved over them, for the owner's editor.
    fn editing(&self) -> (Profile, &Texts, bool, bool) {
        let view = self.current();
        (
            view.profile.clone(),
            &self.first.flags,
            view.texts_saved,
            view.picture_saved,
        )
    }

    /// The avatar. At its current address (`?v=` its hash) it is kept for a year; an older
    /// address is sent on to the current one; without `v` it is revalidated every time.
    pub fn avatar_response(&self, request: &HeaderMap, version: Option<&str>) -> Response {
        let view = self.current();
        let cache = match version {
            Some(v) if v == view.avatar_version => CACHE_IMMUTABLE,
            Some(_) => {
                return (
                    StatusCode::FOUND,
                    [
                        (header::LOCATION, view.profile.avatar_url.clone()),
                        (header::CACHE_CONTROL, "no-cache".to_owned()),
                    ],
                )
                    .into_response()
            }
            None => "no-cache",
        };
        let mut headers = HeaderMap::new();
        let content_type = HeaderValue::from_str(&view.avatar_type)
            .unwrap_or(HeaderValue::from_static("application/octet-stream"));
        headers.insert(header::CONTENT_TYPE, content_type);
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
        // An SVG opened directly must not run anything.
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'; sandbox"),
        );
        respond(
            request,
            headers,
            &view.avatar_etag,
            StatusCode::OK,
            view.avatar.clone(),
        )
    }
}

/// The flags and what a view is made with besides the owner's edits.
#[derive(Debug)]
struct FirstValues {
    /// The flags: the texts and the picture until the owner saves their own.
    flags: Texts,
    flag_picture: StoredPicture,
    /// The app's `index.html` (absent when the UI was not built in).
    index_html: Option<Vec<u8>>,
    sync: Option<serde_json::Value>,
}

impl FirstValues {
    fn build(&self, saved: &Saved) -> View {
        let texts = saved.texts.as_ref().unwrap_or(&self.flags);
        let picture = saved.picture.as_ref().unwrap_or(&self.flag_picture);
        let hash = Sha256::digest(&picture.bytes);
        let avatar_version = crate::hex::encode(&hash[..8]);
        let profile = Profile {
            name: texts.name.clone(),
            avatar_url: format!("/avatar?v={avatar_version}"),
            about: texts.about.clone(),
            spotify_url: texts.spotify_url.clone(),
            beehive_url: texts.beehive_url.clone(),
            version: crate::config::VERSION,
        };
        let index = self
            .index_html
            .as_deref()
            .map(|html| IndexPage::new(html, &profile, self.sync.as_ref()));
        View {
            profile,
            texts_saved: saved.texts.is_some(),
            picture_saved: saved.picture.is_some(),
            avatar: Bytes::from(picture.bytes.clone()),
            avatar_type: picture.content_type.clone(),
            avatar_version,
            avatar_etag: etag_for(&hash, None),
            index,
        }
    }
}
