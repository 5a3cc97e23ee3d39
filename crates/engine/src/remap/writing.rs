//! The writing pass: a visitor of the walk that copies what it may, buffers each VEVENT, and
//! writes it with the mapping's new lines and the options' edits, following the survey's plan.

use std::io::Write;

use super::dates::{added_date_params, date_params, date_value, raw_params, truncate_for_message};
use super::event::{head_text, role_of, EvLine, Role, StreamEvent};
use super::options::{event_edit, EventEdit, LineEdit, PlanCursor};
use super::overrides::apply_edits;
use super::properties::{property_edits, PropertyEdit};
use super::request::RemapOptions;
use super::survey::Plan;
use super::writer::Writer;
use crate::config::CompiledConfig;
use crate::ics::lexer::LogicalLine;
use crate::ics::line::escape_text_into;
use crate::ics::{line_name, Flow, Visitor, GO_ON};
use crate::interrupt::{self, Interrupted};
use crate::mapping::{CompiledMapping, MappedField};

pub(super) struct RemapVisitor<'m, 'a, 'w, W: Write> {
    pub(super) mapping: &'m CompiledMapping,
    pub(super) config: &'m CompiledConfig,
    /// The survey's decisions, when the config has options.
    pub(super) plan: Option<&'m Plan>,
    pub(super) cursor: PlanCursor,
    pub(super) options: &'m RemapOptions,
    /// The interrupt was found stopped: the walk ends and the remap fails.
    pub(super) interrupted: bool,
    /// The mapping changes nothing: every line streams straight through.
    pub(super) passthrough: bool,
    pub(super) stack: Vec<String>,
    /// Calendar properties the options set: (name, line).
    pub(super) managed: Vec<(&'static str, String)>,
    pub(super) managed_written: Vec<bool>,
    pub(super) event: Vec<EvLine<'a>>,
    pub(super) in_event: bool,
    pub(super) event_warnings: Vec<(u32, String)>,
    pub(super) changed_events: usize,
    pub(super) w: &'w mut Writer<'a, W>,
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
        let view = StreamEvent::new(lines, self.config.needed());
        let begin_line = match lines.first() {
            Some(EvLine::Pass(l)) => l.line_no,
            _ => 0,
        };
        // Replacement line for each field that changes: None = drop other occurrences too.
        let mut replace: [Option<Option<String>>; 5] = Default::default();
        // The mapped value of each field the mapping changed, for edits made by hand.
        let mut rendered_values: [Option<String>; 5] = Default::default();
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
                rendered_values[field as usize] = Some(value);
            } else {
                if first.is_none() && rendered.is_empty() {
                    continue;
                }
                let params = first.as_deref().map_or("", raw_params);
                // Built by hand rather than with `format!`, which showed in the profile.
                let name = field.name();
                let mut line =
                    String::with_capacity(name.len() + params.len() + rendered.len() + 24);
                line.push_str(name);
                line.push_str(params);
                line.push(':');
                escape_text_into(&mut line, &rendered);
                replace[field as usize] = Some(Some(line));
                rendered_values[field as usize] = Some(rendered);
            }
            changed = true;
        }
        // Events changed by hand, after the mapping.
        changed |= !apply_edits(self.config, &view, &mut replace, &rendered_values).is_empty();
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
        // The properties beyond the five, after the mapping and privacy.
        let set: Vec<PropertyEdit> = if self.config.properties.is_empty() {
            Vec::new()
        } else {
            property_edits(
                self.config,
                &view,
                begin_line,
                &mut self.event_warnings,
                interrupt,
            )?
        };
        changed |= !set.is_empty();
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
        // Which of `set` are written yet: each at its first line, or added when the event has
        // none.
        let mut set_done = vec![false; set.len()];
        for (p, done) in set.iter().zip(set_done.iter_mut()) {
            if !view.props().any(|(_, _, n)| n.eq_ignore_ascii_case(p.name)) {
                *done = true;
                if let Some(line) = &p.line {
                    additions.push(line.clone());
                }
            }
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
                EvLine::Prop(line, role, name) => match role {
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
                    Role::Other if !set.is_empty() => {
                        match set.iter().position(|p| p.name.eq_ignore_ascii_case(name)) {
                            None => self.w.original(line),
                            Some(j) => {
                                if !set_done[j] {
                                    set_done[j] = true;
                                    if let Some(new) = &set[j].line {
                                        self.w.text_line(new.as_bytes());
                                    }
                                }
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
