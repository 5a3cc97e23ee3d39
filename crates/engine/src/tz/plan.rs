//! Deciding a repair from what a feed uses (zones to rename, VTIMEZONEs to add, the zone for
//! floating times) and rewriting single lines by that decision, for any writer.

use std::collections::{BTreeMap, HashMap, HashSet};

use jiff::tz::TimeZone;

use super::vtimezone::vtimezone;
use super::windows::windows_to_iana;
use crate::ics::lexer::LogicalLine;
use crate::ics::line::{param_value, split_line, unescape_text};

/// Properties whose DATE-TIME values may be floating (local time without a zone).
pub(crate) const DATE_PROPERTIES: [&str; 6] = [
    "DTSTART",
    "DTEND",
    "DUE",
    "RECURRENCE-ID",
    "EXDATE",
    "RDATE",
];

/// What a feed (or one calendar of it) uses, as the repair needs it.
#[derive(Debug, Clone, Default)]
pub struct TzUse {
    /// TZIDs used outside VTIMEZONEs (by kept components), as written, with the earliest year
    /// of a value that uses each (`i32::MAX` when no year was readable).
    pub used: BTreeMap<String, i32>,
    /// The TZID of every VTIMEZONE, in order (`None` for one without).
    pub defined: Vec<Option<String>>,
    /// Earliest year of a floating DATE-TIME, when there is one.
    pub floating: Option<i32>,
    pub x_wr_timezone: Option<String>,
    /// VTIMEZONEs can be added (there is a VCALENDAR to put them in).
    pub in_calendar: bool,
}

/// The repair decided for a feed.
#[derive(Debug, Clone, Default)]
pub struct TzPlan {
    /// How lines change as they are written.
    pub rewrite: TzRewrite,
    /// VTIMEZONEs to add after the VCALENDAR's properties: (zone, CRLF text).
    pub add: Vec<(String, String)>,
    /// Which VTIMEZONEs (by position in `TzUse::defined`) are left out: those a rename makes
    /// share a TZID with an earlier one.
    pub drop_vtimezones: HashSet<usize>,
    /// Zones the repair could not resolve, for the feed's warnings.
    pub warnings: Vec<String>,
}

/// The per-line part of a repair: TZIDs to rename and the zone floating DATE-TIMEs get.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TzRewrite {
    rename: HashMap<String, String>,
    floating_zone: Option<String>,
}

/// What a TZID as written stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Zone {
    /// The tz database knows it by this name.
    Known,
    /// Known under this IANA name.
    Renamed(String),
    Unknown,
}

/// Looks zones up once per name.
#[derive(Default)]
pub(crate) struct Resolver {
    cache: HashMap<String, Zone>,
}

impl Resolver {
    fn zone(&mut self, tzid: &str) -> Zone {
        if let Some(z) = self.cache.get(tzid) {
            return z.clone();
        }
        let known = |name: &str| TimeZone::get(name).is_ok();
        let zone = if known(tzid) {
            Zone::Known
        } else if let Some(iana) = windows_to_iana(tzid).filter(|n| known(n)) {
            Zone::Renamed(iana.to_owned())
        } else if let Some(iana) = unprefixed(tzid) {
            Zone::Renamed(iana.to_owned())
        } else {
            Zone::Unknown
        };
        self.cache.insert(tzid.to_owned(), zone.clone());
        zone
    }

    /// The name to write for a TZID: its IANA name when it is renamed, else as written.
    fn name(&mut self, tzid: &str) -> String {
        match self.zone(tzid) {
            Zone::Renamed(iana) => iana,
            Zone::Known | Zone::Unknown => tzid.to_owned(),
        }
    }
}

/// An IANA name behind a path prefix (`/mozilla.org/20050126_1/Europe/Berlin`,
/// `/freeassociation.sourceforge.net/Tzfile/Europe/Berlin`): its last three or two parts.
fn unprefixed(tzid: &str) -> Option<&str> {
    if !tzid.starts_with('/') {
        return None;
    }
    let slashes: Vec<usize> = tzid.match_indices('/').map(|(i, _)| i).collect();
    // America/Argentina/Buenos_Aires has three parts: the longest first.
    [3, 2]
        .into_iter()
        .filter_map(|parts| slashes.len().checked_sub(parts).map(|i| slashes[i]))
        .map(|at| &tzid[at + 1..])
        .find(|name| TimeZone::get(name).is_ok())
}

/// Decides the repair of a feed (or of one calendar in it) from what it uses.
pub fn plan(facts: &TzUse) -> TzPlan {
    plan_with(facts, &mut Resolver::default())
}

pub(crate) fn plan_with(facts: &TzUse, resolver: &mut Resolver) -> TzPlan {
    let mut p = TzPlan::default();
    let names = facts
        .used
        .keys()
        .chain(facts.defined.iter().flatten())
        .chain(facts.x_wr_timezone.iter());
    for tzid in names {
        if let Zone::Renamed(iana) = resolver.zone(tzid) {
            p.rewrite.rename.insert(tzid.clone(), iana);
        }
    }
    // Zone name → whether a VTIMEZONE of that name was renamed onto it. A rename that makes
    // two VTIMEZONEs share a TZID drops the later one; duplicates the feed itself has stay.
    let mut defined: HashMap<String, bool> = HashMap::new();
    for (i, tzid) in facts.defined.iter().enumerate() {
        if let Some(tzid) = tzid {
            let renamed = p.rewrite.rename.contains_key(tzid);
            match defined.get_mut(&resolver.name(tzid)) {
                Some(earlier_renamed) => {
                    if renamed || *earlier_renamed {
                        p.drop_vtimezones.insert(i);
                    }
                }
                None => {
                    defined.insert(resolver.name(tzid), renamed);
                }
            }
        }
    }
    let mut needed: BTreeMap<String, i32> = BTreeMap::new();
    for (tzid, year) in &facts.used {
        let earliest = needed.entry(resolver.name(tzid)).or_insert(*year);
        *earliest = (*earliest).min(*year);
    }
    if let (Some(year), Some(wr)) = (facts.floating, &facts.x_wr_timezone) {
        if resolver.zone(wr) == Zone::Unknown {
            p.warnings.push(format!(
                "X-WR-TIMEZONE {wr:?} is not a known time zone: floating times stay floating"
            ));
        } else {
            let name = resolver.name(wr);
            let earliest = needed.entry(name.clone()).or_insert(year);
            *earliest = (*earliest).min(year);
            p.rewrite.floating_zone = Some(name);
        }
    }
    for (name, year) in needed {
        if defined.contains_key(&name) {
            continue;
        }
        if resolver.zone(&name) == Zone::Unknown {
            p.warnings.push(format!(
                "TZID {name:?} is not a known time zone and the feed has no VTIMEZONE for it"
            ));
            continue;
        }
        if !facts.in_calendar {
            continue;
        }
        // No readable year: from 1970, which covers any feed of today.
        let from_year = if year == i32::MAX { 1970 } else { year };
        if let Some(text) = vtimezone(&name, from_year) {
            p.add.push((name, text));
        }
    }
    p
}

/// Whether every value of a date list is a local DATE-TIME (`YYYYMMDDTHHMMSS`, no `Z`).
pub(crate) fn all_floating(value: &str) -> bool {
    !value.trim().is_empty()
        && value.split(',').all(|v| {
            let b = v.trim().as_bytes();
            b.len() == 15
                && b[8].eq_ignore_ascii_case(&b'T')
                && b[..8].iter().chain(&b[9..]).all(u8::is_ascii_digit)
        })
}

fn contains_ignore_case(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// The IANA name of a zone the tz database knows, by that name or by its Windows name.
pub(crate) fn known_zone(name: &str) -> Option<String> {
    if TimeZone::get(name).is_ok() {
        return Some(name.to_owned());
    }
    windows_to_iana(name)
        .filter(|n| TimeZone::get(n).is_ok())
        .map(str::to_owned)
}

impl TzRewrite {
    /// The rewrite a merge gives one source's lines: its zones renamed where another source
    /// defines the same TZID differently, and its floating times given its own zone.
    pub(crate) fn for_merge(
        rename: HashMap<String, String>,
        floating_zone: Option<String>,
    ) -> TzRewrite {
        TzRewrite {
            rename,
            floating_zone,
        }
    }

    /// Whether no line changes.
    pub fn is_empty(&self) -> bool {
        self.rename.is_empty() && self.floating_zone.is_none()
    }

    /// A cheap look at a line before decoding it: false when [`TzRewrite::rewrite`] surely
    /// leaves it as it is.
    pub(crate) fn may_change(&self, line: &LogicalLine<'_>) -> bool {
        if self.is_empty() {
            return false;
        }
        let first = line.first_segment();
        let content;
        // Name and parameters end at the value's `:`; when a fold comes before it, unfold.
        let head: &[u8] = match memchr::memchr(b':', first) {
            Some(end) => &first[..end],
            None if line.folded => {
                content = line.content();
                &content
            }
            None => first,
        };
        self.head_may_change(head)
    }

    /// [`TzRewrite::may_change`] for an unfolded line.
    pub(crate) fn may_change_text(&self, line: &[u8]) -> bool {
        let head = memchr::memchr(b':', line).map_or(line, |end| &line[..end]);
        !self.is_empty() && self.head_may_change(head)
    }

    /// Whether a line with this name and parameters may change.
    fn head_may_change(&self, head: &[u8]) -> bool {
        if !self.rename.is_empty()
            && (contains_ignore_case(head, b"TZID") || contains_ignore_case(head, b"X-WR-TIMEZONE"))
        {
            return true;
        }
        if self.floating_zone.is_some() {
            let end = memchr::memchr2(b';', b':', head).unwrap_or(head.len());
            let name = head[..end].trim_ascii();
            return DATE_PROPERTIES
                .iter()
                .any(|d| d.as_bytes().eq_ignore_ascii_case(name));
        }
        false
    }

    /// The (unfolded) line as the repair writes it, or `None` when it stays: a renamed TZID
    /// parameter, a VTIMEZONE's renamed TZID (`in_vtimezone`), a renamed X-WR-TIMEZONE, or a
    /// floating DATE-TIME outside VTIMEZONEs given the calendar's zone.
    pub fn rewrite(&self, line: &str, in_vtimezone: bool) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let line = line.trim_start_matches([' ', '\t']);
        let parts = split_line(line);
        if !parts.well_formed {
            return None;
        }
        let head = &line[..line.len() - parts.value.len() - 1];
        if parts.name.eq_ignore_ascii_case("X-WR-TIMEZONE") {
            let iana = self.rename.get(unescape_text(parts.value).trim())?;
            return Some(format!("{head}:{iana}"));
        }
        if in_vtimezone {
            if !parts.name.eq_ignore_ascii_case("TZID") {
                return None;
            }
            let iana = self.rename.get(unescape_text(parts.value).trim())?;
            return Some(format!("{head}:{iana}"));
        }
        let tzid = parts
            .params
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case("TZID"));
        let new_zone = match tzid {
            Some(p) => {
                let value = p.values.first().map(|v| param_value(v))?;
                self.rename.get(value.trim())?
            }
            None => {
                let zone = self.floating_zone.as_ref()?;
                let date = DATE_PROPERTIES
                    .iter()
                    .any(|d| d.eq_ignore_ascii_case(parts.name));
                let date_time = parts
                    .params
                    .iter()
                    .find(|p| p.name.eq_ignore_ascii_case("VALUE"))
                    .is_none_or(|p| p.values.join(",").eq_ignore_ascii_case("DATE-TIME"));
                if !(date && date_time && all_floating(parts.value)) {
                    return None;
                }
                zone
            }
        };
        let mut out = parts.name.to_owned();
        for p in &parts.params {
            out.push(';');
            out.push_str(p.name);
            out.push('=');
            if p.name.eq_ignore_ascii_case("TZID") {
                out.push_str(new_zone);
            } else {
                out.push_str(&p.values.join(","));
            }
        }
        if tzid.is_none() {
            out.push_str(";TZID=");
            out.push_str(new_zone);
        }
        out.push(':');
        out.push_str(parts.value);
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(rename: &[(&str, &str)], floating: Option<&str>) -> TzRewrite {
        TzRewrite {
            rename: rename
                .iter()
                .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
                .collect(),
            floating_zone: floating.map(str::to_owned),
        }
    }

    #[test]
    fn rewrites_keep_other_parameters_and_the_value() {
        let r = rewrite(
            &[("W. Europe Standard Time", "Europe/Berlin")],
            Some("Asia/Tokyo"),
        );
        assert_eq!(
            r.rewrite(
                "DTSTART;X-A=\"q;x\";TZID=\"W. Europe Standard Time\";VALUE=DATE-TIME:20240105T100000",
                false
            )
            .as_deref(),
            Some("DTSTART;X-A=\"q;x\";TZID=Europe/Berlin;VALUE=DATE-TIME:20240105T100000")
        );
        assert_eq!(
            r.rewrite("TZID:W. Europe Standard Time", true).as_deref(),
            Some("TZID:Europe/Berlin")
        );
        assert_eq!(r.rewrite("TZID:W. Europe Standard Time", false), None);
        assert_eq!(
            r.rewrite("due:20240105T100000", false).as_deref(),
            Some("due;TZID=Asia/Tokyo:20240105T100000")
        );
        // Observance times in a VTIMEZONE are local by definition.
        assert_eq!(r.rewrite("DTSTART:20240105T100000", true), None);
        assert_eq!(r.rewrite("DTSTART:20240105T100000Z", false), None);
        assert_eq!(r.rewrite("DTSTART;VALUE=DATE:20240105", false), None);
        assert_eq!(r.rewrite("SUMMARY:20240105T100000", false), None);
        assert_eq!(
            r.rewrite("DTSTART;TZID=Europe/Paris:20240105T100000", false),
            None
        );
    }

    #[test]
    fn the_cheap_check_finds_what_rewrite_changes() {
        use crate::ics::lexer::Lexer;
        let r = rewrite(&[("X", "Europe/Berlin")], None);
        let lines = b"DTSTART;TZID=X:20240105T100000\r\nSUMMARY:TZID in the text\r\n\
DTSTART;VALUE=DATE-TIME;X-LONG=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n ;tzid=X:20240105T100000\r\n";
        let found: Vec<bool> = Lexer::new(lines).map(|l| r.may_change(&l)).collect();
        assert_eq!(found, [true, false, true]);
        let f = rewrite(&[], Some("Asia/Tokyo"));
        let found: Vec<bool> = Lexer::new(b"Dtstart:1\r\nDTSTAMP:1\r\nEXDATE;X=1:2\r\n")
            .map(|l| f.may_change(&l))
            .collect();
        assert_eq!(found, [true, false, true]);
    }
}
