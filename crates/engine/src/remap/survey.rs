//! The first pass of a remap with options: reads only what filters, the window and time zones
//! need, decides the fate of every VEVENT (a series shares its master's), of every VTODO and
//! VJOURNAL and VTIMEZONE, and the EXDATEs to add. `decide` is this pass on its own.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::config::matching::{Cause, EventFacts};
use crate::config::occurrences::{in_zone, Series};
use crate::config::window::{event_length, parse_date_time, parse_duration, DateTime};
use crate::config::{CompiledConfig, TimezoneMode};
use crate::ics::lexer::LogicalLine;
use crate::ics::line::{param_value, split_line};
use crate::ics::{self, line_name, Flow, Limits, Visitor, Warnings, GO_ON};
use crate::interrupt::{self, Interrupt};

use super::event::{head_text, prop_value, role_of, EvLine};
use super::occurrences::{KeptWhole, OccurrenceCount};
use super::request::{RemapError, RemapOptions};

mod plan;

/// Whether one VEVENT is kept, and if not why (what the editor's sample browser shows).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub kept: bool,
    /// The first rule that drops it (`filter 2 (exclude SUMMARY ~ /^Canceled:/i)`) or `window`;
    /// `None` when kept.
    pub reason: Option<String>,
    /// Occurrences of this series the filters or the window drop (`occurrences: "each"`).
    pub dropped_occurrences: usize,
    /// The series drops occurrences it cannot remove one by one, so it is kept whole: why
    /// (`None` when it is not).
    pub kept_whole: Option<KeptWhole>,
}

/// What the time-zone repair needs to know about a feed, gathered by the first pass.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TzFacts {
    /// TZIDs that kept events (and other kept components) use, in first-use order.
    pub used: Vec<String>,
    /// TZIDs that have a VTIMEZONE in the feed.
    pub defined: Vec<String>,
    /// Kept events with a DTSTART/DTEND that is a floating DATE-TIME (no Z, no TZID).
    pub floating_events: usize,
    /// The calendar's X-WR-TIMEZONE, when it declares one.
    pub x_wr_timezone: Option<String>,
    /// The TZID of every VTIMEZONE, in order (`None` for one without), as `Plan::vtimezones`
    /// counts them.
    pub vtimezone_ids: Vec<Option<String>>,
    /// The earliest year a kept event starts in (a synthesised VTIMEZONE starts there).
    pub first_year: Option<i32>,
}

/// The outcome of the first pass, which the writing pass follows.
#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    /// Per VEVENT (in `Document::events()` order): `None` kept, else why dropped.
    pub events: Vec<Option<Cause>>,
    /// EXDATE lines to add to a kept master, by event index.
    pub exdates: HashMap<usize, Vec<String>>,
    /// The RRULE value that replaces a kept master's (a series the window ends), by event index.
    pub rrules: HashMap<usize, String>,
    /// Per series judged occurrence by occurrence: occurrences dropped, and whether kept whole.
    pub series_notes: HashMap<usize, (usize, Option<KeptWhole>)>,
    /// The occurrences of kept events in the window, when the survey was asked to count them.
    pub occurrences: Option<OccurrenceCount>,
    /// Per VTIMEZONE (every BEGIN:VTIMEZONE, in order): whether it is written.
    pub vtimezones: Vec<bool>,
    /// Per VTODO/VJOURNAL (every BEGIN of one, in order): whether it is written.
    pub components: Vec<bool>,
    pub kept_events: usize,
    /// Whether the counts come from a survey (else every event is kept, nothing counted).
    pub surveyed: bool,
    pub tz: TzFacts,
}

impl Plan {
    /// The plan of a config that drops nothing: every component is written.
    pub(crate) fn keep_all() -> Plan {
        Plan::default()
    }

    pub(crate) fn decisions(&self, config: &CompiledConfig) -> Vec<Decision> {
        self.events
            .iter()
            .enumerate()
            .map(|(i, cause)| {
                let (dropped_occurrences, kept_whole) =
                    self.series_notes.get(&i).copied().unwrap_or_default();
                Decision {
                    kept: cause.is_none(),
                    reason: cause.map(|c| config.reason(c)),
                    dropped_occurrences,
                    kept_whole,
                }
            })
            .collect()
    }
}

/// One decision per VEVENT of `input`, in the order of [`crate::Document::events`],
/// by the same pass the remap with the same `options` follows: their `now` (without it no
/// window applies) and their `interrupt` ([`RemapError::Interrupted`]); the other options
/// change no decision. The error is otherwise [`RemapError::Parse`].
pub fn decide(
    input: &[u8],
    config: &CompiledConfig,
    options: &RemapOptions,
    limits: &Limits,
) -> Result<Vec<Decision>, RemapError> {
    Ok(survey(input, config, options, limits, false)?.decisions(config))
}

/// [`decide`], and how many occurrences of the kept events fall in the window (or within a
/// year of `now` on a side it leaves open): what the editor's preview counts. Without `now`
/// the count is zero over an empty span.
pub fn decide_counting(
    input: &[u8],
    config: &CompiledConfig,
    options: &RemapOptions,
    limits: &Limits,
) -> Result<(Vec<Decision>, OccurrenceCount), RemapError> {
    let plan = survey(input, config, options, limits, true)?;
    Ok((plan.decisions(config), plan.occurrences.unwrap_or_default()))
}

/// What the survey keeps of one VEVENT until the series are known.
struct EventRecord {
    own: Option<Cause>,
    /// The first exclude uid + recurrenceId rule that drops this occurrence.
    occurrence: Option<Cause>,
    uid: Option<String>,
    is_override: bool,
    tzids: Vec<String>,
    floating: bool,
    /// DTSTART's TZID and whether it is a DATE, for EXDATEs added to a master.
    start_tzid: Option<String>,
    /// DTSTART as written, in days since 1970-01-01.
    start_days: Option<i64>,
    /// When occurrences are judged or counted: what the event says of its occurrences.
    series: Option<Series>,
    /// When occurrences are judged: the rules on the series' properties, and the rules on when
    /// it happens with the window (for an instance: its own time).
    series_cause: Option<Cause>,
    when_cause: Option<Cause>,
    /// RECURRENCE-ID as a date.
    rid: Option<DateTime>,
}

/// Runs the first pass, checking the options' interrupt at every component (the first one
/// too: an interrupt already stopped ends the pass at the feed's first line).
pub(crate) fn survey(
    input: &[u8],
    config: &CompiledConfig,
    options: &RemapOptions,
    limits: &Limits,
    count: bool,
) -> Result<Plan, RemapError> {
    let mut names: Vec<String> = config.property_names.clone();
    for n in FACT_NAMES {
        if !names.iter().any(|m| m == n) {
            names.push(n.to_owned());
        }
    }
    let mut v = Survey {
        config,
        now: options.now,
        interrupt: options.interrupt.as_ref(),
        interrupted: false,
        names,
        stack: Vec::new(),
        event: Vec::new(),
        in_event: false,
        records: Vec::new(),
        vtimezone_ids: Vec::new(),
        components: Vec::new(),
        component_at: Vec::new(),
        other_tzids: Vec::new(),
        x_wr_timezone: None,
        track_tz: config.may_drop() || config.timezones == TimezoneMode::Repair,
        each: config.each_occurrence && config.judges_occurrences(),
        count: count && options.now.is_some(),
    };
    ics::walk(input, limits, &mut v, &mut Warnings::default())?;
    if v.interrupted {
        return Err(RemapError::Interrupted);
    }
    v.plan()
}

/// The properties the survey always reads besides the regex filters' ones.
const FACT_NAMES: [&str; 9] = [
    "EXDATE",
    "DTSTART",
    "DTEND",
    "DURATION",
    "STATUS",
    "UID",
    "RECURRENCE-ID",
    "RRULE",
    "RDATE",
];

struct Survey<'c, 'a> {
    config: &'c CompiledConfig,
    now: Option<i64>,
    interrupt: Option<&'c Interrupt>,
    /// The interrupt was found stopped: the walk ends and the survey fails.
    interrupted: bool,
    names: Vec<String>,
    stack: Vec<String>,
    event: Vec<EvLine<'a>>,
    in_event: bool,
    records: Vec<EventRecord>,
    /// The TZID of every VTIMEZONE, in order.
    vtimezone_ids: Vec<Option<String>>,
    /// Whether each VTODO/VJOURNAL is kept, in order.
    components: Vec<bool>,
    /// Stack depths of the VTODO/VJOURNALs being read and whether each is kept.
    component_at: Vec<(usize, Option<Cause>)>,
    /// TZIDs used outside events and time zones, by kept components.
    other_tzids: Vec<String>,
    x_wr_timezone: Option<String>,
    track_tz: bool,
    /// Occurrences are judged one by one (`occurrences: "each"` with a rule on when, or a window).
    each: bool,
    /// Occurrences in the window are counted.
    count: bool,
}

/// The TZID parameter of a line, if it has one (read from its head only).
fn tzid_of(line: &LogicalLine<'_>) -> Option<String> {
    // Most lines have no parameters: the name ends at ':' before any ';'.
    let first = line.first_segment();
    if memchr::memchr2(b';', b':', first).is_some_and(|i| first[i] == b':') {
        return None;
    }
    let head = head_text(line);
    if !contains_ignore_case(head.as_bytes(), b"TZID") {
        return None;
    }
    let parts = split_line(&head);
    parts
        .params
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case("TZID"))
        .and_then(|p| p.values.first())
        .map(|v| param_value(v).trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// The TZID of the event's DTSTART line.
fn start_zone(lines: &[EvLine<'_>]) -> Option<String> {
    lines.iter().find_map(|l| match l {
        EvLine::Prop(line, _, name) if name.eq_ignore_ascii_case("DTSTART") => tzid_of(line),
        _ => None,
    })
}

fn contains_ignore_case(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

fn push_unique(list: &mut Vec<String>, value: String) {
    if !list.contains(&value) {
        list.push(value);
    }
}

impl<'a> Survey<'_, 'a> {
    fn in_vtimezone(&self) -> bool {
        self.stack.iter().any(|c| c == "VTIMEZONE")
    }

    fn component_kept(&self) -> bool {
        self.enclosing_drop().is_none()
    }

    /// Why the VTODO/VJOURNAL around the current line is dropped, if it is.
    fn enclosing_drop(&self) -> Option<Cause> {
        self.component_at.iter().find_map(|(_, cause)| *cause)
    }

    fn finish_event(&mut self) {
        let lines = std::mem::take(&mut self.event);
        // Only the properties' values, joined as templates see repeats; no parameter fallback
        // (an absent property is "" to a filter).
        let mut found: Vec<Option<Cow<'a, str>>> = vec![None; self.names.len()];
        for l in &lines {
            let EvLine::Prop(line, _, name) = l else {
                continue;
            };
            let Some(i) = self.names.iter().position(|n| n.eq_ignore_ascii_case(name)) else {
                continue;
            };
            let v = prop_value(line);
            found[i] = Some(match found[i].take() {
                None => v,
                Some(prev) => Cow::Owned(format!("{prev}, {v}")),
            });
        }
        let get = |name: &str| -> Option<&str> {
            let i = self.names.iter().position(|n| n == name)?;
            found[i].as_deref()
        };
        let text = |name: &str| get(name).map(|v| v.trim().to_owned());
        let values = (0..self.config.property_names.len())
            .map(|i| found[i].as_deref().unwrap_or("").to_owned())
            .collect();
        let start = get("DTSTART").and_then(parse_date_time);
        let end = get("DTEND").and_then(parse_date_time);
        let dates = |name: &str| -> Vec<DateTime> {
            get(name)
                .map(|v| {
                    v.split(',')
                        .filter_map(|d| parse_date_time(d.split('/').next().unwrap_or("")))
                        .collect()
                })
                .unwrap_or_default()
        };
        let rdates = dates("RDATE");
        let facts = EventFacts {
            values,
            start,
            end,
            duration: get("DURATION").and_then(parse_duration),
            status: text("STATUS").map(|s| s.to_ascii_uppercase()),
            uid: text("UID"),
            recurrence_id: text("RECURRENCE-ID").map(|s| s.to_ascii_uppercase()),
            rrule: text("RRULE"),
            rdates,
        };
        // An event inside a dropped VTODO/VJOURNAL (odd, but the parser counts it) goes with it.
        // Judged one by one, a UTC time is read on the calendar's clock (X-WR-TIMEZONE).
        let local = |at: Option<DateTime>| match (self.each, &self.x_wr_timezone) {
            (true, Some(zone)) => at.map(|a| in_zone(a, zone).unwrap_or(a)),
            _ => at,
        };
        let judged = EventFacts {
            start: local(facts.start),
            end: local(facts.end),
            ..facts.clone()
        };
        let own = self
            .enclosing_drop()
            .or_else(|| self.config.judge(&judged, self.now));
        let occurrence = self.config.occurrence_cause(&facts);
        let (series_cause, when_cause) = if self.each {
            (
                self.enclosing_drop()
                    .or_else(|| self.config.judge_series(&facts)),
                self.config.judge_occurrence(
                    &EventFacts {
                        rrule: None,
                        rdates: Vec::new(),
                        ..judged.clone()
                    },
                    self.now,
                ),
            )
        } else {
            (None, None)
        };
        let series = (self.each || self.count)
            .then_some(facts.start)
            .flatten()
            .map(|start| Series {
                start,
                rrule: facts.rrule.clone(),
                rdates: facts.rdates.clone(),
                exdates: dates("EXDATE"),
                zone: start_zone(&lines),
                length: event_length(&start, facts.end.as_ref(), facts.duration),
            });
        let rid = facts.recurrence_id.as_deref().and_then(parse_date_time);
        let mut tzids = Vec::new();
        let mut floating = false;
        let mut start_tzid = None;
        // Zones matter when events may go (which VTIMEZONEs stay, EXDATEs) or are repaired.
        if self.track_tz {
            for l in &lines {
                let (line, name) = match l {
                    EvLine::Prop(line, _, name) => (line, Some(name)),
                    EvLine::Pass(line) => (line, None),
                    EvLine::End(_) => continue,
                };
                let tzid = tzid_of(line);
                let is_date = name.is_some_and(|n| {
                    n.eq_ignore_ascii_case("DTSTART") || n.eq_ignore_ascii_case("DTEND")
                });
                if is_date {
                    let value = parse_date_time(split_line(&head_text(line)).value);
                    if tzid.is_none() && value.is_some_and(|v| v.time.is_some() && !v.utc) {
                        floating = true;
                    }
                    if name.is_some_and(|n| n.eq_ignore_ascii_case("DTSTART")) {
                        start_tzid.clone_from(&tzid);
                    }
                }
                if let Some(t) = tzid {
                    push_unique(&mut tzids, t);
                }
            }
        }
        self.records.push(EventRecord {
            own,
            occurrence,
            uid: facts.uid,
            is_override: facts.recurrence_id.is_some(),
            tzids,
            floating,
            start_tzid,
            start_days: facts.start.map(|s| s.days),
            series,
            series_cause,
            when_cause,
            rid,
        });
        self.event = lines;
        self.event.clear();
    }
}

impl<'a> Visitor<'a> for Survey<'_, 'a> {
    fn begin(&mut self, line: &LogicalLine<'a>, name: &str) -> Flow {
        // Once per component: filters run their patterns once per event, so this bounds the
        // work done after a stop to one event's.
        if interrupt::check(self.interrupt).is_err() {
            self.interrupted = true;
            return Flow::Break(());
        }
        let in_vevent = self.stack.iter().any(|c| c == "VEVENT");
        if self.in_event {
            self.event.push(EvLine::Pass(*line));
        } else if name == "VEVENT" {
            self.in_event = true;
            self.event.push(EvLine::Pass(*line));
        }
        if name == "VTIMEZONE" {
            self.vtimezone_ids.push(None);
        }
        if (name == "VTODO" || name == "VJOURNAL") && !in_vevent {
            let cause = self
                .enclosing_drop()
                .or_else(|| self.config.judge_component(name));
            self.components.push(cause.is_none());
            self.component_at.push((self.stack.len(), cause));
        } else if name == "VTODO" || name == "VJOURNAL" {
            // Inside an event it shares the event's fate.
            self.components.push(true);
        }
        self.stack.push(name.to_owned());
        GO_ON
    }

    fn end(&mut self, line: Option<&LogicalLine<'a>>, name: &str) -> Flow {
        self.stack.pop();
        if self
            .component_at
            .last()
            .is_some_and(|(depth, _)| *depth == self.stack.len())
        {
            self.component_at.pop();
        }
        if self.in_event {
            match line {
                Some(l) => self.event.push(EvLine::Pass(*l)),
                None => self.event.push(EvLine::End(name.to_owned())),
            }
            if name == "VEVENT" && !self.stack.iter().any(|c| c == "VEVENT") {
                self.in_event = false;
                self.finish_event();
            }
        }
        GO_ON
    }

    fn property(&mut self, line: &LogicalLine<'a>) -> Flow {
        if self.in_event {
            let direct = self.stack.last().is_some_and(|c| c == "VEVENT")
                && self.stack.iter().filter(|c| *c == "VEVENT").count() == 1;
            if direct {
                let name = line_name(line);
                self.event.push(EvLine::Prop(*line, role_of(&name), name));
            } else {
                self.event.push(EvLine::Pass(*line));
            }
            return GO_ON;
        }
        if self.stack.last().is_some_and(|c| c == "VTIMEZONE") {
            if line_name(line).eq_ignore_ascii_case("TZID") {
                // A TEXT value: `Kuala Lumpur\, Singapore` is what events name `Kuala Lumpur, Singapore`.
                let text = ics::text(&line.content()).into_owned();
                let value = ics::line::unescape_text(split_line(&text).value)
                    .trim()
                    .to_owned();
                if let Some(slot) = self.vtimezone_ids.last_mut() {
                    slot.get_or_insert(value);
                }
            }
            return GO_ON;
        }
        if self.stack.len() == 1 && self.stack[0] == "VCALENDAR" {
            if line_name(line).eq_ignore_ascii_case("X-WR-TIMEZONE") {
                let value = ics::line::unescape_text(split_line(&ics::text(&line.content())).value)
                    .trim()
                    .to_owned();
                if !value.is_empty() {
                    self.x_wr_timezone.get_or_insert(value);
                }
            }
            return GO_ON;
        }
        if self.track_tz && !self.in_vtimezone() && self.component_kept() {
            if let Some(t) = tzid_of(line) {
                push_unique(&mut self.other_tzids, t);
            }
        }
        GO_ON
    }
}
