//! One rendered hosted feed and the answer calendar apps get for it: the bytes plain and
//! gzipped (compressed once per render, not per request), kept in memory or, when larger than
//! their share of the cache, on disk (`spill`); strong ETags, Last-Modified, 304s, and a name
//! for the file. Every answer is written from the one copy, never a copy per connection.

use std::io::Write;
use std::time::SystemTime;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use super::feeds::FeedOutcome;
use super::spill::{SpillDir, SpilledFile};
use crate::http::conditional::{accepted_encodings, etag_matches};
use crate::http::error::AppError;

/// What a render is made from: the source version, the revision, when it was published, and for
/// a calendar with a date window the day its window counts from.
pub type RenderInputs = (u64, i64, SystemTime, Option<i64>);

/// Where a render's bytes are.
#[derive(Debug)]
enum Stored {
    Memory {
        body: Bytes,
        gzip: Option<Bytes>,
    },
    Disk {
        body: SpilledFile,
        gzip: Option<SpilledFile>,
    },
}

/// One rendered feed and what it was rendered from.
#[derive(Debug)]
pub struct Rendered {
    stored: Stored,
    pub etag: String,
    /// The gzip form's own tag (`"…-gzip"`), made once.
    gzip_etag: String,
    pub last_modified: SystemTime,
    pub(super) inputs: RenderInputs,
}

/// A render just made, before it is kept: plain and gzipped bytes and the plain form's tag.
pub struct Output {
    pub body: Vec<u8>,
    pub gzip: Option<Vec<u8>>,
    pub etag: String,
}

impl Output {
    /// Compresses `body` (the gzip form is left out if compressing fails).
    pub fn new(body: Vec<u8>, etag: String) -> Output {
        let gzip = gzip(&body);
        Output { body, gzip, etag }
    }

    fn len(&self) -> usize {
        self.body.len() + self.gzip.as_ref().map_or(0, Vec::len)
    }

    /// Kept in memory when it fits in `memory_limit` bytes, else written to `spill` (on a
    /// blocking thread: the caller is one).
    pub fn keep(
        self,
        id: &str,
        memory_limit: usize,
        spill: &SpillDir,
        last_modified: SystemTime,
        inputs: RenderInputs,
    ) -> std::io::Result<Rendered> {
        let gzip_etag = format!("{}-gzip\"", self.etag.trim_end_matches('"'));
        let stored = if self.len() <= memory_limit {
            Stored::Memory {
                body: Bytes::from(self.body),
                gzip: self.gzip.map(Bytes::from),
            }
        } else {
            let body = spill.write(&format!("{id}.ics"), &self.body)?;
            let gzip = match &self.gzip {
                Some(bytes) => Some(spill.write(&format!("{id}.ics.gz"), bytes)?),
                None => None,
            };
            Stored::Disk { body, gzip }
        };
        Ok(Rendered {
            stored,
            etag: self.etag,
            gzip_etag,
            last_modified,
            inputs,
        })
    }
}

impl Rendered {
    /// Memory it holds, for the cache budget (a render on disk holds next to none).
    pub fn size(&self) -> usize {
        match &self.stored {
            Stored::Memory { body, gzip } => body.len() + gzip.as_ref().map_or(0, Bytes::len),
            Stored::Disk { .. } => 512,
        }
    }

    /// Whether its bytes are on disk.
    pub fn spilled(&self) -> bool {
        matches!(self.stored, Stored::Disk { .. })
    }

    pub(super) fn is_for(&self, inputs: &RenderInputs) -> bool {
        self.inputs == *inputs
    }

    fn has_gzip(&self) -> bool {
        match &self.stored {
            Stored::Memory { gzip, .. } => gzip.is_some(),
            Stored::Disk { gzip, .. } => gzip.is_some(),
        }
    }

    async fn body(&self, gzipped: bool) -> Result<Body, AppError> {
        let opened = match &self.stored {
            Stored::Memory { body, gzip } => {
                let bytes = if gzipped { gzip.as_ref() } else { None };
                return Ok(Body::from(bytes.unwrap_or(body).clone()));
            }
            Stored::Disk { body, gzip } => {
                let file = if gzipped { gzip.as_ref() } else { None };
                file.unwrap_or(body).body().await
            }
        };
        opened.map_err(|e| AppError::Internal(format!("a spilled render cannot be read: {e}")))
    }
}

/// The gzip form of a feed; `None` if compressing fails (the plain form is served then).
fn gzip(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(bytes.len() / 4 + 64),
        flate2::Compression::default(),
    );
    encoder.write_all(bytes).ok()?;
    encoder.finish().ok()
}

/// Who may keep a hosted feed, and for how long.
#[derive(Debug, Clone, Copy)]
pub struct Caching {
    /// The feed TTL: a copy is fresh this long.
    pub ttl: std::time::Duration,
    /// `--behind-cdn`: a shared cache (a CDN, nginx's `proxy_cache`) may keep it, serve it stale
    /// while it asks again, and serve it stale while Hearth is down or failing.
    pub shared: bool,
}

/// How long a shared cache may serve a stale feed while Hearth is down: a week.
const STALE_IF_ERROR_SECS: u64 = 7 * 24 * 3600;

impl Caching {
    fn header(self) -> String {
        let ttl = self.ttl.as_secs();
        if self.shared {
            format!(
                "public, max-age={ttl}, stale-while-revalidate={ttl}, stale-if-error={STALE_IF_ERROR_SECS}"
            )
        } else {
            format!("private, max-age={ttl}")
        }
    }
}

/// The HTTP answer for a rendered feed, honouring conditional requests.
pub async fn response(
    rendered: &Rendered,
    disposition: &str,
    feed: &FeedOutcome,
    caching: Caching,
    request: &HeaderMap,
) -> Result<Response, AppError> {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/calendar; charset=utf-8"),
    );
    headers.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    let gzipped = rendered.has_gzip() && accepted_encodings(request).contains(&"gzip");
    let etag = if gzipped {
        &rendered.gzip_etag
    } else {
        &rendered.etag
    };
    if let Ok(v) = HeaderValue::from_str(etag) {
        headers.insert(header::ETAG, v);
    }
    if let Ok(v) = HeaderValue::from_str(&httpdate::fmt_http_date(rendered.last_modified)) {
        headers.insert(header::LAST_MODIFIED, v);
    }
    if let Ok(v) = HeaderValue::from_str(&caching.header()) {
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
        return Ok((StatusCode::NOT_MODIFIED, headers).into_response());
    }
    if gzipped {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    }
    Ok((headers, rendered.body(gzipped).await?).into_response())
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
            let seconds = |t: SystemTime| {
                t.duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_secs())
                    .unwrap_or(0)
            };
            seconds(rendered.last_modified) <= seconds(since)
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

    #[tokio::test]
    async fn a_render_larger_than_its_share_of_memory_goes_to_disk_and_reads_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let spill = SpillDir::new(dir.path());
        let inputs: RenderInputs = (1, 0, SystemTime::UNIX_EPOCH, None);
        let big = Output::new(vec![b'x'; 100_000], "\"t\"".into())
            .keep("cal", 10_000, &spill, SystemTime::UNIX_EPOCH, inputs)
            .expect("kept");
        assert!(big.spilled());
        assert!(big.size() < 1000, "{}", big.size());
        let plain = axum::body::to_bytes(big.body(false).await.expect("body"), 1 << 20)
            .await
            .expect("reads");
        assert_eq!(plain.len(), 100_000);
        let small = Output::new(vec![b'x'; 1000], "\"s\"".into())
            .keep("cal", 10_000, &spill, SystemTime::UNIX_EPOCH, inputs)
            .expect("kept");
        assert!(!small.spilled());
        assert!(small.size() >= 1000);
        drop(big);
        let left = std::fs::read_dir(dir.path().join("renders"))
            .map(|d| d.count())
            .unwrap_or(0);
        assert_eq!(left, 0, "a dropped render takes its files along");
    }
}
