//! VTIMEZONE components synthesised from the tz database (the system's zoneinfo, else the copy
//! bundled in the binary): one observance per past change, RRULEs for the rule in force now.

use jiff::civil::DateTime;
use jiff::tz::{Offset, TimeZone};
use jiff::Timestamp;

use crate::ics::{escape_text, write_folded};

/// Changes are read up to the start of this year. The tz database lists changes explicitly up
/// to 2087 at most (Morocco); past that every zone follows its current rule, so the rule found
/// at the end of the range is the one that stays.
const HORIZON_YEAR: i16 = 2100;
/// Earliest year a VTIMEZONE starts from; earlier `from_year`s are raised to it.
const MIN_YEAR: i32 = 1900;

/// One change of offset.
#[derive(Debug, Clone)]
struct Change {
    /// Local time at which it happens, in the offset before it (RFC 5545 §3.6.5 DTSTART).
    local: DateTime,
    from: i32,
    to: i32,
    name: String,
    dst: bool,
}

impl Change {
    /// What changes that repeat every year share.
    fn same_kind(&self, other: &Change) -> bool {
        self.local.month() == other.local.month()
            && self.local.weekday() == other.local.weekday()
            && self.local.time() == other.local.time()
            && self.from == other.from
            && self.to == other.to
            && self.dst == other.dst
            && self.name == other.name
    }
}

/// The VTIMEZONE for an IANA zone, valid from 1 January of `from_year` (at least 1900) on:
/// each change of offset from then until the zone's current rule as an observance of its own,
/// then the current rule as yearly RRULEs (so that recurring events stay right in any year);
/// a zone without daylight saving time gets one STANDARD. CRLF lines folded at 75 octets.
/// `None` when the tz database does not know the zone.
pub fn vtimezone(iana: &str, from_year: i32) -> Option<String> {
    let tz = TimeZone::get(iana).ok()?;
    let year = from_year.clamp(MIN_YEAR, i32::from(HORIZON_YEAR) - 1);
    let start = year_start(i16::try_from(year).ok()?)?;
    let end = year_start(HORIZON_YEAR)?;
    let changes = changes(&tz, start, end);

    let mut out = Vec::new();
    let tzid = escape_text(iana);
    write_folded(&mut out, b"BEGIN:VTIMEZONE");
    write_folded(&mut out, format!("TZID:{tzid}").as_bytes());
    // libical (Thunderbird, Evolution) looks the zone up by this name.
    write_folded(&mut out, format!("X-LIC-LOCATION:{tzid}").as_bytes());
    if changes.is_empty() {
        let info = tz.to_offset_info(start);
        let local = info.offset().to_datetime(start);
        let offset = info.offset().seconds();
        let only = Change {
            local,
            from: offset,
            to: offset,
            name: info.abbreviation().to_owned(),
            dst: false,
        };
        observance(&mut out, &only, None);
    } else {
        let (first_rule, rules) = current_rule(&changes);
        for change in &changes[..first_rule] {
            observance(&mut out, change, None);
        }
        if let Some(rules) = rules {
            for (change, rule) in changes[first_rule..].iter().zip(rules) {
                observance(&mut out, change, Some(&rule));
            }
        }
    }
    write_folded(&mut out, b"END:VTIMEZONE");
    String::from_utf8(out).ok()
}

fn year_start(year: i16) -> Option<Timestamp> {
    let dt = DateTime::new(year, 1, 1, 0, 0, 0, 0).ok()?;
    Offset::UTC.to_timestamp(dt).ok()
}

/// Every change from the one in force at `start` (if the zone had one before) to `end`.
fn changes(tz: &TimeZone, start: Timestamp, end: Timestamp) -> Vec<Change> {
    let mut out = Vec::new();
    // `preceding` is strict: one second later finds a change at `start` itself.
    let after_start = Timestamp::from_second(start.as_second().saturating_add(1)).unwrap_or(start);
    let mut from = start;
    if let Some(t) = tz.preceding(after_start).next() {
        // zic writes a "big bang" change at the beginning of time for some zones: no use here.
        if tz.to_datetime(t.timestamp()).year() >= 1000 {
            out.push(change(
                tz,
                t.timestamp(),
                t.offset(),
                t.abbreviation(),
                t.dst().is_dst(),
            ));
            from = t.timestamp();
        }
    }
    for t in tz.following(from) {
        if t.timestamp() >= end {
            break;
        }
        let c = change(
            tz,
            t.timestamp(),
            t.offset(),
            t.abbreviation(),
            t.dst().is_dst(),
        );
        // zoneinfo files built "fat" repeat the state at 2038-01-19 (the end of 32-bit time):
        // no change at all, no observance.
        let same = out
            .last()
            .is_some_and(|p: &Change| p.to == c.to && p.dst == c.dst && p.name == c.name);
        if !same {
            out.push(c);
        }
    }
    out
}

fn change(tz: &TimeZone, at: Timestamp, to: Offset, name: &str, dst: bool) -> Change {
    let before = Timestamp::from_second(at.as_second().saturating_sub(1)).unwrap_or(at);
    let from = tz.to_offset(before);
    Change {
        local: from.to_datetime(at),
        from: from.seconds(),
        to: to.seconds(),
        name: name.to_owned(),
        dst,
    }
}

/// The 7-day windows of a month that a day may be found in, as bit sets: bit `a` of `.0` for
/// days a..=a+6 counted from the start (a = 1..=22, so every month has them), bit `k` of `.1`
/// for the days -k..=-k+6 counted from the end (-1 is the last day; k = 7..=28).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Windows(u32, u32);

impl Windows {
    fn of(local: DateTime) -> Windows {
        let day = i32::from(local.day());
        let from_end = day - i32::from(local.days_in_month()) - 1;
        let mut pos = 0u32;
        for a in (day - 6).max(1)..=day.min(22) {
            pos |= 1 << a;
        }
        let mut neg = 0u32;
        for e in (from_end - 6).max(-28)..=from_end.min(-7) {
            neg |= 1 << (-e);
        }
        Windows(pos, neg)
    }

    fn and(self, other: Windows) -> Windows {
        Windows(self.0 & other.0, self.1 & other.1)
    }

    fn is_empty(self) -> bool {
        self.0 == 0 && self.1 == 0
    }

    /// The RRULE day part, preferring `nWD` (1st..4th, last, second to last) over a BYMONTHDAY
    /// window (`BYDAY=FR;BYMONTHDAY=-9,…,-3`, as for Israel's "Friday before the last Sunday").
    fn rule_days(self, weekday: &str) -> String {
        for (n, a) in [(1, 1), (2, 8), (3, 15), (4, 22)] {
            if self.0 & (1 << a) != 0 {
                return format!("BYDAY={n}{weekday}");
            }
        }
        for (n, k) in [(1, 7), (2, 14)] {
            if self.1 & (1 << k) != 0 {
                return format!("BYDAY=-{n}{weekday}");
            }
        }
        let days: Vec<String> = if self.0 != 0 {
            let a = self.0.trailing_zeros() as i32;
            (a..a + 7).map(|d| d.to_string()).collect()
        } else {
            let k = self.1.trailing_zeros() as i32;
            (-k..-k + 7).map(|d| d.to_string()).collect()
        };
        format!("BYDAY={weekday};BYMONTHDAY={}", days.join(","))
    }
}

/// Where the rule in force at the end of `changes` starts, and its two RRULEs (for the change at
/// that index and the one after it). No rule (all observances explicit) when the zone's offset
/// stopped changing, or its changes do not follow a yearly pattern (tied to another calendar).
fn current_rule(changes: &[Change]) -> (usize, Option<[String; 2]>) {
    let n = changes.len();
    let explicit = (n, None);
    if n < 4 || i32::from(changes[n - 1].local.year()) < i32::from(HORIZON_YEAR) - 2 {
        return explicit;
    }
    // Changes alternate between the two kinds of the last two; walk back while they do, one a
    // year, on days that fit one 7-day window of the month for each kind.
    let mut windows = [
        Windows::of(changes[n - 1].local),
        Windows::of(changes[n - 2].local),
    ];
    let mut first = n;
    for i in (0..n).rev() {
        let kind = (n - 1 - i) % 2;
        let c = &changes[i];
        if !c.same_kind(&changes[n - 1 - kind]) {
            break;
        }
        if let Some(next) = changes.get(i + 2) {
            if i32::from(next.local.year()) != i32::from(c.local.year()) + 1 {
                break;
            }
        }
        let w = windows[kind].and(Windows::of(c.local));
        if w.is_empty() {
            break;
        }
        windows[kind] = w;
        first = i;
    }
    if n - first < 4 || changes[n - 1].same_kind(&changes[n - 2]) {
        return explicit;
    }
    let rule = |i: usize| {
        let c = &changes[i];
        let kind = (n - 1 - i) % 2;
        format!(
            "FREQ=YEARLY;BYMONTH={};{}",
            c.local.month(),
            windows[kind].rule_days(weekday(c.local))
        )
    };
    (first, Some([rule(first), rule(first + 1)]))
}

fn weekday(local: DateTime) -> &'static str {
    ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]
        [usize::try_from(local.weekday().to_sunday_zero_offset()).unwrap_or(0)]
}

/// `+HHMM`, or `+HHMMSS` for offsets with seconds (local mean times).
fn utc_offset(seconds: i32) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let s = seconds.unsigned_abs();
    let (h, m, sec) = (s / 3600, s % 3600 / 60, s % 60);
    if sec == 0 {
        format!("{sign}{h:02}{m:02}")
    } else {
        format!("{sign}{h:02}{m:02}{sec:02}")
    }
}

fn observance(out: &mut Vec<u8>, c: &Change, rule: Option<&str>) {
    let kind = if c.dst { "DAYLIGHT" } else { "STANDARD" };
    let l = c.local;
    write_folded(out, format!("BEGIN:{kind}").as_bytes());
    write_folded(
        out,
        format!(
            "DTSTART:{:04}{:02}{:02}T{:02}{:02}{:02}",
            l.year(),
            l.month(),
            l.day(),
            l.hour(),
            l.minute(),
            l.second()
        )
        .as_bytes(),
    );
    write_folded(
        out,
        format!("TZOFFSETFROM:{}", utc_offset(c.from)).as_bytes(),
    );
    write_folded(out, format!("TZOFFSETTO:{}", utc_offset(c.to)).as_bytes());
    if !c.name.is_empty() {
        write_folded(out, format!("TZNAME:{}", escape_text(&c.name)).as_bytes());
    }
    if let Some(rule) = rule {
        write_folded(out, format!("RRULE:{rule}").as_bytes());
    }
    write_folded(out, format!("END:{kind}").as_bytes());
}

#[cfg(test)]
mod tests;
