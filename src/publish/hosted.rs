//! `GET|HEAD /cal/{id}.ics`: the remapped feed that calendar apps subscribe to. The rendered
//! bytes are cached until the upstream copy or the calendar changes, so a poll within the TTL
//! costs no parsing; ETag and Last-Modified let clients skip unchanged feeds entirely.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use super::calendars::Published;
use super::feeds::FeedOutcome;
use crate::calendar::{self, CompiledMapping, Limits, RemapOptions};
use crate::web::assets::{etag_for, etag_matches};
use crate::web::error::AppError;

/// One rendered feed and what it was rendered from.
#[derive(Debug)]
pub struct Rendered {
    pub body: Bytes,
    pub etag: String,
    pub last_modified: SystemTime,
    source_version: u64,
    revision: i64,
    updated_at: SystemTime,
}

/// Rendered feeds by calendar id.
#[derive(Default)]
pub struct RenderCache {
    entries: Mutex<HashMap<String, Arc<Rendered>>>,
}

impl RenderCache {
    fn lookup(&self, id: &str) -> Option<Arc<Rendered>> {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(id)
            .cloned()
    }

    fn store(&self, id: &str, rendered: Arc<Rendered>) {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(id.to_owned(), rendered);
    }

    pub fn forget(&self, id: &str) {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(id);
    }

    /// The rendered feed for `calendar` from `feed`, rendering only when either changed.
    pub async fn render(
        &self,
        calendar: &Published,
        feed: &FeedOutcome,
        ttl: std::time::Duration,
    ) -> Result<Arc<Rendered>, AppError> {
        let previous = self.lookup(&calendar.id);
        if let Some(r) = &previous {
            if r.source_version == feed.copy.version
                && r.revision == calendar.revision
                && r.updated_at == calendar.updated_at
            {
                return Ok(r.clone());
            }
        }
        let body = feed.copy.body.clone();
        let mapping = calendar.mapping.clone();
        let options = RemapOptions {
            calendar_name: Some(calendar.name.clone()),
            refresh_interval: Some(ttl),
            sequence_offset: u32::try_from(calendar.revision).unwrap_or(u32::MAX),
        };
        let output = tokio::task::spawn_blocking(move || {
            let compiled = CompiledMapping::compile(&mapping)
                .map_err(|e| AppError::Internal(format!("stored mapping does not compile: {e}")))?;
            calendar::remap(&body, &compiled, &options, &Limits::default())
                .map_err(|e| AppError::BadGateway(format!("the upstream feed cannot be read: {e}")))
        })
        .await
        .map_err(|_| AppError::Internal("the render task stopped".into()))??;

        let etag = etag_for(&Sha256::digest(&output.bytes), None);
        // Last-Modified moves only when the bytes do.
        let last_modified = match &previous {
            Some(p) if p.etag == etag => p.last_modified,
            Some(_) => SystemTime::now(),
            None => feed.copy.changed_at.max(calendar.updated_at),
        };
        let rendered = Arc::new(Rendered {
            body: Bytes::from(output.bytes),
            etag,
            last_modified,
            source_version: feed.copy.version,
            revision: calendar.revision,
            updated_at: calendar.updated_at,
        });
        self.store(&calendar.id, rendered.clone());
        Ok(rendered)
    }
}

/// The HTTP answer for a rendered feed, honouring conditional requests.
pub fn response(
    rendered: &Rendered,
    calendar: &Published,
    feed: &FeedOutcome,
    ttl: std::time::Duration,
    request: &HeaderMap,
) -> Response {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/calendar; charset=utf-8"),
    );
    if let Ok(v) = HeaderValue::from_str(&rendered.etag) {
        headers.insert(header::ETAG, v);
    }
    if let Ok(v) = HeaderValue::from_str(&httpdate::fmt_http_date(rendered.last_modified)) {
        headers.insert(header::LAST_MODIFIED, v);
    }
    if let Ok(v) = HeaderValue::from_str(&format!("private, max-age={}", ttl.as_secs())) {
        headers.insert(header::CACHE_CONTROL, v);
    }
    if let Ok(v) = HeaderValue::from_str(&content_disposition(&calendar.name)) {
        headers.insert(header::CONTENT_DISPOSITION, v);
    }
    if feed.stale.is_some() {
        if let Ok(v) = HeaderValue::from_str(&feed.age().as_secs().to_string()) {
            headers.insert("x-hearth-stale", v);
        }
    }
    if not_modified(request, rendered) {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    (headers, Body::from(rendered.body.clone())).into_response()
}

/// If-None-Match wins over If-Modified-Since (RFC 9110 section 13.2.2).
fn not_modified(request: &HeaderMap, rendered: &Rendered) -> bool {
    if request.contains_key(header::IF_NONE_MATCH) {
        return etag_matches(request, &rendered.etag);
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
fn content_disposition(name: &str) -> String {
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
    let encoded: String = format!("{name}.ics")
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
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
