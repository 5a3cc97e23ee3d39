//! The built React app, embedded in the binary: hashed assets cached for a year and served
//! precompressed (brotli or gzip, made at build time), everything else revalidated by ETag.

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;

use crate::http::conditional::{accepted_encodings, etag_for, respond};

#[cfg(hearth_ui_missing)]
compile_error!("ui/dist is missing: run `make build` (it builds the UI, then the binary)");

#[cfg_attr(not(hearth_ui_missing), derive(rust_embed::Embed), folder = "ui/dist/")]
struct Dist;

#[cfg(hearth_ui_missing)]
impl Dist {
    fn get(_: &str) -> Option<rust_embed::EmbeddedFile> {
        None
    }
}

pub const CACHE_IMMUTABLE: &str = "public, max-age=31536000, immutable";
pub const CACHE_REVALIDATE: &str = "no-cache";

/// The raw `index.html` that Vite wrote, if the UI was embedded.
pub fn index_html() -> Option<Vec<u8>> {
    Dist::get("index.html").map(|f| f.data.into_owned())
}

/// The precompressed copy of a file in each encoding: `app.js.br`, `app.js.gz`.
fn suffix(encoding: &str) -> &'static str {
    if encoding == "br" {
        ".br"
    } else {
        ".gz"
    }
}

/// Serves the embedded file at `path` (no leading slash), or `None` when there is none.
pub fn serve(path: &str, request: &HeaderMap) -> Option<Response> {
    // The compressed copies are an implementation detail, not addressable files.
    if path.ends_with(".br") || path.ends_with(".gz") || path == "index.html" {
        return None;
    }
    let original = Dist::get(path)?;
    let (file, encoding) = accepted_encodings(request)
        .into_iter()
        .find_map(|name| Dist::get(&format!("{path}{}", suffix(name))).map(|f| (f, Some(name))))
        .unwrap_or((original, None));

    let etag = etag_for(&file.metadata.sha256_hash(), encoding);
    let cache = if path.starts_with("assets/") {
        CACHE_IMMUTABLE
    } else {
        CACHE_REVALIDATE
    };
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(content_type(path)),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    headers.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    if let Some(encoding) = encoding {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
    }
    Some(respond(
        request,
        headers,
        &etag,
        StatusCode::OK,
        file.data.into_owned(),
    ))
}

fn content_type(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map(|(_, e)| e).unwrap_or_default();
    match ext.to_ascii_lowercase().as_str() {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "webmanifest" => "application/manifest+json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "gif" => "image/gif",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        // Compiled where it streams in (the flashcards' Anki import: sql.js).
        "wasm" => "application/wasm",
        "txt" => "text/plain; charset=utf-8",
        "xml" => "application/xml",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressed_copies_are_not_addressable() {
        // A copy that exists in the embedded build, next to the file it compresses.
        let copy = Dist::iter()
            .find(|name| name.starts_with("assets/") && name.ends_with(".br"))
            .expect("the build has brotli copies of its assets");
        let original = copy.trim_end_matches(".br");
        assert!(Dist::get(&copy).is_some());
        assert!(serve(original, &HeaderMap::new()).is_some());
        assert!(serve(&copy, &HeaderMap::new()).is_none());
        assert!(serve(&format!("{original}.gz"), &HeaderMap::new()).is_none());
    }
}
