//! A calendar's coming events as a list (the agenda page and its JSON): a feed parsed, each
//! event read for its summary, place, description and times, a series expanded into its
//! occurrences within the shown span (its moved occurrences, RECURRENCE-IDs, standing in for
//! theirs), cancelled events and those already over left out, in order of start, at most a
//! bounded number. Times are real instants; the calendar's time zone (the feed's
//! X-WR-TIMEZONE, else the first zone an event starts in, else UTC) says on which day each is
//! shown and how its time reads.

use std::collections::HashSet;

use jiff::tz::TimeZone;
use jiff::Timestamp;

use crate::config::occurrences::Series;
use crate::config::window::{
    civil_from_days, days_from_civil, event_length, parse_date_time, parse_duration, DateTime,
};
use crate::ics::{parse, Document, EventView, Limits, ParseError};
use crate::interrupt::Interrupt;
use crate::tz::known_zone;

/// The most events (occurrences counted one by one) an agenda lists.
pub const MAX_AGENDA_EVENTS: usize = 500;
/// The span shown when the calendar's window names no future days.
pub const DEFAULT_AGENDA_DAYS: u32 = 90;
/// The longest span shown, whatever the window says.
pub const MAX_AGENDA_DAYS: u32 = 366;
/// At most this many occurrences of one series are listed.
const MAX_PER_SERIES: usize = 400;

/// What to list: events not over at `now` (unix seconds) starting within `days` days of it.
#[derive(Debug, Clone, Copy)]
pub struct AgendaRequest {
    pub now: i64,
    pub days: u32,
    pub max_events: usize,
}

/// When an event happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// From `start` to `end`, unix seconds.
    Timed { start: i64, end: i64 },
    /// Whole days, `end` excluded (days since 1970-01-01).
    AllDay { start: i64, end: i64 },
}

/// One event (or one occurrence of a series) as the agenda lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgendaEvent {
    pub uid: String,
    pub summary: String,
    pub location: Option<String>,
    pub description: Option<String>,
    pub when: When,
}

/// The coming events of a calendar, in the calendar's time zone.
#[derive(Debug, Clone)]
pub struct Agenda {
    /// The IANA name of the calendar's time zone (`UTC` when it names none this engine knows).
    pub zone: String,
    tz: TimeZone,
    pub events: Vec<AgendaEvent>,
    /// Whether events were left out past the request's `max_events`.
    pub more: bool,
    /// The span's first and last day in the calendar's zone (days since 1970-01-01).
    pub first_day: i64,
    pub last_day: i64,
}

/// Why no agenda could be made.
#[derive(Debug, thiserror::Error)]
pub enum AgendaError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error("listing the calendar's events took too long")]
    Interrupted,
}

/// The agenda of feed `bytes` (a hosted calendar's render) for `request`.
pub fn agenda(
    bytes: &[u8],
    request: &AgendaRequest,
    limits: &Limits,
    stop: Option<&Interrupt>,
) -> Result<Agenda, AgendaError> {
    let (document, _) = parse(bytes, limits)?;
    let (zone, tz) = calendar_zone(&document);
    let until = request.now + i64::from(request.days.min(MAX_AGENDA_DAYS)) * 86_400;
    let today = local_days(&tz, request.now);
    let reader = Reader {
        tz: &tz,
        now: request.now,
        until,
        today,
        last_day: local_days(&tz, until),
    };
    // Occurrences moved or changed on their own replace the series' own at that moment.
    let mut moved: HashSet<(String, i64)> = HashSet::new();
    for event in document.events() {
        if let (Some(uid), Some(rid)) = (event.get("UID"), dated(&event, "RECURRENCE-ID")) {
            moved.insert((uid.into_owned(), reader.instant(&rid)));
        }
    }
    let mut events = Vec::new();
    for event in document.events() {
        if stop.is_some_and(Interrupt::is_stopped) {
            return Err(AgendaError::Interrupted);
        }
        reader.read(&event, &moved, &mut events);
    }
    events.sort_by(|a, b| {
        reader
            .sort_key(a)
            .cmp(&reader.sort_key(b))
            .then_with(|| a.summary.cmp(&b.summary))
    });
    let more = events.len() > request.max_events;
    events.truncate(request.max_events);
    Ok(Agenda {
        zone,
        tz: tz.clone(),
        events,
        more,
        first_day: today,
        last_day: reader.last_day,
    })
}

/// The feed's X-WR-TIMEZONE, else the first TZID an event starts in, else UTC.
fn calendar_zone(document: &Document) -> (String, TimeZone) {
    let named = document
        .calendar_properties()
        .into_iter()
        .find(|(name, _)| name == "X-WR-TIMEZONE")
        .and_then(|(_, value)| known_zone(value.trim()));
    let named = named.or_else(|| {
        document
            .events()
            .filter_map(|e| start_tzid(&e))
            .find_map(|z| known_zone(&z))
    });
    named
        .and_then(|name| TimeZone::get(&name).ok().map(|tz| (name, tz)))
        .unwrap_or_else(|| ("UTC".to_owned(), TimeZone::UTC))
}

/// A DATE or DATE-TIME property of `event` with its TZID.
struct Dated {
    at: DateTime,
    zone: Option<TimeZone>,
}

fn dated(event: &EventView<'_>, name: &str) -> Option<Dated> {
    let property = event.component().properties().find(|p| p.name == name)?;
    let at = parse_date_time(&property.value)?;
    let zone = property
        .params
        .iter()
        .find(|p| p.name == "TZID")
        .and_then(|p| p.values.first())
        .and_then(|z| known_zone(z))
        .and_then(|z| TimeZone::get(&z).ok());
    Some(Dated { at, zone })
}

fn start_tzid(event: &EventView<'_>) -> Option<String> {
    let property = event
        .component()
        .properties()
        .find(|p| p.name == "DTSTART")?;
    let param = property.params.iter().find(|p| p.name == "TZID")?;
    param.values.first().cloned()
}

/// The day (since 1970-01-01) instant `at` falls on in `tz`.
fn local_days(tz: &TimeZone, at: i64) -> i64 {
    let Ok(ts) = Timestamp::from_second(at) else {
        return at.div_euclid(86_400);
    };
    let civil = tz.to_datetime(ts);
    days_from_civil(
        i64::from(civil.year()),
        u32::try_from(civil.month()).unwrap_or(1),
        u32::try_from(civil.day()).unwrap_or(1),
    )
}

/// Wall-clock seconds (read as UTC) in `tz` as an instant.
fn wall_to_instant(tz: &TimeZone, wall: i64) -> i64 {
    let Ok(ts) = Timestamp::from_second(wall) else {
        return wall;
    };
    let civil = TimeZone::UTC.to_datetime(ts);
    tz.to_timestamp(civil).map_or(wall, |t| t.as_second())
}

/// An instant as wall-clock seconds (read as UTC) in `tz`.
fn instant_to_wall(tz: &TimeZone, at: i64) -> i64 {
    let Ok(ts) = Timestamp::from_second(at) else {
        return at;
    };
    let civil = tz.to_datetime(ts);
    TimeZone::UTC
        .to_timestamp(civil)
        .map_or(at, |t| t.as_second())
}

struct Reader<'a> {
    tz: &'a TimeZone,
    now: i64,
    until: i64,
    today: i64,
    last_day: i64,
}

impl Reader<'_> {
    /// The zone a date-time is read in: its TZID, UTC for `Z`, else the calendar's (floating).
    fn zone_of(&self, dated: &Dated) -> TimeZone {
        match (&dated.zone, dated.at.utc) {
            (_, true) => TimeZone::UTC,
            (Some(zone), false) => zone.clone(),
            (None, false) => self.tz.clone(),
        }
    }

    /// A DATE-TIME as an instant (a DATE: its day's start in the calendar's zone).
    fn instant(&self, dated: &Dated) -> i64 {
        wall_to_instant(&self.zone_of(dated), dated.at.seconds())
    }

    fn sort_key(&self, event: &AgendaEvent) -> (i64, u8) {
        match event.when {
            When::AllDay { start, .. } => (wall_to_instant(self.tz, start * 86_400), 0),
            When::Timed { start, .. } => (start, 1),
        }
    }

    /// Adds `event`'s occurrences within the span to `out`.
    fn read(
        &self,
        event: &EventView<'_>,
        moved: &HashSet<(String, i64)>,
        out: &mut Vec<AgendaEvent>,
    ) {
        let Some(start) = dated(event, "DTSTART") else {
            return;
        };
        if event
            .get("STATUS")
            .is_some_and(|s| s.trim().eq_ignore_ascii_case("CANCELLED"))
        {
            return;
        }
        let end = dated(event, "DTEND").map(|d| d.at);
        let duration = event.get("DURATION").and_then(|d| parse_duration(&d));
        let length = event_length(&start.at, end.as_ref(), duration);
        let uid = event.get("UID").map(|u| u.into_owned()).unwrap_or_default();
        let text = |name: &str| {
            event
                .get(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let made = |when: When| AgendaEvent {
            uid: uid.clone(),
            summary: text("SUMMARY").unwrap_or_default(),
            location: text("LOCATION"),
            description: text("DESCRIPTION"),
            when,
        };
        let rrule = event.get("RRULE").map(|r| r.into_owned());
        let rdates = dates_of(event, "RDATE");
        let is_series =
            event.get("RECURRENCE-ID").is_none() && (rrule.is_some() || !rdates.is_empty());
        let zone = self.zone_of(&start);
        let starts = if is_series {
            let series = Series {
                start: start.at,
                rrule,
                rdates,
                exdates: dates_of(event, "EXDATE"),
                zone: start_tzid(event),
                length,
            };
            // In the series' own wall clock, with a day's room each side for the zones.
            let from = instant_to_wall(&zone, self.now) - length.max(0) - 86_400;
            let until = instant_to_wall(&zone, self.until) + 86_400;
            match series.expand_between(from, until, MAX_PER_SERIES) {
                Some(starts) => starts,
                None => vec![start.at],
            }
        } else {
            vec![start.at]
        };
        for at in starts {
            let when = if at.time.is_none() {
                let days = (length + 86_399) / 86_400;
                When::AllDay {
                    start: at.days,
                    end: at.days + days.max(1),
                }
            } else {
                let begin = wall_to_instant(&zone, at.seconds());
                let finish = wall_to_instant(&zone, at.seconds() + length);
                When::Timed {
                    start: begin,
                    end: finish.max(begin),
                }
            };
            if is_series && moved.contains(&(uid.clone(), self.moment(&when))) {
                continue;
            }
            if self.shown(&when) {
                out.push(made(when));
            }
        }
    }

    /// The instant an occurrence starts at, as a RECURRENCE-ID names it.
    fn moment(&self, when: &When) -> i64 {
        match *when {
            When::Timed { start, .. } => start,
            When::AllDay { start, .. } => wall_to_instant(self.tz, start * 86_400),
        }
    }

    /// Not over yet, and starting within the span.
    fn shown(&self, when: &When) -> bool {
        match *when {
            When::Timed { start, end } => {
                let over = if end > start {
                    end <= self.now
                } else {
                    start < self.now
                };
                !over && start <= self.until
            }
            When::AllDay { start, end } => end > self.today && start <= self.last_day,
        }
    }
}

/// Every date of `name` (EXDATE, RDATE: repeated, comma-separated) in `event`.
fn dates_of(event: &EventView<'_>, name: &str) -> Vec<DateTime> {
    event
        .component()
        .properties()
        .filter(|p| p.name == name)
        .flat_map(|p| {
            p.value
                .split(',')
                .filter_map(parse_date_time)
                .collect::<Vec<_>>()
        })
        .collect()
}

impl Agenda {
    /// The day (since 1970-01-01) an event is listed under: the day it starts in the
    /// calendar's zone, or today for one that began earlier and is not over.
    pub fn day_of(&self, event: &AgendaEvent) -> i64 {
        let day = match event.when {
            When::AllDay { start, .. } => start,
            When::Timed { start, .. } => local_days(&self.tz, start),
        };
        day.max(self.first_day)
    }

    /// An instant in the calendar's zone as RFC 3339 with its offset (`2026-12-01T09:00:00+01:00`).
    pub fn rfc3339(&self, at: i64) -> String {
        let Ok(ts) = Timestamp::from_second(at) else {
            return String::new();
        };
        let c = self.tz.to_datetime(ts);
        let offset = self.tz.to_offset(ts).seconds();
        let sign = if offset < 0 { '-' } else { '+' };
        let offset = offset.unsigned_abs();
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{sign}{:02}:{:02}",
            c.year(),
            c.month(),
            c.day(),
            c.hour(),
            c.minute(),
            c.second(),
            offset / 3600,
            offset / 60 % 60
        )
    }

    /// An instant's time of day in the calendar's zone (`09:05`).
    pub fn clock(&self, at: i64) -> String {
        let Ok(ts) = Timestamp::from_second(at) else {
            return String::new();
        };
        let c = self.tz.to_datetime(ts);
        format!("{:02}:{:02}", c.hour(), c.minute())
    }
}

/// A day number as `YYYY-MM-DD`.
pub fn iso_date(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// A day number's weekday, 0 = Monday … 6 = Sunday, its month (1 to 12) and day of the month.
pub fn date_parts(days: i64) -> (u32, u32, u32) {
    let (_, m, d) = civil_from_days(days);
    let weekday = u32::try_from((days + 3).rem_euclid(7)).unwrap_or(0);
    (weekday, m, d)
}

#[cfg(test)]
mod tests;
