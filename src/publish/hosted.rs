//! `GET|HEAD /cal/{id}.ics`: the remapped feed that calendar apps subscribe to. The rendered
//! bytes are cached until the upstream copy or the calendar changes, so a poll within the TTL
//! costs no parsing; ETag and Last-Modified let clients skip unchanged feeds entirely. A calendar
//! with a date window is rendered again each UTC day, since its window moves with the days.

use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use sha2::{Digest, Sha256};
use tokio::sync::OnceCell;

use super::cache::Cache;
use super::feeds::FeedOutcome;
use super::workers::{WorkError, Workers};
use super::HostedCalendar;
use crate::calendar::{self, Limits, RemapError, RemapOptions};
use crate::clock::Clock;
use crate::http::conditional::{accepted_encodings, etag_for, etag_matches};
use crate::lock::lock;

/// One rendered feed, plain and gzipped (compressed once per render, not per request), and what
/// it was rendered from.
#[derive(Debug)]
pub struct Rendered {
    pub body: Bytes,
    pub gzip: Option<Bytes>,
    pub etag: String,
    /// The gzip form's own tag (`"…-gzip"`), made once.
    gzip_etag: String,
    pub last_modified: SystemTime,
    inputs: RenderInputs,
}

impl Rendered {
    /// Bytes it holds, for the cache budget.
    pub fn size(&self) -> usize {
        self.body.len() + self.gzip.as_ref().map_or(0, Bytes::len)
    }

    fn is_for(&self, inputs: &RenderInputs) -> bool {
        self.inputs == *inputs
    }
}

/// Why a hosted feed could not be rendered (and no earlier render could stand in).
#[derive(Debug, Clone, thiserror::Error)]
pub enum RenderError {
    #[error("the calendar's source feed cannot be read: {0}")]
    Unreadable(String),
    #[error("the calendar's mapping makes the feed too large to serve: {0}")]
    TooLarge(String),
    #[error(transparent)]
    Busy(#[from] WorkError),
}

/// What a render is made from: the source version, the revision, when it was published, and for
/// a calendar with a date window the day its window counts from.
type RenderInputs = (u64, i64, SystemTime, Option<i64>);

const DAY_SECONDS: i64 = 24 * 60 * 60;

/// The moment a date window counts from: the start of the current UTC day by the server's clock.
/// Whole days keep a day's renders identical (one render a day, a stable ETag), and the feed
/// still moves with the days.
pub fn window_now(clock: &Clock) -> i64 {
    let now = clock
        .wall()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    now - now.rem_euclid(DAY_SECONDS)
}

fn inputs_of(calendar: &HostedCalendar, feed: &FeedOutcome, clock: &Clock) -> RenderInputs {
    (
        feed.copy.version,
        calendar.record.revision,
        calendar.record.updated_at,
        calendar.config.has_window().then(|| window_now(clock)),
    )
}

/// One render under way; everyone waiting gets its result.
type Flight = Arc<OnceCell<Result<Arc<Rendered>, RenderError>>>;

/// Renders hosted feeds: one render per calendar however many subscribers miss at once (they
/// all get its result), kept in the shared cache, and the last good render served when a new
/// one fails.
pub struct Renders {
    cache: Arc<Cache>,
    workers: Workers,
    clock: Clock,
    /// Renders under way, by calendar id, with the inputs they render.
    flights: Mutex<HashMap<String, (RenderInputs, Flight)>>,
    /// Calendars whose render failed for given inputs, so a feed that is too large is not
    /// rendered again on every poll.
    failed: Mutex<HashMap<String, (RenderInputs, RenderError)>>,
    /// Renders run so far (tests check that concurrent misses share one).
    runs: std::sync::atomic::AtomicU64,
}

impl Renders {
    pub fn new(cache: Arc<Cache>, workers: Workers, clock: Clock) -> Renders {
        Renders {
            cache,
            workers,
            clock,
            flights: Mutex::new(HashMap::new()),
            failed: Mutex::new(HashMap::new()),
            runs: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// How many renders have run since start.
    pub fn runs(&self) -> u64 {
        self.runs.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Drops what is kept for `id` (after a republish or an unpublish).
    pub fn forget(&self, id: &str) {
        self.cache.forget_render(id);
        lock(&self.failed).remove(id);
    }

    /// The rendered feed for `calendar` from `feed`, rendering only when either changed.
    pub async fn render(
        &self,
        calendar: &HostedCalendar,
        feed: &FeedOutcome,
        ttl: std::time::Duration,
    ) -> Result<Arc<Rendered>, RenderError> {
        let id = calendar.record.id.as_str();
        let inputs = inputs_of(calendar, feed, &self.clock);
        if let Some(r) = self.cache.render(id).filter(|r| r.is_for(&inputs)) {
            return Ok(r);
        }
        // Everyone asking for the same inputs at once shares one render and its result.
        let flight = {
            let mut flights = lock(&self.flights);
            match flights.get(id) {
                Some((same, flight)) if *same == inputs => flight.clone(),
                _ => {
                    let flight = Flight::default();
                    flights.insert(id.to_owned(), (inputs, flight.clone()));
                    flight
                }
            }
        };
        let result = flight
            .get_or_init(|| self.render_now(calendar, feed, ttl, inputs))
            .await
            .clone();
        let mut flights = lock(&self.flights);
        if flights
            .get(id)
            .is_some_and(|(_, f)| Arc::ptr_eq(f, &flight))
        {
            flights.remove(id);
        }
        result
    }

    async fn render_now(
        &self,
        calendar: &HostedCalendar,
        feed: &FeedOutcome,
        ttl: std::time::Duration,
        inputs: RenderInputs,
    ) -> Result<Arc<Rendered>, RenderError> {
        let id = calendar.record.id.as_str();
        let previous = self.cache.render(id);
        if let Some(r) = previous.as_ref().filter(|r| r.is_for(&inputs)) {
            return Ok(r.clone());
        }
        let known_failure = lock(&self.failed)
            .get(id)
            .filter(|(same, _)| *same == inputs)
            .map(|(_, e)| e.clone());
        if let Some(error) = known_failure {
            return previous.ok_or(error);
        }
        self.runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let body = feed.copy.body.clone();
        let config = calendar.config.clone();
        let options = RemapOptions {
            calendar_name: Some(calendar.record.name.clone()),
            refresh_interval: Some(ttl),
            sequence_offset: u32::try_from(calendar.record.revision).unwrap_or(u32::MAX),
            max_output_bytes: Some(calendar::output_limit(body.len())),
            now: inputs.3,
            interrupt: None,
        };
        let output = self
            .workers
            .run(
                move || -> Result<(Bytes, Option<Bytes>, String), RemapError> {
                    let output = calendar::remap(&body, &config, &options, &Limits::default())?;
                    let etag = etag_for(&Sha256::digest(&output.bytes), None);
                    let gzip = gzip(&output.bytes);
                    Ok((Bytes::from(output.bytes), gzip, etag))
                },
            )
            .await?;
        let (body, gzip, etag) = match output {
            Ok(done) => done,
            Err(e) => {
                let error = match e {
                    RemapError::TooLarge { .. } => RenderError::TooLarge(e.to_string()),
                    other => RenderError::Unreadable(other.to_string()),
                };
                tracing::warn!(calendar = %id, error = %error, "render failed: serving the last good render, if any");
                lock(&self.failed).insert(id.to_owned(), (inputs, error.clone()));
                return previous.ok_or(error);
            }
        };
        // Last-Modified moves only when the bytes do.
        let last_modified = match &previous {
            Some(p) if p.etag == etag => p.last_modified,
            Some(_) => self.clock.wall(),
            None => feed.copy.changed_at.max(calendar.record.updated_at),
        };
        let rendered = Arc::new(Rendered {
            body,
            gzip,
            gzip_etag: format!("{}-gzip\"", etag.trim_end_matches('"')),
            etag,
            last_modified,
            inputs,
        });
        lock(&self.failed).remove(id);
        self.cache.put_render(id, rendered.clone());
        Ok(rendered)
    }
}

/// The gzip form of a feed; `None` if compressing fails (the plain form is served then).
fn gzip(bytes: &[u8]) -> Option<Bytes> {
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(bytes.len() / 4 + 64),
        flate2::Compression::default(),
    );
    encoder.write_all(bytes).ok()?;
    encoder.finish().ok().map(Bytes::from)
}

/// The HTTP answer for a rendered feed, honouring conditional requests.
pub fn response(
    rendered: &Rendered,
    disposition: &str,
    feed: &FeedOutcome,
    ttl: std::time::Duration,
    request: &HeaderMap,
) -> Response {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/calendar; charset=utf-8"),
    );
    headers.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    let gzip = rendered
        .gzip
        .as_ref()
        .filter(|_| accepted_encodings(request).contains(&"gzip"));
    let etag = match gzip {
        Some(_) => rendered.gzip_etag.clone(),
        None => rendered.etag.clone(),
    };
    if let Ok(v) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, v);
    }
    if let Ok(v) = HeaderValue::from_str(&httpdate::fmt_http_date(rendered.last_modified)) {
        headers.insert(header::LAST_MODIFIED, v);
    }
    if let Ok(v) = HeaderValue::from_str(&format!("private, max-age={}", ttl.as_secs())) {
        headers.insert(header::CACHE_CONTROL, v);
    }
    if let Ok(v) = HeaderValue::from_str(disposition) {
        headers.insert(header::CONTENT_DISPOSITION, v);
    }
    if feed.stale.is_some() || feed.expired {
        if let Ok(v) = HeaderValue::from_str(&feed.age.as_secs().to_string()) {
            headers.insert("x-hearth-stale", v);
        }
    }
    if not_modified(request, rendered) {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    match gzip {
        Some(body) => {
            headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            (headers, Body::from(body.clone())).into_response()
        }
        None => (headers, Body::from(rendered.body.clone())).into_response(),
    }
}

/// If-None-Match wins over If-Modified-Since (RFC 9110 section 13.2.2).
fn not_modified(request: &HeaderMap, rendered: &Rendered) -> bool {
    if request.contains_key(header::IF_NONE_MATCH) {
        // Either form's tag: they are the same feed.
        return etag_matches(request, &rendered.etag) || etag_matches(request, &rendered.gzip_etag);
    }
    let since = request
        .get(header::IF_MODIFIED_SINCE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| httpdate::parse_http_date(v).ok());
    match since {
        // HTTP dates have whole seconds.
        Some(since) => {
            let modified = rendered
                .last_modified
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            let since = since
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            modified <= since
        }
        None => false,
    }
}

/// `inline; filename="Work.ics"; filename*=UTF-8''W%C3%B6rk.ics`: ASCII for old clients, the
/// real name for the rest.
pub fn content_disposition(name: &str) -> String {
    let ascii: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || " -_.()".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let ascii = ascii.trim();
    let ascii = if ascii.is_empty() { "calendar" } else { ascii };
    // RFC 5987 attr-chars stay; everything else is percent-encoded.
    const ENCODE: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.');
    let encoded = utf8_percent_encode(&format!("{name}.ics"), ENCODE).to_string();
    format!("inline; filename=\"{ascii}.ics\"; filename*=UTF-8''{encoded}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_disposition_keeps_ascii_names_and_encodes_the_rest() {
        assert_eq!(
            content_disposition("Work"),
            "inline; filename=\"Work.ics\"; filename*=UTF-8''Work.ics"
        );
        let d = content_disposition("Wörk \"x\"");
        assert!(d.starts_with("inline; filename=\"W_rk _x_.ics\""), "{d}");
        assert!(
            d.contains("filename*=UTF-8''W%C3%B6rk%20%22x%22.ics"),
            "{d}"
        );
    }
}
