//! Headers every response carries (security policy, the request id), and reading a bearer token.

use axum::http::{header, HeaderMap, HeaderName, HeaderValue};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::secret::Token;

/// The page may load only its own scripts, styles and images; nothing may frame it. Its own
/// scripts may compile WebAssembly (`'wasm-unsafe-eval'`, which allows no JavaScript eval): the
/// flashcards' Anki import opens the package's SQLite database with sql.js. Pictures and sounds
/// may come from `blob:` object URLs (a card's media, read from the browser's own store); nothing
/// else may (no script, style, frame or worker from a blob).
pub const CONTENT_SECURITY_POLICY: &str =
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; \
     style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; font-src 'self'; \
     connect-src 'self'; \
     manifest-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; \
     form-action 'self'; frame-ancestors 'none'";

pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The token of `Authorization: Bearer <token>` (edit tokens, sync write tokens), if any.
pub fn bearer_token(headers: &HeaderMap) -> Option<Token> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .and_then(Token::given)
}

/// Whether a response's own policy lets any site frame it (`frame-ancestors *`: the agenda
/// page, the one page meant to be embedded).
fn framable(policy: Option<&HeaderValue>) -> bool {
    policy
        .and_then(|v| v.to_str().ok())
        .is_some_and(|p| p.split(';').any(|d| d.trim() == "frame-ancestors *"))
}

/// What decides a response's `X-Frame-Options`.
type FrameOptions = fn(&axum::http::Response<axum::body::Body>) -> Option<HeaderValue>;

/// `X-Frame-Options: DENY` on every response but one whose policy lets any site frame it
/// (where DENY would forbid what its policy allows).
pub fn frame_options_layer() -> SetResponseHeaderLayer<FrameOptions> {
    fn deny(response: &axum::http::Response<axum::body::Body>) -> Option<HeaderValue> {
        (!framable(response.headers().get(header::CONTENT_SECURITY_POLICY)))
            .then(|| HeaderValue::from_static("DENY"))
    }
    SetResponseHeaderLayer::if_not_present(header::X_FRAME_OPTIONS, deny as _)
}

/// Layers that set the security headers unless a handler chose its own.
pub fn security_layers() -> [SetResponseHeaderLayer<HeaderValue>; 5] {
    [
        SetResponseHeaderLayer::if_not_present(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        ),
        SetResponseHeaderLayer::if_not_present(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ),
        SetResponseHeaderLayer::if_not_present(
            header::REFERRER_POLICY,
            HeaderValue::from_static("strict-origin-when-cross-origin"),
        ),
        SetResponseHeaderLayer::if_not_present(
            HeaderName::from_static("cross-origin-opener-policy"),
            HeaderValue::from_static("same-origin"),
        ),
        // The flashcards record the learner's voice (the microphone, this site only); a photo for a
        // card is taken through the file chooser, which needs no camera permission.
        SetResponseHeaderLayer::if_not_present(
            HeaderName::from_static("permissions-policy"),
            HeaderValue::from_static(
                "camera=(), microphone=(self), geolocation=(), interest-cohort=()",
            ),
        ),
    ]
}
