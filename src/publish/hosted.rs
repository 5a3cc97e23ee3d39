//! Rendering hosted feeds (`GET|HEAD /cal/{id}.ics`, the remapped feed calendar apps subscribe
//! to): one render per calendar however many subscribers miss at once, kept until the upstream
//! copy or the calendar changes (in memory, or on disk when too large: `rendered`), so a poll
//! within the TTL costs no parsing. A calendar with a date window is rendered again each UTC
//! day. A subscriber never waits for a busy engine when an earlier render exists: it gets that
//! one at once, and the new render follows in the background.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};
use tokio::sync::OnceCell;

use super::cache::{Cache, Kind};
use super::feeds::FeedOutcome;
pub use super::rendered::{content_disposition, response, Caching, Rendered};
use super::rendered::{Output, RenderInputs};
use super::served::HostedCalendar;
use super::spill::SpillDir;
use super::workers::{Budget, Payer, WorkError, Workers};
use crate::calendar::{self, Limits, RemapError, RemapOptions};
use crate::clock::Clock;
use crate::http::conditional::etag_for;
use crate::lock::lock;

/// Why a hosted feed could not be rendered (and no earlier render could stand in).
#[derive(Debug, Clone, thiserror::Error)]
pub enum RenderError {
    #[error("the calendar's source feed cannot be read: {0}")]
    Unreadable(String),
    #[error("the calendar's mapping makes the feed too large to serve: {0}")]
    TooLarge(String),
    #[error(transparent)]
    Busy(#[from] WorkError),
    #[error("the rendered feed could not be kept: {0}")]
    Kept(String),
    #[error("the calendar's mapping takes too long on its source feed: {0}")]
    TooSlow(String),
}

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
    /// Where renders too large for memory go, and how large "too large" is (a quarter of the
    /// cache, so one feed cannot push everything else out).
    spill: Arc<SpillDir>,
    memory_limit: usize,
    /// Calendars being rendered in the background while subscribers get the earlier render.
    behind: Mutex<HashSet<String>>,
    /// Renders under way, by calendar id, with the inputs they render.
    flights: Mutex<HashMap<String, (RenderInputs, Flight)>>,
    /// Calendars whose render failed for given inputs, so a feed that is too large is not
    /// rendered again on every poll.
    failed: Mutex<HashMap<String, (RenderInputs, RenderError)>>,
    /// Renders run so far (tests check that concurrent misses share one).
    runs: std::sync::atomic::AtomicU64,
}

impl Renders {
    pub fn new(cache: Arc<Cache>, workers: Workers, clock: Clock, spill: SpillDir) -> Renders {
        Renders {
            memory_limit: cache.capacity() / 4,
            cache,
            workers,
            clock,
            spill: Arc::new(spill),
            behind: Mutex::new(HashSet::new()),
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
        self.cache.forget(Kind::Render, id);
        lock(&self.failed).remove(id);
    }

    /// The rendered feed for `calendar` from `feed`, rendering only when either changed; while
    /// the engine is busy, the earlier render if there is one (the new one follows).
    pub async fn render(
        self: &Arc<Self>,
        calendar: &Arc<HostedCalendar>,
        feed: &FeedOutcome,
        ttl: std::time::Duration,
    ) -> Result<Arc<Rendered>, RenderError> {
        let id = calendar.record.id.as_str();
        let inputs = inputs_of(calendar, feed, &self.clock);
        let held = self.cache.get::<Rendered>(Kind::Render, id);
        if let Some(r) = held.as_ref().filter(|r| r.is_for(&inputs)) {
            return Ok(r.clone());
        }
        if let Some(earlier) = held {
            // The engine is busy, or this calendar's publisher has spent what its renders may
            // take: subscribers get the earlier render at once, the new one follows when it can.
            if self.workers.busy() || !self.workers.publisher_can_render(&calendar.record.maker) {
                self.render_behind(calendar.clone(), feed.clone(), ttl);
                return Ok(earlier);
            }
        }
        self.render_shared(calendar, feed, ttl, inputs).await
    }

    /// Renders in the background, once per calendar at a time.
    fn render_behind(
        self: &Arc<Self>,
        calendar: Arc<HostedCalendar>,
        feed: FeedOutcome,
        ttl: std::time::Duration,
    ) {
        let id = calendar.record.id.clone();
        if !lock(&self.behind).insert(id.clone()) {
            return;
        }
        let renders = self.clone();
        tokio::spawn(async move {
            let inputs = inputs_of(&calendar, &feed, &renders.clock);
            if let Err(e) = renders.render_shared(&calendar, &feed, ttl, inputs).await {
                tracing::debug!(calendar = %id, error = %e, "background render failed");
            }
            lock(&renders.behind).remove(&id);
        });
    }

    /// Renders `inputs` once for everyone asking at the same time.
    async fn render_shared(
        &self,
        calendar: &HostedCalendar,
        feed: &FeedOutcome,
        ttl: std::time::Duration,
        inputs: RenderInputs,
    ) -> Result<Arc<Rendered>, RenderError> {
        let id = calendar.record.id.as_str();
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
        let previous = self.cache.get::<Rendered>(Kind::Render, id);
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
        let mut options = RemapOptions {
            calendar_name: Some(calendar.record.name.clone()),
            refresh_interval: Some(ttl),
            sequence_offset: u32::try_from(calendar.record.revision).unwrap_or(u32::MAX),
            max_output_bytes: Some(calendar::output_limit(body.len())),
            now: inputs.3,
            interrupt: None,
        };
        // Charged to the calendar's publisher, from an allowance kept for its renders: a
        // mapping that takes seconds per render cannot take the engine from everyone.
        let budget = Budget {
            payer: Payer::Publisher(calendar.record.maker.clone()),
            time: self.workers.rules().hosted,
        };
        let output = self
            .workers
            .run_within(budget, move |stop| -> Result<Output, RemapError> {
                options.interrupt = Some(stop.clone());
                let output = calendar::remap(&body, &config, &options, &Limits::default())?;
                let etag = etag_for(&Sha256::digest(&output.bytes), None);
                Ok(Output::new(output.bytes, etag))
            })
            .await?;
        let output = match output {
            Ok(done) => done,
            Err(e) => {
                let error = match e {
                    RemapError::TooLarge { .. } => RenderError::TooLarge(e.to_string()),
                    RemapError::Interrupted => RenderError::TooSlow(e.to_string()),
                    other => RenderError::Unreadable(other.to_string()),
                };
                tracing::warn!(calendar = %id, error = %error, "render failed: serving the last good render, if any");
                lock(&self.failed).insert(id.to_owned(), (inputs, error.clone()));
                return previous.ok_or(error);
            }
        };
        // Last-Modified moves only when the bytes do.
        let last_modified = match &previous {
            Some(p) if p.etag == output.etag => p.last_modified,
            Some(_) => self.clock.wall(),
            None => feed.copy.changed_at.max(calendar.record.updated_at),
        };
        let (spill, limit, name) = (self.spill.clone(), self.memory_limit, id.to_owned());
        let kept = tokio::task::spawn_blocking(move || {
            output.keep(&name, limit, &spill, last_modified, inputs)
        })
        .await
        .map_err(|_| RenderError::Busy(WorkError::Stopped))?;
        let rendered = match kept {
            Ok(rendered) => Arc::new(rendered),
            Err(e) => {
                tracing::error!(calendar = %id, error = %e, "a rendered feed could not be written to disk");
                return previous.ok_or(RenderError::Kept(e.to_string()));
            }
        };
        lock(&self.failed).remove(id);
        let size = rendered.size() + id.len() + 256;
        self.cache
            .put(Kind::Render, id, rendered.clone(), size, None);
        Ok(rendered)
    }
}
