//! The writing pass's side of the options: following the survey's plan (which components are
//! written at all) and the per-event edits of privacy `busy`, alarms and added EXDATEs.

use super::event::{head_text, EvLine, StreamEvent};
use super::survey::Plan;
use crate::config::{AlarmMode, CompiledConfig, Privacy};
use crate::ics::line::{escape_text, split_line};
use crate::ics::line_name;
use crate::interrupt::{Interrupt, Interrupted};
use crate::mapping::MappedField;

/// Direct properties privacy `busy` removes from an event (SUMMARY becomes "Busy").
pub const BUSY_REMOVED: [&str; 14] = [
    "DESCRIPTION",
    "LOCATION",
    "ATTENDEE",
    "ORGANIZER",
    "URL",
    "ATTACH",
    "CONFERENCE",
    "X-ALT-DESC",
    "COMMENT",
    "CONTACT",
    "GEO",
    "RESOURCES",
    "CATEGORIES",
    "IMAGE",
];

/// Sub-components of an event privacy `busy` removes whole (RFC 9073 people, places and
/// resources).
const BUSY_REMOVED_COMPONENTS: [&str; 3] = ["PARTICIPANT", "VLOCATION", "VRESOURCE"];

/// Counters that keep the writing pass in step with the survey's plan.
#[derive(Debug, Default)]
pub(super) struct PlanCursor {
    pub events: usize,
    pub vtimezones: usize,
    pub components: usize,
    /// The index of the event being buffered.
    pub current_event: usize,
    /// Stack depth at which a component that is not written began.
    pub skip_from: Option<usize>,
}

impl PlanCursor {
    /// At a BEGIN line of `name` inside the components `stack`: whether `plan` leaves this
    /// component (or the one around it) out. Counts every component the plan numbers, skipped
    /// or not.
    pub(super) fn skips(&mut self, plan: Option<&Plan>, stack: &[String], name: &str) -> bool {
        let Some(plan) = plan else {
            return false;
        };
        let top_event = name == "VEVENT" && !stack.iter().any(|s| s == "VEVENT");
        let written = match name {
            _ if top_event => {
                self.current_event = self.events;
                self.events += 1;
                plan.events
                    .get(self.current_event)
                    .is_none_or(Option::is_none)
            }
            "VTIMEZONE" => {
                self.vtimezones += 1;
                plan.vtimezones.get(self.vtimezones - 1).is_none_or(|k| *k)
            }
            "VTODO" | "VJOURNAL" => {
                self.components += 1;
                plan.components.get(self.components - 1).is_none_or(|k| *k)
            }
            _ => true,
        };
        if self.skip_from.is_some() {
            return true;
        }
        if !written {
            self.skip_from = Some(stack.len());
        }
        !written
    }

    /// At an END line, `depth` components still open after it: whether it belongs to a
    /// component that is not written.
    pub(super) fn skips_end(&mut self, depth: usize) -> bool {
        let Some(from) = self.skip_from else {
            return false;
        };
        if depth == from {
            self.skip_from = None;
        }
        true
    }
}

/// What happens to one buffered line of an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum LineEdit {
    Keep,
    Drop,
    Replace(String),
}

/// The option edits of one event, beyond the mapping's.
#[derive(Debug, Default)]
pub(super) struct EventEdit {
    /// One per buffered line.
    pub lines: Vec<LineEdit>,
    /// Lines added with the event's new properties (EXDATEs).
    pub additions: Vec<String>,
    /// Lines written just before the event's END (an added VALARM).
    pub before_end: Vec<String>,
    /// Whether the options change the event at all.
    pub changes: bool,
}

/// The edits `config` makes to the buffered event `index` (`None`: none at all); `replace` (the mapping's new lines
/// per field) is updated for privacy, which applies after the mapping. An added alarm renders
/// SUMMARY, which `interrupt` may stop.
pub(super) fn event_edit(
    config: &CompiledConfig,
    plan: &Plan,
    index: usize,
    lines: &[EvLine<'_>],
    view: &StreamEvent<'_, '_>,
    replace: &mut [Option<Option<String>>; 5],
    interrupt: Option<&Interrupt>,
) -> Result<Option<EventEdit>, Interrupted> {
    let busy = config.privacy == Privacy::Busy;
    let exdates = plan.exdates.get(&index);
    let rrule = plan.rrules.get(&index);
    if !busy && config.alarms == AlarmMode::Keep && exdates.is_none() && rrule.is_none() {
        return Ok(None);
    }
    let mut edit = EventEdit {
        lines: vec![LineEdit::Keep; lines.len()],
        ..EventEdit::default()
    };
    if busy {
        replace[MappedField::Summary as usize] = Some(Some("SUMMARY:Busy".to_owned()));
        for f in [MappedField::Description, MappedField::Location] {
            replace[f as usize] = Some(None);
        }
        edit.changes = true;
    }
    if let Some(rrule) = rrule {
        // The series the window ends: its RRULE line gives way to the ended one.
        for (i, l) in lines.iter().enumerate() {
            if matches!(l, EvLine::Prop(_, _, name) if name.eq_ignore_ascii_case("RRULE")) {
                edit.lines[i] = LineEdit::Replace(format!("RRULE:{rrule}"));
                edit.changes = true;
            }
        }
    }
    if let Some(exdates) = exdates {
        edit.additions.extend(exdates.iter().cloned());
        edit.changes = true;
    }
    let drop_alarms = config.alarms != AlarmMode::Keep;
    // Sub-components open inside the event, and the depth from which lines are dropped.
    let mut path: Vec<String> = Vec::new();
    let mut drop_from: Option<usize> = None;
    let last = lines.len().saturating_sub(1);
    for (i, l) in lines.iter().enumerate() {
        if i == 0 || i == last {
            continue;
        }
        let slot = &mut edit.lines[i];
        match l {
            EvLine::Prop(_, _, name) => {
                if busy && BUSY_REMOVED.iter().any(|n| n.eq_ignore_ascii_case(name)) {
                    *slot = LineEdit::Drop;
                }
            }
            EvLine::End(_) => {
                if drop_from.is_some() {
                    *slot = LineEdit::Drop;
                }
                path.pop();
                if drop_from.is_some_and(|d| path.len() <= d) {
                    drop_from = None;
                }
            }
            EvLine::Pass(line) => {
                let name = line_name(line);
                let component = || {
                    split_line(&head_text(line))
                        .value
                        .trim()
                        .to_ascii_uppercase()
                };
                if name.eq_ignore_ascii_case("BEGIN") {
                    let comp = component();
                    let leave_out = (drop_alarms && comp == "VALARM" && path.is_empty())
                        || (busy && BUSY_REMOVED_COMPONENTS.contains(&comp.as_str()));
                    if leave_out && drop_from.is_none() {
                        drop_from = Some(path.len());
                        edit.changes = true;
                    }
                    path.push(comp);
                    if drop_from.is_some() {
                        *slot = LineEdit::Drop;
                    }
                } else if name.eq_ignore_ascii_case("END") {
                    if drop_from.is_some() {
                        *slot = LineEdit::Drop;
                    }
                    path.pop();
                    if drop_from.is_some_and(|d| path.len() <= d) {
                        drop_from = None;
                    }
                } else if drop_from.is_some() {
                    *slot = LineEdit::Drop;
                } else if busy && path.last().is_some_and(|c| c == "VALARM") {
                    // A kept alarm says "Busy" too, and names no one.
                    if name.eq_ignore_ascii_case("DESCRIPTION")
                        || name.eq_ignore_ascii_case("SUMMARY")
                    {
                        *slot = LineEdit::Replace(format!("{}:Busy", name.to_ascii_uppercase()));
                    } else if BUSY_REMOVED.iter().any(|n| n.eq_ignore_ascii_case(&name)) {
                        *slot = LineEdit::Drop;
                    }
                }
            }
        }
    }
    if let AlarmMode::AddMinutesBefore(minutes) = config.alarms {
        let summary = if busy {
            "Busy".to_owned()
        } else if config.mapping.is_identity(MappedField::Summary) {
            view.property("SUMMARY")
                .map(|s| s.trim().to_owned())
                .unwrap_or_default()
        } else {
            config
                .mapping
                .render_with(MappedField::Summary, view, interrupt)?
        };
        let description = if summary.is_empty() {
            "Reminder".to_owned()
        } else {
            summary
        };
        edit.before_end = vec![
            "BEGIN:VALARM".to_owned(),
            "ACTION:DISPLAY".to_owned(),
            format!("DESCRIPTION:{}", escape_text(&description)),
            format!("TRIGGER:-PT{minutes}M"),
            "END:VALARM".to_owned(),
        ];
        edit.changes = true;
    }
    Ok(Some(edit))
}
