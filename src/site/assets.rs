//! The built React app, embedded in the binary: hashed assets cached for a year and served
//! precompressed, everything else revalidated by ETag.
//! What is embedded is `ui/embed/` (written by `ui/scripts/compress.mjs`): a compressible file
//! only as its brotli copy (made at build time, at the highest level), any other file as it is.
//! Browsers ask for brotli (Chromium also over plain http), so nearly every answer is that copy
//! as it sits in the binary. For a client that accepts gzip but not brotli, a gzip copy is made
//! from it when first asked for and kept; for one that accepts neither, the exact bytes Vite wrote,
//! likewise kept. Each form has its own strong ETag from the brotli copy's hash.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::{Mutex, OnceLock};

use axum::body::Bytes;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;

use crate::http::conditional::{accepted_encodings, etag_for, respond};

#[cfg(hearth_ui_missing)]
compile_error!("ui/embed is missing: run `make build` (it builds the UI, then the binary)");

#[cfg_attr(
    not(hearth_ui_missing),
    derive(rust_embed::Embed),
    folder = "ui/embed/"
)]
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

/// Serves the embedded file at `path` (no leading slash), or `None` when there is none.
pub fn serve(path: &str, request: &HeaderMap) -> Option<Response> {
    // The compressed copies are an implementation detail, not addressable files.
    if path.ends_with(".br") || path.ends_with(".gz") || path == "index.html" {
        return None;
    }
    let (hash, encoding, body) = match Dist::get(&format!("{path}.br")) {
        // Not compressible, or brotli did not make it smaller: the file as it is.
        None => {
            let file = Dist::get(path)?;
            (file.metadata.sha256_hash(), None, body_of(file.data))
        }
        Some(br) => {
            let hash = br.metadata.sha256_hash();
            let accepted = accepted_encodings(request);
            if accepted.contains(&"br") {
                (hash, Some("br"), body_of(br.data))
            } else if accepted.contains(&"gzip") {
                (
                    hash,
                    Some("gzip"),
                    kept(&GZIPPED, path, || gzipped(path, &br.data))?,
                )
            } else {
                (hash, None, kept(&PLAIN, path, || plain(path, &br.data))?)
            }
        }
    };

    let etag = etag_for(&hash, encoding);
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
    Some(respond(request, headers, &etag, StatusCode::OK, body))
}

/// An embedded file's bytes as a body, without a copy when they are in the binary.
fn body_of(data: Cow<'static, [u8]>) -> Bytes {
    match data {
        Cow::Borrowed(bytes) => Bytes::from_static(bytes),
        Cow::Owned(bytes) => Bytes::from(bytes),
    }
}

type Kept = OnceLock<Mutex<HashMap<String, Bytes>>>;

/// Files as Vite wrote them, made from their brotli copies for clients that accept no encoding.
static PLAIN: Kept = OnceLock::new();
/// Gzip copies, made from the files as Vite wrote them, for clients that accept gzip only.
static GZIPPED: Kept = OnceLock::new();

/// The bytes kept in `store` for `path`, made by `make` on the first ask. Only the UI's own files
/// are ever kept (at most its size, about 3.8 MB plain and 1.2 MB gzipped), and only once a client
/// that refuses brotli asks for them.
fn kept(store: &'static Kept, path: &str, make: impl FnOnce() -> Option<Bytes>) -> Option<Bytes> {
    let store = store.get_or_init(Mutex::default);
    if let Some(bytes) = store.lock().ok()?.get(path) {
        return Some(bytes.clone());
    }
    let bytes = make()?;
    store.lock().ok()?.insert(path.to_owned(), bytes.clone());
    Some(bytes)
}

/// The file at `path` as Vite wrote it, from its brotli copy `br`.
fn plain(path: &str, br: &[u8]) -> Option<Bytes> {
    let mut out = Vec::new();
    match brotli_decompressor::Decompressor::new(br, 64 * 1024).read_to_end(&mut out) {
        Ok(_) => Some(Bytes::from(out)),
        Err(e) => {
            tracing::error!(path, error = %e, "an embedded brotli copy does not decode");
            None
        }
    }
}

/// A gzip copy of the file at `path` (the same bytes each time: no name, no time in its header).
fn gzipped(path: &str, br: &[u8]) -> Option<Bytes> {
    let original = kept(&PLAIN, path, || plain(path, br))?;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(&original).ok()?;
    encoder.finish().ok().map(Bytes::from)
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

    #[test]
    fn each_file_is_embedded_once() {
        let names: Vec<_> = Dist::iter().collect();
        let compressed: Vec<_> = names.iter().filter_map(|n| n.strip_suffix(".br")).collect();
        assert!(compressed.iter().any(|n| n.ends_with(".wasm")), "{names:?}");
        assert!(!names.iter().any(|n| n.ends_with(".gz")), "{names:?}");
        for name in &compressed {
            assert!(
                Dist::get(name).is_none(),
                "{name} is embedded beside its brotli copy"
            );
        }
    }

    #[test]
    fn clients_without_brotli_get_the_bytes_vite_wrote_plain_or_gzipped() {
        let name = Dist::iter()
            .find(|n| n.starts_with("assets/") && n.ends_with(".js.br"))
            .expect("a compressed script");
        let path = name.trim_end_matches(".br");
        let written = std::fs::read(format!("{}/ui/dist/{path}", env!("CARGO_MANIFEST_DIR")))
            .expect("ui/dist holds the file");
        let br = Dist::get(&name).expect("copy").data;
        let first = kept(&PLAIN, path, || plain(path, &br)).expect("decodes");
        assert_eq!(first.as_ref(), written.as_slice());
        // Kept: the second ask is the same buffer, not a second decoding.
        let again = kept(&PLAIN, path, || None).expect("kept");
        assert_eq!(again.as_ptr(), first.as_ptr());

        let gz = gzipped(path, &br).expect("gzips");
        assert_eq!(
            gzipped(path, &br).expect("again"),
            gz,
            "the same bytes each time"
        );
        let mut unzipped = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut unzipped)
            .expect("gunzips");
        assert_eq!(unzipped, written);
    }
}
