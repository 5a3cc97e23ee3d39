//! How each upstream address has been doing, as the owner sees it: every fetch made for a hosted
//! calendar (a subscriber's refresh, a publish) is noted per address, with the last error in
//! words and the failures in a row, so the status answer and `hearth doctor` can say "the source
//! has failed 5 times since Monday: 404 Not Found" while subscribers keep the last good copy.

use std::time::{Duration, SystemTime};

use axum::body::Bytes;
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use crate::clock::{from_millis, to_millis};
use crate::store::{Db, StoreError};

/// A source that has failed for this long is flagged (in the list, the owner page, the doctor).
pub const FLAG_AFTER: Duration = Duration::from_secs(24 * 60 * 60);

/// What one fetch of an address came to.
pub enum Fetch {
    /// A good copy (new, or confirmed unchanged): its body, to be measured off the async threads.
    Good(Bytes),
    /// The failure in words, as the editor shows it.
    Failed(String),
}

/// The stored record of one address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamHealth {
    pub last_fetch_at: SystemTime,
    pub last_success_at: Option<SystemTime>,
    pub last_error: Option<String>,
    pub failures: u32,
    pub failing_since: Option<SystemTime>,
    pub size: Option<u64>,
    pub events: Option<u64>,
}

impl UpstreamHealth {
    /// Failing for at least [`FLAG_AFTER`] at `now`.
    pub fn flagged(&self, now: SystemTime) -> bool {
        self.failures > 0
            && self
                .failing_since
                .is_some_and(|since| now.duration_since(since).unwrap_or_default() >= FLAG_AFTER)
    }
}

/// The upstream part of `GET /api/calendars/{id}/status`.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UpstreamAnswer {
    pub last_fetch_at: Option<String>,
    pub last_success_at: Option<String>,
    pub last_error: Option<String>,
    pub failures: u32,
    pub failing_since: Option<String>,
    pub size: Option<u64>,
    pub events: Option<u64>,
    /// Kept past events dropped, the oldest first, to keep the address within the feed storage
    /// and its publishers' shares: the last time and how many (absent: none since the start).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_dropped: Option<HistoryDropped>,
}

/// See [`UpstreamAnswer::history_dropped`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryDropped {
    pub at: String,
    pub events: usize,
}

impl From<&UpstreamHealth> for UpstreamAnswer {
    fn from(h: &UpstreamHealth) -> UpstreamAnswer {
        UpstreamAnswer {
            last_fetch_at: Some(rfc3339(h.last_fetch_at)),
            last_success_at: h.last_success_at.map(rfc3339),
            last_error: h.last_error.clone(),
            failures: h.failures,
            failing_since: h.failing_since.map(rfc3339),
            size: h.size,
            events: h.events,
            history_dropped: None,
        }
    }
}

/// A time as the status answers give it: UTC, whole seconds.
pub fn rfc3339(at: SystemTime) -> String {
    humantime::format_rfc3339_seconds(at).to_string()
}

/// Longest error kept, in characters (the fetcher's words are short; this bounds a row).
const MAX_ERROR: usize = 300;

/// Notes a fetch of `url` at `at`.
pub async fn note(db: &Db, url: String, at: SystemTime, fetch: Fetch) -> Result<(), StoreError> {
    let at = to_millis(at);
    db.write(move |conn| {
        match fetch {
            Fetch::Good(body) => {
                let events = memchr::memmem::find_iter(&body, b"BEGIN:VEVENT").count() as i64;
                conn.execute(
                    "INSERT INTO upstream_health
                       (url, last_fetch_at, last_success_at, last_error, failures, failing_since, size, events)
                     VALUES (?1, ?2, ?2, NULL, 0, NULL, ?3, ?4)
                     ON CONFLICT (url) DO UPDATE SET
                       last_fetch_at = excluded.last_fetch_at,
                       last_success_at = excluded.last_success_at,
                       last_error = NULL, failures = 0, failing_since = NULL,
                       size = excluded.size, events = excluded.events",
                    params![url, at, body.len() as i64, events],
                )?;
            }
            Fetch::Failed(error) => {
                let error: String = error.chars().take(MAX_ERROR).collect();
                conn.execute(
                    "INSERT INTO upstream_health (url, last_fetch_at, last_error, failures, failing_since)
                     VALUES (?1, ?2, ?3, 1, ?2)
                     ON CONFLICT (url) DO UPDATE SET
                       last_fetch_at = excluded.last_fetch_at,
                       last_error = excluded.last_error,
                       failures = failures + 1,
                       failing_since = coalesce(failing_since, excluded.failing_since)",
                    params![url, at, error],
                )?;
            }
        }
        Ok(())
    })
    .await
}

/// The record of `url`, if it was ever fetched for a hosted calendar.
pub fn read(conn: &rusqlite::Connection, url: &str) -> Result<Option<UpstreamHealth>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT last_fetch_at, last_success_at, last_error, failures, failing_since, size, events
             FROM upstream_health WHERE url = ?1",
            [url],
            |r| {
                Ok(UpstreamHealth {
                    last_fetch_at: from_millis(r.get(0)?),
                    last_success_at: r.get::<_, Option<i64>>(1)?.map(from_millis),
                    last_error: r.get(2)?,
                    failures: u32::try_from(r.get::<_, i64>(3)?).unwrap_or(u32::MAX),
                    failing_since: r.get::<_, Option<i64>>(4)?.map(from_millis),
                    size: r.get::<_, Option<i64>>(5)?.and_then(|n| u64::try_from(n).ok()),
                    events: r.get::<_, Option<i64>>(6)?.and_then(|n| u64::try_from(n).ok()),
                })
            },
        )
        .optional()?)
}

/// One feed of a merged calendar as its owner knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedName {
    /// Its place in the calendar's list, from 1 (as the editor numbers its feeds).
    pub number: usize,
    pub label: Option<String>,
    pub url: String,
}

/// A flagged source as the doctor names it.
#[derive(Debug, Clone)]
pub struct Flagged {
    pub calendar_id: String,
    pub calendar_name: String,
    /// The feed of a merged calendar; `None` for a calendar of one feed ("the source").
    pub feed: Option<FeedName>,
    pub health: UpstreamHealth,
}

/// Every source of a published calendar that is flagged at `now`, by calendar, in its order.
pub fn flagged_in(
    conn: &rusqlite::Connection,
    now: SystemTime,
) -> Result<Vec<Flagged>, StoreError> {
    let mut statement =
        conn.prepare("SELECT c.id, c.name, c.url FROM calendars c ORDER BY c.name, c.id")?;
    let calendars = statement
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = Vec::new();
    for (id, name, url) in calendars {
        let sources = super::calendars::source_urls(conn, &id)?;
        let feeds: Vec<Option<(FeedName, String)>> = if sources.is_empty() {
            vec![None]
        } else {
            sources
                .into_iter()
                .enumerate()
                .map(|(i, source)| {
                    Some((
                        FeedName {
                            number: i + 1,
                            label: source.label,
                            url: source.url,
                        },
                        source.key,
                    ))
                })
                .collect()
        };
        for feed in feeds {
            let address = feed.as_ref().map_or(url.as_str(), |(_, key)| key.as_str());
            if let Some(health) = read(conn, address)?.filter(|h| h.flagged(now)) {
                out.push(Flagged {
                    calendar_id: id.clone(),
                    calendar_name: name.clone(),
                    feed: feed.map(|(name, _)| name),
                    health,
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn health(conn: &rusqlite::Connection, url: &str) -> UpstreamHealth {
        read(conn, url).expect("reads").expect("noted")
    }

    #[tokio::test]
    async fn failures_count_in_a_row_from_the_first_and_a_success_clears_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(dir.path()).expect("opens");
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let url = "https://example.com/a.ics".to_owned();
        let body = Bytes::from_static(b"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n");
        note(&db, url.clone(), t0, Fetch::Good(body.clone()))
            .await
            .expect("notes");
        for hour in 1..=3 {
            let at = t0 + Duration::from_secs(hour * 3600);
            note(&db, url.clone(), at, Fetch::Failed("404 Not Found".into()))
                .await
                .expect("notes");
        }
        let failing = db
            .read({
                let url = url.clone();
                move |c| Ok(health(c, &url))
            })
            .await
            .expect("reads");
        assert_eq!(failing.failures, 3);
        assert_eq!(failing.failing_since, Some(t0 + Duration::from_secs(3600)));
        assert_eq!(failing.last_success_at, Some(t0));
        assert_eq!(failing.last_error.as_deref(), Some("404 Not Found"));
        assert_eq!(
            (failing.size, failing.events),
            (Some(body.len() as u64), Some(2))
        );
        assert!(!failing.flagged(t0 + Duration::from_secs(3 * 3600)));
        assert!(failing.flagged(t0 + Duration::from_secs(3600) + FLAG_AFTER));

        let later = t0 + Duration::from_secs(5 * 3600);
        note(&db, url.clone(), later, Fetch::Good(body))
            .await
            .expect("notes");
        let well = db.read(move |c| Ok(health(c, &url))).await.expect("reads");
        assert_eq!(
            (well.failures, well.failing_since, well.last_error),
            (0, None, None)
        );
        assert_eq!(well.last_success_at, Some(later));
    }
}
