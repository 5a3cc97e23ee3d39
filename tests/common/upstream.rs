//! An upstream calendar server on loopback, in-process, whose behaviour each test sets: the
//! body, the status, a redirect, ETag support, and a gate that holds requests until
//! the test opens it (so a test knows they are under way without sleeping); it counts the
//! requests it gets.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use tokio::net::TcpListener;

pub const SAMPLE: &str = "BEGIN:VCALENDAR\r\n\
VERSION:2.0\r\n\
PRODID:-//Hearth tests//EN\r\n\
X-WR-CALNAME:Upstream\r\n\
BEGIN:VTIMEZONE\r\n\
TZID:Europe/Amsterdam\r\n\
BEGIN:STANDARD\r\n\
DTSTART:19701025T030000\r\n\
TZOFFSETFROM:+0200\r\n\
TZOFFSETTO:+0100\r\n\
END:STANDARD\r\n\
END:VTIMEZONE\r\n\
BEGIN:VEVENT\r\n\
UID:one@hearth.test\r\n\
DTSTAMP:20260101T000000Z\r\n\
DTSTART;TZID=Europe/Amsterdam:20261201T090000\r\n\
DTEND;TZID=Europe/Amsterdam:20261201T100000\r\n\
SUMMARY:Team meeting\r\n\
LOCATION:Room 4\\, Building B\r\n\
DESCRIPTION:Agenda:\\n1. Budget\r\n\
BEGIN:VALARM\r\n\
ACTION:DISPLAY\r\n\
TRIGGER:-PT15M\r\n\
DESCRIPTION:Reminder\r\n\
END:VALARM\r\n\
END:VEVENT\r\n\
BEGIN:VEVENT\r\n\
UID:two@hearth.test\r\n\
DTSTAMP:20260101T000000Z\r\n\
DTSTART;VALUE=DATE:20261224\r\n\
SUMMARY:Holiday\r\n\
END:VEVENT\r\n\
END:VCALENDAR\r\n";

pub struct Upstream {
    pub addr: SocketAddr,
    pub state: Arc<UpstreamState>,
}

pub struct UpstreamState {
    pub body: Mutex<Vec<u8>>,
    pub content_type: Mutex<String>,
    pub status: AtomicU16,
    pub hits: AtomicUsize,
    pub conditional_hits: AtomicUsize,
    pub redirect_to: Mutex<Option<String>>,
    /// Send the body gzip-compressed (Content-Encoding: gzip).
    pub gzip: AtomicBool,
    /// The Host and User-Agent of every request, in order.
    pub requests: Mutex<Vec<(String, String)>>,
    /// Open unless a test closed it; requests wait while it is closed.
    pub gate: tokio::sync::watch::Sender<bool>,
    /// Requests held at the gate now, and a signal each time one arrives there.
    pub waiting: AtomicUsize,
    pub arrived: tokio::sync::Notify,
}

impl Upstream {
    pub async fn start() -> Upstream {
        Self::start_on("127.0.0.1:0").await
    }

    pub async fn start_on(bind: &str) -> Upstream {
        let state = Arc::new(UpstreamState {
            body: Mutex::new(SAMPLE.as_bytes().to_vec()),
            content_type: Mutex::new("text/calendar; charset=utf-8".into()),
            status: AtomicU16::new(200),
            hits: AtomicUsize::new(0),
            conditional_hits: AtomicUsize::new(0),
            redirect_to: Mutex::new(None),
            gzip: AtomicBool::new(false),
            requests: Mutex::new(Vec::new()),
            gate: tokio::sync::watch::Sender::new(true),
            waiting: AtomicUsize::new(0),
            arrived: tokio::sync::Notify::new(),
        });
        let app = Router::new().fallback(serve).with_state(state.clone());
        let listener = TcpListener::bind(bind).await.expect("upstream binds");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Upstream { addr, state }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    pub fn hits(&self) -> usize {
        self.state.hits.load(Ordering::SeqCst)
    }

    pub fn set_body(&self, body: impl Into<Vec<u8>>) {
        *self.state.body.lock().expect("lock") = body.into();
    }

    pub fn set_status(&self, status: u16) {
        self.state.status.store(status, Ordering::SeqCst);
    }

    /// (Host, User-Agent) of each request so far.
    pub fn requests(&self) -> Vec<(String, String)> {
        self.state.requests.lock().expect("lock").clone()
    }

    /// Holds every request from now on until [`Upstream::open_gate`].
    pub fn close_gate(&self) {
        self.state.gate.send_replace(false);
    }

    pub fn open_gate(&self) {
        self.state.gate.send_replace(true);
    }

    /// Returns once `n` requests are held at the closed gate.
    pub async fn until_waiting(&self, n: usize) {
        loop {
            // Registered before the count is read, so an arrival in between is not missed.
            let arrived = self.state.arrived.notified();
            tokio::pin!(arrived);
            arrived.as_mut().enable();
            if self.state.waiting.load(Ordering::SeqCst) >= n {
                return;
            }
            arrived.await;
        }
    }

    pub fn redirect_to(&self, target: &str) {
        *self.state.redirect_to.lock().expect("lock") = Some(target.to_owned());
    }
}

fn etag_of(body: &[u8]) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    body.hash(&mut h);
    format!("\"{:x}\"", h.finish())
}

async fn serve(
    State(state): State<Arc<UpstreamState>>,
    uri: axum::http::Uri,
    headers: HeaderMap,
) -> Response {
    state.hits.fetch_add(1, Ordering::SeqCst);
    let mut gate = state.gate.subscribe();
    // Addresses under /fast/ pass a closed gate (a host with slow and quick addresses).
    if !*gate.borrow() && !uri.path().starts_with("/fast/") {
        state.waiting.fetch_add(1, Ordering::SeqCst);
        state.arrived.notify_waiters();
        let _ = gate.wait_for(|open| *open).await;
        state.waiting.fetch_sub(1, Ordering::SeqCst);
    }
    let header_text = |name| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    state
        .requests
        .lock()
        .expect("lock")
        .push((header_text(header::HOST), header_text(header::USER_AGENT)));
    if let Some(target) = state.redirect_to.lock().expect("lock").clone() {
        return (StatusCode::FOUND, [(header::LOCATION, target)]).into_response();
    }
    let status = StatusCode::from_u16(state.status.load(Ordering::SeqCst))
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if !status.is_success() {
        return (status, "upstream trouble").into_response();
    }
    let body = state.body.lock().expect("lock").clone();
    let etag = etag_of(&body);
    if headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        == Some(etag.as_str())
    {
        state.conditional_hits.fetch_add(1, Ordering::SeqCst);
        return (StatusCode::NOT_MODIFIED, [(header::ETAG, etag)]).into_response();
    }
    let content_type = state.content_type.lock().expect("lock").clone();
    if state.gzip.load(Ordering::SeqCst) {
        use std::io::Write;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        encoder.write_all(&body).expect("compress");
        let compressed = encoder.finish().expect("compress");
        return (
            [
                (header::CONTENT_TYPE, content_type),
                (header::ETAG, etag),
                (header::CONTENT_ENCODING, "gzip".to_owned()),
            ],
            compressed,
        )
            .into_response();
    }
    (
        [(header::CONTENT_TYPE, content_type), (header::ETAG, etag)],
        body,
    )
        .into_response()
}
