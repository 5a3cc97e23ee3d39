//! The built React app, embedded in the binary: hashed assets cached for a year and served
//! precompressed (brotli or gzip, made at build time), everything else revalidated by ETag.

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

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

/// Content encodings we keep precompressed copies for, best first.
const ENCODINGS: [(&str, &str); 2] = [("br", ".br"), ("gzip", ".gz")];

/// Serves the embedded file at `path` (no leading slash), or `None` when there is none.
pub fn serve(path: &str, request: &HeaderMap) -> Option<Response> {
    // The compressed copies are an implementation detail, not addressable files.
    if path.ends_with(".br") || path.ends_with(".gz") || path == "index.html" {
        return None;
    }
    let original = Dist::get(path)?;
    let accepted = accepted_encodings(request);
    let (file, encoding) = ENCODINGS
        .iter()
        .filter(|(name, _)| accepted.contains(name))
        .find_map(|(name, suffix)| Dist::get(&format!("{path}{suffix}")).map(|f| (f, Some(*name))))
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
    if let Ok(value) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, value);
    }
    if let Some(encoding) = encoding {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
    }
    if etag_matches(request, &etag) {
        return Some((StatusCode::NOT_MODIFIED, headers).into_response());
    }
    Some((headers, Body::from(file.data.into_owned())).into_response())
}

/// A strong ETag from a content hash; each encoding of a file is its own representation.
pub fn etag_for(hash: &[u8], encoding: Option<&str>) -> String {
    let hex: String = hash.iter().take(16).map(|b| format!("{b:02x}")).collect();
    match encoding {
        Some(enc) => format!("\"{hex}-{enc}\""),
        None => format!("\"{hex}\""),
    }
}

/// Whether `If-None-Match` names `etag` (or `*`).
pub fn etag_matches(request: &HeaderMap, etag: &str) -> bool {
    request
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|tag| tag.trim().trim_start_matches("W/"))
        .any(|tag| tag == etag || tag == "*")
}

/// Encodings the client accepts (q=0 means refused).
pub fn accepted_encodings(request: &HeaderMap) -> Vec<&'static str> {
    let mut out = Vec::new();
    for value in request
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
    {
        for item in value.split(',') {
            let mut parts = item.split(';');
            let name = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
            let refused = parts.any(|p| {
                p.trim()
                    .strip_prefix("q=")
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            if refused {
                continue;
            }
            for (known, _) in ENCODINGS {
                if name == known && !out.contains(&known) {
                    out.push(known);
                }
            }
        }
    }
    out
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
        "txt" => "text/plain; charset=utf-8",
        "xml" => "application/xml",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(name.clone(), HeaderValue::from_str(value).expect("valid"));
        }
        map
    }

    #[test]
    fn accept_encoding_honours_q_zero_and_order_of_preference() {
        let h = headers(&[(header::ACCEPT_ENCODING, "gzip, deflate, br;q=0")]);
        assert_eq!(accepted_encodings(&h), vec!["gzip"]);
        let h = headers(&[(header::ACCEPT_ENCODING, "br;q=1.0, gzip;q=0.8")]);
        assert_eq!(accepted_encodings(&h), vec!["br", "gzip"]);
        assert!(accepted_encodings(&HeaderMap::new()).is_empty());
    }

    #[test]
    fn if_none_match_accepts_lists_weak_tags_and_star() {
        let tag = "\"abc\"";
        assert!(etag_matches(
            &headers(&[(header::IF_NONE_MATCH, "\"x\", \"abc\"")]),
            tag
        ));
        assert!(etag_matches(
            &headers(&[(header::IF_NONE_MATCH, "W/\"abc\"")]),
            tag
        ));
        assert!(etag_matches(&headers(&[(header::IF_NONE_MATCH, "*")]), tag));
        assert!(!etag_matches(
            &headers(&[(header::IF_NONE_MATCH, "\"abd\"")]),
            tag
        ));
    }

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
