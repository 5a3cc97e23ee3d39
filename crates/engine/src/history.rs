//! Past events that stay: which events of an earlier copy of a feed the new copy no longer has
//! although they had already ended (a source that drops old events, as Outlook's published
//! calendars do after about a month), each with its lines as written, so that a calendar can go
//! on serving them for the days it keeps them. An event that vanishes before it ends was
//! cancelled or deleted upstream: it is not kept.

use std::collections::HashSet;

use crate::config::window::{event_length, parse_date_time, parse_duration, series_end, SeriesEnd};
use crate::ics::{self, Limits, ParseError, Warnings};
use crate::merge::scan::{Kind, Line, Part, Scan};

/// An ended event the new copy no longer has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptEvent {
    pub uid: String,
    /// Its RECURRENCE-ID value as compared (upper-case, trimmed), for an occurrence.
    pub recurrence_id: Option<String>,
    /// When it (its last occurrence, for a series) ends: seconds, wall clock read as UTC.
    pub ends_at: i64,
    /// The component's lines as written, CRLF-terminated.
    pub text: Vec<u8>,
}

/// What changed between two copies of a feed, for history.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Vanished {
    /// Events of `old` whose UID `new` no longer has, that ended before `now`.
    pub ended: Vec<KeptEvent>,
    /// Every UID `new` has (a kept event that comes back is no longer kept).
    pub present: HashSet<String>,
}

fn scan(input: &[u8], limits: &Limits) -> Result<Scan, ParseError> {
    let mut scan = Scan::default();
    ics::walk(input, limits, &mut scan, &mut Warnings::default())?;
    Ok(scan)
}

/// The events of `old` that `new` dropped after they ended (by `now`, seconds).
pub fn vanished_events(
    old: &[u8],
    new: &[u8],
    now: i64,
    limits: &Limits,
) -> Result<Vanished, ParseError> {
    let new_scan = scan(new, limits)?;
    let present: HashSet<String> = new_scan
        .out
        .parts
        .iter()
        .filter_map(|p| match &p.kind {
            Kind::Event(key) => key.uid.clone(),
            _ => None,
        })
        .collect();
    let old_scan = scan(old, limits)?;
    let mut ended = Vec::new();
    for part in &old_scan.out.parts {
        let Kind::Event(key) = &part.kind else {
            continue;
        };
        let Some(uid) = &key.uid else { continue };
        if present.contains(uid) {
            continue;
        }
        let text = component_text(old, part);
        let Some(ends_at) = ends_at(&text, limits) else {
            continue;
        };
        if ends_at <= now {
            ended.push(KeptEvent {
                uid: uid.clone(),
                recurrence_id: key.recurrence_id.clone(),
                ends_at,
                text,
            });
        }
    }
    Ok(Vanished { ended, present })
}

/// The component's lines, each ending in CRLF.
fn component_text(input: &[u8], part: &Part) -> Vec<u8> {
    let mut out = Vec::new();
    for line in part.lines(input) {
        match line {
            Line::Raw { start, len, .. } => {
                let raw = &input[start..start + len];
                out.extend_from_slice(raw);
                if !raw.ends_with(b"\n") && !raw.ends_with(b"\r") {
                    out.extend_from_slice(b"\r\n");
                }
            }
            Line::MissingEnd(name) => out.extend_from_slice(format!("END:{name}\r\n").as_bytes()),
        }
    }
    out
}

/// When an event ends (a series: its last occurrence); `None` when it cannot be said (no start)
/// or never (an open series).
fn ends_at(text: &[u8], limits: &Limits) -> Option<i64> {
    let (doc, _) = ics::parse(text, limits).ok()?;
    let event = doc.events().next()?;
    let start = parse_date_time(&event.get("DTSTART")?)?;
    let end = event.get("DTEND").and_then(|v| parse_date_time(&v));
    let duration = event.get("DURATION").and_then(|v| parse_duration(&v));
    let length = event_length(&start, end.as_ref(), duration);
    let last_start = match event.get("RRULE") {
        None => start.seconds(),
        Some(rule) => match series_end(&rule, &start) {
            SeriesEnd::Open => return None,
            SeriesEnd::By(last) => last,
        },
    };
    Some(last_start + length)
}

/// Kept events as a calendar of their own, to merge after a calendar's feeds.
pub fn kept_calendar<'a>(events: impl IntoIterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut out =
        b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Hearth//Kept events//EN\r\n".to_vec();
    for text in events {
        out.extend_from_slice(text);
    }
    out.extend_from_slice(b"END:VCALENDAR\r\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cal(body: &str) -> String {
        format!("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n{body}END:VCALENDAR\r\n")
    }

    const PAST: &str = "BEGIN:VEVENT\r\nUID:past\r\nDTSTART:20240301T090000Z\r\nDTEND:20240301T100000Z\r\nSUMMARY:Past\r\nEND:VEVENT\r\n";
    const FUTURE: &str = "BEGIN:VEVENT\r\nUID:future\r\nDTSTART:20240401T090000Z\r\nSUMMARY:Future\r\nEND:VEVENT\r\n";
    const SERIES: &str = "BEGIN:VEVENT\r\nUID:series\r\nDTSTART;VALUE=DATE:20240101\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\nSUMMARY:Weekly\r\nEND:VEVENT\r\n";
    const OPEN: &str = "BEGIN:VEVENT\r\nUID:open\r\nDTSTART:20240101T090000Z\r\nRRULE:FREQ=DAILY\r\nEND:VEVENT\r\n";
    const STAYS: &str = "BEGIN:VEVENT\r\nUID:stays\r\nDTSTART:20240101T090000Z\r\nEND:VEVENT\r\n";

    // 2024-03-15T00:00:00Z.
    const NOW: i64 = 1_710_460_800;

    #[test]
    fn only_events_that_ended_before_they_vanished_are_kept_with_their_lines() {
        let old = cal(&format!("{PAST}{FUTURE}{SERIES}{OPEN}{STAYS}"));
        let new = cal(STAYS);
        let v = vanished_events(old.as_bytes(), new.as_bytes(), NOW, &Limits::default())
            .expect("reads");
        let uids: Vec<&str> = v.ended.iter().map(|e| e.uid.as_str()).collect();
        assert_eq!(uids, ["past", "series"]);
        assert_eq!(v.ended[0].text, PAST.as_bytes());
        // 2024-03-01T10:00:00Z.
        assert_eq!(v.ended[0].ends_at, 1_709_287_200);
        // The third Monday, 2024-01-15, an all-day event, ends at the end of that day; a series'
        // end is bounded conservatively (never earlier), so it is kept no shorter.
        assert!(
            (1_705_363_200..=NOW).contains(&v.ended[1].ends_at),
            "{}",
            v.ended[1].ends_at
        );
        assert!(v.present.contains("stays"));
    }

    #[test]
    fn kept_events_read_back_as_a_calendar() {
        let text = kept_calendar([PAST.as_bytes(), SERIES.as_bytes()]);
        let (doc, _) = ics::parse(&text, &Limits::default()).expect("parses");
        assert_eq!(doc.event_count(), 2);
    }
}
