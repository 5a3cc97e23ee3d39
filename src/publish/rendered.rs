//! One rendered hosted feed and the answer calendar apps get for it: the bytes plain and
//! gzipped (compressed once per render, as it is written, not per request), kept in memory or,
//! when larger than their share of the cache, on disk (`spill`, written there as they come); strong ETags, Last-Modified, 304s, and a name
//! for the file. Every answer is written from the one copy, never a copy per connection.

use std::io::Write;
use std::time::SystemTime;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use sha2::{Digest, Sha256};

use super::feeds::FeedOutcome;
use super::spill::{SpillDir, SpillWriter, Spilled, SpilledFile};
use crate::http::conditional::{accepted_encodings, etag_for, etag_matches};
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

/// A render being written, plain and gzipped at once, each kept in memory up to the render's
/// share and on disk past it (`spill`), with the plain form's hash for its ETag: no form of a
/// large render is ever whole in memory.
pub struct Writing<'a> {
    plain: SpillWriter<'a>,
    /// `None` once compressing failed (the plain form is served then).
    gzip: Option<flate2::write::GzEncoder<SpillWriter<'a>>>,
    hash: Sha256,
}

impl<'a> Writing<'a> {
    /// A render of calendar `id`, in memory while each form is at most `memory_limit` bytes.
    pub fn new(spill: &'a SpillDir, id: &str, memory_limit: usize) -> Writing<'a> {
        Writing {
            plain: spill.writer(&format!("{id}.ics"), memory_limit),
            gzip: Some(flate2::write::GzEncoder::new(
                spill.writer(&format!("{id}.ics.gz"), memory_limit),
                flate2::Compression::default(),
            )),
            hash: Sha256::new(),
        }
    }

    /// Both forms written, and the plain form's tag.
    pub fn finish(self) -> std::io::Result<Output> {
        let body = self.plain.finish()?;
        let gzip = self
            .gzip
            .and_then(|encoder| encoder.finish().ok())
            .and_then(|writer| writer.finish().ok());
        Ok(Output {
            body,
            gzip,
            etag: etag_for(&self.hash.finalize(), None),
        })
    }
}

impl Write for Writing<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.plain.write_all(buf)?;
        self.hash.update(buf);
        if let Some(encoder) = &mut self.gzip {
            if encoder.write_all(buf).is_err() {
                self.gzip = None;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.plain.flush()
    }
}

/// A render just made, before it is kept: plain and gzipped (each in memory or on disk) and the
/// plain form's tag.
pub struct Output {
    body: Spilled,
    gzip: Option<Spilled>,
    pub etag: String,
}

impl Output {
    fn len(&self) -> u64 {
        self.body.len() + self.gzip.as_ref().map_or(0, Spilled::len)
    }

    /// Kept in memory when both forms are there and fit in `memory_limit` bytes together, else
    /// on disk (on a blocking thread: the caller is one).
    pub fn keep(
        self,
        id: &str,
        memory_limit: usize,
        spill: &SpillDir,
        last_modified: SystemTime,
        inputs: RenderInputs,
    ) -> std::io::Result<Rendered> {
        let gzip_etag = format!("{}-gzip\"", self.etag.trim_end_matches('"'));
        let fits = self.len() <= memory_limit as u64;
        let stored = match (self.body, self.gzip) {
            (Spilled::Memory(body), Some(Spilled::Memory(gzip))) if fits => Stored::Memory {
                body: Bytes::from(body),
                gzip: Some(Bytes::from(gzip)),
            },
            (Spilled::Memory(body), None) if fits => Stored::Memory {
                body: Bytes::from(body),
                gzip: None,
            },
            (body, gzip) => Stored::Disk {
                body: body.into_file(spill, &format!("{id}.ics"))?,
                gzip: match gzip {
                    Some(gzip) => Some(gzip.into_file(spill, &format!("{id}.ics.gz"))?),
                    None => None,
                },
            },
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

    /// Its plain bytes whole (read back from disk when it was spilled), for the agenda.
    pub(super) async fn plain(&self) -> Result<Bytes, AppError> {
        let body = self.body(false).await?;
        axum::body::to_bytes(body, usize::MAX)
            .await
            .map_err(|e| AppError::Internal(format!("a spilled render cannot be read: {e}")))
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
    pub(super) fn header(self) -> String {
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

    /// `body` written as a render is.
    fn output_of(body: &[u8], spill: &SpillDir, memory_limit: usize) -> std::io::Result<Output> {
        let mut writing = Writing::new(spill, "test", memory_limit);
        writing.write_all(body)?;
        writing.finish()
    }

    #[test]
    fn a_render_is_tagged_by_its_plain_bytes_and_served_gzipped_from_the_same_pass() {
        let dir = tempfile::tempdir().expect("tempdir");
        let spill = SpillDir::new(dir.path());
        let body = b"BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n".repeat(500);
        let output = output_of(&body, &spill, 1 << 20).expect("written");
        assert_eq!(output.etag, etag_for(&Sha256::digest(&body), None));
        let Some(Spilled::Memory(gzip)) = &output.gzip else {
            panic!("gzipped in memory");
        };
        let mut plain = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gzip[..]), &mut plain)
            .expect("gunzips");
        assert_eq!(plain, body);
    }

    #[tokio::test]
    async fn a_render_larger_than_its_share_of_memory_goes_to_disk_and_reads_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let spill = SpillDir::new(dir.path());
        let inputs: RenderInputs = (1, 0, SystemTime::UNIX_EPOCH, None);
        let big = output_of(&[b'x'; 100_000], &spill, 10_000)
            .expect("written")
            .keep("cal", 10_000, &spill, SystemTime::UNIX_EPOCH, inputs)
            .expect("kept");
        assert!(big.spilled());
        assert!(big.size() < 1000, "{}", big.size());
        let plain = axum::body::to_bytes(big.body(false).await.expect("body"), 1 << 20)
            .await
            .expect("reads");
        assert_eq!(plain.len(), 100_000);
        let small = output_of(&[b'x'; 1000], &spill, 10_000)
            .expect("written")
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
