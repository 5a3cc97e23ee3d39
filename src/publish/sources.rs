//! Merged calendars on the server: a calendar's sources fetched each on its own (each with its
//! copy, its stale-while-revalidate and its health, as a one-feed calendar's feed), then merged
//! by the engine into one copy that the render, the preview and the editor read as they read a
//! single feed. A source that fails keeps its last good copy; one that has none is left out
//! (the others still serve) and named. The merge of given copies is kept in the cache, so a poll
//! within the TTL merges nothing. A calendar that keeps history merges the past events its
//! feeds dropped after them (`feeds::history`). A hosted calendar's merge is made only when its
//! render is due, inside the render's job, so it is never in memory on a poll.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use tokio::task::JoinSet;

use super::cache::Kind;
pub use super::feed_source::{Reading, SourceFeed};
use super::feeds::{version_of, Ask, FeedCopy, FeedError, FeedOutcome, Feeds};
use super::fetch::FetchError;
use super::hosted::{self, Input, LateInput, Make};
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

/// Stale when a source's copy is, with the first such source's reason (a source with no copy at
/// all is named in its own state and in the calendar's health instead).
fn stale_of(fetched: &[Result<FeedOutcome, FeedError>]) -> Option<FetchError> {
    fetched.iter().enumerate().find_map(|(i, f)| match f {
        Ok(o) => o
            .stale
            .clone()
            .map(|e| FetchError::Other(format!("source {}: {e}", i + 1))),
        Err(_) => None,
    })
}

/// A hosted calendar's merge, made when its render is due: its sources' copies (none for one
/// without a copy yet) with their prefixes, and the addresses whose past events it keeps with
/// the oldest end it keeps.
struct LateMerge {
    feeds: Arc<Feeds>,
    bodies: Vec<Option<Bytes>>,
    prefixes: Vec<Option<String>>,
    /// Each source's address when its events get UIDs made from their content.
    uid_keys: Vec<Option<String>>,
    kept: Vec<(String, i64)>,
}

impl LateInput for LateMerge {
    fn prepare(&self) -> Pin<Box<dyn Future<Output = Result<Make, String>> + Send + '_>> {
        Box::pin(async move {
            let mut kept = Vec::with_capacity(self.kept.len());
            for (url, oldest) in &self.kept {
                let text = self.feeds.kept_text(url).await.map_err(|e| e.to_string())?;
                kept.push(text.since(*oldest));
            }
            // The past events go last, without a prefix (they had theirs when they were kept),
            // as one input of bare components: a slice of what memory holds when they are one
            // address's.
            let kept = match kept.len() {
                0 => None,
                1 => kept.pop(),
                _ => Some(Bytes::from(kept.concat())),
            };
            let mut bodies = self.bodies.clone();
            let mut prefixes = self.prefixes.clone();
            let mut uid_keys = self.uid_keys.clone();
            if let Some(kept) = kept {
                // Kept events were kept with the UIDs they had by the calendar's rule.
                bodies.push(Some(kept));
                prefixes.push(None);
                uid_keys.push(None);
            }
            let make: Make = Box::new(move |stop| {
                merge_sources(&bodies, &prefixes, &uid_keys, Some(stop))
                    .map(|merged| Bytes::from(merged.bytes))
            });
            Ok(make)
        })
    }
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
            // Where a source's login reaches its fetch (opened before, sent by the fetcher) and
            // its kind chooses a GET or a CalDAV REPORT (`Feeds::fetch_checked`).
            let (url, read) = (source.url.clone(), source.read.clone());
            tasks.spawn(async move { (i, feeds.get_read(&url, &read, ask).await) });
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
        content_uids: bool,
    ) -> Result<MergedFeed, FeedError> {
        let fetched = self.fetch_sources(sources, ask).await;
        self.merge_outcomes(fetched, sources, budget, ask.client, content_uids)
            .await
    }

    /// A hosted calendar's feed for a subscriber and what its render reads: its one feed as it
    /// is, or its sources merged with the past events it keeps (`history`) after them. A merge
    /// is described here (its version, its sources' freshness) and made only when a render is
    /// due, inside the render's job: a poll answered from an earlier render merges nothing.
    pub async fn calendar_feed(
        &self,
        calendar: &HostedCalendar,
        ask: Ask,
    ) -> Result<(FeedOutcome, Input), FeedError> {
        let sources = if calendar.sources.is_empty() {
            vec![SourceFeed::new(calendar.url.clone(), None)]
        } else {
            calendar.sources.clone()
        };
        let mut kept = Vec::new();
        if let Some(days) = calendar.config.keep_days() {
            let oldest = hosted::window_now(&self.settings.clock) - i64::from(days) * 86_400;
            for source in &sources {
                let key = source.key();
                let index = self.feeds.kept_index(&key).await?;
                if index.count_since(oldest) > 0 {
                    kept.push((key, oldest, index));
                }
            }
        }
        let content_uids = calendar.config.content_uids();
        if calendar.sources.is_empty() && kept.is_empty() && !content_uids {
            let outcome = self.feeds.get(&calendar.url, ask).await?;
            let input = Input::Copy(outcome.copy.body.clone());
            return Ok((outcome, input));
        }
        let fetched = self.fetch_sources(&sources, ask).await;
        if fetched.iter().all(Result::is_err) {
            let first = fetched.into_iter().find_map(Result::err);
            return Err(first.unwrap_or_else(|| FetchError::Other("no sources".into()).into()));
        }
        let mut parts: Vec<(Option<u64>, Option<&str>)> = fetched
            .iter()
            .zip(&sources)
            .map(|(f, s)| (f.as_ref().ok().map(|o| o.copy.version), s.prefix.as_deref()))
            .collect();
        for (_, oldest, index) in &kept {
            parts.push((Some(index.version_since(*oldest)), Some("kept")));
        }
        if content_uids {
            parts.push((None, Some(CONTENT_UIDS)));
        }
        let version = merge_version(&parts);
        let available: Vec<&FeedOutcome> = fetched.iter().filter_map(|f| f.as_ref().ok()).collect();
        let now = self.settings.clock.wall();
        // What the merge will be, without its bytes: what a render is keyed by and what a
        // subscriber's answer says.
        let described = Arc::new(FeedCopy {
            body: Bytes::new(),
            etag: None,
            last_modified: None,
            fetched_at: available
                .iter()
                .map(|o| o.copy.fetched_at)
                .min()
                .unwrap_or(now),
            changed_at: available
                .iter()
                .map(|o| o.copy.changed_at)
                .max()
                .unwrap_or(now),
            version,
            confirmed: None,
        });
        let outcome = FeedOutcome {
            copy: described,
            stale: stale_of(&fetched),
            expired: available.iter().any(|o| o.expired),
            age: available
                .iter()
                .map(|o| o.age)
                .max()
                .unwrap_or(Duration::ZERO),
        };
        let late = LateMerge {
            feeds: self.feeds.clone(),
            bodies: fetched
                .iter()
                .map(|f| f.as_ref().ok().map(|o| o.copy.body.clone()))
                .collect(),
            prefixes: sources.iter().map(|s| s.prefix.clone()).collect(),
            uid_keys: uid_keys(&sources, content_uids),
            kept: kept
                .into_iter()
                .map(|(url, oldest, _)| (url, oldest))
                .collect(),
        };
        Ok((outcome, Input::Later(Arc::new(late))))
    }

    /// Sources already fetched (in order), merged; the merge is kept in the cache, charged to
    /// `owner` (an editor's visitor) or to everyone (`None`).
    pub async fn merge_outcomes(
        &self,
        fetched: Vec<Result<FeedOutcome, FeedError>>,
        sources: &[SourceFeed],
        budget: Option<Budget>,
        owner: Option<crate::http::client::ClientKey>,
        content_uids: bool,
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
        if content_uids {
            parts.push((None, Some(CONTENT_UIDS)));
        }
        let version = merge_version(&parts);
        let key = format!("merge:{version:016x}");
        let kept = match self.cache.get::<KeptMerge>(Kind::Feed, &key) {
            Some(kept) => kept,
            None => {
                let kept = Arc::new(
                    self.merge_now(&fetched, sources, version, budget, content_uids)
                        .await?,
                );
                let size = kept.copy.body.len() + kept.origins.len() * 2 + 256;
                self.cache.put(Kind::Feed, &key, kept.clone(), size, owner);
                kept
            }
        };
        let available: Vec<&FeedOutcome> = fetched.iter().filter_map(|f| f.as_ref().ok()).collect();
        let stale = stale_of(&fetched);
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
        version: u64,
        budget: Option<Budget>,
        content_uids: bool,
    ) -> Result<KeptMerge, FeedError> {
        let bodies: Vec<Option<Bytes>> = fetched
            .iter()
            .map(|f| f.as_ref().ok().map(|o| o.copy.body.clone()))
            .collect();
        let prefixes: Vec<Option<String>> = sources.iter().map(|s| s.prefix.clone()).collect();
        let keys = uid_keys(sources, content_uids);
        let job = move |stop: Option<&calendar::Interrupt>| {
            merge_sources(&bodies, &prefixes, &keys, stop)
        };
        let merged = match budget {
            Some(budget) => self.run_within(budget, move |stop| job(Some(stop))).await?,
            None => self.run(move || job(None)).await?,
        }
        .map_err(FeedError::NotCalendar)?;
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

/// What a merge's version is given for `"uids": "content"`, so that its merge is another.
const CONTENT_UIDS: &str = "uids:content";

/// The key each source's content UIDs are made with (its address, the same one history keeps
/// its past events under), or none for every source.
fn uid_keys(sources: &[SourceFeed], content_uids: bool) -> Vec<Option<String>> {
    sources
        .iter()
        .map(|s| content_uids.then(|| s.url.as_str().to_owned()))
        .collect()
}

/// The sources' copies merged as one feed, each with its prefix (a source without a copy is
/// empty bytes, which the merge reads as nothing); a failing source is named by its number.
/// A source with a UID key first has its events' UIDs made from their content.
fn merge_sources(
    bodies: &[Option<Bytes>],
    prefixes: &[Option<String>],
    uid_keys: &[Option<String>],
    stop: Option<&calendar::Interrupt>,
) -> Result<calendar::Merged, String> {
    let limits = Limits::default();
    let mut stable: Vec<Option<Vec<u8>>> = Vec::with_capacity(bodies.len());
    for (i, body) in bodies.iter().enumerate() {
        stable.push(match (body, uid_keys.get(i).and_then(Option::as_deref)) {
            (Some(body), Some(key)) if !body.is_empty() => Some(
                calendar::content_uids(body, key, &limits, stop)
                    .map_err(|e| format!("source {}: {e}", i + 1))?,
            ),
            _ => None,
        });
    }
    let bodies: Vec<Option<&[u8]>> = bodies
        .iter()
        .zip(&stable)
        .map(|(body, stable)| stable.as_deref().or(body.as_deref()))
        .collect();
    let inputs: Vec<MergeInput<'_>> = bodies
        .iter()
        .zip(prefixes)
        .map(|(body, prefix)| MergeInput {
            bytes: body.unwrap_or_default(),
            prefix: prefix.as_deref(),
        })
        .collect();
    calendar::merge(&inputs, &limits, stop).map_err(|e| match e {
        MergeError::Source { index, error } => format!("source {}: {error}", index + 1),
        other => other.to_string(),
    })
}
