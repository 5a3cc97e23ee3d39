//! The occurrences of a recurring event, for filters that judge each occurrence and for the
//! preview's count: DTSTART, the RRULE (expanded by the `rrule` library) and the RDATEs, less
//! the EXDATEs, in the wall-clock time of DTSTART read as UTC (a daily 09:00 stays 09:00 across
//! daylight-saving changes, as RFC 5545 has it). Also the RRULE that ends a series earlier.

use jiff::tz::TimeZone;
use jiff::Timestamp;
use rrule::{RRule, Tz, Unvalidated};

use super::window::{civil_from_days, days_from_civil, parse_date_time, DateTime};
use crate::tz::known_zone;

/// At most this many occurrences of one series are looked at.
pub(crate) const MAX_EXPANDED: usize = 5000;

/// At most this many occurrences are looked at in one feed (a pass over it): a series met
/// after that is judged whole, as without `occurrences: "each"`.
pub(crate) const MAX_EXPANDED_PER_FEED: usize = 50_000;

/// A series without end, judged without a window's end, can never be judged to its last
/// occurrence: this many are enough to tell whether the rules drop any.
pub(crate) const ENDLESS_SAMPLE: usize = 400;

/// What a series' master says of its occurrences.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Series {
    pub start: DateTime,
    /// Its RRULE value, when it has one.
    pub rrule: Option<String>,
    pub rdates: Vec<DateTime>,
    pub exdates: Vec<DateTime>,
    /// DTSTART's TZID.
    pub zone: Option<String>,
    /// How long each occurrence lasts, in seconds.
    pub length: i64,
}

/// The occurrences found, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Expansion {
    pub starts: Vec<DateTime>,
    /// Whether the series has occurrences after the last one found (past the limit asked for,
    /// or past [`MAX_EXPANDED`]).
    pub more: bool,
    /// Whether the list stopped at [`MAX_EXPANDED`] before the limit (or the series' end).
    pub capped: bool,
}

impl Series {
    /// Whether it has occurrences besides DTSTART's.
    pub(crate) fn recurs(&self) -> bool {
        self.rrule.is_some() || !self.rdates.is_empty()
    }

    /// `at` (an EXDATE, RECURRENCE-ID, RDATE or UNTIL) in the wall-clock time of DTSTART: a UTC
    /// time is moved into DTSTART's zone when it has one this engine knows.
    pub(crate) fn wall(&self, at: DateTime) -> DateTime {
        if !at.utc || self.start.utc || self.start.time.is_none() {
            return at;
        }
        match self.zone.as_deref() {
            Some(zone) => in_zone(at, zone).unwrap_or(at),
            None => DateTime { utc: false, ..at },
        }
    }

    /// Whether its RRULE has neither COUNT nor UNTIL.
    pub(crate) fn endless(&self) -> bool {
        self.rrule.as_deref().is_some_and(|r| {
            !r.split(';').any(|p| {
                let key = p.split('=').next().unwrap_or("").trim();
                key.eq_ignore_ascii_case("COUNT") || key.eq_ignore_ascii_case("UNTIL")
            })
        })
    }

    /// The occurrences that start no later than `limit` (seconds, wall clock read as UTC; `None`:
    /// to the end of the series), at most `cap` (and [`MAX_EXPANDED`]). `None` when the RRULE
    /// cannot be read: the series is then judged whole, by its first occurrence.
    pub(crate) fn expand(&self, limit: Option<i64>, cap: usize) -> Option<Expansion> {
        let cap = cap.clamp(1, MAX_EXPANDED);
        let start = self.start.seconds();
        let mut found: Vec<i64> = vec![start];
        let mut more = false;
        let mut capped = false;
        if let Some(rrule) = &self.rrule {
            let (rule, until) = self.read_rrule(rrule)?;
            let bound = match (limit, until) {
                (Some(l), Some(u)) => Some(l.min(u)),
                (l, u) => l.or(u),
            };
            let at =
                |s: i64| chrono::DateTime::from_timestamp(s, 0).map(|d| d.with_timezone(&Tz::UTC));
            let set = rule.build(at(start)?).ok()?;
            let set = match bound {
                Some(b) => set.before(at(b)?),
                None => set,
            };
            let result = set.all(u16::try_from(cap).unwrap_or(u16::MAX));
            capped = result.limited;
            more = capped;
            found.extend(result.dates.iter().map(chrono::DateTime::timestamp));
            // Cut short by the limit (not by UNTIL): whether the series goes on after it.
            if let (Some(l), false) = (limit, more) {
                if until.is_none_or(|u| u > l) {
                    let after = rule_after(rrule, self, l)?;
                    more = after;
                }
            }
        }
        for rdate in &self.rdates {
            let s = self.wall(*rdate).seconds();
            if limit.is_none_or(|l| s <= l) {
                found.push(s);
            } else {
                more = true;
            }
        }
        let excluded: Vec<i64> = self.exdates.iter().map(|e| self.excluded_at(*e)).collect();
        found.sort_unstable();
        found.dedup();
        found.retain(|s| !excluded.contains(s));
        if found.len() > cap {
            found.truncate(cap);
            more = true;
            capped = true;
        }
        let starts = found.into_iter().map(|s| self.at(s)).collect();
        Some(Expansion {
            starts,
            more,
            capped,
        })
    }

    /// The occurrences starting from `from` to `until` (wall seconds, both included), at most
    /// `cap` (and [`MAX_EXPANDED`]), for a list of what comes next (the agenda): the rule is
    /// followed from `from` on, so a long series begun years ago costs no more than a new one.
    /// `None` when the RRULE cannot be read.
    pub(crate) fn expand_between(
        &self,
        from: i64,
        until: i64,
        cap: usize,
    ) -> Option<Vec<DateTime>> {
        let cap = cap.clamp(1, MAX_EXPANDED);
        let start = self.start.seconds();
        let mut found: Vec<i64> = Vec::new();
        if (from..=until).contains(&start) {
            found.push(start);
        }
        if let Some(rrule) = &self.rrule {
            let (rule, rule_until) = self.read_rrule(rrule)?;
            let last = rule_until.map_or(until, |u| u.min(until));
            let at =
                |s: i64| chrono::DateTime::from_timestamp(s, 0).map(|d| d.with_timezone(&Tz::UTC));
            if last >= from.max(start) {
                let set = rule
                    .build(at(start)?)
                    .ok()?
                    .after(at(from.max(start) - 1)?)
                    .before(at(last + 1)?);
                let result = set.all(u16::try_from(cap).unwrap_or(u16::MAX));
                found.extend(
                    result
                        .dates
                        .iter()
                        .map(chrono::DateTime::timestamp)
                        .filter(|s| (from..=last).contains(s)),
                );
            }
        }
        for rdate in &self.rdates {
            let s = self.wall(*rdate).seconds();
            if (from..=until).contains(&s) {
                found.push(s);
            }
        }
        let excluded: Vec<i64> = self.exdates.iter().map(|e| self.excluded_at(*e)).collect();
        found.sort_unstable();
        found.dedup();
        found.retain(|s| !excluded.contains(s));
        found.truncate(cap);
        Some(found.into_iter().map(|s| self.at(s)).collect())
    }

    /// The seconds of an EXDATE as occurrences are compared (a DATE removes a DATE series' day).
    fn excluded_at(&self, exdate: DateTime) -> i64 {
        let wall = self.wall(exdate);
        match (self.start.time, wall.time) {
            // A DATE EXDATE of a timed series: the occurrence on that day at DTSTART's time.
            (Some(t), None) => wall.days * 86_400 + i64::from(t),
            _ => wall.seconds(),
        }
    }

    /// An occurrence starting at `seconds`, written like DTSTART.
    pub(crate) fn at(&self, seconds: i64) -> DateTime {
        DateTime {
            days: seconds.div_euclid(86_400),
            time: self
                .start
                .time
                .map(|_| u32::try_from(seconds.rem_euclid(86_400)).unwrap_or(0)),
            utc: self.start.utc,
        }
    }

    /// The RRULE without UNTIL (which the expansion applies itself, in wall-clock time) and
    /// UNTIL in wall-clock seconds.
    fn read_rrule(&self, rrule: &str) -> Option<(RRule<Unvalidated>, Option<i64>)> {
        let mut until = None;
        let mut parts = Vec::new();
        for part in rrule.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            match part.split_once('=') {
                Some((k, v)) if k.trim().eq_ignore_ascii_case("UNTIL") => {
                    let u = self.wall(parse_date_time(v)?);
                    // A DATE UNTIL of a timed series includes its whole day.
                    until = Some(match (u.time, self.start.time) {
                        (None, Some(_)) => u.seconds() + 86_399,
                        _ => u.seconds(),
                    });
                }
                _ => parts.push(part),
            }
        }
        let rule = parts.join(";").parse::<RRule<Unvalidated>>().ok()?;
        Some((rule, until))
    }

    /// The RRULE value of this series ended at its occurrence `last`: COUNT and UNTIL give way to
    /// an UNTIL at `last`, written as RFC 5545 asks (a DATE for a DATE series, UTC for a zoned
    /// one). `None` when `last` cannot be written in UTC (a zone this engine does not know).
    pub(crate) fn ended_at(&self, last: DateTime) -> Option<String> {
        let rrule = self.rrule.as_deref()?;
        let until = match (self.start.time, self.start.utc, &self.zone) {
            (None, _, _) | (Some(_), true, _) | (Some(_), false, None) => last.format(),
            (Some(_), false, Some(zone)) => {
                let tz = TimeZone::get(&known_zone(zone)?).ok()?;
                let (y, m, d) = civil_from_days(last.days);
                let t = last.time.unwrap_or(0);
                let civil = jiff::civil::DateTime::new(
                    i16::try_from(y).ok()?,
                    i8::try_from(m).ok()?,
                    i8::try_from(d).ok()?,
                    i8::try_from(t / 3600).ok()?,
                    i8::try_from(t / 60 % 60).ok()?,
                    i8::try_from(t % 60).ok()?,
                    0,
                )
                .ok()?;
                let utc = tz.to_timestamp(civil).ok()?.as_second();
                DateTime {
                    days: utc.div_euclid(86_400),
                    time: u32::try_from(utc.rem_euclid(86_400)).ok(),
                    utc: true,
                }
                .format()
            }
        };
        let mut parts: Vec<&str> = rrule
            .split(';')
            .map(str::trim)
            .filter(|p| {
                let key = p.split('=').next().unwrap_or("").trim();
                !p.is_empty()
                    && !key.eq_ignore_ascii_case("UNTIL")
                    && !key.eq_ignore_ascii_case("COUNT")
            })
            .collect();
        let until = format!("UNTIL={until}");
        parts.push(&until);
        Some(parts.join(";"))
    }
}

/// A UTC time as the wall clock in `zone` shows it (`None`: a zone this engine does not know).
pub(crate) fn in_zone(at: DateTime, zone: &str) -> Option<DateTime> {
    if !at.utc || at.time.is_none() {
        return Some(at);
    }
    let tz = TimeZone::get(&known_zone(zone)?).ok()?;
    let civil = tz.to_datetime(Timestamp::from_second(at.seconds()).ok()?);
    let days = days_from_civil(
        i64::from(civil.year()),
        u32::try_from(civil.month()).ok()?,
        u32::try_from(civil.day()).ok()?,
    );
    let time = u32::try_from(
        i32::from(civil.hour()) * 3600 + i32::from(civil.minute()) * 60 + i32::from(civil.second()),
    )
    .ok()?;
    Some(DateTime {
        days,
        time: Some(time),
        utc: false,
    })
}

/// Whether the RRULE of `series` has an occurrence after `limit` (wall seconds).
fn rule_after(rrule: &str, series: &Series, limit: i64) -> Option<bool> {
    let (rule, until) = series.read_rrule(rrule)?;
    let at = |s: i64| chrono::DateTime::from_timestamp(s, 0).map(|d| d.with_timezone(&Tz::UTC));
    let set = rule
        .build(at(series.start.seconds())?)
        .ok()?
        .after(at(limit)?);
    let next = set.all(1).dates.first().map(chrono::DateTime::timestamp);
    Some(next.is_some_and(|n| n > limit && until.is_none_or(|u| n <= u)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(s: &str) -> DateTime {
        parse_date_time(s).expect("date")
    }

    fn series(start: &str, rrule: &str) -> Series {
        Series {
            start: dt(start),
            rrule: Some(rrule.to_owned()),
            length: 3600,
            ..Series::default()
        }
    }

    fn formatted(e: &Expansion) -> Vec<String> {
        e.starts.iter().map(DateTime::format).collect()
    }

    #[test]
    fn a_counted_daily_series_has_its_occurrences_and_no_more() {
        let e = series("20240101T090000", "FREQ=DAILY;COUNT=3")
            .expand(None, MAX_EXPANDED)
            .expect("expands");
        assert_eq!(
            formatted(&e),
            ["20240101T090000", "20240102T090000", "20240103T090000"]
        );
        assert!(!e.more);
    }

    #[test]
    fn exdates_rdates_and_a_limit_shape_the_list() {
        let mut s = series("20240101T090000", "FREQ=DAILY");
        s.exdates = vec![dt("20240102T090000")];
        s.rdates = vec![dt("20240101T180000")];
        let e = s
            .expand(Some(dt("20240104T000000").seconds()), MAX_EXPANDED)
            .expect("expands");
        assert_eq!(
            formatted(&e),
            ["20240101T090000", "20240101T180000", "20240103T090000"]
        );
        assert!(e.more, "a series without end goes on after the limit");
    }

    #[test]
    fn a_utc_until_is_read_in_the_zone_of_dtstart() {
        // 09:00 in Berlin is 08:00 UTC in winter: UNTIL at 08:00Z includes the 10th.
        let mut s = series("20240101T090000", "FREQ=DAILY;UNTIL=20240110T080000Z");
        s.zone = Some("Europe/Berlin".to_owned());
        let e = s.expand(None, MAX_EXPANDED).expect("expands");
        assert_eq!(e.starts.len(), 10);
        assert_eq!(e.starts[9].format(), "20240110T090000");
        assert!(!e.more);
    }

    #[test]
    fn an_endless_series_stops_at_the_cap() {
        let e = series("20240101T090000", "FREQ=HOURLY")
            .expand(None, MAX_EXPANDED)
            .expect("expands");
        assert_eq!(e.starts.len(), MAX_EXPANDED);
        assert!(e.more && e.capped);
    }

    #[test]
    fn a_rule_that_cannot_be_read_is_none() {
        assert!(series("20240101T090000", "FREQ=SOMETIMES")
            .expand(None, MAX_EXPANDED)
            .is_none());
    }

    #[test]
    fn a_date_series_stays_in_dates() {
        let mut s = series("20240101", "FREQ=WEEKLY;BYDAY=MO,WE;COUNT=4");
        s.exdates = vec![dt("20240103")];
        let e = s.expand(None, MAX_EXPANDED).expect("expands");
        assert_eq!(formatted(&e), ["20240101", "20240108", "20240110"]);
    }

    #[test]
    fn ending_a_series_writes_until_in_its_form() {
        let mut s = series("20240101T090000", "FREQ=DAILY;COUNT=30;BYHOUR=9");
        s.zone = Some("Europe/Berlin".to_owned());
        assert_eq!(
            s.ended_at(dt("20240105T090000")).as_deref(),
            Some("FREQ=DAILY;BYHOUR=9;UNTIL=20240105T080000Z")
        );
        let d = series("20240101", "FREQ=DAILY;UNTIL=20250101");
        assert_eq!(
            d.ended_at(dt("20240105")).as_deref(),
            Some("FREQ=DAILY;UNTIL=20240105")
        );
        let mut unknown = series("20240101T090000", "FREQ=DAILY");
        unknown.zone = Some("Somewhere/Else".to_owned());
        assert_eq!(unknown.ended_at(dt("20240105T090000")), None);
    }
}
