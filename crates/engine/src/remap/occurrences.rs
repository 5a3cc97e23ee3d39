//! Filters that judge each occurrence (`occurrences: "each"`): which occurrences of a series the
//! rules on when an event happens and the window drop (they become EXDATEs, within a bound),
//! where a series that outlasts the window ends, and which series are too long to judge one by
//! one (kept whole, and said so). Also the preview's count of occurrences in the window.

use crate::config::matching::{Cause, EventFacts, ZONE_SLACK};
use crate::config::occurrences::{in_zone, Series, ENDLESS_SAMPLE, MAX_EXPANDED};
use crate::config::window::DateTime;
use crate::config::CompiledConfig;

/// At most this many EXDATEs are added to one series; past it the series is kept whole.
pub const MAX_ADDED_EXDATES: usize = 250;

/// How far the preview counts occurrences on a side the window leaves open (days).
pub const COUNT_DAYS: i64 = 365;

/// Why a series is kept whole rather than judged occurrence by occurrence (the editor says it,
/// with the way out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeptWhole {
    /// It repeats without end and the window sets no end ("Days ahead"): the occurrences the
    /// filters drop never stop, so they cannot all be removed.
    Endless,
    /// The filters drop more of its occurrences than are removed one by one
    /// ([`MAX_ADDED_EXDATES`]), or it has more before the window's end than are looked at.
    TooMany,
    /// Its repeat rule could not be followed (one this engine cannot read, or the feed's
    /// allowance for following repeat rules is spent).
    Unfollowed,
}

/// What the filters make of one series whose occurrences are judged one by one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SeriesVerdict {
    /// Why the whole series goes (no occurrence kept), `None` when it stays.
    pub cause: Option<Cause>,
    /// Occurrences to remove, as DTSTART is written.
    pub exdates: Vec<DateTime>,
    /// The RRULE value that ends the series at the window's end, when it outlasts it.
    pub rrule: Option<String>,
    /// Occurrences the filters drop from the window's start on (those removed, or those that
    /// would be when `whole`); those before it are left as they are, out of sight.
    pub dropped: usize,
    /// Why the series stays whole, when it does (it drops occurrences it cannot remove).
    pub whole: Option<KeptWhole>,
}

/// One RECURRENCE-ID instance of the series: when it was to happen (wall clock, like DTSTART),
/// and whether it is kept.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Instance {
    pub at: DateTime,
    pub kept: bool,
}

/// Judges every occurrence of `series` (whose properties passed the rules), its instances
/// judged already, looking at no more occurrences than `budget` has left (and taking them from
/// it). `None` when its RRULE cannot be read or the budget is spent: it is then judged whole,
/// as before.
pub(crate) fn judge_series(
    config: &CompiledConfig,
    now: Option<i64>,
    series: &Series,
    instances: &[Instance],
    calendar_zone: Option<&str>,
    budget: &mut usize,
) -> Option<SeriesVerdict> {
    let span = now.and_then(|n| config.window_span(n));
    let slack = if series.start.utc { 0 } else { ZONE_SLACK };
    // Occurrences after the window's end go; the series is ended there rather than expanded.
    let limit = span
        .map(|(_, to)| to)
        .filter(|to| *to < i64::MAX / 4)
        .map(|to| to + slack);
    // Without an end to reach, a sample tells whether the rules drop any occurrence.
    let cap = if limit.is_none() && series.endless() {
        ENDLESS_SAMPLE
    } else {
        MAX_EXPANDED
    };
    if *budget == 0 {
        return None;
    }
    let expansion = series.expand(limit, cap.min(*budget))?;
    *budget = budget.saturating_sub(expansion.starts.len());
    if expansion.capped && *budget == 0 {
        // Cut short by the feed's budget, not by the series' own bound: not judged.
        return None;
    }
    let overridden: Vec<i64> = instances
        .iter()
        .map(|i| series.wall(i.at).seconds())
        .collect();
    let mut first_cause = None;
    let mut required = Vec::new();
    let mut last_kept: Option<DateTime> = None;
    for &at in &expansion.starts {
        if overridden.contains(&at.seconds()) {
            continue;
        }
        // A UTC time is judged on the calendar's clock (X-WR-TIMEZONE), as its readers show it.
        let local = calendar_zone.and_then(|z| in_zone(at, z)).unwrap_or(at);
        let facts = EventFacts {
            start: Some(local),
            duration: Some(series.length),
            ..EventFacts::default()
        };
        match config.judge_occurrence(&facts, now) {
            None => last_kept = Some(at),
            Some(cause) => {
                first_cause.get_or_insert(cause);
                // Before the window's start an occurrence is out of sight: an EXDATE for it
                // would only make the feed larger (the window is there to make it smaller).
                let before =
                    span.is_some_and(|(from, _)| at.seconds() + series.length + slack < from);
                if !before {
                    required.push(at);
                }
            }
        }
    }
    for instance in instances {
        if instance.kept {
            let at = series.wall(instance.at);
            if last_kept.is_none_or(|l| l.seconds() < at.seconds()) {
                last_kept = Some(series.at(at.seconds()));
            }
        } else {
            // The instance goes: the occurrence it replaced must not come back.
            required.push(instance.at);
        }
    }
    let Some(last) = last_kept else {
        return Some(SeriesVerdict {
            cause: Some(first_cause.unwrap_or(crate::config::matching::Cause::Window)),
            ..SeriesVerdict::default()
        });
    };
    let dropped = required.len();
    // Ending the series after its last kept occurrence needs the whole of it up to the window's
    // end. UNTIL goes just before the next occurrence (or at the limit, which the next one is
    // past), not on the last one: readers that compare a DATE UNTIL with a zoned start keep it.
    let rrule = match (limit, expansion.more, expansion.capped) {
        (Some(limit), true, false) => {
            let next = expansion
                .starts
                .iter()
                .map(DateTime::seconds)
                .find(|s| *s > last.seconds());
            let until = match (next, series.start.time) {
                (Some(n), Some(_)) => n - 1,
                (Some(n), None) => (n - 86_400).max(last.seconds()),
                (None, _) => limit,
            };
            series.ended_at(series.at(until))
        }
        _ => None,
    };
    if rrule.is_some() {
        required.retain(|at| at.seconds() <= last.seconds());
    }
    let judged_all = !expansion.capped && (rrule.is_some() || !expansion.more);
    let whole = if required.is_empty() || (judged_all && required.len() <= MAX_ADDED_EXDATES) {
        None
    } else if !judged_all && limit.is_none() && series.endless() {
        Some(KeptWhole::Endless)
    } else {
        Some(KeptWhole::TooMany)
    };
    let mut exdates = Vec::new();
    if whole.is_none() {
        exdates = required;
        exdates.sort_by_key(DateTime::seconds);
    }
    Some(SeriesVerdict {
        cause: None,
        exdates,
        rrule,
        dropped,
        whole,
    })
}

/// How many occurrences of kept events fall in the window (or, on a side it leaves open,
/// within [`COUNT_DAYS`] of now), for the preview.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OccurrenceCount {
    pub count: usize,
    /// The span counted, seconds (wall clock read as UTC).
    pub from: i64,
    pub to: i64,
    /// Some series had more occurrences in the span than are looked at: the count is a floor.
    pub capped: bool,
}

impl OccurrenceCount {
    pub(crate) fn new(config: &CompiledConfig, now: i64) -> OccurrenceCount {
        let open = (now - COUNT_DAYS * 86_400, now + COUNT_DAYS * 86_400);
        let (from, to) = config.window_span(now).unwrap_or(open);
        OccurrenceCount {
            count: 0,
            from: from.max(open.0),
            to: to.min(open.1),
            capped: false,
        }
    }

    fn overlaps(&self, start: i64, length: i64) -> bool {
        start <= self.to && start + length >= self.from
    }

    /// Counts one kept event: a single one, or a series less its removed occurrences and those
    /// its instances (counted on their own) replace.
    pub(crate) fn add(
        &mut self,
        series: &Series,
        removed: &[DateTime],
        replaced: &[DateTime],
        budget: &mut usize,
    ) {
        if !series.recurs() {
            self.count += usize::from(self.overlaps(series.start.seconds(), series.length));
            return;
        }
        let expansion = (*budget > 0)
            .then(|| series.expand(Some(self.to), (*budget).min(MAX_EXPANDED)))
            .flatten();
        let Some(expansion) = expansion else {
            self.capped |= *budget == 0;
            self.count += usize::from(self.overlaps(series.start.seconds(), series.length));
            return;
        };
        *budget = budget.saturating_sub(expansion.starts.len());
        self.capped |= expansion.capped;
        let gone: Vec<i64> = removed
            .iter()
            .chain(replaced)
            .map(|d| series.wall(*d).seconds())
            .collect();
        self.count += expansion
            .starts
            .iter()
            .map(DateTime::seconds)
            .filter(|s| !gone.contains(s) && self.overlaps(*s, series.length))
            .count();
    }
}
