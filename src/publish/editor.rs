//! What the calendar editor reads: `GET /api/feed?url=` (one feed as the editor sees it: its
//! properties and a page of events), `POST /api/feed` (a merged calendar's sources, merged as
//! the hosted feed will be, with the source of each event and the state of each source) and
//! `POST /api/preview` (the whole feed through a config: counts, size and each event's
//! keep/drop decision). Each states its admission policy; engine work runs within the visitor's
//! budget.

use std::collections::BTreeMap;
use std::time::Duration;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::api::{budget, too_slow, url_error, CalendarState, Previewing, ReadingFeeds};
use super::errors::RouteError;
use super::feeds::{Ask, FeedCopy, FeedError, FeedOutcome};
use super::fetch::normalize_url;
use super::health::UidsChangedAnswer;
use super::hosted;
use super::logins::editor::editor_logins;
use super::sources::{MergedFeed, Reading, SourceFeed};
use super::validate::{self, MappingTooLarge};
use super::workers::Budget;
use crate::calendar::config::Window;
use crate::calendar::{self, CompiledConfig, Interrupt, RemapError, RemapOptions, Source, UidMode};
use crate::http::admission::Caller;
use crate::http::error::AppError;
use crate::http::extract::{JsonBody, QueryParams};

/// Events sent per page of `/api/feed` unless the caller asks for fewer.
const DEFAULT_PAGE: usize = 100;
const MAX_PAGE: usize = 500;
const MAX_WARNINGS: usize = 50;
/// A feed fetched for the editor is reused this long, so paging through samples is cheap.
const EDITOR_MAX_AGE: Duration = Duration::from_secs(60);

#[derive(Debug, Deserialize)]
pub struct FeedQuery {
    url: Option<String>,
    offset: Option<usize>,
    limit: Option<usize>,
    /// Ask upstream again even if the copy is younger than a minute (the editor's Refetch).
    refresh: Option<bool>,
    /// `content`: the events with the UIDs `"uids": "content"` gives them, as the hosted feed
    /// has them (the editor's event list and overrides name events by those).
    uids: Option<UidMode>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct FeedAnswer {
    url: String,
    properties: Vec<NameValue>,
    events: Vec<BTreeMap<String, String>>,
    event_count: usize,
    offset: usize,
    size_bytes: usize,
    warnings: Vec<String>,
    warning_count: usize,
    fetched_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    stale: Option<String>,
    /// A merged calendar's sources, in order.
    #[serde(skip_serializing_if = "Option::is_none")]
    sources: Option<Vec<SourceAnswer>>,
    /// For each event of `events`, the index of its source.
    #[serde(skip_serializing_if = "Option::is_none")]
    event_sources: Option<Vec<u16>>,
    /// The feed's last change brought most of its events back under new UIDs.
    #[serde(skip_serializing_if = "Option::is_none")]
    uids_changed: Option<UidsChangedAnswer>,
}

/// One source of a merged calendar as the editor shows it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SourceAnswer {
    url: String,
    event_count: usize,
    size_bytes: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    fetched_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stale: Option<String>,
    /// Why the source has no copy (the calendar holds the other sources' events).
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// As [`FeedAnswer::uids_changed`], for this source.
    #[serde(skip_serializing_if = "Option::is_none")]
    uids_changed: Option<UidsChangedAnswer>,
}

/// `POST /api/feed`: a merged calendar's sources as the editor reads them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourcesRequest {
    sources: Vec<Source>,
    /// The calendar whose saved logins (`"auth": "set"`) its owner reads with (its edit token
    /// as `Authorization: Bearer`).
    calendar: Option<String>,
    offset: Option<usize>,
    limit: Option<usize>,
    refresh: Option<bool>,
    /// As `uids` of `GET /api/feed`.
    uids: Option<UidMode>,
}

/// The largest `POST /api/feed` body: ten sources of long addresses.
const MAX_SOURCES_REQUEST_BYTES: usize = 64 * 1024;

#[derive(Debug, Serialize)]
struct NameValue {
    name: String,
    value: String,
}

pub async fn get_feed(
    State(state): State<CalendarState>,
    caller: Caller<ReadingFeeds>,
    QueryParams(query): QueryParams<FeedQuery>,
) -> Result<Response, AppError> {
    let raw = query
        .url
        .ok_or_else(|| url_error("the feed address is missing"))?;
    let url = normalize_url(&raw).map_err(|e| url_error(e.to_string()))?;
    let outcome = state
        .publisher
        .editor_feed(&url, max_age(query.refresh), caller.client.key())
        .await
        .map_err(|e| match e {
            // A feed that asks for a login: said at the login the editor offers it.
            FeedError::Fetch(e) if e.is_about_login() => AppError::UpstreamField {
                field: "sources[0].auth".into(),
                message: e.to_string(),
            },
            other => other.into(),
        })?;
    let offset = query.offset.unwrap_or(0);
    let limit = query.limit.unwrap_or(DEFAULT_PAGE).min(MAX_PAGE);
    let url_text = url.to_string();
    let time = state.settings.engine.preview;
    let content = query.uids == Some(UidMode::Content);
    let uids_changed = state.publisher.feeds.uids_changed(url.as_str());
    let mut answer = state
        .publisher
        .run_within(budget(&caller, time), move |stop| {
            let outcome = with_content_uids(outcome, &url_text, content, stop)?;
            describe_feed(&outcome, url_text, offset, limit)
        })
        .await??;
    answer.uids_changed = uids_changed;
    Ok(Json(answer).into_response())
}

/// How old a copy the editor takes: a minute, or 5 s when it asks to refetch.
fn max_age(refresh: Option<bool>) -> Duration {
    if refresh.unwrap_or(false) {
        Duration::from_secs(5)
    } else {
        EDITOR_MAX_AGE
    }
}

/// An editor's reading of a merged calendar's sources: fetched for `caller` (a copy at most
/// `max_age` old, in memory only, counted against its shares), merged within its budget.
async fn editor_sources(
    state: &CalendarState,
    (sources, calendar, headers): (&[Source], Option<&str>, &HeaderMap),
    window: Option<Window>,
    max_age: Duration,
    client: crate::http::client::ClientKey,
    work: Budget,
    content_uids: bool,
) -> Result<MergedFeed, AppError> {
    if sources.len() > calendar::MAX_SOURCES {
        return Err(validate::Invalid::new(
            "sources",
            format!(
                "at most {} feeds can be merged into one calendar",
                calendar::MAX_SOURCES
            ),
        )
        .into());
    }
    let mut feeds = Vec::with_capacity(sources.len());
    for (i, source) in sources.iter().enumerate() {
        let field = format!("sources[{i}].url");
        let given = source.url.as_deref().unwrap_or_default();
        let url = normalize_url(given).map_err(|e| validate::Invalid::new(field, e.to_string()))?;
        feeds.push(SourceFeed {
            url,
            prefix: source.prefix.clone(),
            read: Reading::of(source.kind, window),
        });
    }
    let urls: Vec<reqwest::Url> = feeds.iter().map(|f| f.url.clone()).collect();
    // A login given in full, or "set" opened for the calendar's owner only (`logins::editor`),
    // for a feed and a CalDAV calendar alike.
    let logins = editor_logins(state, client, headers, calendar, sources, &urls).await?;
    for (feed, login) in feeds.iter_mut().zip(logins) {
        feed.read.login = login;
    }
    let ask = Ask::editor(max_age, client);
    Ok(state
        .publisher
        .merged_feed(&feeds, ask, Some(work), content_uids)
        .await?)
}

/// `POST /api/feed`: the sources merged as the hosted feed will be, a page of its events with
/// the source of each, and what became of each source (one that fails is named, and the
/// others' events are still shown).
pub async fn post_feed(
    State(state): State<CalendarState>,
    caller: Caller<ReadingFeeds>,
    headers: HeaderMap,
    JsonBody(request): JsonBody<SourcesRequest, MAX_SOURCES_REQUEST_BYTES>,
) -> Result<Response, AppError> {
    if request.sources.is_empty() {
        return Err(url_error("the calendar needs at least one feed").into());
    }
    let work = budget(&caller, state.settings.engine.preview);
    let merged = editor_sources(
        &state,
        (&request.sources, request.calendar.as_deref(), &headers),
        None,
        max_age(request.refresh),
        caller.client.key(),
        work.clone(),
        request.uids == Some(UidMode::Content),
    )
    .await?;
    let offset = request.offset.unwrap_or(0);
    let limit = request.limit.unwrap_or(DEFAULT_PAGE).min(MAX_PAGE);
    let changed: Vec<Option<UidsChangedAnswer>> = merged
        .sources
        .iter()
        .map(|s| state.publisher.feeds.uids_changed(s.url.as_str()))
        .collect();
    let answer = state
        .publisher
        .run_within(work, move |_| {
            let first = merged
                .sources
                .first()
                .map(|s| s.url.to_string())
                .unwrap_or_default();
            let mut answer = describe_feed(&merged.outcome, first, offset, limit)?;
            answer.event_sources = Some(
                merged
                    .origins
                    .iter()
                    .copied()
                    .skip(offset)
                    .take(answer.events.len())
                    .collect(),
            );
            answer.sources = Some(
                merged
                    .sources
                    .iter()
                    .zip(changed)
                    .map(|(s, uids_changed)| match &s.feed {
                        Ok(feed) => SourceAnswer {
                            url: s.url.to_string(),
                            event_count: s.events,
                            size_bytes: feed.copy.body.len(),
                            fetched_at: Some(httpdate::fmt_http_date(feed.copy.fetched_at)),
                            stale: feed.stale.as_ref().map(ToString::to_string),
                            error: None,
                            uids_changed,
                        },
                        Err(message) => SourceAnswer {
                            url: s.url.to_string(),
                            event_count: 0,
                            size_bytes: 0,
                            fetched_at: None,
                            stale: None,
                            error: Some(message.clone()),
                            uids_changed,
                        },
                    })
                    .collect(),
            );
            Ok::<_, AppError>(answer)
        })
        .await??;
    Ok(Json(answer).into_response())
}

/// One feed's events with the UIDs `"uids": "content"` gives them (the same key, its
/// address, as the hosted calendar's merge), or the feed as it is.
fn with_content_uids(
    outcome: FeedOutcome,
    url: &str,
    content: bool,
    stop: &Interrupt,
) -> Result<FeedOutcome, AppError> {
    if !content {
        return Ok(outcome);
    }
    let body = calendar::content_uids(
        &outcome.copy.body,
        url,
        &calendar::Limits::default(),
        Some(stop),
    )
    .map_err(|e| match e {
        calendar::UidError::Interrupted(_) => too_slow(RemapError::Interrupted),
        calendar::UidError::Parse(e) => RouteError::NotACalendar(e.to_string()),
    })?;
    let old = &outcome.copy;
    let copy = FeedCopy {
        body: body.into(),
        etag: old.etag.clone(),
        last_modified: old.last_modified.clone(),
        fetched_at: old.fetched_at,
        changed_at: old.changed_at,
        version: old.version,
        confirmed: old.confirmed,
    };
    Ok(FeedOutcome {
        copy: std::sync::Arc::new(copy),
        ..outcome
    })
}

fn describe_feed(
    outcome: &FeedOutcome,
    url: String,
    offset: usize,
    limit: usize,
) -> Result<FeedAnswer, AppError> {
    let (doc, warnings) = calendar::parse(&outcome.copy.body, &calendar::Limits::default())
        .map_err(|e| RouteError::NotACalendar(e.to_string()))?;
    let events = doc
        .events()
        .skip(offset)
        .take(limit)
        .map(|e| e.to_map())
        .collect();
    Ok(FeedAnswer {
        url,
        properties: doc
            .calendar_properties()
            .into_iter()
            .map(|(name, value)| NameValue { name, value })
            .collect(),
        events,
        event_count: doc.event_count(),
        offset,
        size_bytes: outcome.copy.body.len(),
        warning_count: warnings.len(),
        warnings: warnings
            .iter()
            .take(MAX_WARNINGS)
            .map(ToString::to_string)
            .collect(),
        fetched_at: httpdate::fmt_http_date(outcome.copy.fetched_at),
        stale: outcome.stale.as_ref().map(ToString::to_string),
        sources: None,
        event_sources: None,
        uids_changed: None,
    })
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreviewRequest {
    /// The feed; absent when the config has `sources`.
    url: Option<String>,
    /// The calendar whose saved logins its owner reads with (as `POST /api/feed`).
    calendar: Option<String>,
    /// Read by hand, so that a wrong key is named by its path in the config (`filters[1].x`).
    config: Value,
}

/// One event's fate in the hosted feed.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct DecisionAnswer {
    kept: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    /// Occurrences of this series the filters or the window drop (`occurrences: "each"`).
    #[serde(skip_serializing_if = "is_zero")]
    dropped_occurrences: usize,
    /// Too many dropped occurrences to remove one by one (or a series too long to judge):
    /// kept whole.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    kept_whole: bool,
    /// Why it is kept whole: `endless` (it never ends and the window sets no end), `tooMany`
    /// or `unfollowed` (its repeat rule could not be followed).
    #[serde(skip_serializing_if = "Option::is_none")]
    kept_whole_because: Option<&'static str>,
}

/// The wire word for why a series is kept whole.
fn whole_word(why: calendar::KeptWhole) -> &'static str {
    match why {
        calendar::KeptWhole::Endless => "endless",
        calendar::KeptWhole::TooMany => "tooMany",
        calendar::KeptWhole::Unfollowed => "unfollowed",
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// How many occurrences of the kept events fall in the span (the window, or a year either side
/// of today where it leaves a side open), dates as `YYYY-MM-DD`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct OccurrencesAnswer {
    count: usize,
    from: String,
    to: String,
    /// Some series have more occurrences than are looked at: the count is at least this.
    at_least: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PreviewAnswer {
    event_count: usize,
    kept_count: usize,
    output_bytes: usize,
    decisions: Vec<DecisionAnswer>,
    occurrences: OccurrencesAnswer,
    warnings: Vec<String>,
    /// Positions in the config's `overrides` of those whose event is not in the feed any more.
    unmatched_overrides: Vec<usize>,
}

/// Counts the bytes written, keeping none.
#[derive(Default)]
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `POST /api/preview`: the feed at `url`, or the config's sources merged (the server's recent
/// copies, as the editor reads them), through `config` on an engine thread, with the same clock
/// and window day as the hosted feed: how many events it keeps, how large it is, and each
/// event's decision in the order of `/api/feed`. Rate-limited like `/api/render`.
pub async fn preview(
    State(state): State<CalendarState>,
    caller: Caller<Previewing>,
    headers: HeaderMap,
    JsonBody(request): JsonBody<PreviewRequest>,
) -> Result<Response, AppError> {
    let raw = request.config;
    let work = budget(&caller, state.settings.engine.preview);
    let (compiled, window) = state
        .publisher
        .run_within(work.clone(), move |_| -> Result<_, AppError> {
            let config = validate::read_config(raw)?;
            let compiled = CompiledConfig::compile(&config).map_err(validate::Invalid::config)?;
            Ok((compiled, config.window))
        })
        .await??;
    let client = caller.client.key();
    let content = compiled.content_uids();
    let (feed, url) = if compiled.sources().is_empty() {
        let given = request
            .url
            .ok_or_else(|| url_error("the feed address is missing"))?;
        let url = normalize_url(&given).map_err(|e| url_error(e.to_string()))?;
        let feed = state
            .publisher
            .editor_feed(&url, EDITOR_MAX_AGE, client)
            .await?;
        (feed, Some(url.to_string()))
    } else {
        let merged = editor_sources(
            &state,
            (compiled.sources(), request.calendar.as_deref(), &headers),
            window,
            EDITOR_MAX_AGE,
            client,
            work.clone(),
            content,
        )
        .await?;
        (merged.outcome, None)
    };
    let now = hosted::window_now(&state.clock);
    let answer = state
        .publisher
        .run_within(work, move |stop| {
            let feed = match &url {
                Some(url) => with_content_uids(feed, url, content, stop)?,
                None => feed,
            };
            preview_now(&feed.copy.body, &compiled, now, stop)
        })
        .await??;
    Ok(Json(answer).into_response())
}

fn preview_now(
    body: &[u8],
    config: &CompiledConfig,
    now: i64,
    stop: &Interrupt,
) -> Result<PreviewAnswer, AppError> {
    let limits = calendar::Limits::default();
    let options = RemapOptions {
        max_output_bytes: Some(calendar::output_limit(body.len())),
        now: Some(now),
        interrupt: Some(stop.clone()),
        ..RemapOptions::default()
    };
    let unreadable = |e: RemapError| match e {
        RemapError::Interrupted => too_slow(e),
        other => RouteError::NotACalendar(other.to_string()),
    };
    let mut counter = Counter::default();
    let stats = match calendar::remap_into(body, config, &options, &limits, &mut counter) {
        Ok(stats) => stats,
        Err(RemapError::TooLarge { limit, field, .. }) => {
            return Err(MappingTooLarge { field, limit }.into())
        }
        Err(e) => return Err(unreadable(e).into()),
    };
    let (decisions, count) =
        calendar::decide_counting(body, config, &options, &limits).map_err(unreadable)?;
    let decisions = decisions
        .into_iter()
        .map(|d| DecisionAnswer {
            kept: d.kept,
            reason: d.reason,
            dropped_occurrences: d.dropped_occurrences,
            kept_whole: d.kept_whole.is_some(),
            kept_whole_because: d.kept_whole.map(whole_word),
        })
        .collect();
    let day = |seconds: i64| {
        let at = std::time::UNIX_EPOCH
            + std::time::Duration::from_secs(u64::try_from(seconds).unwrap_or_default());
        let mut text = humantime::format_rfc3339_seconds(at).to_string();
        text.truncate(10);
        text
    };
    let occurrences = OccurrencesAnswer {
        count: count.count,
        from: day(count.from),
        to: day(count.to),
        at_least: count.capped,
    };
    let unmatched_overrides = calendar::unmatched_overrides(body, config, &limits)
        .map_err(|e| RouteError::NotACalendar(e.to_string()))?;
    Ok(PreviewAnswer {
        unmatched_overrides,
        event_count: stats.event_count,
        kept_count: stats.kept_events,
        output_bytes: counter.0,
        decisions,
        occurrences,
        warnings: stats
            .warnings
            .iter()
            .take(MAX_WARNINGS)
            .map(ToString::to_string)
            .collect(),
    })
}
