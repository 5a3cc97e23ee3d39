//! Judging one event by a compiled config: the few facts filters read, each rule's test, the
//! window, and the words of a drop reason. Both the survey pass and `decide` use this.

use super::compile::{CompiledConfig, Test};
use super::schema::FilterAction;
use super::window::{event_length, series_end, DateTime, SeriesEnd};

/// What the filters and the window read of one VEVENT (its direct properties only).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct EventFacts {
    /// The value of each of [`CompiledConfig::property_names`], "" when absent.
    pub values: Vec<String>,
    pub start: Option<DateTime>,
    pub end: Option<DateTime>,
    /// DURATION in seconds.
    pub duration: Option<i64>,
    /// Upper-case, trimmed.
    pub status: Option<String>,
    pub uid: Option<String>,
    /// The RECURRENCE-ID value, upper-case and trimmed.
    pub recurrence_id: Option<String>,
    pub rrule: Option<String>,
    pub rdates: Vec<DateTime>,
}

/// Why an event is dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cause {
    /// The filter at this index (0-based).
    Rule(usize),
    Window,
}

/// Wall-clock times in a zone this engine does not resolve may sit up to 14 hours from UTC:
/// the window is widened by that much so that it never drops an event it should keep.
pub(crate) const ZONE_SLACK: i64 = 14 * 3600;

impl EventFacts {
    fn test(&self, test: &Test) -> bool {
        match test {
            Test::Property(i, regex) => {
                regex.is_match(self.values.get(*i).map_or("", String::as_str))
            }
            Test::AllDay(all_day) => self.start.is_some_and(|s| s.time.is_none() == *all_day),
            Test::Weekdays(mask) => self.start.is_some_and(|s| mask & (1 << s.weekday()) != 0),
            Test::TimeOfDay(from, to) => {
                let Some(minute) = self.start.and_then(|s| s.time).map(|t| t / 60) else {
                    return false;
                };
                if from < to {
                    (*from..*to).contains(&minute)
                } else {
                    minute >= *from || minute < *to
                }
            }
            Test::Duration(min, max) => {
                let Some(start) = &self.start else {
                    return false;
                };
                let length = event_length(start, self.end.as_ref(), self.duration);
                let minutes = u64::try_from(length / 60).unwrap_or(0);
                min.is_none_or(|m| minutes >= m) && max.is_none_or(|m| minutes <= m)
            }
            Test::Status(s) => self.status.as_deref() == Some(s.as_str()),
            Test::Uid(uid, rid) => {
                self.uid.as_deref() == Some(uid.as_str())
                    && match rid {
                        None => true,
                        Some(r) => self.recurrence_id.as_deref() == Some(r.as_str()),
                    }
            }
            // Component rules name VTODO or VJOURNAL, never a VEVENT.
            Test::Component(_) => false,
        }
    }

    /// Whether the event can overlap [from, to] (seconds; wall clock read as UTC).
    pub(crate) fn in_window(&self, from: i64, to: i64) -> bool {
        let Some(start) = &self.start else {
            // Nothing to judge by: kept.
            return true;
        };
        // Every occurrence lasts as long as the first.
        let len = event_length(start, self.end.as_ref(), self.duration);
        let overlaps = |at: &DateTime| {
            let slack = if at.utc { 0 } else { ZONE_SLACK };
            let s = at.seconds();
            s - slack <= to && s + len + slack >= from
        };
        if overlaps(start) || self.rdates.iter().any(overlaps) {
            return true;
        }
        let Some(rrule) = &self.rrule else {
            return false;
        };
        let slack = if start.utc { 0 } else { ZONE_SLACK };
        if start.seconds() - slack > to {
            return false;
        }
        match series_end(rrule, start) {
            SeriesEnd::Open => true,
            SeriesEnd::By(last) => last + len + slack >= from,
        }
    }
}

impl Test {
    /// Whether the test reads when an occurrence happens (its day, time or length), which
    /// differs between the occurrences of a series; the others read the series' properties.
    pub(crate) fn reads_occurrence(&self) -> bool {
        matches!(
            self,
            Test::Weekdays(_) | Test::TimeOfDay(..) | Test::Duration(..) | Test::AllDay(_)
        )
    }
}

impl CompiledConfig {
    /// The first reason (in rule order, then the window) that drops this VEVENT, or `None` when
    /// it is kept. Without `now` no window applies.
    pub(crate) fn judge(&self, facts: &EventFacts, now: Option<i64>) -> Option<Cause> {
        self.first_rule_drop(facts, |_| true)
            .or_else(|| self.window_drop(facts, now))
    }

    /// The first rule on the series' properties (not on when it happens) that drops it: the
    /// part of [`CompiledConfig::judge`] every occurrence shares.
    pub(crate) fn judge_series(&self, facts: &EventFacts) -> Option<Cause> {
        self.first_rule_drop(facts, |t| !t.reads_occurrence())
    }

    /// The first rule on when it happens, then the window, that drops the one occurrence
    /// `facts` describes (its RRULE and RDATEs are not read).
    pub(crate) fn judge_occurrence(&self, facts: &EventFacts, now: Option<i64>) -> Option<Cause> {
        self.first_rule_drop(facts, Test::reads_occurrence)
            .or_else(|| self.window_drop(facts, now))
    }

    /// Whether any rule or the window can keep some occurrences of a series and drop others.
    pub(crate) fn judges_occurrences(&self) -> bool {
        self.window.is_some() || self.rules.iter().any(|r| r.test.reads_occurrence())
    }

    fn first_rule_drop(&self, facts: &EventFacts, which: impl Fn(&Test) -> bool) -> Option<Cause> {
        for (i, rule) in self.rules.iter().enumerate() {
            if matches!(rule.test, Test::Component(_)) || !which(&rule.test) {
                continue;
            }
            let matched = facts.test(&rule.test);
            let drops = match rule.action {
                FilterAction::Include => !matched,
                FilterAction::Exclude => matched,
            };
            if drops {
                return Some(Cause::Rule(i));
            }
        }
        None
    }

    /// The window as [from, to] seconds (wall clock read as UTC) at `now`, when there is one.
    pub(crate) fn window_span(&self, now: i64) -> Option<(i64, i64)> {
        let w = self.window.as_ref()?;
        let from = w
            .past_days
            .map_or(i64::MIN / 2, |d| now - i64::from(d) * 86_400);
        let to = w
            .future_days
            .map_or(i64::MAX / 2, |d| now + i64::from(d) * 86_400);
        Some((from, to))
    }

    fn window_drop(&self, facts: &EventFacts, now: Option<i64>) -> Option<Cause> {
        let (from, to) = self.window_span(now?)?;
        (!facts.in_window(from, to)).then_some(Cause::Window)
    }

    /// The first component rule that drops a VTODO or VJOURNAL called `name`; every other
    /// component passes through.
    pub(crate) fn judge_component(&self, name: &str) -> Option<Cause> {
        self.rules.iter().enumerate().find_map(|(i, rule)| {
            let Test::Component(c) = &rule.test else {
                return None;
            };
            let matched = c == name;
            let drops = match rule.action {
                FilterAction::Include => !matched,
                FilterAction::Exclude => matched,
            };
            drops.then_some(Cause::Rule(i))
        })
    }

    /// The first exclude uid + recurrenceId rule that removes this occurrence (an override
    /// whose master the series rule keeps).
    pub(crate) fn occurrence_cause(&self, facts: &EventFacts) -> Option<Cause> {
        self.rules
            .iter()
            .enumerate()
            .find_map(|(i, rule)| match &rule.test {
                Test::Uid(_, Some(_))
                    if rule.action == FilterAction::Exclude && facts.test(&rule.test) =>
                {
                    Some(Cause::Rule(i))
                }
                _ => None,
            })
    }

    /// The recurrence ids of `uid` that exclude rules remove from its series.
    pub(crate) fn excluded_occurrences<'c>(
        &'c self,
        uid: &'c str,
    ) -> impl Iterator<Item = &'c str> {
        self.rules.iter().filter_map(move |rule| match &rule.test {
            Test::Uid(u, Some(rid)) if rule.action == FilterAction::Exclude && u == uid => {
                Some(rid.as_str())
            }
            _ => None,
        })
    }

    /// The words of a drop reason: `filter 2 (exclude SUMMARY ~ /^Canceled:/i)` (filters are
    /// numbered from 1, as the editor lists them) or `window`.
    pub(crate) fn reason(&self, cause: Cause) -> String {
        match cause {
            Cause::Rule(i) if i >= self.filter_count => "hidden by hand".to_owned(),
            Cause::Rule(i) => format!("filter {} ({})", i + 1, self.rules[i].label),
            Cause::Window => "window".to_owned(),
        }
    }
}
