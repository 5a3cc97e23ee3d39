//! A hosted calendar's agenda (`GET /cal/{id}`, the page, and `GET /cal/{id}.json`), served
//! only when its config says `"agenda": true`. Both are made from the calendar's current render
//! (what its hosted feed holds after mapping, filters, overrides, privacy and window): the
//! render's bytes parsed by the engine and its series expanded within the shown span (the
//! window's future days, else [`DEFAULT_AGENDA_DAYS`], at most [`MAX_AGENDA_DAYS`]; at most
//! [`MAX_AGENDA_EVENTS`] events), on the engine pool within the render's own budget and charged
//! to the calendar's publisher, like a render. The agenda is made once per render and quarter
//! of an hour (so events that ended leave it) and kept in the publishing cache beside the
//! render, both forms written plain and gzipped with their ETags: a visitor's view is answered
//! like a subscriber's poll, within the same allowance of polls, from memory.

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use tokio::sync::OnceCell;

use super::agenda_page::{self, Addresses, PAGE_POLICY};
use super::cache::{Cache, Kind};
use super::errors::RouteError;
use super::hosted::{Caching, Rendered};
use super::served::HostedCalendar;
use super::validate;
use super::workers::{Budget, Payer, Workers};
use super::Publisher;
use crate::calendar::{
    agenda, AgendaRequest, Limits, DEFAULT_AGENDA_DAYS, MAX_AGENDA_DAYS, MAX_AGENDA_EVENTS,
};
use crate::http::conditional::{accepted_encodings, etag_for, etag_matches};
use crate::http::error::AppError;
use crate::lock::lock;
use crate::store::Db;

/// An agenda is made again at most this often (seconds) while its render stands.
pub const AGENDA_STEP_SECS: i64 = 15 * 60;

/// The page or its JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Page,
    Json,
}

/// What an agenda was made from: the render's ETag, the quarter hour, the site's address.
type AgendaKey = (String, i64, String);

/// One form written, plain and gzipped, with its tags.
struct Written {
    plain: Bytes,
    gzip: Option<Bytes>,
    etag: String,
    gzip_etag: String,
}

impl Written {
    fn new(plain: Vec<u8>) -> Written {
        let etag = etag_for(&Sha256::digest(&plain), None);
        let gzip_etag = format!("{}-gzip\"", etag.trim_end_matches('"'));
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        let gzip = encoder
            .write_all(&plain)
            .ok()
            .and_then(|()| encoder.finish().ok())
            .map(Bytes::from);
        Written {
            plain: Bytes::from(plain),
            gzip,
            etag,
            gzip_etag,
        }
    }

    fn size(&self) -> usize {
        self.plain.len() + self.gzip.as_ref().map_or(0, Bytes::len) + 128
    }
}

/// A calendar's agenda, both forms.
pub struct AgendaAnswer {
    key: AgendaKey,
    page: Written,
    json: Written,
}

type Flight = Arc<OnceCell<Result<Arc<AgendaAnswer>, String>>>;

/// The agendas being made and made: one making per calendar and key however many ask at once.
pub struct Agendas {
    cache: Arc<Cache>,
    workers: Workers,
    flights: Mutex<HashMap<String, (AgendaKey, Flight)>>,
    runs: AtomicU64,
}

impl Agendas {
    pub fn new(cache: Arc<Cache>, workers: Workers) -> Agendas {
        Agendas {
            cache,
            workers,
            flights: Mutex::new(HashMap::new()),
            runs: AtomicU64::new(0),
        }
    }

    /// How many agendas have been made since start (tests and the bench check that views
    /// share them).
    pub fn runs(&self) -> u64 {
        self.runs.load(Ordering::Relaxed)
    }

    /// Drops calendar `id`'s agenda.
    pub fn forget(&self, id: &str) {
        self.cache.forget(Kind::Agenda, id);
    }

    /// The agenda of `calendar` from its `rendered` feed at `now` (unix seconds), its links made
    /// from `base`.
    async fn get(
        &self,
        calendar: &Arc<HostedCalendar>,
        rendered: &Arc<Rendered>,
        now: i64,
        base: String,
    ) -> Result<Arc<AgendaAnswer>, AppError> {
        let id = calendar.record.id.clone();
        let step = now - now.rem_euclid(AGENDA_STEP_SECS);
        let key: AgendaKey = (rendered.etag.clone(), step, base);
        if let Some(held) = self.cache.get::<AgendaAnswer>(Kind::Agenda, &id) {
            if held.key == key {
                return Ok(held);
            }
        }
        let flight = {
            let mut flights = lock(&self.flights);
            match flights.get(&id) {
                Some((same, flight)) if *same == key => flight.clone(),
                _ => {
                    let flight = Flight::default();
                    flights.insert(id.clone(), (key.clone(), flight.clone()));
                    flight
                }
            }
        };
        let result = flight
            .get_or_init(|| self.make(calendar.clone(), rendered.clone(), key.clone()))
            .await
            .clone();
        {
            let mut flights = lock(&self.flights);
            if flights
                .get(&id)
                .is_some_and(|(_, f)| Arc::ptr_eq(f, &flight))
            {
                flights.remove(&id);
            }
        }
        result.map_err(|e| RouteError::TooSlow(e).into())
    }

    async fn make(
        &self,
        calendar: Arc<HostedCalendar>,
        rendered: Arc<Rendered>,
        key: AgendaKey,
    ) -> Result<Arc<AgendaAnswer>, String> {
        self.runs.fetch_add(1, Ordering::Relaxed);
        let bytes = rendered.plain().await.map_err(|e| e.to_string())?;
        let days = calendar
            .record
            .config
            .window
            .and_then(|w| w.future_days)
            .unwrap_or(DEFAULT_AGENDA_DAYS)
            .clamp(1, MAX_AGENDA_DAYS);
        let request = AgendaRequest {
            now: key.1,
            days,
            max_events: MAX_AGENDA_EVENTS,
        };
        // The render's own budget, charged to the calendar's publisher as its renders are.
        let budget = Budget {
            payer: Payer::Publisher(calendar.record.maker.clone()),
            time: self.workers.rules().hosted,
        };
        let name = calendar.record.name.clone();
        let addresses = Addresses {
            feed: format!("{}/cal/{}.ics", key.2, calendar.record.id),
        };
        let (page, json) = self
            .workers
            .run_within(budget, move |stop| {
                let made = agenda(&bytes, &request, &Limits::default(), Some(stop))
                    .map_err(|e| e.to_string())?;
                let page = agenda_page::page(&name, &made, &addresses).into_bytes();
                let json = serde_json::to_vec(&agenda_page::json(&name, &made))
                    .map_err(|e| e.to_string())?;
                Ok::<_, String>((Written::new(page), Written::new(json)))
            })
            .await
            .map_err(|e| e.to_string())??;
        let answer = Arc::new(AgendaAnswer { key, page, json });
        let size = answer.page.size() + answer.json.size() + calendar.record.id.len();
        self.cache.put(
            Kind::Agenda,
            &calendar.record.id,
            answer.clone(),
            size,
            None,
        );
        Ok(answer)
    }
}

/// What a view of an agenda is answered with besides the calendar: the feed TTL, whether a
/// shared cache may keep it, the server's clock (unix seconds), the site's address.
pub struct Viewing {
    pub ttl: std::time::Duration,
    pub shared: bool,
    pub now: i64,
    pub base: String,
}

/// `GET|HEAD /cal/{id}` and `/cal/{id}.json` (the poll allowance was taken by the caller):
/// 404 unless the calendar has `"agenda": true`.
pub async fn answer(
    publisher: &Publisher,
    db: &Db,
    id: &str,
    form: Form,
    viewing: Viewing,
    headers: &HeaderMap,
) -> Result<Response, AppError> {
    validate::validate_id(id).map_err(|_| RouteError::NoSuchFeed)?;
    if publisher.gone.answers(id) {
        return Err(RouteError::Deleted.into());
    }
    // A calendar without an agenda is not even rendered for it.
    let calendar = publisher
        .calendar(db, id)
        .await?
        .ok_or(RouteError::NoSuchFeed)?;
    if !calendar.record.config.agenda {
        return Err(RouteError::NoSuchFeed.into());
    }
    let hosted = publisher
        .hosted_feed(db, id, viewing.ttl)
        .await?
        .ok_or(RouteError::NoSuchFeed)?;
    let made = publisher
        .agendas
        .get(
            &hosted.calendar,
            &hosted.rendered,
            viewing.now,
            viewing.base,
        )
        .await?;
    let caching = Caching {
        ttl: viewing.ttl.min(std::time::Duration::from_secs(
            AGENDA_STEP_SECS.unsigned_abs(),
        )),
        shared: viewing.shared,
    };
    Ok(respond(&made, form, caching, headers))
}

fn respond(made: &AgendaAnswer, form: Form, caching: Caching, request: &HeaderMap) -> Response {
    let (written, content_type) = match form {
        Form::Page => (&made.page, "text/html; charset=utf-8"),
        Form::Json => (&made.json, "application/json"),
    };
    let mut headers = HeaderMap::new();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    match form {
        Form::Page => {
            if let Ok(v) = HeaderValue::from_str(&PAGE_POLICY) {
                headers.insert(header::CONTENT_SECURITY_POLICY, v);
            }
        }
        // Any site may draw these events with its own script.
        Form::Json => {
            headers.insert(
                header::ACCESS_CONTROL_ALLOW_ORIGIN,
                HeaderValue::from_static("*"),
            );
        }
    }
    if let Ok(v) = HeaderValue::from_str(&caching.header()) {
        headers.insert(header::CACHE_CONTROL, v);
    }
    let gzipped = written.gzip.is_some() && accepted_encodings(request).contains(&"gzip");
    let etag = if gzipped {
        &written.gzip_etag
    } else {
        &written.etag
    };
    if let Ok(v) = HeaderValue::from_str(etag) {
        headers.insert(header::ETAG, v);
    }
    if etag_matches(request, &written.etag) || etag_matches(request, &written.gzip_etag) {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    let body = match (&written.gzip, gzipped) {
        (Some(gzip), true) => {
            headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            gzip.clone()
        }
        _ => written.plain.clone(),
    };
    (headers, Body::from(body)).into_response()
}
