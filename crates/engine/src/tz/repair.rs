//! The repair pass over a whole feed on its own (two walks: what it uses, then the feed written
//! with the repair applied); the remap runs the same plan inside its own passes.

use crate::ics::lexer::LogicalLine;
use crate::ics::line::{split_line, unescape_text};
use crate::ics::{
    self, line_name, parse_property, write_folded, Flow, Limits, ParseError, Visitor, Warning,
    Warnings, GO_ON,
};

use super::plan::{all_floating, plan_with, Resolver, TzPlan, TzUse, DATE_PROPERTIES};

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
    let plans: Vec<TzPlan> = scan
        .tops
        .iter()
        .map(|top| plan_with(top, &mut resolver))
        .collect();
    for message in plans.iter().flat_map(|p| &p.warnings) {
        warnings.push(0, message.clone());
    }
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

#[derive(Default)]
struct Scan {
    stack: Vec<String>,
    /// What each top-level component (normally the one VCALENDAR) uses.
    tops: Vec<TzUse>,
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
    let date_time = p
        .param("VALUE")
        .is_none_or(|v| v.eq_ignore_ascii_case("DATE-TIME"));
    if date && date_time && all_floating(&p.value) {
        return Found::Floating(p.value);
    }
    Found::Other
}

impl<'a> Visitor<'a> for Scan {
    fn begin(&mut self, _line: &LogicalLine<'a>, name: &str) -> Flow {
        if self.stack.is_empty() {
            self.tops.push(TzUse {
                in_calendar: name == "VCALENDAR",
                ..TzUse::default()
            });
        }
        if name == "VTIMEZONE" && self.stack.len() == 1 {
            if let Some(top) = self.tops.last_mut() {
                top.defined.push(None);
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
            if top.x_wr_timezone.is_none() && name.eq_ignore_ascii_case("X-WR-TIMEZONE") {
                let p = parse_property(line);
                let zone = unescape_text(&p.value).trim().to_owned();
                top.x_wr_timezone = Some(zone).filter(|z| !z.is_empty());
            }
            return GO_ON;
        }
        if self.stack.iter().any(|c| c == "VTIMEZONE") {
            if depth == 2 && name.eq_ignore_ascii_case("TZID") {
                let p = parse_property(line);
                if let Some(slot) = top.defined.last_mut() {
                    slot.get_or_insert_with(|| unescape_text(&p.value).trim().to_owned());
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

/// The second walk: writes the feed with the plans applied.
struct Repair<'p> {
    plans: &'p [TzPlan],
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
    fn plan(&self) -> Option<&'p TzPlan> {
        let plans = self.plans;
        self.top.and_then(|i| plans.get(i))
    }

    fn original(&mut self, line: &LogicalLine<'_>) {
        let in_vtimezone = self.stack.iter().any(|c| c == "VTIMEZONE");
        let rewrite = self.plan().map(|p| &p.rewrite);
        if let Some(r) = rewrite.filter(|r| r.may_change(line)) {
            let content = line.content();
            let text = ics::text(&content);
            if let Some(new) = r.rewrite(&text, in_vtimezone) {
                let parts = split_line(text.trim_start_matches([' ', '\t']));
                let had_zone = parts.name.eq_ignore_ascii_case("X-WR-TIMEZONE")
                    || parts
                        .params
                        .iter()
                        .any(|p| p.name.eq_ignore_ascii_case("TZID"));
                if in_vtimezone || had_zone {
                    self.renamed += 1;
                } else {
                    self.floating_fixed += 1;
                }
                write_folded(&mut self.out, new.as_bytes());
                return;
            }
        }
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
                    .is_some_and(|p| p.drop_vtimezones.contains(&index));
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
        if !self.dropping {
            self.original(line);
        }
        GO_ON
    }
}

#[cfg(test)]
mod tests;
