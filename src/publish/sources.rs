//! Merged calendars on the server: a calendar's sources fetched each on its own (each with its
//! copy, its stale-while-revalidate and its health, as a one-feed calendar's feed), then merged
//! by the engine into one copy that the render, the preview and the editor read as they read a
//! single feed. A source that fails keeps its last good copy; one that has none is left out
//! (the others still serve) and named. The merge of given copies is kept in the cache, so a poll
//! within the TTL merges nothing. A calendar that keeps history merges the past events its
//! feeds dropped after them (`feeds::history`).

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use tokio::task::JoinSet;

use super::cache::Kind;
pub use super::feed_source::SourceFeed;
use super::feeds::{version_of, Ask, FeedCopy, FeedError, FeedOutcome};
use super::fetch::FetchError;
use super::hosted;
use super::served::HostedCalendar;
use super::workers::Budget;
use super::Publisher;
use crate::calendar::{self, Limits, MergeError, MergeInput};

/// What became of one source in a merge.
#[derive(Debug, Clone)]
pub struct SourceState {
    pub url: reqwest::Url,
    /// Its copy (possibly stale), or why there is none.
    pub feed: Result<FeedOutcome, String>,
    /// Its events in the copy (before duplicates across sources are left out).
    pub events: usize,
}

/// The merged feed: a stand-in outcome (its copy's version is the merge's), which source each
/// event came from, and each source's state.
#[derive(Debug, Clone)]
pub struct MergedFeed {
    pub outcome: FeedOutcome,
    pub origins: Arc<Vec<u16>>,
    pub sources: Vec<SourceState>,
}

/// A merge kept in the cache: the copy and the origins of its events.
struct KeptMerge {
    copy: Arc<FeedCopy>,
    origins: Arc<Vec<u16>>,
    events: Vec<usize>,
}

/// The version of a merge: of the sources' versions in order, with their prefixes.
fn merge_version(parts: &[(Option<u64>, Option<&str>)]) -> u64 {
    let mut key = Vec::with_capacity(parts.len() * 24);
    for (version, prefix) in parts {
        key.extend_from_slice(&version.unwrap_or(0).to_le_bytes());
        key.push(u8::from(version.is_some()));
        key.extend_from_slice(prefix.unwrap_or_default().as_bytes());
        key.push(0);
    }
    version_of(&key)
}

impl Publisher {
    /// Every source fetched as `ask` says, at the same time, in order.
    async fn fetch_sources(
        &self,
        sources: &[SourceFeed],
        ask: Ask,
    ) -> Vec<Result<FeedOutcome, FeedError>> {
        let mut tasks = JoinSet::new();
        for (i, source) in sources.iter().enumerate() {
            let feeds = self.feeds.clone();
            let url = source.url.clone();
            tasks.spawn(async move { (i, feeds.get(&url, ask).await) });
        }
        let mut results: Vec<Option<Result<FeedOutcome, FeedError>>> =
            (0..sources.len()).map(|_| None).collect();
        while let Some(joined) = tasks.join_next().await {
            if let Ok((i, result)) = joined {
                results[i] = Some(result);
            }
        }
        results
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err(FetchError::Other("the fetch stopped".into()).into())))
            .collect()
    }

    /// The sources fetched as `ask` says and merged (on an engine thread: the visitor's
    /// `budget`, or the server's own work for `None`). Fails only when no source has a copy
    /// (with the first source's error), or when the merge does.
    pub async fn merged_feed(
        &self,
        sources: &[SourceFeed],
        ask: Ask,
        budget: Option<Budget>,
    ) -> Result<MergedFeed, FeedError> {
        let fetched = self.fetch_sources(sources, ask).await;
        self.merge_outcomes(fetched, sources, None, budget, ask.client)
            .await
    }

    /// A hosted calendar's feed for a subscriber: its one feed as it is, or its sources merged,
    /// with the past events it keeps (`history`) merged after them.
    pub async fn calendar_feed(
        &self,
        calendar: &HostedCalendar,
        ask: Ask,
    ) -> Result<FeedOutcome, FeedError> {
        let sources = if calendar.sources.is_empty() {
            vec![SourceFeed {
                url: calendar.url.clone(),
                prefix: None,
            }]
        } else {
            calendar.sources.clone()
        };
        let kept = match calendar.config.keep_days() {
            Some(days) => self.kept_calendar(&sources, days).await?,
            None => None,
        };
        if calendar.sources.is_empty() && kept.is_none() {
            return self.feeds.get(&calendar.url, ask).await;
        }
        let fetched = self.fetch_sources(&sources, ask).await;
        Ok(self
            .merge_outcomes(fetched, &sources, kept, None, None)
            .await?
            .outcome)
    }

    /// The past events kept for `sources` that ended at most `days` before today (whole UTC
    /// days, so a day's renders stay the same), as a calendar; `None` when there are none.
    async fn kept_calendar(
        &self,
        sources: &[SourceFeed],
        days: u32,
    ) -> Result<Option<Bytes>, FeedError> {
        let oldest = hosted::window_now(&self.settings.clock) - i64::from(days) * 86_400;
        let mut texts: Vec<Bytes> = Vec::new();
        for source in sources {
            let kept = self.feeds.kept_events(source.url.as_str()).await?;
            texts.extend(
                kept.0
                    .iter()
                    .filter(|r| r.ends_at >= oldest)
                    .map(|r| r.component.clone()),
            );
        }
        if texts.is_empty() {
            return Ok(None);
        }
        Ok(Some(Bytes::from(calendar::kept_calendar(
            texts.iter().map(|t| &t[..]),
        ))))
    }

    /// Sources already fetched (in order), merged; the merge is kept in the cache, charged to
    /// `owner` (an editor's visitor) or to everyone (`None`).
    pub async fn merge_outcomes(
        &self,
        fetched: Vec<Result<FeedOutcome, FeedError>>,
        sources: &[SourceFeed],
        kept: Option<Bytes>,
        budget: Option<Budget>,
        owner: Option<crate::http::client::ClientKey>,
    ) -> Result<MergedFeed, FeedError> {
        if fetched.iter().all(Result::is_err) {
            let first = fetched.into_iter().find_map(Result::err);
            return Err(first.unwrap_or_else(|| FetchError::Other("no sources".into()).into()));
        }
        let mut parts: Vec<(Option<u64>, Option<&str>)> = fetched
            .iter()
            .zip(sources)
            .map(|(f, s)| (f.as_ref().ok().map(|o| o.copy.version), s.prefix.as_deref()))
            .collect();
        if let Some(kept) = &kept {
            parts.push((Some(version_of(kept)), Some("kept")));
        }
        let version = merge_version(&parts);
        let key = format!("merge:{version:016x}");
        let kept = match self.cache.get::<KeptMerge>(Kind::Feed, &key) {
            Some(kept) => kept,
            None => {
                let kept = Arc::new(
                    self.merge_now(&fetched, sources, kept, version, budget)
                        .await?,
                );
                let size = kept.copy.body.len() + kept.origins.len() * 2 + 256;
                self.cache.put(Kind::Feed, &key, kept.clone(), size, owner);
                kept
            }
        };
        let available: Vec<&FeedOutcome> = fetched.iter().filter_map(|f| f.as_ref().ok()).collect();
        // Stale when a source's copy is, with the first such source's reason (a source with no
        // copy at all is named in its own state and in the calendar's health instead).
        let stale = fetched.iter().enumerate().find_map(|(i, f)| match f {
            Ok(o) => o
                .stale
                .clone()
                .map(|e| FetchError::Other(format!("source {}: {e}", i + 1))),
            Err(_) => None,
        });
        let outcome = FeedOutcome {
            copy: kept.copy.clone(),
            stale,
            expired: available.iter().any(|o| o.expired),
            age: available
                .iter()
                .map(|o| o.age)
                .max()
                .unwrap_or(Duration::ZERO),
        };
        let states = fetched
            .into_iter()
            .zip(sources)
            .enumerate()
            .map(|(i, (feed, source))| SourceState {
                url: source.url.clone(),
                events: kept.events.get(i).copied().unwrap_or(0),
                feed: feed.map_err(|e| e.to_string()),
            })
            .collect();
        Ok(MergedFeed {
            outcome,
            origins: kept.origins.clone(),
            sources: states,
        })
    }

    async fn merge_now(
        &self,
        fetched: &[Result<FeedOutcome, FeedError>],
        sources: &[SourceFeed],
        kept: Option<Bytes>,
        version: u64,
        budget: Option<Budget>,
    ) -> Result<KeptMerge, FeedError> {
        let mut bodies: Vec<Option<Bytes>> = fetched
            .iter()
            .map(|f| f.as_ref().ok().map(|o| o.copy.body.clone()))
            .collect();
        let mut prefixes: Vec<Option<String>> = sources.iter().map(|s| s.prefix.clone()).collect();
        // The past events kept go last, without a prefix (they had theirs when they were kept).
        if let Some(kept) = kept {
            bodies.push(Some(kept));
            prefixes.push(None);
        }
        let job = move |stop: Option<&calendar::Interrupt>| {
            let inputs: Vec<MergeInput<'_>> = bodies
                .iter()
                .zip(&prefixes)
                .map(|(body, prefix)| MergeInput {
                    bytes: body.as_deref().unwrap_or_default(),
                    prefix: prefix.as_deref(),
                })
                .collect();
            // A source without a copy is empty bytes, which the merge reads as nothing.
            calendar::merge(&inputs, &Limits::default(), stop)
        };
        let merged = match budget {
            Some(budget) => self.run_within(budget, move |stop| job(Some(stop))).await?,
            None => self.run(move || job(None)).await?,
        }
        .map_err(|e| match e {
            MergeError::Source { index, error } => {
                FeedError::NotCalendar(format!("source {}: {error}", index + 1))
            }
            other => FeedError::NotCalendar(other.to_string()),
        })?;
        let available: Vec<&FeedOutcome> = fetched.iter().filter_map(|f| f.as_ref().ok()).collect();
        let fetched_at = available.iter().map(|o| o.copy.fetched_at).min();
        let changed_at = available.iter().map(|o| o.copy.changed_at).max();
        let confirmed = if available.iter().all(|o| o.copy.confirmed.is_some()) {
            available.iter().filter_map(|o| o.copy.confirmed).min()
        } else {
            None
        };
        let now = self.settings.clock.wall();
        Ok(KeptMerge {
            copy: Arc::new(FeedCopy {
                body: Bytes::from(merged.bytes),
                etag: None,
                last_modified: None,
                fetched_at: fetched_at.unwrap_or(now),
                changed_at: changed_at.unwrap_or(now),
                version,
                confirmed,
            }),
            origins: Arc::new(merged.origins),
            events: merged.source_events,
        })
    }
}
