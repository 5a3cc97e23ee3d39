//! The upstream feed server, in this process on its own runtime.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;

use crate::feedgen;
use crate::server::lock;

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub enum FeedKind {
    /// benches/feedgen: realistic events of about 1.45 KB.
    Generated,
    /// Small events (about 150 B), so 200k of them fit a feed.
    Compact,
}

pub struct UpState {
    hits: AtomicUsize,
    /// Requests being answered now, and the most at once since the last reset.
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    switch_delay_ms: AtomicU64,
    generation: AtomicU64,
    feeds: Mutex<HashMap<(FeedKind, usize), Bytes>>,
    small: Bytes,
}

impl UpState {
    pub fn feed(&self, kind: FeedKind, events: usize) -> Bytes {
        let events = events.min(400_000);
        lock(&self.feeds)
            .entry((kind, events))
            .or_insert_with(|| match kind {
                FeedKind::Generated => Bytes::from(feedgen::feed(events)),
                FeedKind::Compact => Bytes::from(compact_feed(events)),
            })
            .clone()
    }
}

/// Serves, counting every request:
/// `/feed/{events}.ics` and `/feed/{events}/{variant}.ics` (a generated feed; the variant makes
/// the URL and the calendar name distinct), `/compact/{events}.ics`, `/slow/{secs}.ics` (a small
/// feed after a delay), `/switch/{name}.ics` (a small feed after the delay the benchmark sets),
/// `/changing/{name}.ics` (a small feed that changes each time the benchmark says so),
/// `/dropping/{events}/{bytes}/{name}.ics` (events of about `bytes` each that ended days ago,
/// new ones at each change, so the last ones are dropped after they ended: what history keeps),
/// `/delay/{ms}/{name}.ics` (a small feed after `ms` milliseconds, whatever its query), and any
/// other path: a small feed.
pub struct Upstream {
    pub addr: SocketAddr,
    state: Arc<UpState>,
    bytes_per_event: usize,
}

impl Upstream {
    pub fn start() -> Result<Upstream, String> {
        let state = Arc::new(UpState {
            hits: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            switch_delay_ms: AtomicU64::new(0),
            generation: AtomicU64::new(0),
            feeds: Mutex::new(HashMap::new()),
            small: Bytes::from(compact_feed(1)),
        });
        let sample = feedgen::feed(1000).len();
        let (tx, rx) = mpsc::channel();
        let shared = state.clone();
        std::thread::Builder::new()
            .name("upstream".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = tx.send(Err(format!("upstream runtime: {e}")));
                        return;
                    }
                };
                rt.block_on(async move {
                    let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
                        Ok(l) => l,
                        Err(e) => {
                            let _ = tx.send(Err(format!("upstream bind: {e}")));
                            return;
                        }
                    };
                    let _ = tx.send(
                        listener
                            .local_addr()
                            .map_err(|e| format!("upstream address: {e}")),
                    );
                    let app = Router::new().fallback(serve_upstream).with_state(shared);
                    if let Err(e) = axum::serve(listener, app).await {
                        eprintln!("attack: upstream stopped: {e}");
                    }
                });
            })
            .map_err(|e| format!("upstream thread: {e}"))?;
        let addr = rx
            .recv_timeout(Duration::from_secs(10))
            .map_err(|_| "the upstream server did not start".to_owned())??;
        Ok(Upstream {
            addr,
            state,
            bytes_per_event: (sample / 1000).max(1),
        })
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    pub fn hits(&self) -> usize {
        self.state.hits.load(Ordering::SeqCst)
    }

    /// Generates (once) and returns a feed; attacks call it before the server asks for it.
    pub fn feed(&self, kind: FeedKind, events: usize) -> Bytes {
        self.state.feed(kind, events)
    }

    /// The number of generated events that makes a feed of about `bytes`.
    pub fn events_for_bytes(&self, bytes: usize) -> usize {
        (bytes / self.bytes_per_event).max(1)
    }

    pub fn set_switch_delay(&self, delay: Duration) {
        self.state
            .switch_delay_ms
            .store(delay.as_millis() as u64, Ordering::SeqCst);
    }

    /// The most requests answered at once since the last call (which starts a new count).
    pub fn take_max_in_flight(&self) -> usize {
        self.state.max_in_flight.swap(
            self.state.in_flight.load(Ordering::SeqCst),
            Ordering::SeqCst,
        )
    }

    /// Changes what every `/changing/` and `/dropping/` feed says from now on.
    pub fn change(&self) {
        self.state.generation.fetch_add(1, Ordering::SeqCst);
    }
}

/// Counts a request as answered until dropped.
struct Answering<'a>(&'a UpState);

impl<'a> Answering<'a> {
    fn new(state: &'a UpState) -> Answering<'a> {
        let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        state.max_in_flight.fetch_max(now, Ordering::SeqCst);
        Answering(state)
    }
}

impl Drop for Answering<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn serve_upstream(State(state): State<Arc<UpState>>, uri: Uri) -> Response {
    state.hits.fetch_add(1, Ordering::SeqCst);
    let _answering = Answering::new(&state);
    let parts: Vec<&str> = uri.path().trim_start_matches('/').split('/').collect();
    let number = |file: &str| {
        file.strip_suffix(".ics")
            .and_then(|n| n.parse::<usize>().ok())
    };
    let body = match parts.as_slice() {
        ["feed", file] => number(file).map(|n| state.feed(FeedKind::Generated, n)),
        ["feed", n, variant] => n.parse::<usize>().ok().map(|n| {
            let feed = state.feed(FeedKind::Generated, n);
            let name = format!("X-WR-CALNAME:Generated {variant}");
            let mut out = Vec::with_capacity(feed.len() + name.len());
            let marker = b"X-WR-CALNAME:Generated";
            match feed.windows(marker.len()).position(|w| w == marker) {
                Some(at) => {
                    out.extend_from_slice(&feed[..at]);
                    out.extend_from_slice(name.as_bytes());
                    out.extend_from_slice(&feed[at + marker.len()..]);
                }
                None => out.extend_from_slice(&feed),
            }
            Bytes::from(out)
        }),
        ["compact", file] => number(file).map(|n| state.feed(FeedKind::Compact, n)),
        ["slow", file] => {
            let secs = number(file).unwrap_or(10).min(60) as u64;
            tokio::time::sleep(Duration::from_secs(secs)).await;
            None
        }
        ["changing", _] => Some(Bytes::from(changing_feed(
            state.generation.load(Ordering::SeqCst),
        ))),
        ["dropping", events, bytes, name] => {
            let events = events.parse::<usize>().unwrap_or(100).min(20_000);
            let bytes = bytes.parse::<usize>().unwrap_or(200).min(64 * 1024);
            let name = name.trim_end_matches(".ics");
            let generation = state.generation.load(Ordering::SeqCst);
            Some(Bytes::from(dropping_feed(events, bytes, name, generation)))
        }
        ["delay", ms, _] => {
            let ms = ms.parse::<u64>().unwrap_or(0).min(60_000);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            None
        }
        ["switch", _] => {
            let ms = state.switch_delay_ms.load(Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            None
        }
        _ => None,
    };
    (
        [(header::CONTENT_TYPE, "text/calendar; charset=utf-8")],
        body.unwrap_or_else(|| state.small.clone()),
    )
        .into_response()
}

/// Twenty small events, the first of which names the generation of the feed.
fn changing_feed(generation: u64) -> Vec<u8> {
    let feed = String::from_utf8_lossy(&compact_feed(20)).into_owned();
    feed.replacen(
        "SUMMARY:Event 0\r\n",
        &format!("SUMMARY:Generation {generation}\r\n"),
        1,
    )
    .into_bytes()
}

/// Generation `generation` of a feed whose `events` events (of about `bytes` each) all ended
/// days ago, each generation's after the last's, with UIDs of their generation: every change
/// drops the last generation's events after they ended. One event ahead keeps it a live feed.
fn dropping_feed(events: usize, bytes: usize, name: &str, generation: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(events * (bytes + 200) + 512);
    out.extend_from_slice(
        b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Hearth//attack bench//EN\r\nX-WR-CALNAME:Dropping\r\n\
BEGIN:VEVENT\r\nUID:ahead@attack.hearth.example\r\nDTSTAMP:20260101T000000Z\r\n\
DTSTART:20351201T090000Z\r\nSUMMARY:Ahead\r\nEND:VEVENT\r\n",
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    // Generation g's events end within the day that starts 60 - 2g days ago.
    let day = now / 86_400 - 60 + 2 * generation.min(25);
    let text: String = "Minutes of the meeting, kept for the record. "
        .chars()
        .cycle()
        .take(bytes)
        .collect();
    for i in 0..events {
        let start = day * 86_400 + (i as u64 * 60) % 86_000;
        let event = format!(
            "BEGIN:VEVENT\r\nUID:g{generation}-{i}-{name}@attack.hearth.example\r\nDTSTAMP:20260101T000000Z\r\n\
             DTSTART:{}\r\nDURATION:PT30M\r\nSUMMARY:Generation {generation} meeting {i}\r\n",
            utc_stamp(start)
        );
        out.extend_from_slice(event.as_bytes());
        hearth_engine::write_folded(&mut out, format!("DESCRIPTION:{text}").as_bytes());
        out.extend_from_slice(b"END:VEVENT\r\n");
    }
    out.extend_from_slice(b"END:VCALENDAR\r\n");
    out
}

/// `YYYYMMDDTHHMMSSZ` of unix seconds.
fn utc_stamp(secs: u64) -> String {
    jiff::Timestamp::from_second(i64::try_from(secs).unwrap_or(i64::MAX))
        .unwrap_or(jiff::Timestamp::MAX)
        .strftime("%Y%m%dT%H%M%SZ")
        .to_string()
}

/// A feed of small events (about 150 bytes each).
fn compact_feed(events: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(events * 160 + 256);
    out.extend_from_slice(
        b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Hearth//attack bench//EN\r\nX-WR-CALNAME:Compact\r\n",
    );
    for i in 0..events {
        let event = format!(
            "BEGIN:VEVENT\r\nUID:e{i:07}@attack.hearth.example\r\nDTSTAMP:20260101T000000Z\r\n\
             DTSTART:2026{:02}{:02}T{:02}0000Z\r\nSUMMARY:Event {i}\r\nLOCATION:Room {}\r\nEND:VEVENT\r\n",
            1 + i % 12,
            1 + i % 28,
            8 + i % 10,
            i % 40
        );
        out.extend_from_slice(event.as_bytes());
    }
    out.extend_from_slice(b"END:VCALENDAR\r\n");
    out
}
