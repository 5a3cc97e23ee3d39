//! Hosted calendars: fetching upstream feeds safely, keeping their last good copies, publishing
//! remapped calendars and serving them to calendar apps.

pub mod api;
pub mod calendars;
pub mod feeds;
pub mod fetch;
pub mod hosted;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::store::{Db, StoreError};
use calendars::Published;
use feeds::Feeds;
use fetch::{FetchError, Fetcher};
use hosted::RenderCache;

/// State of the publishing side, shared by its handlers.
pub struct Publisher {
    pub feeds: Feeds,
    pub renders: RenderCache,
    /// Published records by id, so a subscriber's poll needs no database read.
    records: Mutex<HashMap<String, Arc<Published>>>,
}

impl Publisher {
    pub fn new(
        db: Db,
        allow_private: bool,
        max_feed_bytes: usize,
    ) -> Result<Publisher, FetchError> {
        Ok(Publisher {
            feeds: Feeds::new(Fetcher::new(allow_private, max_feed_bytes)?, db),
            renders: RenderCache::default(),
            records: Mutex::new(HashMap::new()),
        })
    }

    fn records(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Published>>> {
        self.records
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The published calendar `id`, from memory or the database.
    pub async fn calendar(&self, db: &Db, id: &str) -> Result<Option<Arc<Published>>, StoreError> {
        if let Some(found) = self.records().get(id) {
            return Ok(Some(found.clone()));
        }
        let found = calendars::find(db, id.to_owned()).await?.map(Arc::new);
        if let Some(record) = &found {
            self.records().insert(id.to_owned(), record.clone());
        }
        Ok(found)
    }

    pub fn remember(&self, record: Published) {
        self.renders.forget(&record.id);
        self.records().insert(record.id.clone(), Arc::new(record));
    }

    pub fn forget(&self, id: &str) {
        self.renders.forget(id);
        self.records().remove(id);
    }
}
