//! The owner's profile: `GET /api/site`, the avatar image, and the index page with the profile
//! written into it at start-up, so the landing page never flashes a placeholder name.

pub mod assets;
mod index;
pub mod routes;

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::config::SiteSettings;
use crate::http::conditional::{etag_for, respond};

pub use index::IndexPage;

const DEFAULT_AVATAR: &[u8] = include_bytes!("default-avatar.svg");

/// What `GET /api/site` answers and what the index page carries.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub name: String,
    pub avatar_url: String,
    pub spotify_url: Option<String>,
    pub beehive_url: Option<String>,
    pub version: &'static str,
}

/// The profile, the avatar bytes and the prepared index page.
#[derive(Debug)]
pub struct Site {
    pub profile: Profile,
    avatar: Vec<u8>,
    avatar_type: &'static str,
    avatar_etag: String,
    pub index: Option<IndexPage>,
    /// `/owner` is a page of the app (the site has a publish key); else it is not found.
    pub owner_page: bool,
}

impl Site {
    /// `sync` is what the index page tells the app about sync (`None`: turned off);
    /// `owner_page`: the site has a publish key, so `/owner` exists.
    pub fn new(config: &SiteSettings, sync: Option<serde_json::Value>, owner_page: bool) -> Site {
        let (avatar, avatar_type) = match &config.avatar {
            Some(a) => (a.bytes.clone(), a.content_type),
            None => (DEFAULT_AVATAR.to_vec(), "image/svg+xml"),
        };
        let hash = Sha256::digest(&avatar);
        let avatar_etag = etag_for(&hash, None);
        let version_tag = crate::hex::encode(&hash[..4]);
        let profile = Profile {
            name: config.owner_name.clone(),
            avatar_url: format!("/avatar?v={version_tag}"),
            spotify_url: config.spotify_url.clone(),
            beehive_url: config.beehive_url.clone(),
            version: crate::config::VERSION,
        };
        let index = assets::index_html().map(|html| IndexPage::new(&html, &profile, sync.as_ref()));
        Site {
            profile,
            avatar,
            avatar_type,
            avatar_etag,
            index,
            owner_page,
        }
    }

    /// The avatar image; its URL changes with its content, so it may be cached for a day.
    pub fn avatar_response(&self, request: &HeaderMap) -> Response {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(self.avatar_type),
        );
        headers.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=86400"),
        );
        // An SVG opened directly must not run anything.
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'; sandbox"),
        );
        respond(
            request,
            headers,
            &self.avatar_etag,
            StatusCode::OK,
            self.avatar.clone(),
        )
    }
}
