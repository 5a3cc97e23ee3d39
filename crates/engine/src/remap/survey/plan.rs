//! The end of the survey: the plan the writing pass follows, made from every event's record
//! (each series' fate shared by its instances, EXDATEs and ended RRULEs of series judged
//! occurrence by occurrence, the time zones kept, the preview's count of occurrences).

use std::collections::HashMap;

use super::{push_unique, EventRecord, Plan, Survey, TzFacts};
use crate::config::matching::Cause;
use crate::config::occurrences::{Series, MAX_EXPANDED_PER_FEED};
use crate::config::window::{parse_date_time, DateTime};
use crate::interrupt;
use crate::remap::occurrences::{
    judge_series, Instance, KeptWhole, OccurrenceCount, SeriesVerdict,
};
use crate::remap::request::RemapError;

impl Survey<'_, '_> {
    /// Each recurring master's verdict when occurrences are judged one by one (none for a
    /// series whose RRULE cannot be read: it is judged whole, as before).
    fn series_verdicts(
        &self,
        masters: &HashMap<&str, usize>,
    ) -> Result<HashMap<usize, SeriesVerdict>, RemapError> {
        let mut verdicts = HashMap::new();
        let mut budget = MAX_EXPANDED_PER_FEED;
        // In feed order, so that the budget goes to the same series every time.
        let mut order: Vec<(&str, usize)> = masters.iter().map(|(u, m)| (*u, *m)).collect();
        order.sort_unstable_by_key(|(_, m)| *m);
        for (uid, m) in order {
            interrupt::check(self.interrupt).map_err(|_| RemapError::Interrupted)?;
            let r = &self.records[m];
            let Some(series) = r.series.as_ref().filter(|s| s.recurs()) else {
                continue;
            };
            if let Some(cause) = r.series_cause {
                let verdict = SeriesVerdict {
                    cause: Some(cause),
                    ..SeriesVerdict::default()
                };
                verdicts.insert(m, verdict);
                continue;
            }
            let instances: Vec<Instance> = self
                .records
                .iter()
                .filter(|o| o.is_override && o.uid.as_deref() == Some(uid))
                .filter_map(|o| {
                    Some(Instance {
                        at: o.rid?,
                        kept: o.when_cause.is_none() && o.occurrence.is_none(),
                    })
                })
                .collect();
            let zone = self.x_wr_timezone.as_deref();
            match judge_series(self.config, self.now, series, &instances, zone, &mut budget) {
                Some(verdict) => {
                    verdicts.insert(m, verdict);
                }
                // Past the feed's budget, or a rule this engine cannot expand: kept whole (unless
                // its properties drop it), and said so.
                None => {
                    let cause = r.own.filter(|c| *c == Cause::Window);
                    let verdict = SeriesVerdict {
                        cause,
                        whole: cause.is_none().then_some(KeptWhole::Unfollowed),
                        ..SeriesVerdict::default()
                    };
                    verdicts.insert(m, verdict);
                }
            }
        }
        Ok(verdicts)
    }

    pub(super) fn plan(self) -> Result<Plan, RemapError> {
        let config = self.config;
        // The first master of each UID decides for its overrides.
        let mut masters: HashMap<&str, usize> = HashMap::new();
        for (i, r) in self.records.iter().enumerate() {
            if let (Some(uid), false) = (&r.uid, r.is_override) {
                masters.entry(uid.as_str()).or_insert(i);
            }
        }
        let master_of = |r: &EventRecord| {
            r.uid
                .as_deref()
                .filter(|_| r.is_override)
                .and_then(|u| masters.get(u))
                .copied()
        };
        let verdicts = if self.each {
            self.series_verdicts(&masters)?
        } else {
            HashMap::new()
        };
        let fate = |i: usize| verdicts.get(&i).map_or(self.records[i].own, |v| v.cause);
        let events: Vec<Option<Cause>> = self
            .records
            .iter()
            .enumerate()
            .map(|(i, r)| match master_of(r) {
                // An instance of a series kept whole stays with it.
                Some(m) if verdicts.get(&m).is_some_and(|v| v.whole.is_some()) => {
                    fate(m).or(r.occurrence)
                }
                Some(m) if self.each => fate(m).or(r.when_cause).or(r.occurrence),
                Some(m) => self.records[m].own.or(r.occurrence),
                None => fate(i),
            })
            .collect();
        let mut exdates = HashMap::new();
        let mut rrules = HashMap::new();
        let mut series_notes = HashMap::new();
        for (&uid, &m) in &masters {
            if let Some(v) = verdicts.get(&m) {
                series_notes.insert(m, (v.dropped, v.whole));
            }
            if events[m].is_some() {
                continue;
            }
            let tzid = self.records[m].start_tzid.as_deref();
            let mut lines: Vec<String> = config
                .excluded_occurrences(uid)
                .map(|rid| exdate_line(rid, tzid))
                .collect();
            if let Some(v) = verdicts.get(&m) {
                for at in &v.exdates {
                    push_unique(&mut lines, exdate_line(&at.format(), tzid));
                }
                if let Some(rrule) = &v.rrule {
                    rrules.insert(m, rrule.clone());
                }
            }
            if !lines.is_empty() {
                exdates.insert(m, lines);
            }
        }
        let occurrences = self.count.then(|| {
            let now = self.now.unwrap_or_default();
            let mut count = OccurrenceCount::new(config, now);
            let mut budget = MAX_EXPANDED_PER_FEED;
            for (i, r) in self.records.iter().enumerate() {
                let (None, Some(series)) = (events[i], &r.series) else {
                    continue;
                };
                let removed: Vec<DateTime> = r
                    .uid
                    .iter()
                    .flat_map(|uid| config.excluded_occurrences(uid))
                    .filter_map(parse_date_time)
                    .chain(
                        verdicts
                            .get(&i)
                            .into_iter()
                            .flat_map(|v| v.exdates.iter().copied()),
                    )
                    .collect();
                let replaced: Vec<DateTime> = self
                    .records
                    .iter()
                    .filter(|o| o.is_override && master_of(o) == Some(i))
                    .filter_map(|o| o.rid)
                    .collect();
                let ended = verdicts.get(&i).and_then(|v| v.rrule.clone());
                let series = match ended {
                    Some(rrule) => &Series {
                        rrule: Some(rrule),
                        ..series.clone()
                    },
                    None => series,
                };
                count.add(series, &removed, &replaced, &mut budget);
            }
            count
        });
        let kept_events = events.iter().filter(|c| c.is_none()).count();
        let dropped_any = kept_events < events.len() || self.components.iter().any(|kept| !kept);
        let mut tz = TzFacts {
            x_wr_timezone: self.x_wr_timezone,
            ..TzFacts::default()
        };
        let mut first_days: Option<i64> = None;
        for (r, cause) in self.records.iter().zip(&events) {
            if cause.is_none() {
                for t in &r.tzids {
                    push_unique(&mut tz.used, t.clone());
                }
                tz.floating_events += usize::from(r.floating);
                if let Some(d) = r.start_days {
                    first_days = Some(first_days.map_or(d, |f| f.min(d)));
                }
            }
        }
        // A year early rather than late: the estimate may be off by one near New Year.
        tz.first_year = first_days
            .and_then(|d| i32::try_from(1969 + d.div_euclid(365)).ok())
            .map(|y| y.min(2099));
        tz.vtimezone_ids.clone_from(&self.vtimezone_ids);
        for t in self.other_tzids {
            push_unique(&mut tz.used, t);
        }
        for t in self.vtimezone_ids.iter().flatten() {
            push_unique(&mut tz.defined, t.clone());
        }
        // Time zones go only when filters or the window dropped something, and then only
        // those nothing kept refers to (one without a TZID stays: nothing can be said of it).
        let vtimezones = self
            .vtimezone_ids
            .iter()
            .map(|id| {
                !config.may_drop()
                    || !dropped_any
                    || id.as_ref().is_none_or(|id| tz.used.contains(id))
            })
            .collect();
        Ok(Plan {
            events,
            exdates,
            rrules,
            series_notes,
            occurrences,
            vtimezones,
            components: self.components,
            kept_events,
            surveyed: true,
            tz,
        })
    }
}

/// The EXDATE that removes occurrence `rid` from a master starting in zone `tzid`.
fn exdate_line(rid: &str, tzid: Option<&str>) -> String {
    if rid.len() == 8 {
        return format!("EXDATE;VALUE=DATE:{rid}");
    }
    match tzid {
        Some(t) if !rid.ends_with('Z') => {
            let needs_quotes = t.contains([';', ':', ',']);
            if needs_quotes {
                format!("EXDATE;TZID=\"{t}\":{rid}")
            } else {
                format!("EXDATE;TZID={t}:{rid}")
            }
        }
        _ => format!("EXDATE:{rid}"),
    }
}
