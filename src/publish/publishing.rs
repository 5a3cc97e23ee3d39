//! The publish use case, in the order that admits before it works: check the request (on the
//! engine, within the visitor's budget), the calendar count and the visitor's share, reserve room
//! for the feed copy, fetch no more than that room (the feed must work before a link to it is
//! handed out), render it once to refuse a mapping that grows it past its bound, then store the
//! calendar. A publish that stores nothing takes its feed copy away again.

use std::sync::Arc;

use super::calendars::{self, Maker, PublishOutcome, Published};
use super::feed_source::Reading;
use super::feeds::{Ask, FeedError, FeedOutcome, Want};
use super::fetch::FetchError;
use super::logins::SealError;
use super::quotas::{QuotaError, Quotas};
use super::storage::FeedReservation;
use super::validate::{self, Invalid, MappingTooLarge, PublishInput, PublishRequest};
use super::workers::{Budget, WorkError};
use super::{hosted, Publisher};
use crate::calendar::{self, CompiledConfig, RemapError, RemapOptions};
use crate::secret::PresentedToken;
use crate::store::{Db, StoreError};

/// A publish that stored its calendar.
#[derive(Debug)]
pub enum Stored {
    /// First publish of this id; the edit token is shown this once.
    Created {
        token: String,
        record: Published,
    },
    Updated {
        record: Published,
    },
}

/// Why a publish stored nothing.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    Quota(#[from] QuotaError),
    /// The feed could not be fetched, or is not a calendar.
    #[error(transparent)]
    Feed(FeedError),
    /// One feed of a merged calendar could not be fetched (what happened to it: `error`).
    #[error("source {}: {error}", index + 1)]
    Source {
        index: usize,
        error: Box<PublishError>,
    },
    /// The mapping makes the hosted feed larger than its bound.
    #[error(transparent)]
    TooLarge(#[from] MappingTooLarge),
    /// Rendering the feed once took longer than the publish's engine time.
    #[error("{0}")]
    TooSlow(String),
    #[error("calendar '{0}' was published before: republishing it needs its edit token")]
    Forbidden(String),
    #[error(transparent)]
    Work(#[from] WorkError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A login could not be sealed or opened (the key file).
    #[error(transparent)]
    Sealing(SealError),
}

impl Publisher {
    /// Publishes (or republishes) a calendar for `maker`, its engine work within `work`.
    pub async fn publish(
        &self,
        db: &Db,
        request: PublishRequest,
        token: Option<PresentedToken>,
        maker: Maker,
        work: Budget,
    ) -> Result<Stored, PublishError> {
        let PublishRequest {
            id,
            name,
            url,
            config,
        } = request;
        let mut input = self
            .run_within(work.clone(), move |_| {
                validate::validate(&id, &name, url.as_deref(), &config)
            })
            .await??;
        let quotas = self.settings.quotas;
        calendars::may_publish(db, input.id.clone(), maker, quotas).await?;
        input.logins = self.logins_of(db, &mut input, token.as_ref()).await?;
        let urls = input.copy_keys();
        // Each feed is reserved room and fetched within it, in order; the reservations hold
        // until the calendar is stored.
        let mut reservations = Vec::with_capacity(urls.len());
        let mut fetched = Vec::with_capacity(urls.len());
        let addresses: Vec<(reqwest::Url, Reading)> = if input.sources.is_empty() {
            vec![(input.url.clone(), Reading::default())]
        } else {
            let sources = input.sources.iter();
            sources.map(|s| (s.url.clone(), s.read.clone())).collect()
        };
        let mut failed = None;
        for (index, (url, read)) in addresses.iter().enumerate() {
            match self.fetch_within_room(url, read, maker).await {
                Ok((reservation, feed)) => {
                    reservations.push(reservation);
                    fetched.push(feed);
                }
                Err(error) => {
                    failed = Some(if input.sources.is_empty() {
                        error
                    } else {
                        PublishError::Source {
                            index,
                            error: Box::new(error),
                        }
                    });
                    break;
                }
            }
        }
        let stored = match failed {
            Some(error) => Err(error),
            None if input.sources.is_empty() => match fetched.pop() {
                Some(feed) => self.store(db, input, token, maker, work, &feed).await,
                None => Err(PublishError::Feed(FeedError::NotCalendar("no feed".into()))),
            },
            None => match self.merge_fetched(&input, fetched, work.clone()).await {
                Ok(feed) => self.store(db, input, token, maker, work, &feed).await,
                Err(e) => Err(e),
            },
        };
        drop(reservations);
        if stored.is_err() {
            if let Err(e) = calendars::discard_copies(db, urls).await {
                tracing::warn!(error = %e, "could not remove the copies of a refused publish");
            }
        }
        stored
    }

    /// Reserves room for a copy of `url` and fetches it within that room (a feed larger than
    /// the room left is the storage quota's refusal, not the feed's fault).
    async fn fetch_within_room(
        &self,
        url: &reqwest::Url,
        read: &Reading,
        maker: Maker,
    ) -> Result<(Option<FeedReservation>, FeedOutcome), PublishError> {
        let feed_max = self.settings.feed_max_size;
        // The site's owner has no share of the feed storage, only the whole.
        let publisher = (!maker.owner).then_some(maker.client);
        let reservation = self
            .feeds
            .reserve(url, read.login.as_ref(), feed_max as u64, publisher)
            .await
            .map_err(quota_or_feed)?;
        let limit = reservation
            .as_ref()
            .map(|r| usize::try_from(r.bytes()).unwrap_or(feed_max));
        let feed = self
            .feeds
            .get_read(
                url,
                read,
                Ask {
                    max_age: self.settings.ttl,
                    persist: true,
                    want: Want::Fresh,
                    limit,
                    client: Some(maker.client),
                    owner: maker.owner,
                },
            )
            .await
            .map_err(|e| match e {
                // The feed is larger than the room left, not than a feed may be.
                FeedError::Fetch(FetchError::TooLarge(n)) if n < feed_max => PublishError::Quota(
                    reservation
                        .as_ref()
                        .map_or(QuotaError::FeedStorageFull, FeedReservation::refusal),
                ),
                other => quota_or_feed(other),
            })?;
        Ok((reservation, feed))
    }

    /// A merged calendar's feeds, just fetched, merged as its hosted feed will be.
    async fn merge_fetched(
        &self,
        input: &PublishInput,
        fetched: Vec<FeedOutcome>,
        work: Budget,
    ) -> Result<FeedOutcome, PublishError> {
        let merged = self
            .merge_outcomes(
                fetched.into_iter().map(Ok).collect(),
                &input.sources,
                Some(work),
                None,
                input.compiled.content_uids(),
            )
            .await
            .map_err(quota_or_feed)?;
        Ok(merged.outcome)
    }

    /// Renders the feed once (refusing a mapping that grows it past its bound or takes too
    /// long), then stores the calendar and keeps it ready to serve: `Created` or `Updated`.
    async fn store(
        &self,
        db: &Db,
        input: PublishInput,
        token: Option<PresentedToken>,
        maker: Maker,
        work: Budget,
        feed: &FeedOutcome,
    ) -> Result<Stored, PublishError> {
        let compiled = input.compiled.clone();
        self.check_output(work, feed, &compiled).await?;
        let id = input.id.clone();
        let now = self.settings.clock.wall();
        let logins = input.logins.clone();
        let sealed = self
            .logins
            .seal_all(&id, &logins)
            .map_err(PublishError::Sealing)?;
        let quotas = self.settings.quotas;
        let outcome = calendars::publish(db, input, token, maker, quotas, now, sealed).await?;
        match outcome {
            PublishOutcome::Forbidden => Err(PublishError::Forbidden(id)),
            PublishOutcome::Created { token, record } => {
                self.remember(record.clone(), compiled, &logins);
                Ok(Stored::Created { token, record })
            }
            PublishOutcome::Updated { record } => {
                self.remember(record.clone(), compiled, &logins);
                Ok(Stored::Updated { record })
            }
        }
    }

    /// Refuses a mapping that would make the hosted feed larger than the output bound, naming
    /// the field that grows it, before anything is stored.
    async fn check_output(
        &self,
        work: Budget,
        feed: &FeedOutcome,
        config: &Arc<CompiledConfig>,
    ) -> Result<(), PublishError> {
        let body = feed.copy.body.clone();
        let config = config.clone();
        let now = hosted::window_now(&self.settings.clock);
        let checked = self
            .run_within(work, move |stop| {
                let options = RemapOptions {
                    max_output_bytes: Some(calendar::output_limit(body.len())),
                    now: Some(now),
                    interrupt: Some(stop.clone()),
                    ..RemapOptions::default()
                };
                calendar::remap_into(
                    &body,
                    &config,
                    &options,
                    &calendar::Limits::default(),
                    std::io::sink(),
                )
            })
            .await?;
        match checked {
            Ok(_) => Ok(()),
            Err(RemapError::TooLarge { limit, field, .. }) => {
                Err(MappingTooLarge { field, limit }.into())
            }
            Err(e @ RemapError::Interrupted) => Err(PublishError::TooSlow(e.to_string())),
            Err(e) => Err(PublishError::Feed(FeedError::NotCalendar(e.to_string()))),
        }
    }
}

/// A feed error, or the quota it ran into.
fn quota_or_feed(error: FeedError) -> PublishError {
    match error {
        FeedError::Quota(q) => PublishError::Quota(q),
        FeedError::Busy(w) => PublishError::Work(w),
        FeedError::Store(s) => PublishError::Store(s),
        other => PublishError::Feed(other),
    }
}

/// What publishing may store, from the settings the publisher was made with.
#[derive(Debug, Clone)]
pub struct PublishSettings {
    pub quotas: Quotas,
    pub ttl: std::time::Duration,
    pub feed_max_size: usize,
    pub clock: crate::clock::Clock,
}
