//! Remapping a feed: streams the input back out, copying every line it does not have to change
//! and rewriting only the mapped properties of each VEVENT, within an output limit. A config
//! with filters or a window first surveys the feed (`survey`), then writes what it keeps.

mod dates;
mod event;
mod options;
mod survey;
mod writer;

use std::io::{self, Write};
use std::time::Duration;

use crate::config::{CompiledConfig, TimezoneMode};
use crate::ics::lexer::LogicalLine;
use crate::ics::line::escape_text;
use crate::ics::{self, line_name, Flow, Limits, ParseError, Visitor, Warning, Warnings, GO_ON};
use crate::interrupt::{self, Interrupt, Interrupted};
pub use crate::mapping::{CompiledMapping, MappedField, Mapping};
use dates::{added_date_params, date_params, date_value, raw_params, truncate_for_message};
use event::{head_text, role_of, EvLine, Role, StreamEvent};
pub use options::BUSY_REMOVED;
use options::{event_edit, EventEdit, LineEdit, PlanCursor};
pub use survey::{decide, Decision};
use survey::{survey, Plan};
use writer::Writer;

use crate::tz::{self, TzPlan, TzUse};
pub use writer::format_duration;

/// What the server adds to a hosted feed besides the mapping.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RemapOptions {
    /// Sets X-WR-CALNAME and NAME of each VCALENDAR.
    pub calendar_name: Option<String>,
    /// Sets REFRESH-INTERVAL;VALUE=DURATION and X-PUBLISHED-TTL.
    pub refresh_interval: Option<Duration>,
    /// Added to the SEQUENCE (0 when absent) of every event the mapping changed, so that
    /// clients that cache by SEQUENCE pick up the edit.
    pub sequence_offset: u32,
    /// Largest output allowed; past it the remap stops with [`RemapError::TooLarge`] (the
    /// server sets [`output_limit`] of the input; the command line leaves it unset).
    pub max_output_bytes: Option<usize>,
    /// The time of the render (unix seconds), which a config's window counts from; `None`
    /// applies no window.
    pub now: Option<i64>,
    /// Stops the remap (and `decide`) with [`RemapError::Interrupted`] once stopped: the
    /// server's time budget for the request. `None` never stops.
    pub interrupt: Option<Interrupt>,
}

/// Absolute cap on a hosted feed's remapped size.
pub const MAX_OUTPUT_BYTES: usize = 32 << 20;

/// The largest remapped feed allowed for an input of `input_len` bytes: four times the input
/// plus 1 MiB (room for any sensible mapping), and never more than [`MAX_OUTPUT_BYTES`].
pub fn output_limit(input_len: usize) -> usize {
    input_len
        .saturating_mul(4)
        .saturating_add(1 << 20)
        .min(MAX_OUTPUT_BYTES)
}

/// The remapped feed and what happened on the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemapOutput {
    pub bytes: Vec<u8>,
    pub warnings: Vec<Warning>,
    pub event_count: usize,
    /// Events in which at least one mapped property (or an option) changed.
    pub changed_events: usize,
    /// Events written (all of them unless filters or a window dropped some).
    pub kept_events: usize,
}

/// Counts from `remap_into`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemapStats {
    pub warnings: Vec<Warning>,
    pub event_count: usize,
    pub changed_events: usize,
    pub kept_events: usize,
}

/// Why `remap_into` stopped.
#[derive(Debug, thiserror::Error)]
pub enum RemapError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error("writing the feed failed: {0}")]
    Io(#[from] io::Error),
    /// The output would pass `RemapOptions::max_output_bytes`; `field` is the mapped field whose
    /// rendered values took the most room (the one to fix).
    #[error("{field}: the mapping makes the feed larger than {limit} bytes (its rendered values take {field_bytes} bytes before the limit is reached)")]
    TooLarge {
        limit: usize,
        field: &'static str,
        field_bytes: usize,
    },
    /// [`RemapOptions::interrupt`] was stopped: the work took longer than its budget.
    #[error("the engine's time for this request ran out: simplify the mapping's patterns or filters, or use a smaller feed")]
    Interrupted,
}

impl From<Interrupted> for RemapError {
    fn from(_: Interrupted) -> RemapError {
        RemapError::Interrupted
    }
}

/// Remaps a whole feed in memory.
pub fn remap(
    input: &[u8],
    config: &CompiledConfig,
    options: &RemapOptions,
    limits: &Limits,
) -> Result<RemapOutput, RemapError> {
    let reserve = input.len() + input.len() / 16 + 256;
    let reserve = options
        .max_output_bytes
        .map_or(reserve, |max| reserve.min(max));
    let mut bytes = Vec::with_capacity(reserve);
    let stats = remap_into(input, config, options, limits, &mut bytes)?;
    Ok(RemapOutput {
        bytes,
        warnings: stats.warnings,
        event_count: stats.event_count,
        changed_events: stats.changed_events,
        kept_events: stats.kept_events,
    })
}

/// Remaps a feed, streaming the output into `out` (the CLI writes straight to stdout so that
/// memory stays near the input size). On a parse error or an interrupt the output written so
/// far is incomplete. A config with options first surveys the feed (what filters and the window
/// keep), then writes.
pub fn remap_into<W: Write>(
    input: &[u8],
    config: &CompiledConfig,
    options: &RemapOptions,
    limits: &Limits,
    out: W,
) -> Result<RemapStats, RemapError> {
    // A request whose time is already gone gets no work at all.
    interrupt::check(options.interrupt.as_ref())?;
    let mapping = config.mapping();
    // Privacy and alarms alone decide nothing per feed: only filters, a window or the repair
    // need the first pass.
    let mut plan = if config.may_drop() || config.timezones == TimezoneMode::Repair {
        Some(survey(input, config, options, limits)?)
    } else if config.has_options() {
        Some(Plan::keep_all())
    } else {
        None
    };
    let mut warnings = Warnings::default();
    // Time-zone repair: decided from what the survey found kept events use, applied to every
    // line as it is written.
    let tz_repair = match plan.as_mut() {
        Some(plan) if config.timezones == TimezoneMode::Repair => {
            Some(repair_plan(plan, &mut warnings))
        }
        _ => None,
    };
    let mut managed = Vec::new();
    if let Some(name) = &options.calendar_name {
        let v = escape_text(name);
        managed.push(("X-WR-CALNAME", format!("X-WR-CALNAME:{v}")));
        managed.push(("NAME", format!("NAME:{v}")));
    }
    if let Some(interval) = options.refresh_interval {
        let d = format_duration(interval);
        managed.push((
            "REFRESH-INTERVAL",
            format!("REFRESH-INTERVAL;VALUE=DURATION:{d}"),
        ));
        managed.push(("X-PUBLISHED-TTL", format!("X-PUBLISHED-TTL:{d}")));
    }
    let mut writer = Writer {
        input,
        out,
        pending: None,
        error: None,
        scratch: Vec::new(),
        written: 0,
        limit: options.max_output_bytes.unwrap_or(usize::MAX),
        over: false,
        field_bytes: [0; 5],
        in_vtimezone: false,
        vtimezones_to_add: Vec::new(),
        tz: None,
    };
    if let Some(repair) = tz_repair {
        writer.vtimezones_to_add = repair.add.into_iter().map(|(_, text)| text).collect();
        writer.tz = Some(repair.rewrite).filter(|r| !r.is_empty());
    }
    let mut visitor = RemapVisitor {
        mapping,
        config,
        plan: plan.as_ref(),
        cursor: PlanCursor::default(),
        options,
        interrupted: false,
        passthrough: config.is_default(),
        stack: Vec::new(),
        managed,
        managed_written: Vec::new(),
        event: Vec::new(),
        in_event: false,
        event_warnings: Vec::new(),
        changed_events: 0,
        w: &mut writer,
    };
    let stats = ics::walk(input, limits, &mut visitor, &mut warnings)?;
    if visitor.interrupted {
        return Err(RemapError::Interrupted);
    }
    let changed_events = visitor.changed_events;
    let event_warnings = std::mem::take(&mut visitor.event_warnings);
    writer.flush_pending();
    if writer.over {
        let (i, field_bytes) = writer
            .field_bytes
            .iter()
            .copied()
            .enumerate()
            .max_by_key(|(_, n)| *n)
            .unwrap_or((0, 0));
        return Err(RemapError::TooLarge {
            limit: writer.limit,
            field: MappedField::ALL[i].name(),
            field_bytes,
        });
    }
    if let Some(e) = writer.error.take() {
        return Err(RemapError::Io(e));
    }
    writer.out.flush()?;
    for (line, message) in event_warnings {
        warnings.push(line, message);
    }
    let mut list = warnings.finish();
    list.sort_by_key(|w| if w.line == 0 { u32::MAX } else { w.line });
    Ok(RemapStats {
        warnings: list,
        event_count: stats.events,
        changed_events,
        kept_events: plan
            .as_ref()
            .filter(|p| p.surveyed)
            .map_or(stats.events, |p| p.kept_events),
    })
}

/// The time-zone repair for a surveyed feed: what to rename and add, with the VTIMEZONEs that
/// a rename makes duplicates left out of the plan; unresolved zones become warnings.
fn repair_plan(plan: &mut Plan, warnings: &mut Warnings) -> TzPlan {
    let facts = &plan.tz;
    let year = facts.first_year.unwrap_or(i32::MAX);
    let used = TzUse {
        used: facts.used.iter().map(|t| (t.clone(), year)).collect(),
        defined: facts.vtimezone_ids.clone(),
        floating: (facts.floating_events > 0).then_some(year),
        x_wr_timezone: facts.x_wr_timezone.clone(),
        in_calendar: true,
    };
    let repair = tz::plan(&used);
    for &i in &repair.drop_vtimezones {
        if let Some(written) = plan.vtimezones.get_mut(i) {
            *written = false;
        }
    }
    for message in &repair.warnings {
        warnings.push(0, message.clone());
    }
    repair
}

struct RemapVisitor<'m, 'a, 'w, W: Write> {
    mapping: &'m CompiledMapping,
    config: &'m CompiledConfig,
    /// The survey's decisions, when the config has options.
    plan: Option<&'m Plan>,
    cursor: PlanCursor,
    options: &'m RemapOptions,
    /// The interrupt was found stopped: the walk ends and the remap fails.
    interrupted: bool,
    /// The mapping changes nothing: every line streams straight through.
    passthrough: bool,
    stack: Vec<String>,
    /// Calendar properties the options set: (name, line).
    managed: Vec<(&'static str, String)>,
    managed_written: Vec<bool>,
    event: Vec<EvLine<'a>>,
    in_event: bool,
    event_warnings: Vec<(u32, String)>,
    changed_events: usize,
    w: &'w mut Writer<'a, W>,
}

impl<'a, W: Write> RemapVisitor<'_, 'a, '_, W> {
    fn flow(&self) -> Flow {
        if self.w.stopped() || self.interrupted {
            Flow::Break(())
        } else {
            GO_ON
        }
    }

    fn in_calendar_header(&self) -> bool {
        self.stack.len() == 1 && self.stack[0] == "VCALENDAR"
    }

    fn write_unwritten_managed(&mut self) {
        for i in 0..self.managed.len() {
            if !self.managed_written[i] {
                self.managed_written[i] = true;
                let line = self.managed[i].1.clone();
                self.w.text_line(line.as_bytes());
            }
        }
    }

    /// Decides what the mapping does to the buffered event and writes it; an interrupt while
    /// rendering leaves it unwritten and stops the walk.
    fn finish_event(&mut self) {
        let lines = std::mem::take(&mut self.event);
        if !self.w.stopped() && !self.interrupted {
            if let Err(Interrupted) = self.write_event(&lines) {
                self.interrupted = true;
            }
        }
        self.event = lines;
        self.event.clear();
    }

    fn write_event(&mut self, lines: &[EvLine<'a>]) -> Result<(), Interrupted> {
        let interrupt = self.options.interrupt.as_ref();
        let view = StreamEvent::new(lines, &self.mapping.needed);
        let begin_line = match lines.first() {
            Some(EvLine::Pass(l)) => l.line_no,
            _ => 0,
        };
        // Replacement line for each field that changes: None = drop other occurrences too.
        let mut replace: [Option<Option<String>>; 5] = Default::default();
        let mut changed = false;
        for field in MappedField::ALL {
            if self.mapping.is_identity(field) {
                continue;
            }
            let rendered = self.mapping.render_with(field, &view, interrupt)?;
            let original = view.property(field.name());
            if rendered == original.as_deref().unwrap_or("").trim() {
                continue;
            }
            let first = view
                .props()
                .find(|(_, r, _)| *r == Role::Mapped(field))
                .map(|(l, _, _)| head_text(l));
            if field.is_date() {
                let Some((value, is_date, utc)) = date_value(&rendered) else {
                    if !rendered.is_empty() || first.is_some() {
                        self.event_warnings.push((
                            begin_line,
                            format!(
                                "{} template gave {:?}, not a DATE or DATE-TIME: kept the original",
                                field.name(),
                                truncate_for_message(&rendered)
                            ),
                        ));
                    }
                    continue;
                };
                let params = match first.as_deref() {
                    Some(t) => date_params(t, is_date, utc),
                    None => added_date_params(field, &view, is_date, utc),
                };
                replace[field as usize] = Some(Some(format!("{}{params}:{value}", field.name())));
            } else {
                if first.is_none() && rendered.is_empty() {
                    continue;
                }
                let params = first.as_deref().map_or("", raw_params);
                replace[field as usize] = Some(Some(format!(
                    "{}{params}:{}",
                    field.name(),
                    escape_text(&rendered)
                )));
            }
            changed = true;
        }
        let edit: Option<EventEdit> = match self.plan {
            Some(plan) => event_edit(
                self.config,
                plan,
                self.cursor.current_event,
                lines,
                &view,
                &mut replace,
                interrupt,
            )?,
            None => None,
        };
        changed |= edit.as_ref().is_some_and(|e| e.changes);
        if changed {
            self.changed_events += 1;
        }
        // The HTML twin of DESCRIPTION goes only when DESCRIPTION really changed.
        let drop_alt = replace[MappedField::Description as usize].is_some();
        // A written DTEND replaces DURATION: an event may not have both.
        let drop_duration = replace[MappedField::Dtend as usize].is_some();
        let mut sequence = None;
        if changed && self.options.sequence_offset > 0 {
            let original = view.property("SEQUENCE");
            let n = original
                .as_deref()
                .and_then(|s| s.trim().parse::<u64>().ok())
                .unwrap_or(0);
            sequence = Some(format!(
                "SEQUENCE:{}",
                n.saturating_add(u64::from(self.options.sequence_offset))
            ));
        }
        // Lines for properties the event did not have go before its first sub-component.
        let mut additions: Vec<String> = Vec::new();
        for field in MappedField::ALL {
            if let Some(Some(line)) = &replace[field as usize] {
                if !view.props().any(|(_, r, _)| r == Role::Mapped(field)) {
                    self.w.field_bytes[field as usize] += line.len();
                    additions.push(line.clone());
                }
            }
        }
        if let Some(seq) = &sequence {
            if !view.props().any(|(_, r, _)| r == Role::Sequence) {
                additions.push(seq.clone());
            }
        }
        if let Some(e) = &edit {
            additions.extend(e.additions.iter().cloned());
        }
        let insert_at = lines
            .iter()
            .enumerate()
            .skip(1)
            .find(|(_, l)| !matches!(l, EvLine::Prop(..)))
            .map_or(lines.len(), |(i, _)| i);
        let mut sequence_done = false;
        for (i, l) in lines.iter().enumerate() {
            if i == insert_at {
                for a in additions.drain(..) {
                    self.w.text_line(a.as_bytes());
                }
            }
            if let Some(e) = &edit {
                if i + 1 == lines.len() {
                    for a in &e.before_end {
                        self.w.text_line(a.as_bytes());
                    }
                }
                match &e.lines[i] {
                    LineEdit::Keep => {}
                    LineEdit::Drop => continue,
                    LineEdit::Replace(new) => {
                        self.w.text_line(new.as_bytes());
                        continue;
                    }
                }
            }
            match l {
                EvLine::Pass(line) => self.w.original(line),
                EvLine::End(name) => self.w.text_line(format!("END:{name}").as_bytes()),
                EvLine::Prop(line, role, _) => match role {
                    Role::Mapped(f) => match &mut replace[*f as usize] {
                        None => self.w.original(line),
                        Some(slot) => {
                            if let Some(new) = slot.take() {
                                self.w.field_bytes[*f as usize] += new.len();
                                self.w.text_line(new.as_bytes());
                            }
                        }
                    },
                    Role::AltDesc if drop_alt => {}
                    Role::Duration if drop_duration => {}
                    Role::Sequence if sequence.is_some() => {
                        if !sequence_done {
                            sequence_done = true;
                            if let Some(seq) = &sequence {
                                self.w.text_line(seq.as_bytes());
                            }
                        }
                    }
                    _ => self.w.original(line),
                },
            }
        }
        for a in additions {
            self.w.text_line(a.as_bytes());
        }
        Ok(())
    }
}

impl<'a, W: Write> RemapVisitor<'_, 'a, '_, W> {
    fn on_begin(&mut self, line: &LogicalLine<'a>, name: &str) {
        // Once per component: often enough to stop soon, never inside one line's work.
        if interrupt::check(self.options.interrupt.as_ref()).is_err() {
            self.interrupted = true;
            return;
        }
        if self.in_calendar_header() {
            self.write_unwritten_managed();
            self.w.added_vtimezones();
        }
        if name == "VCALENDAR" && self.stack.is_empty() {
            self.managed_written = vec![false; self.managed.len()];
        }
        if self.cursor.skips(self.plan, &self.stack, name) {
            self.stack.push(name.to_owned());
            return;
        }
        self.stack.push(name.to_owned());
        if name == "VTIMEZONE" {
            self.w.in_vtimezone = true;
        }
        if self.in_event {
            self.event.push(EvLine::Pass(*line));
        } else if name == "VEVENT" && !self.passthrough {
            self.in_event = true;
            self.event.push(EvLine::Pass(*line));
        } else {
            self.w.original(line);
        }
    }

    fn on_end(&mut self, line: Option<&LogicalLine<'a>>, name: &str) {
        if self.in_calendar_header() && name == "VCALENDAR" {
            self.write_unwritten_managed();
            self.w.added_vtimezones();
        }
        self.stack.pop();
        if name == "VTIMEZONE" {
            self.w.in_vtimezone = false;
        }
        if self.cursor.skips_end(self.stack.len()) {
            return;
        }
        if self.in_event {
            match line {
                Some(l) => self.event.push(EvLine::Pass(*l)),
                None => self.event.push(EvLine::End(name.to_owned())),
            }
            // The event ends when no VEVENT is left open at its level.
            if name == "VEVENT" && !self.stack.iter().any(|c| c == "VEVENT") {
                self.in_event = false;
                self.finish_event();
            }
            return;
        }
        match line {
            Some(l) => self.w.original(l),
            None => self.w.text_line(format!("END:{name}").as_bytes()),
        }
    }

    fn on_property(&mut self, line: &LogicalLine<'a>) {
        if self.cursor.skip_from.is_some() {
            return;
        }
        if self.in_event {
            let direct = self.stack.last().is_some_and(|c| c == "VEVENT")
                && self.stack.iter().filter(|c| *c == "VEVENT").count() == 1;
            if direct {
                let name = line_name(line);
                self.event.push(EvLine::Prop(*line, role_of(&name), name));
            } else {
                self.event.push(EvLine::Pass(*line));
            }
            return;
        }
        if !self.managed.is_empty() && self.in_calendar_header() {
            let name = line_name(line);
            if let Some(i) = self
                .managed
                .iter()
                .position(|(n, _)| n.eq_ignore_ascii_case(&name))
            {
                if !self.managed_written[i] {
                    self.managed_written[i] = true;
                    let new = self.managed[i].1.clone();
                    self.w.text_line(new.as_bytes());
                }
                return;
            }
        }
        self.w.original(line);
    }
}

/// The walk stops as soon as the writer has (an I/O error or the output limit): no work is done
/// for output that cannot be written.
impl<'a, W: Write> Visitor<'a> for RemapVisitor<'_, 'a, '_, W> {
    fn begin(&mut self, line: &LogicalLine<'a>, name: &str) -> Flow {
        self.on_begin(line, name);
        self.flow()
    }

    fn end(&mut self, line: Option<&LogicalLine<'a>>, name: &str) -> Flow {
        self.on_end(line, name);
        self.flow()
    }

    fn property(&mut self, line: &LogicalLine<'a>) -> Flow {
        self.on_property(line);
        self.flow()
    }
}

#[cfg(test)]
mod tests;
