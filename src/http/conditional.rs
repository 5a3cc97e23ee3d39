//! Conditional and negotiated responses: strong ETags from content hashes, `If-None-Match`,
//! `Accept-Encoding`, and the one place a 304 or a 200 is assembled from them.

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// The encodings Hearth keeps compressed copies in, best first.
pub const ENCODINGS: [&str; 2] = ["br", "gzip"];

/// A strong ETag from a content hash; each encoding of a file is its own representation.
pub fn etag_for(hash: &[u8], encoding: Option<&str>) -> String {
    let hex = crate::hex::encode(&hash[..hash.len().min(16)]);
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

/// Of [`ENCODINGS`], those the client accepts (q=0 means refused).
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
            for known in ENCODINGS {
                if name == known && !out.contains(&known) {
                    out.push(known);
                }
            }
        }
    }
    out
}

/// The answer for a representation tagged `etag`: `304 Not Modified` with `headers` when the
/// client has it (only for a 200), else `status` with `headers` and `body`. Sets the ETag.
pub fn respond(
    request: &HeaderMap,
    mut headers: HeaderMap,
    etag: &str,
    status: StatusCode,
    body: impl Into<Body>,
) -> Response {
    if let Ok(v) = HeaderValue::from_str(etag) {
        headers.insert(header::ETAG, v);
    }
    if status == StatusCode::OK && etag_matches(request, etag) {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    (status, headers, body.into()).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(k.clone(), HeaderValue::from_str(v).expect("valid"));
        }
        h
    }

    #[test]
    fn etags_are_quoted_hex_of_the_first_sixteen_bytes() {
        assert_eq!(
            etag_for(&[0xab; 32], None),
            format!("\"{}\"", "ab".repeat(16))
        );
        assert_eq!(etag_for(&[1, 2], Some("br")), "\"0102-br\"");
    }

    #[test]
    fn if_none_match_matches_lists_weak_tags_and_star() {
        let tag = "\"abc\"";
        for value in ["\"abc\"", "\"x\", \"abc\"", "W/\"abc\"", "*"] {
            assert!(
                etag_matches(&headers(&[(header::IF_NONE_MATCH, value)]), tag),
                "{value}"
            );
        }
        assert!(!etag_matches(
            &headers(&[(header::IF_NONE_MATCH, "\"abd\"")]),
            tag
        ));
    }

    #[test]
    fn refused_encodings_are_left_out() {
        let h = headers(&[(header::ACCEPT_ENCODING, "gzip;q=0, br")]);
        assert_eq!(accepted_encodings(&h), vec!["br"]);
        let h = headers(&[(header::ACCEPT_ENCODING, "deflate, GZIP;q=0.5")]);
        assert_eq!(accepted_encodings(&h), vec!["gzip"]);
    }

    #[test]
    fn a_matching_tag_gives_304_only_for_a_200() {
        let request = headers(&[(header::IF_NONE_MATCH, "\"t\"")]);
        let ok = respond(&request, HeaderMap::new(), "\"t\"", StatusCode::OK, "x");
        assert_eq!(ok.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(ok.headers()[header::ETAG], "\"t\"");
        let missing = respond(
            &request,
            HeaderMap::new(),
            "\"t\"",
            StatusCode::NOT_FOUND,
            "x",
        );
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    }
}
