//! Remapping a feed: streams the input back out, copying every line it does not have to change
//! and rewriting only the mapped properties of each VEVENT, within an output limit. A config
//! with filters or a window first surveys the feed (`survey`), then the writing pass
//! (`writing`) writes what it keeps. What a remap is asked and how it fails: `request`.

mod dates;
mod event;
mod occurrences;
mod options;
mod overrides;
mod properties;
mod request;
mod survey;
mod writer;
mod writing;

use std::io::Write;

use crate::config::{CompiledConfig, TimezoneMode};
use crate::ics::line::escape_text;
use crate::ics::{self, Limits, Warning, Warnings};
use crate::interrupt;
pub use crate::mapping::{CompiledMapping, MappedField, Mapping};
use crate::tz::{self, TzPlan, TzUse};
pub use occurrences::{KeptWhole, OccurrenceCount, COUNT_DAYS, MAX_ADDED_EXDATES};
use options::PlanCursor;
pub use options::BUSY_REMOVED;
pub use overrides::unmatched_overrides;
pub use request::{output_limit, RemapError, RemapOptions, MAX_OUTPUT_BYTES};
pub use survey::{decide, decide_counting, Decision};
use survey::{survey, Plan};
pub use writer::format_duration;
use writer::Writer;
use writing::RemapVisitor;

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
        Some(survey(input, config, options, limits, false)?)
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

#[cfg(test)]
mod tests;
