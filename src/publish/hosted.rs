//! Rendering hosted feeds (`GET|HEAD /cal/{id}.ics`, the remapped feed calendar apps subscribe
//! to): one render per calendar however many subscribers miss at once, kept until the upstream
//! copy or the calendar changes (in memory, or on disk when too large: `rendered`), so a poll
//! within the TTL costs no parsing. A calendar with a date window is rendered again each UTC
//! day. A subscriber never waits for a busy engine when an earlier render exists: it gets that
//! one at once, and the new render follows in the background.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use tokio::sync::OnceCell;

use super::cache::{Cache, Kind};
use super::feeds::FeedOutcome;
pub use super::rendered::{content_disposition, response, Caching, Rendered};
use super::rendered::{Output, RenderInputs, Writing};
use super::served::HostedCalendar;
use super::spill::SpillDir;
use super::workers::{Budget, Payer, WorkError, Workers};
use crate::calendar::{self, Interrupt, Limits, RemapError, RemapOptions};
use crate::clock::Clock;
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

/// Makes a render's input on the engine thread, within the render's own job (its words when it
/// cannot).
pub type Make = Box<dyn FnOnce(&Interrupt) -> Result<Bytes, String> + Send>;

/// What a render reads: a feed's copy as it is, or bytes made only when a render is due (a
/// calendar's sources merged with the past events it keeps): a poll answered from an earlier
/// render makes nothing, and the merge takes its memory inside the render's job, one job at a
/// time per engine thread.
#[derive(Clone)]
pub enum Input {
    Copy(Bytes),
    Later(Arc<dyn LateInput>),
}

/// An input made when a render needs it.
pub trait LateInput: Send + Sync {
    /// Gathers what making it needs (reads, off the engine), without making it.
    fn prepare(&self) -> Pin<Box<dyn Future<Output = Result<Make, String>> + Send + '_>>;
}

impl Input {
    async fn prepare(&self) -> Result<Make, String> {
        match self {
            Input::Copy(bytes) => {
                let bytes = bytes.clone();
                Ok(Box::new(move |_| Ok(bytes)))
            }
            Input::Later(late) => late.prepare().await,
        }
    }
}

/// Why a render's job made nothing.
enum Failure {
    Input(String),
    Remap(RemapError),
    Written(std::io::Error),
}

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
    /// Renders being prepared or run at once, as many as the engine has threads: a render's
    /// input (a merge's sources and kept events) is gathered only when it is next, so renders
    /// waiting for the engine hold none of it.
    turns: tokio::sync::Semaphore,
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
            turns: tokio::sync::Semaphore::new(super::workers::default_jobs()),
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

    /// The rendered feed for `calendar` from `feed` as it is, rendering only when either
    /// changed; while the engine is busy, the earlier render if there is one (the new one
    /// follows).
    pub async fn render(
        self: &Arc<Self>,
        calendar: &Arc<HostedCalendar>,
        feed: &FeedOutcome,
        ttl: std::time::Duration,
    ) -> Result<Arc<Rendered>, RenderError> {
        let input = Input::Copy(feed.copy.body.clone());
        self.render_from(calendar, feed, &input, ttl).await
    }

    /// As [`Renders::render`], the bytes made by `input` (`feed` describes them).
    pub async fn render_from(
        self: &Arc<Self>,
        calendar: &Arc<HostedCalendar>,
        feed: &FeedOutcome,
        input: &Input,
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
                self.render_behind(calendar.clone(), feed.clone(), input.clone(), ttl);
                return Ok(earlier);
            }
        }
        self.render_shared(calendar, feed, input, ttl, inputs).await
    }

    /// Renders in the background, once per calendar at a time.
    fn render_behind(
        self: &Arc<Self>,
        calendar: Arc<HostedCalendar>,
        feed: FeedOutcome,
        input: Input,
        ttl: std::time::Duration,
    ) {
        let id = calendar.record.id.clone();
        if !lock(&self.behind).insert(id.clone()) {
            return;
        }
        let renders = self.clone();
        tokio::spawn(async move {
            let inputs = inputs_of(&calendar, &feed, &renders.clock);
            if let Err(e) = renders
                .render_shared(&calendar, &feed, &input, ttl, inputs)
                .await
            {
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
        input: &Input,
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
            .get_or_init(|| self.render_now(calendar, feed, input, ttl, inputs))
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
        input: &Input,
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
        let _turn = self
            .turns
            .acquire()
            .await
            .map_err(|_| RenderError::Busy(WorkError::Stopped))?;
        self.runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let make = input.prepare().await.map_err(RenderError::Unreadable)?;
        let config = calendar.config.clone();
        let mut options = RemapOptions {
            calendar_name: Some(calendar.record.name.clone()),
            refresh_interval: Some(ttl),
            sequence_offset: u32::try_from(calendar.record.revision).unwrap_or(u32::MAX),
            max_output_bytes: None,
            now: inputs.3,
            interrupt: None,
        };
        let (spill, limit, name) = (self.spill.clone(), self.memory_limit, id.to_owned());
        // Charged to the calendar's publisher, from an allowance kept for its renders: a
        // mapping that takes seconds per render cannot take the engine from everyone.
        let budget = Budget {
            payer: Payer::Publisher(calendar.record.maker.clone()),
            time: self.workers.rules().hosted,
        };
        let output = self
            .workers
            .run_within(budget, move |stop| -> Result<Output, Failure> {
                options.interrupt = Some(stop.clone());
                // The input is made here (a merge: inside this job), and the render is written
                // as it comes, to disk past its share of memory.
                let body = make(stop).map_err(Failure::Input)?;
                options.max_output_bytes = Some(calendar::output_limit(body.len()));
                let mut writing = Writing::new(&spill, &name, limit);
                calendar::remap_into(&body, &config, &options, &Limits::default(), &mut writing)
                    .map_err(Failure::Remap)?;
                drop(body);
                writing.finish().map_err(Failure::Written)
            })
            .await?;
        let output = match output {
            Ok(done) => done,
            Err(failure) => {
                let error = match failure {
                    Failure::Remap(e @ RemapError::TooLarge { .. }) => {
                        RenderError::TooLarge(e.to_string())
                    }
                    Failure::Remap(e @ RemapError::Interrupted) => {
                        RenderError::TooSlow(e.to_string())
                    }
                    Failure::Remap(other) => RenderError::Unreadable(other.to_string()),
                    Failure::Input(words) => RenderError::Unreadable(words),
                    Failure::Written(e) => RenderError::Kept(e.to_string()),
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
