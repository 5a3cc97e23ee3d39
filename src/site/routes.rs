//! The site's own routes: the owner's profile, the avatar, the app's files, and the app itself
//! for every client route (a 404 for files that do not exist, never the app).

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::{assets, Profile, Site};
use crate::http::error::json_error;

/// `GET /api/site`.
pub async fn profile(State(site): State<Arc<Site>>) -> Json<Profile> {
    Json(site.profile())
}

/// `GET /avatar?v=…` (`v`: the picture's version, as the profile's `avatarUrl` names it).
pub async fn avatar(State(site): State<Arc<Site>>, uri: Uri, headers: HeaderMap) -> Response {
    let version = uri
        .query()
        .unwrap_or_default()
        .split('&')
        .find_map(|pair| pair.strip_prefix("v="));
    site.avatar_response(&headers, version)
}

/// `GET /assets/*`.
pub async fn asset(uri: Uri, headers: HeaderMap) -> Response {
    let path = uri.path().trim_start_matches('/');
    assets::serve(path, &headers).unwrap_or_else(not_found_text)
}

/// Client routes get the app; files that do not exist get a 404, never the app.
pub async fn spa_fallback(
    State(site): State<Arc<Site>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return json_error(StatusCode::METHOD_NOT_ALLOWED, "method not allowed");
    }
    let path = uri.path();
    let last_segment = path.rsplit('/').next().unwrap_or_default();
    if last_segment.contains('.') {
        return assets::serve(path.trim_start_matches('/'), &headers)
            .unwrap_or_else(not_found_text);
    }
    if path.starts_with("/cal/") || path == "/cal" {
        return not_found_text();
    }
    let status =
        if is_client_route(path) || (site.owner_page && path.trim_end_matches('/') == "/owner") {
            StatusCode::OK
        } else {
            // The app renders its own "page not found" for these.
            StatusCode::NOT_FOUND
        };
    site.index_response(path, &headers, status)
        .unwrap_or_else(not_found_text)
}

/// The routes the React app knows (SPEC.md section 2, and sync's).
fn is_client_route(path: &str) -> bool {
    let path = path.trim_end_matches('/');
    path.is_empty()
        || path == "/flashcards"
        || path.starts_with("/flashcards/")
        || path == "/calendars"
        || path.starts_with("/calendars/")
        // Flashcard sync: joining a vault and opening a shared deck (the key is in the fragment,
        // which never reaches the server).
        || path == "/sync"
        || path.starts_with("/sync/")
}

fn not_found_text() -> Response {
    (
        StatusCode::NOT_FOUND,
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; charset=utf-8",
        )],
        "Not found\n",
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_routes_are_those_of_the_spec() {
        for path in [
            "/",
            "/flashcards",
            "/flashcards/new",
            "/flashcards/abc/edit",
            "/flashcards/abc/practice",
            "/calendars",
            "/calendars/new",
            "/sync",
            "/sync/deck",
        ] {
            assert!(is_client_route(path), "{path}");
        }
        // The owner page is a page of the app only on a site with a publish key (spa_fallback).
        for path in ["/about", "/flashcardsx", "/api/x", "/cal/x", "/owner"] {
            assert!(!is_client_route(path), "{path}");
        }
    }
}
