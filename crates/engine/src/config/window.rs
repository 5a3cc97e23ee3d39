//! Dates for filters and the window: DATE / DATE-TIME values as written, DURATIONs, when an
//! event ends, and the conservative "can any occurrence of this series fall in the window"
//! bound of an RRULE.

/// A DATE or DATE-TIME value as written: its wall-clock time in its own zone (UTC for `Z`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct DateTime {
    /// Days since 1970-01-01 of the written date.
    pub days: i64,
    /// Seconds after midnight, `None` for a DATE.
    pub time: Option<u32>,
    pub utc: bool,
}

impl DateTime {
    /// Seconds since the epoch of the wall-clock time read as UTC.
    pub fn seconds(&self) -> i64 {
        self.days * 86_400 + i64::from(self.time.unwrap_or(0))
    }

    /// 0 = Monday … 6 = Sunday.
    pub fn weekday(&self) -> u32 {
        // 1970-01-01 was a Thursday.
        (self.days + 3).rem_euclid(7) as u32
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of a day number since 1970-01-01 (the inverse of
/// [`days_from_civil`]).
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

impl DateTime {
    /// Written back as `YYYYMMDD` or `YYYYMMDDTHHMMSS[Z]`.
    pub(crate) fn format(&self) -> String {
        let (y, m, d) = civil_from_days(self.days);
        match self.time {
            None => format!("{y:04}{m:02}{d:02}"),
            Some(t) => format!(
                "{y:04}{m:02}{d:02}T{:02}{:02}{:02}{}",
                t / 3600,
                t / 60 % 60,
                t % 60,
                if self.utc { "Z" } else { "" }
            ),
        }
    }

    /// Moved by `minutes` of wall-clock time; a DATE by the whole days in them.
    pub(crate) fn shifted(&self, minutes: i64) -> DateTime {
        match self.time {
            None => DateTime {
                days: self.days + minutes / 1440,
                ..*self
            },
            Some(t) => {
                let seconds = self.days * 86_400 + i64::from(t) + minutes * 60;
                DateTime {
                    days: seconds.div_euclid(86_400),
                    time: Some(seconds.rem_euclid(86_400) as u32),
                    utc: self.utc,
                }
            }
        }
    }
}

/// `YYYYMMDD` or `YYYYMMDDTHHMMSS[Z]` (any case, surrounding blanks ignored).
pub(crate) fn parse_date_time(value: &str) -> Option<DateTime> {
    let b = value.trim().as_bytes();
    if b.len() < 8 || !b[..8].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let num =
        |r: std::ops::Range<usize>| b[r].iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
    let (y, m, d) = (num(0..4), num(4..6), num(6..8));
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let days = days_from_civil(i64::from(y), m, d);
    if b.len() == 8 {
        return Some(DateTime {
            days,
            time: None,
            utc: false,
        });
    }
    let utc = b.len() == 16 && matches!(b[15], b'Z' | b'z');
    if (b.len() != 15 && !utc) || !matches!(b[8], b'T' | b't') {
        return None;
    }
    if !b[9..15].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let (h, mi, s) = (num(9..11), num(11..13), num(13..15));
    if h > 23 || mi > 59 || s > 60 {
        return None;
    }
    Some(DateTime {
        days,
        time: Some(h * 3600 + mi * 60 + s.min(59)),
        utc,
    })
}

/// An RFC 5545 DURATION (`P1W`, `-PT15M`, `P1DT2H30M`) in seconds.
pub(crate) fn parse_duration(value: &str) -> Option<i64> {
    let v = value.trim().to_ascii_uppercase();
    let (sign, rest) = match v.strip_prefix('-') {
        Some(r) => (-1, r),
        None => (1, v.strip_prefix('+').unwrap_or(&v)),
    };
    let rest = rest.strip_prefix('P')?;
    let mut total: i64 = 0;
    let mut number: Option<i64> = None;
    let mut in_time = false;
    let mut any = false;
    let mut time_units = 0;
    for c in rest.chars() {
        match c {
            '0'..='9' => {
                let d = i64::from(c as u8 - b'0');
                number = Some(number.unwrap_or(0).checked_mul(10)?.checked_add(d)?);
            }
            'T' if number.is_none() && !in_time => in_time = true,
            'W' | 'D' if !in_time => {
                let unit = if c == 'W' { 604_800 } else { 86_400 };
                total = total.checked_add(number.take()?.checked_mul(unit)?)?;
                any = true;
            }
            'H' | 'M' | 'S' if in_time => {
                let unit = match c {
                    'H' => 3600,
                    'M' => 60,
                    _ => 1,
                };
                total = total.checked_add(number.take()?.checked_mul(unit)?)?;
                any = true;
                time_units += 1;
            }
            _ => return None,
        }
    }
    if number.is_some() || !any || (in_time && time_units == 0) {
        return None;
    }
    Some(sign * total)
}

/// How long an event lasts, in seconds after its start: RFC 5545 §3.6.1, stated once for every
/// rule that reads an event's end (the duration filter, the window). DTEND when the event has
/// one, else DURATION, else the RFC's defaults: a DATE start lasts one day, a DATE-TIME start
/// ends when it starts. An event with both (the RFC allows one or the other) is read by its
/// DTEND, and an end before the start is no length at all.
pub(crate) fn event_length(start: &DateTime, end: Option<&DateTime>, duration: Option<i64>) -> i64 {
    if let Some(end) = end {
        return (end.seconds() - start.seconds()).max(0);
    }
    if let Some(d) = duration {
        return d.max(0);
    }
    if start.time.is_none() {
        86_400
    } else {
        0
    }
}

/// What an RRULE says about how late its occurrences can start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SeriesEnd {
    /// No end (or none this module can bound): it may reach any window after its start.
    Open,
    /// No occurrence starts after this (seconds, wall clock read as UTC).
    By(i64),
}

/// The latest start any occurrence of `rrule` (starting at `start`) can have, conservatively:
/// from UNTIL, or from COUNT times the longest gap the rule allows between occurrences when that
/// gap can be bounded (plain rules, WEEKLY by weekday, MONTHLY by a day that every month has,
/// YEARLY by month); otherwise open.
pub(crate) fn series_end(rrule: &str, start: &DateTime) -> SeriesEnd {
    let mut freq = None;
    let mut interval: i64 = 1;
    let mut count: Option<i64> = None;
    let mut until: Option<DateTime> = None;
    let mut by: Vec<(String, String)> = Vec::new();
    for part in rrule.split(';') {
        let Some((k, v)) = part.split_once('=') else {
            continue;
        };
        let k = k.trim().to_ascii_uppercase();
        let v = v.trim().to_ascii_uppercase();
        match k.as_str() {
            "FREQ" => freq = Some(v),
            "INTERVAL" => interval = v.parse::<i64>().ok().filter(|n| *n > 0).unwrap_or(1),
            "COUNT" => count = v.parse::<i64>().ok(),
            "UNTIL" => until = parse_date_time(&v),
            "WKST" => {}
            _ => by.push((k, v)),
        }
    }
    if let Some(u) = until {
        // A DATE UNTIL includes its whole day.
        let end = if u.time.is_none() {
            u.seconds() + 86_400
        } else {
            u.seconds()
        };
        return SeriesEnd::By(end);
    }
    let (Some(freq), Some(count)) = (freq, count) else {
        return SeriesEnd::Open;
    };
    let period: i64 = match freq.as_str() {
        "SECONDLY" => 1,
        "MINUTELY" => 60,
        "HOURLY" => 3600,
        "DAILY" => 86_400,
        "WEEKLY" => 7 * 86_400,
        "MONTHLY" => 31 * 86_400,
        "YEARLY" => 366 * 86_400,
        _ => return SeriesEnd::Open,
    };
    let bounded = by.iter().all(|(k, v)| match (freq.as_str(), k.as_str()) {
        // Every week has every weekday.
        ("WEEKLY", "BYDAY") => true,
        // Every month has days 1–28 and at least four of each weekday.
        ("MONTHLY", "BYMONTHDAY") => v.split(',').all(|d| {
            d.trim()
                .parse::<i32>()
                .is_ok_and(|n| n != 0 && n.abs() <= 28)
        }),
        ("MONTHLY", "BYDAY") => v.split(',').all(|d| {
            let ord = d.trim().trim_end_matches(char::is_alphabetic);
            ord.is_empty() || ord.parse::<i32>().is_ok_and(|n| n != 0 && n.abs() <= 4)
        }),
        // Every year has every month; what follows inside the month is bounded as above.
        ("YEARLY", "BYMONTH") => true,
        _ => false,
    });
    if !bounded {
        return SeriesEnd::Open;
    }
    // One period of slack for where the first occurrence falls within its period.
    let gap = period.saturating_mul(interval);
    let span = gap.saturating_mul(count.max(1)).saturating_add(period);
    SeriesEnd::By(start.seconds().saturating_add(span))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(s: &str) -> DateTime {
        parse_date_time(s).expect("a date")
    }

    #[test]
    fn civil_days_and_weekdays_agree_with_the_calendar() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        // 2024-01-05 was a Friday.
        assert_eq!(dt("20240105").weekday(), 4);
        assert_eq!(dt("20240107T235959Z").weekday(), 6);
        assert_eq!(dt("19691231").weekday(), 2);
    }

    #[test]
    fn date_values_are_read_strictly() {
        assert_eq!(dt("20240105T103000Z").time, Some(37_800));
        assert!(dt("20240105T103000Z").utc);
        assert!(!dt("20240105T103000").utc);
        assert_eq!(dt("20240105").time, None);
        for bad in ["2024010", "20241305", "20240105T25", "20240105X103000", "x"] {
            assert_eq!(parse_date_time(bad), None, "{bad}");
        }
    }

    #[test]
    fn durations_read_weeks_days_and_times() {
        assert_eq!(parse_duration("PT15M"), Some(900));
        assert_eq!(parse_duration("-PT15M"), Some(-900));
        assert_eq!(parse_duration("P1W"), Some(604_800));
        assert_eq!(parse_duration("P1DT2H3M4S"), Some(93_784));
        for bad in ["", "P", "PT", "P1H", "PT1D", "15M", "P1DT"] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
    }

    #[test]
    fn an_event_ends_at_dtend_else_after_its_duration_else_by_the_rfc_defaults() {
        let day = dt("20240105");
        let timed = dt("20240105T100000Z");
        // RFC 5545 §3.6.1: a DATE start without DTEND or DURATION lasts one day...
        assert_eq!(event_length(&day, None, None), 86_400);
        // ...and a DATE-TIME start without them ends when it starts.
        assert_eq!(event_length(&timed, None, None), 0);
        // DTEND is exclusive: an all-day event to the 7th lasts two days.
        assert_eq!(event_length(&day, Some(&dt("20240107")), None), 2 * 86_400);
        assert_eq!(
            event_length(&timed, Some(&dt("20240105T113000Z")), None),
            5_400
        );
        assert_eq!(event_length(&timed, None, parse_duration("PT1H")), 3_600);
        assert_eq!(event_length(&day, None, parse_duration("P2D")), 2 * 86_400);
        assert_eq!(event_length(&day, None, parse_duration("PT0S")), 0);
    }

    #[test]
    fn dtend_wins_over_duration_and_an_end_before_the_start_is_no_length() {
        let timed = dt("20240105T100000Z");
        let end = dt("20240105T103000Z");
        assert_eq!(
            event_length(&timed, Some(&end), parse_duration("PT3H")),
            1_800
        );
        assert_eq!(event_length(&timed, Some(&dt("20240104T100000Z")), None), 0);
        assert_eq!(event_length(&timed, None, parse_duration("-PT15M")), 0);
    }

    #[test]
    fn series_end_comes_from_until_or_a_bounded_count() {
        let start = dt("20200101T090000Z");
        assert_eq!(
            series_end("FREQ=DAILY;UNTIL=20200110T090000Z", &start),
            SeriesEnd::By(dt("20200110T090000Z").seconds())
        );
        assert_eq!(series_end("FREQ=WEEKLY", &start), SeriesEnd::Open);
        let SeriesEnd::By(end) = series_end("FREQ=WEEKLY;BYDAY=MO,FR;COUNT=10", &start) else {
            panic!("bounded");
        };
        assert!(end >= start.seconds() + 10 * 7 * 86_400);
        assert_eq!(
            series_end("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;COUNT=3", &start),
            SeriesEnd::Open
        );
        assert_eq!(
            series_end("FREQ=MONTHLY;BYDAY=5FR;COUNT=3", &start),
            SeriesEnd::Open
        );
        assert!(matches!(
            series_end("FREQ=MONTHLY;BYDAY=-1FR;COUNT=3", &start),
            SeriesEnd::By(_)
        ));
    }
}
