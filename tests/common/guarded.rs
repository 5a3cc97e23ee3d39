//! An upstream calendar server on loopback that asks for a login: it answers its calendar
//! only to the `Authorization` it expects (401 otherwise), notes every `Authorization` it was
//! sent (so a test can tell a server never received a login), and may redirect elsewhere.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use tokio::net::TcpListener;

/// A calendar only a login opens.
pub const SECRET_FEED: &str = "BEGIN:VCALENDAR\r\n\
VERSION:2.0\r\n\
PRODID:-//Guarded//EN\r\n\
BEGIN:VEVENT\r\n\
UID:standup@guarded.test\r\n\
DTSTAMP:20260101T000000Z\r\n\
DTSTART:20261201T090000Z\r\n\
DTEND:20261201T093000Z\r\n\
SUMMARY:Private standup\r\n\
END:VEVENT\r\n\
END:VCALENDAR\r\n";

pub struct Guarded {
    pub addr: SocketAddr,
    state: Arc<GuardState>,
}

struct GuardState {
    /// The `Authorization` value it answers; `None`: anyone.
    expect: Mutex<Option<String>>,
    seen: Mutex<Vec<Option<String>>>,
    redirect: Mutex<Option<String>>,
}

impl Guarded {
    /// A server that answers only `expect` (an `Authorization` value), or anyone for `None`.
    pub async fn start(expect: Option<String>) -> Guarded {
        let state = Arc::new(GuardState {
            expect: Mutex::new(expect),
            seen: Mutex::new(Vec::new()),
            redirect: Mutex::new(None),
        });
        let app = Router::new().fallback(serve).with_state(state.clone());
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("binds");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Guarded { addr, state }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Every `Authorization` it was sent, in order (`None`: a request without one).
    pub fn seen(&self) -> Vec<Option<String>> {
        self.state.seen.lock().expect("lock").clone()
    }

    /// From now on it answers only `expect` (a password changed upstream).
    pub fn expect(&self, expect: Option<String>) {
        *self.state.expect.lock().expect("lock") = expect;
    }

    pub fn redirect_to(&self, target: &str) {
        *self.state.redirect.lock().expect("lock") = Some(target.to_owned());
    }
}

/// `Authorization` of HTTP Basic.
pub fn basic(username: &str, password: &str) -> String {
    format!(
        "Basic {}",
        base64(format!("{username}:{password}").as_bytes())
    )
}

/// Standard base64 with padding (RFC 4648), as HTTP Basic writes its pair.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

async fn serve(State(state): State<Arc<GuardState>>, headers: HeaderMap) -> Response {
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    state.seen.lock().expect("lock").push(given.clone());
    if let Some(target) = state.redirect.lock().expect("lock").clone() {
        return (StatusCode::FOUND, [(header::LOCATION, target)]).into_response();
    }
    let expect = state.expect.lock().expect("lock").clone();
    if expect.is_some() && given != expect {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Basic realm=\"calendar\"")],
            "login needed",
        )
            .into_response();
    }
    (
        [(header::CONTENT_TYPE, "text/calendar; charset=utf-8")],
        SECRET_FEED,
    )
        .into_response()
}
