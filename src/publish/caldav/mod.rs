//! CalDAV on the server: a source of `"kind": "caldav"` read as a feed, and the editor's
//! discovery of an account's calendars. A CalDAV source's events are read with one `REPORT
//! calendar-query` (Depth 1, VEVENTs whose time overlaps the calendar's window, or
//! `DEFAULT_DAYS` either side of today where the window leaves a side open) through the same
//! fetcher, allowances and bounds as a feed; its `calendar-data` are combined into one VCALENDAR
//! (`combine`) that the engine reads as a fetched feed. A REPORT rather than a GET of the
//! collection: every CalDAV server answers it (iCloud and Fastmail serve no GET of a
//! collection), and it brings only the window's events, so a calendar with years of history
//! stays within the feed's size bound. The multistatus is read within bounds by `xml`; the
//! discovery (`PROPFIND` for the principal, its calendar home and the home's calendars) is in
//! `discover`, its route in `route`.

mod combine;
pub mod discover;
pub mod route;
pub mod xml;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub use combine::{combine, CombineError};

use super::feed_source::Reading;
use super::feeds::FeedError;
use super::fetch::{DavRequest, FetchError, Fetched, Fetcher};
use super::workers::Workers;
use crate::calendar::config::Window;
use crate::http::budget::Reservation;

/// How far back and ahead a CalDAV source is read where its calendar's window leaves a side
/// open: ten years.
pub const DEFAULT_DAYS: u32 = 3653;
const DAY: u64 = 86_400;

/// The `time-range` of a REPORT for `window` at `now`, as CalDAV writes UTC times
/// (`20261128T000000Z`): from the start of the window's first day (a day earlier, for the time
/// zones west of UTC) to the end of its last (a day later, for those east of it).
pub fn time_range(window: Option<Window>, now: SystemTime) -> (String, String) {
    let past = window.and_then(|w| w.past_days).unwrap_or(DEFAULT_DAYS);
    let future = window.and_then(|w| w.future_days).unwrap_or(DEFAULT_DAYS);
    let now = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let today = now - now % DAY;
    let start = today.saturating_sub((u64::from(past) + 1) * DAY);
    let end = today + (u64::from(future) + 2) * DAY;
    (utc(start), utc(end))
}

fn utc(seconds: u64) -> String {
    let at = UNIX_EPOCH + Duration::from_secs(seconds);
    humantime::format_rfc3339_seconds(at)
        .to_string()
        .chars()
        .filter(|c| !matches!(c, '-' | ':'))
        .collect()
}

/// The body of a `calendar-query` for the VEVENTs overlapping `start` to `end`.
pub fn query_body(start: &str, end: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
  <d:prop><d:getetag/><c:calendar-data/></d:prop>
  <c:filter>
    <c:comp-filter name="VCALENDAR">
      <c:comp-filter name="VEVENT">
        <c:time-range start="{start}" end="{end}"/>
      </c:comp-filter>
    </c:comp-filter>
  </c:filter>
</c:calendar-query>
"#
    )
}

/// A CalDAV source's events at `url` as one VCALENDAR: the REPORT sent with the source's login
/// (opened as a feed's is, and sent by the same rules),
/// its answer read within `max_bytes` (held in `budget` as it arrives), read and combined on an
/// engine thread.
pub async fn report(
    fetcher: &Fetcher,
    workers: &Workers,
    url: &reqwest::Url,
    read: &Reading,
    now: SystemTime,
    max_bytes: usize,
    budget: Reservation,
) -> Result<Fetched, FeedError> {
    let (start, end) = time_range(read.window, now);
    let request = DavRequest {
        method: "REPORT",
        url,
        depth: "1",
        body: query_body(&start, &end),
        login: read.login.as_ref(),
    };
    let answer = fetcher.dav(request, max_bytes, Some(budget)).await?;
    let limit = max_bytes.min(fetcher.max_bytes());
    let combined = workers
        .run(move || -> Result<Vec<u8>, FeedError> {
            let responses = xml::multistatus(&answer.body)
                .map_err(|e| FeedError::NotCalendar(e.to_string()))?;
            let objects = responses.iter().filter_map(|r| {
                r.prop(xml::CALDAV, "calendar-data")
                    .map(|p| p.text.as_str())
            });
            combine(objects, limit).map_err(|e| match e {
                CombineError::TooLarge(n) => FeedError::Fetch(FetchError::TooLarge(n)),
            })
        })
        .await??;
    Ok(Fetched::Body {
        bytes: combined,
        etag: None,
        last_modified: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_range_follows_the_window_and_is_ten_years_where_it_is_open() {
        // 2026-11-28T10:00:00Z
        let now = UNIX_EPOCH + Duration::from_secs(1_795_860_000);
        let window = Window {
            past_days: Some(30),
            future_days: Some(60),
        };
        let (start, end) = time_range(Some(window), now);
        assert_eq!(start, "20261028T000000Z");
        assert_eq!(end, "20270129T000000Z");
        let (start, end) = time_range(None, now);
        assert_eq!(start, "20161126T000000Z");
        assert_eq!(end, "20361130T000000Z");
        // Never before 1970.
        let far = Window {
            past_days: Some(36_500),
            future_days: None,
        };
        assert_eq!(time_range(Some(far), now).0, "19700101T000000Z");
        assert!(query_body(&start, &end).contains(r#"start="20161126T000000Z""#));
    }
}
