//! The repair pass over a whole feed: Windows (and prefixed) TZIDs become IANA names, every zone
//! the feed's components use gets a VTIMEZONE, and floating times get the calendar's X-WR-TIMEZONE.

use std::collections::{BTreeMap, HashMap, HashSet};

use jiff::tz::TimeZone;

use super::{vtimezone, windows_to_iana};
use crate::calendar::ics::lexer::LogicalLine;
use crate::calendar::ics::line::{split_line, unescape_text};
use crate::calendar::ics::{
    self, line_name, parse_property, Flow, Limits, ParseError, Visitor, Warning, Warnings, GO_ON,
};
use crate::calendar::remap::write_folded;

/// Properties whose DATE-TIME values may be floating (local time without a zone).
const DATE_PROPERTIES: [&str; 6] = [
    "DTSTART",
    "DTEND",
    "DUE",
    "RECURRENCE-ID",
    "EXDATE",
    "RDATE",
];

/// A repaired feed and what the repair did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TzRepairOutput {
    pub bytes: Vec<u8>,
    /// The parser's warnings, then one per zone the repair could not resolve.
    pub warnings: Vec<Warning>,
    /// Lines whose TZID (parameter or VTIMEZONE property) was renamed to an IANA name.
    pub renamed: usize,
    /// The zones a VTIMEZONE was synthesised for, in the order written.
    pub added: Vec<String>,
    /// DATE-TIME lines that were floating and now carry the calendar's X-WR-TIMEZONE.
    pub floating_fixed: usize,
}

/// Repairs the time zones of a feed (RFC 5545 §3.2.19, §3.6.5), leaving every other line as
/// it is (copied, or re-folded when it was not clean):
/// - a TZID that is no IANA zone but a Windows zone name (`W. Europe Standard Time`, Outlook's
///   `GMT Standard Time 1`, a display name) or a prefixed IANA name
///   (`/mozilla.org/20050126_1/Europe/Berlin`) becomes the IANA name, in parameters and in the
///   VTIMEZONE's own TZID (a VTIMEZONE renamed onto a zone the calendar already defines goes);
/// - every zone used outside VTIMEZONEs that the calendar does not define gets a VTIMEZONE from
///   the tz database, from the earliest year that uses it, after the VCALENDAR's properties;
/// - DATE-TIMEs without a zone (floating) in DTSTART, DTEND, DUE, RECURRENCE-ID, EXDATE and RDATE
///   get `TZID=` the calendar's X-WR-TIMEZONE when it names a known zone.
///
/// A zone that is neither IANA nor Windows and has no VTIMEZONE is left as it is, with a warning.
pub fn repair_timezones(input: &[u8], limits: &Limits) -> Result<TzRepairOutput, ParseError> {
    let mut scan = Scan::default();
    ics::walk(input, limits, &mut scan, &mut Warnings::default())?;
    let mut warnings = Warnings::default();
    let mut resolver = Resolver::default();
    let plans: Vec<Plan> = scan
        .tops
        .iter()
        .map(|top| plan(top, &mut resolver, &mut warnings))
        .collect();
    let mut writer = Repair {
        plans: &plans,
        stack: Vec::new(),
        top: None,
        vtimezones: 0,
        dropping: false,
        inserted: false,
        out: Vec::with_capacity(input.len() + input.len() / 32 + 1024),
        renamed: 0,
        added: Vec::new(),
        floating_fixed: 0,
    };
    let mut parse_warnings = Warnings::default();
    ics::walk(input, limits, &mut writer, &mut parse_warnings)?;
    let mut list = parse_warnings.finish();
    list.sort_by_key(|w| if w.line == 0 { u32::MAX } else { w.line });
    list.extend(warnings.finish());
    Ok(TzRepairOutput {
        bytes: writer.out,
        warnings: list,
        renamed: writer.renamed,
        added: writer.added,
        floating_fixed: writer.floating_fixed,
    })
}

/// What the first walk learns about one top-level component (normally the VCALENDAR).
#[derive(Debug, Default)]
struct TopScan {
    is_calendar: bool,
    /// TZIDs used outside VTIMEZONEs, as written, with the earliest year of a value using them.
    used: BTreeMap<String, i32>,
    /// The TZID of each VTIMEZONE directly inside, in order ("" when it has none).
    defined: Vec<String>,
    wr_timezone: Option<String>,
    /// Earliest year of a floating DATE-TIME, if there is one.
    floating: Option<i32>,
}

#[derive(Default)]
struct Scan {
    stack: Vec<String>,
    tops: Vec<TopScan>,
}

/// The first four digits of a DATE or DATE-TIME value as a year.
fn year_of(value: &str) -> Option<i32> {
    let digits = value.trim().get(..4)?;
    digits
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| digits.parse().ok())
        .flatten()
}

/// Whether every value of a date list is a local DATE-TIME (`YYYYMMDDTHHMMSS`, no `Z`).
fn all_floating(value: &str) -> bool {
    !value.trim().is_empty()
        && value.split(',').all(|v| {
            let b = v.trim().as_bytes();
            b.len() == 15
                && b[8].eq_ignore_ascii_case(&b'T')
                && b[..8].iter().chain(&b[9..]).all(u8::is_ascii_digit)
        })
}

fn mentions_tzid(line: &LogicalLine<'_>) -> bool {
    line.raw.windows(4).any(|w| w.eq_ignore_ascii_case(b"TZID"))
}

/// How a property line stands towards the repair.
enum Found {
    /// A TZID parameter (decoded) and the value.
    Zoned(String, String),
    /// A floating DATE-TIME (list) of a date property; the value.
    Floating(String),
    Other,
}

fn inspect(line: &LogicalLine<'_>, name: &str) -> Found {
    let date = DATE_PROPERTIES.iter().any(|d| d.eq_ignore_ascii_case(name));
    if !date && !mentions_tzid(line) {
        return Found::Other;
    }
    let p = parse_property(line);
    if let Some(tzid) = p.param("TZID") {
        return Found::Zoned(tzid, p.value);
    }
    let value_type = p.param("VALUE");
    let date_time = value_type
        .as_deref()
        .is_none_or(|v| v.eq_ignore_ascii_case("DATE-TIME"));
    if date && date_time && all_floating(&p.value) {
        return Found::Floating(p.value);
    }
    Found::Other
}

impl<'a> Visitor<'a> for Scan {
    fn begin(&mut self, _line: &LogicalLine<'a>, name: &str) -> Flow {
        if self.stack.is_empty() {
            self.tops.push(TopScan {
                is_calendar: name == "VCALENDAR",
                ..TopScan::default()
            });
        }
        if name == "VTIMEZONE" && self.stack.len() == 1 {
            if let Some(top) = self.tops.last_mut() {
                top.defined.push(String::new());
            }
        }
        self.stack.push(name.to_owned());
        GO_ON
    }

    fn end(&mut self, _line: Option<&LogicalLine<'a>>, _name: &str) -> Flow {
        self.stack.pop();
        GO_ON
    }

    fn property(&mut self, line: &LogicalLine<'a>) -> Flow {
        let Some(top) = self.tops.last_mut() else {
            return GO_ON;
        };
        let name = line_name(line);
        let depth = self.stack.len();
        if depth == 1 {
            if top.wr_timezone.is_none() && name.eq_ignore_ascii_case("X-WR-TIMEZONE") {
                let p = parse_property(line);
                top.wr_timezone = Some(unescape_text(&p.value).trim().to_owned());
            }
            return GO_ON;
        }
        if self.stack.iter().any(|c| c == "VTIMEZONE") {
            if depth == 2 && name.eq_ignore_ascii_case("TZID") {
                let p = parse_property(line);
                if let Some(slot) = top.defined.last_mut() {
                    *slot = unescape_text(&p.value).trim().to_owned();
                }
            }
            return GO_ON;
        }
        match inspect(line, &name) {
            Found::Zoned(tzid, value) => {
                let year = year_of(&value).unwrap_or(i32::MAX);
                let earliest = top.used.entry(tzid).or_insert(year);
                *earliest = (*earliest).min(year);
            }
            Found::Floating(value) => {
                let year = year_of(&value).unwrap_or(i32::MAX);
                top.floating = Some(top.floating.map_or(year, |y| y.min(year)));
            }
            Found::Other => {}
        }
        GO_ON
    }
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
struct Resolver {
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
        } else if let Some(iana) = unprefixed(tzid).filter(|n| known(n)) {
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
/// `/freeassociation.sourceforge.net/Tzfile/Europe/Berlin`): the last two or three parts.
fn unprefixed(tzid: &str) -> Option<&str> {
    if !tzid.starts_with('/') {
        return None;
    }
    let slashes: Vec<usize> = tzid.match_indices('/').map(|(i, _)| i).collect();
    // America/Argentina/Buenos_Aires has three parts; try the longest first.
    [3, 2]
        .into_iter()
        .filter_map(|parts| slashes.len().checked_sub(parts).map(|i| slashes[i]))
        .map(|at| &tzid[at + 1..])
        .find(|name| TimeZone::get(name).is_ok())
}

/// What the second walk does in one top-level component.
#[derive(Debug, Default)]
struct Plan {
    /// TZID as written → IANA name.
    rename: HashMap<String, String>,
    /// Which of the component's VTIMEZONEs (by position) go: renamed onto a zone defined before.
    drop_vtimezone: HashSet<usize>,
    /// The zone floating times get.
    floating_zone: Option<String>,
    /// VTIMEZONEs to add after the calendar's properties: (zone, text).
    add: Vec<(String, String)>,
}

fn plan(top: &TopScan, resolver: &mut Resolver, warnings: &mut Warnings) -> Plan {
    let mut p = Plan::default();
    let names = top
        .used
        .keys()
        .chain(&top.defined)
        .chain(top.wr_timezone.iter());
    for tzid in names {
        if let Zone::Renamed(iana) = resolver.zone(tzid) {
            p.rename.insert(tzid.clone(), iana);
        }
    }
    let mut defined = HashSet::new();
    for (i, tzid) in top.defined.iter().enumerate() {
        if !defined.insert(resolver.name(tzid)) {
            p.drop_vtimezone.insert(i);
        }
    }
    let mut needed: BTreeMap<String, i32> = BTreeMap::new();
    for (tzid, year) in &top.used {
        let name = resolver.name(tzid);
        let earliest = needed.entry(name).or_insert(*year);
        *earliest = (*earliest).min(*year);
    }
    if let (Some(year), Some(wr)) = (top.floating, &top.wr_timezone) {
        if resolver.zone(wr) == Zone::Unknown {
            warnings.push(
                0,
                format!(
                    "X-WR-TIMEZONE {wr:?} is not a known time zone: floating times stay floating"
                ),
            );
        } else {
            let name = resolver.name(wr);
            let earliest = needed.entry(name.clone()).or_insert(year);
            *earliest = (*earliest).min(year);
            p.floating_zone = Some(name);
        }
    }
    for (name, year) in needed {
        if defined.contains(&name) {
            continue;
        }
        let synthesised = if top.is_calendar {
            // A year past any value (no readable year) starts the VTIMEZONE at the current rule.
            vtimezone(&name, year.min(2100))
        } else {
            None
        };
        match synthesised {
            Some(text) => p.add.push((name, text)),
            None if resolver.zone(&name) == Zone::Unknown => warnings.push(
                0,
                format!(
                    "TZID {name:?} is not a known time zone and the feed has no VTIMEZONE for it"
                ),
            ),
            None => {}
        }
    }
    p
}

/// The second walk: writes the feed with the plan applied.
struct Repair<'p> {
    plans: &'p [Plan],
    stack: Vec<String>,
    /// Index of the current top-level component.
    top: Option<usize>,
    /// VTIMEZONEs seen so far in it.
    vtimezones: usize,
    /// Inside a VTIMEZONE that goes.
    dropping: bool,
    /// The added VTIMEZONEs of the current top-level component are written.
    inserted: bool,
    out: Vec<u8>,
    renamed: usize,
    added: Vec<String>,
    floating_fixed: usize,
}

impl<'p> Repair<'p> {
    fn plan(&self) -> Option<&'p Plan> {
        let plans = self.plans;
        self.top.and_then(|i| plans.get(i))
    }

    fn original(&mut self, line: &LogicalLine<'_>) {
        if line.clean {
            self.out.extend_from_slice(line.raw);
            return;
        }
        let content = line.content();
        let text = ics::text(&content);
        // Leading whitespace would turn the line into a fold of the one before.
        write_folded(
            &mut self.out,
            text.trim_start_matches([' ', '\t']).as_bytes(),
        );
    }

    fn insert_added(&mut self) {
        if self.inserted {
            return;
        }
        self.inserted = true;
        let Some(plan) = self.plan() else {
            return;
        };
        for (name, text) in &plan.add {
            self.out.extend_from_slice(text.as_bytes());
            self.added.push(name.clone());
        }
    }

    /// The line rebuilt with its TZID parameter set to `tzid` (added when it had none).
    fn with_tzid(line: &LogicalLine<'_>, tzid: &str) -> String {
        let content = line.content();
        let text = ics::text(&content);
        let parts = split_line(text.trim_start_matches([' ', '\t']));
        let mut out = parts.name.to_owned();
        let mut set = false;
        for p in &parts.params {
            out.push(';');
            out.push_str(p.name);
            out.push('=');
            if p.name.eq_ignore_ascii_case("TZID") {
                if !set {
                    out.push_str(tzid);
                }
                set = true;
            } else {
                out.push_str(&p.values.join(","));
            }
        }
        if !set {
            out.push_str(";TZID=");
            out.push_str(tzid);
        }
        out.push(':');
        out.push_str(parts.value);
        out
    }
}

impl<'a> Visitor<'a> for Repair<'_> {
    fn begin(&mut self, line: &LogicalLine<'a>, name: &str) -> Flow {
        if self.stack.is_empty() {
            self.top = Some(self.top.map_or(0, |i| i + 1));
            self.vtimezones = 0;
            self.inserted = false;
        } else if self.stack.len() == 1 {
            // The calendar's properties are done: its first component follows them.
            self.insert_added();
            if name == "VTIMEZONE" {
                let index = self.vtimezones;
                self.vtimezones += 1;
                self.dropping = self
                    .plan()
                    .is_some_and(|p| p.drop_vtimezone.contains(&index));
            }
        }
        self.stack.push(name.to_owned());
        if !self.dropping {
            self.original(line);
        }
        GO_ON
    }

    fn end(&mut self, line: Option<&LogicalLine<'a>>, name: &str) -> Flow {
        if self.stack.len() == 1 {
            self.insert_added();
        }
        self.stack.pop();
        if self.dropping {
            if self.stack.len() == 1 {
                self.dropping = false;
            }
            return GO_ON;
        }
        match line {
            Some(l) => self.original(l),
            None => write_folded(&mut self.out, format!("END:{name}").as_bytes()),
        }
        GO_ON
    }

    fn property(&mut self, line: &LogicalLine<'a>) -> Flow {
        if self.dropping {
            return GO_ON;
        }
        let Some(plan) = self.plan() else {
            self.original(line);
            return GO_ON;
        };
        let depth = self.stack.len();
        let name = line_name(line);
        let in_vtimezone = self.stack.iter().any(|c| c == "VTIMEZONE");
        if in_vtimezone && depth == 2 && name.eq_ignore_ascii_case("TZID") {
            let p = parse_property(line);
            let tzid = unescape_text(&p.value).trim().to_owned();
            if let (Some(iana), Some(head)) = (plan.rename.get(&tzid), line_head(line)) {
                let new = format!("{head}:{iana}");
                write_folded(&mut self.out, new.as_bytes());
                self.renamed += 1;
                return GO_ON;
            }
        } else if depth >= 2 && !in_vtimezone {
            match inspect(line, &name) {
                Found::Zoned(tzid, _) => {
                    if let Some(iana) = plan.rename.get(&tzid) {
                        let new = Repair::with_tzid(line, iana);
                        write_folded(&mut self.out, new.as_bytes());
                        self.renamed += 1;
                        return GO_ON;
                    }
                }
                Found::Floating(_) => {
                    if let Some(zone) = &plan.floating_zone {
                        let new = Repair::with_tzid(line, zone);
                        write_folded(&mut self.out, new.as_bytes());
                        self.floating_fixed += 1;
                        return GO_ON;
                    }
                }
                Found::Other => {}
            }
        }
        self.original(line);
        GO_ON
    }
}

/// The name and parameters of a well-formed line as written (all before its value's `:`).
fn line_head(line: &LogicalLine<'_>) -> Option<String> {
    let content = line.content();
    let text = ics::text(&content);
    let trimmed = text.trim_start_matches([' ', '\t']);
    let parts = split_line(trimmed);
    if !parts.well_formed {
        return None;
    }
    let value_at = trimmed.len() - parts.value.len();
    Some(trimmed[..value_at - 1].to_owned())
}

#[cfg(test)]
mod tests;
