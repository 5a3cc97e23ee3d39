//! Hosted calendars: fetching upstream feeds safely, keeping their last good copies, publishing
//! remapped calendars and serving them to calendar apps, all within one memory budget.

pub mod api;
pub mod cache;
pub mod calendars;
pub mod feeds;
pub mod fetch;
pub mod hosted;
pub mod workers;

use std::sync::Arc;

use crate::calendar::{CompiledMapping, MappedField, TemplateError};
use crate::clock::Clock;
use crate::config::Config;
use crate::store::{Db, StoreError};
use cache::Cache;
use calendars::Published;
use feeds::Feeds;
use fetch::{FetchError, Fetcher};
use hosted::Renders;
use workers::{WorkError, Workers};

/// A published calendar with its mapping compiled (once per revision, not per request).
#[derive(Debug)]
pub struct HostedCalendar {
    pub record: Published,
    pub mapping: Arc<CompiledMapping>,
}

impl HostedCalendar {
    /// Memory it holds, for the cache budget.
    pub fn size(&self) -> usize {
        let m = &self.record.mapping;
        let templates: usize = MappedField::ALL.iter().map(|f| m.get(*f).len()).sum();
        self.mapping.memory_usage()
            + templates
            + self.record.id.len()
            + self.record.name.len()
            + self.record.url.len()
            + 512
    }
}

/// Why a stored calendar could not be made ready to serve.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Busy(#[from] WorkError),
    #[error("the stored mapping of calendar '{id}' does not compile: {error}")]
    Mapping { id: String, error: TemplateError },
}

/// State of the publishing side, shared by its handlers.
pub struct Publisher {
    pub feeds: Arc<Feeds>,
    pub renders: Renders,
    pub cache: Arc<Cache>,
    pub workers: Workers,
}

impl Publisher {
    pub fn new(db: Db, config: &Config) -> Result<Publisher, FetchError> {
        let cache = Arc::new(Cache::new(config.cache_size));
        let workers = Workers::default();
        let clock: Clock = config.clock.clone();
        let fetcher = Fetcher::new(config.allow_private_feeds, config.feed_max_size)?;
        Ok(Publisher {
            feeds: Arc::new(Feeds::new(
                fetcher,
                db,
                cache.clone(),
                workers.clone(),
                clock.clone(),
            )),
            renders: Renders::new(cache.clone(), workers.clone(), clock),
            cache,
            workers,
        })
    }

    /// The published calendar `id`, from memory or the database (its mapping compiled on an
    /// engine thread).
    pub async fn calendar(
        &self,
        db: &Db,
        id: &str,
    ) -> Result<Option<Arc<HostedCalendar>>, LoadError> {
        // Calendars live in the cache, so a subscriber's poll needs no database read.
        if let Some(found) = self.cache.calendar(id) {
            return Ok(Some(found));
        }
        let Some(record) = calendars::find(db, id.to_owned()).await? else {
            return Ok(None);
        };
        let mapping = record.mapping.clone();
        let compiled = self
            .workers
            .run(move || CompiledMapping::compile(&mapping))
            .await?
            .map_err(|error| LoadError::Mapping {
                id: id.to_owned(),
                error,
            })?;
        let hosted = Arc::new(HostedCalendar {
            record,
            mapping: Arc::new(compiled),
        });
        self.cache.put_calendar(hosted.clone());
        Ok(Some(hosted))
    }

    /// Keeps a newly published revision with its compiled mapping.
    pub fn remember(&self, record: Published, mapping: Arc<CompiledMapping>) {
        self.renders.forget(&record.id);
        self.cache
            .put_calendar(Arc::new(HostedCalendar { record, mapping }));
    }

    pub fn forget(&self, id: &str) {
        self.renders.forget(id);
        self.cache.forget_calendar(id);
    }
}
