//! Hosted calendars: fetching upstream feeds safely, keeping their last good copies, publishing
//! remapped calendars and serving them to calendar apps, all within one memory budget.

pub mod agenda;
mod agenda_page;
pub mod alias_api;
pub mod aliases;
pub mod api;
pub mod cache;
pub mod caldav;
pub mod calendars;
pub mod editor;
mod errors;
pub mod feed_source;
pub mod feeds;
pub mod fetch;
pub mod gone;
pub mod health;
pub mod hosted;
pub mod logins;
pub mod polls;
pub mod publishing;
pub mod quotas;
mod rendered;
mod served;
pub mod sources;
mod spill;
pub mod storage;
pub mod validate;
pub mod workers;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::calendar::{CompiledConfig, ConfigError};
use crate::clock::Clock;
use crate::config::CalendarSettings;
use crate::http::budget::ByteBudget;
use crate::http::client::ClientKey;
use crate::store::{Db, StoreError};
use cache::{Cache, Kind};
use calendars::Published;
use feeds::{Ask, FeedError, FeedOutcome, Feeds};
use fetch::{FetchError, Fetcher};
use gone::Gone;
use hosted::{RenderError, Rendered, Renders};
use polls::Polls;
pub use served::HostedCalendar;
use workers::{WorkError, Workers};

/// Why a stored calendar could not be made ready to serve.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Busy(#[from] WorkError),
    #[error("the stored config of calendar '{id}' does not compile: {error}")]
    Mapping { id: String, error: ConfigError },
    #[error("the stored feed address is invalid: {0}")]
    StoredUrl(FetchError),
    /// A source's stored login does not open (`hearth doctor` says what to do).
    #[error("a stored login of calendar '{id}' cannot be opened: {error}")]
    Login { id: String, error: String },
}

/// Why a hosted feed could not be answered.
#[derive(Debug, thiserror::Error)]
pub enum HostedError {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error(transparent)]
    Feed(#[from] FeedError),
    #[error(transparent)]
    Render(#[from] RenderError),
}

/// A hosted feed ready to answer: the calendar, the copy it was rendered from, the rendering.
pub struct HostedFeed {
    pub calendar: Arc<HostedCalendar>,
    pub feed: FeedOutcome,
    pub rendered: Arc<Rendered>,
}

/// State of the publishing side, shared by its handlers.
pub struct Publisher {
    pub feeds: Arc<Feeds>,
    pub renders: Arc<Renders>,
    pub cache: Arc<Cache>,
    pub workers: Workers,
    /// Agendas made from renders (`/cal/{id}`, `/cal/{id}.json`).
    pub agendas: agenda::Agendas,
    /// Second addresses of calendars (for Google).
    pub aliases: aliases::Aliases,
    /// Subscribers' polls by calendar and client family.
    pub polls: Arc<Polls>,
    /// Deleted calendars, answered 410.
    pub gone: Gone,
    /// Sources' logins: the key they are sealed with, loaded at first need.
    pub logins: Arc<logins::Logins>,
    settings: publishing::PublishSettings,
}

impl Publisher {
    /// The calendar tool with `settings`, rendering too large feeds into `data_dir`; `bytes`:
    /// the server's budget of bytes in flight, which upstream bodies count against.
    pub fn new(
        db: Db,
        settings: &CalendarSettings,
        data_dir: &Path,
        clock: Clock,
        bytes: Arc<ByteBudget>,
    ) -> Result<Publisher, FetchError> {
        let cache = Arc::new(Cache::new(settings.cache_size));
        let workers = Workers::new(
            workers::default_jobs(),
            workers::MAX_WAIT,
            settings.engine,
            clock.clone(),
        );
        let mut options =
            fetch::FetchOptions::new(settings.allow_private_feeds, settings.feed_max_size);
        options.hosts = settings.feed_hosts.clone();
        let fetcher = Fetcher::with_options(options)?;
        Ok(Publisher {
            logins: Arc::new(logins::Logins::new(data_dir)),
            polls: Polls::new(db.clone(), clock.clone()),
            gone: Gone::default(),
            feeds: Arc::new(Feeds::new(
                fetcher,
                db,
                cache.clone(),
                workers.clone(),
                clock.clone(),
                feeds::FeedBudgets {
                    max_storage: settings.max_feed_storage,
                    bytes,
                    upstream: settings.upstream,
                },
            )),
            renders: Arc::new(Renders::new(
                cache.clone(),
                workers.clone(),
                clock.clone(),
                spill::SpillDir::new(data_dir),
            )),
            agendas: agenda::Agendas::new(cache.clone(), workers.clone()),
            aliases: aliases::Aliases::default(),
            cache,
            workers,
            settings: publishing::PublishSettings {
                quotas: quotas::Quotas::of(settings),
                ttl: settings.feed_ttl,
                feed_max_size: settings.feed_max_size,
                clock,
            },
        })
    }

    /// The published calendar `id`, from memory or the database (its config compiled on an
    /// engine thread).
    pub async fn calendar(
        &self,
        db: &Db,
        id: &str,
    ) -> Result<Option<Arc<HostedCalendar>>, LoadError> {
        // Calendars live in the cache, so a subscriber's poll needs no database read.
        if let Some(found) = self.cache.get::<HostedCalendar>(Kind::Calendar, id) {
            return Ok(Some(found));
        }
        let Some(record) = calendars::find(db, id.to_owned()).await? else {
            return Ok(None);
        };
        let config = record.config.clone();
        let compiled = self
            .workers
            .run(move || CompiledConfig::compile(&config))
            .await?
            .map_err(|error| LoadError::Mapping {
                id: id.to_owned(),
                error,
            })?;
        let logins = self.opened_logins(db, &record).await?;
        let hosted = Arc::new(
            HostedCalendar::new(record, Arc::new(compiled), &logins)
                .map_err(LoadError::StoredUrl)?,
        );
        self.keep(hosted.clone());
        Ok(Some(hosted))
    }

    /// The hosted feed of calendar `id` for a subscriber: from memory when nothing changed, from
    /// the last good copy at once when upstream is slow or down, rendered once for everyone
    /// asking at the same time. `None`: no such calendar.
    pub async fn hosted_feed(
        &self,
        db: &Db,
        id: &str,
        ttl: Duration,
    ) -> Result<Option<HostedFeed>, HostedError> {
        let Some(calendar) = self.calendar(db, id).await? else {
            return Ok(None);
        };
        let (feed, input) = self.calendar_feed(&calendar, Ask::subscriber(ttl)).await?;
        let rendered = self
            .renders
            .render_from(&calendar, &feed, &input, ttl)
            .await?;
        Ok(Some(HostedFeed {
            calendar,
            feed,
            rendered,
        }))
    }

    /// A feed as the editor reads it for `client`: a copy at most `max_age` old, not kept in
    /// the database, counted against the client's share of the cache and of bytes in flight.
    pub async fn editor_feed(
        &self,
        url: &reqwest::Url,
        max_age: Duration,
        client: ClientKey,
    ) -> Result<FeedOutcome, FeedError> {
        self.feeds.get(url, Ask::editor(max_age, client)).await
    }

    /// Runs engine work a visitor asked for within `budget`: stopped when its time is up,
    /// charged to the visitor (see `workers`).
    pub async fn run_within<T, F>(&self, budget: workers::Budget, job: F) -> Result<T, WorkError>
    where
        T: Send + 'static,
        F: FnOnce(&crate::calendar::Interrupt) -> T + Send + 'static,
    {
        self.workers.run_within(budget, job).await
    }

    /// Runs the server's own engine work (compiling, parsing) on the bounded pool.
    pub async fn run<T, F>(&self, job: F) -> Result<T, WorkError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        self.workers.run(job).await
    }

    /// The stored logins of `record`'s sources, opened for its fetches.
    async fn opened_logins(
        &self,
        db: &Db,
        record: &Published,
    ) -> Result<Vec<(String, fetch::Login)>, LoadError> {
        let failed = |error: String| LoadError::Login {
            id: record.id.clone(),
            error,
        };
        let stored = self
            .logins
            .stored(db, &record.id)
            .await
            .map_err(|e| failed(e.to_string()))?;
        stored
            .into_iter()
            .map(|s| {
                let plain_http = record
                    .config
                    .sources
                    .iter()
                    .any(|source| source.url.as_deref() == Some(&s.url) && source.plain_http);
                let login = self.logins.login(&s.url, s.auth, plain_http);
                Ok((s.url, login.map_err(|e| failed(e.to_string()))?))
            })
            .collect()
    }

    /// Keeps a newly published revision with its compiled config and its sources' logins (its
    /// address was checked when it was published).
    pub fn remember(
        &self,
        record: Published,
        config: Arc<CompiledConfig>,
        logins: &[(String, fetch::Login)],
    ) {
        self.renders.forget(&record.id);
        self.agendas.forget(&record.id);
        self.gone.remove(&record.id);
        match HostedCalendar::new(record, config, logins) {
            Ok(calendar) => self.keep(Arc::new(calendar)),
            Err(e) => tracing::error!(error = %e, "a published calendar's address does not parse"),
        }
    }

    /// Drops what memory holds for an unpublished calendar (its id now answered 410), its feed copy included (the store
    /// removes that copy too once no calendar uses it; another calendar of the same address
    /// reads it back from there).
    pub fn forget(&self, id: &str) {
        self.gone.insert(id);
        self.polls.forget(id);
        self.renders.forget(id);
        self.agendas.forget(id);
        self.aliases.forget(id);
        if let Some(calendar) = self.cache.get::<HostedCalendar>(Kind::Calendar, id) {
            self.cache.forget(Kind::Feed, calendar.url.as_str());
            for source in &calendar.sources {
                self.cache.forget(Kind::Feed, &source.key());
            }
        }
        self.cache.forget(Kind::Calendar, id);
    }

    /// Keeps a calendar ready to serve in the memory budget.
    fn keep(&self, calendar: Arc<HostedCalendar>) {
        let size = calendar.size();
        let id = calendar.record.id.clone();
        self.cache.put(Kind::Calendar, &id, calendar, size, None);
    }
}
