//! Checking a [`CalendarConfig`] and compiling it once (templates and filter patterns within one
//! regex budget), with errors that name the JSON path of the problem.

use std::fmt;

use regex_automata::meta::Regex;

use super::overrides::{compile_overrides, Edit};
use super::properties::{compile_properties, CompiledProperties};
use super::schema::{
    AlarmMode, CalendarConfig, FilterAction, Matcher, Occurrences, Privacy, Source, TimezoneMode,
    UidMode, Window,
};
use super::window::parse_date_time;
use crate::mapping::{CompiledMapping, MappedField};
use crate::template::{RegexBudget, MAX_TEMPLATE_BYTES};

/// Most filter rules in one config.
pub const MAX_FILTERS: usize = 50;
/// Longest filter pattern.
pub const MAX_FILTER_PATTERN_BYTES: usize = 2048;
/// Largest `pastDays` / `futureDays` (a century).
pub const MAX_DAYS: u32 = 36_500;
/// Largest `addMinutesBefore` (four weeks, the most Apple Calendar offers).
pub const MAX_MINUTES_BEFORE: u32 = 40_320;
/// Longest UID a filter may name.
pub const MAX_UID_BYTES: usize = 1024;
/// Longest a calendar keeps past events the source dropped: a year.
pub const MAX_KEEP_DAYS: u32 = 366;
/// Most feeds merged into one calendar.
pub const MAX_SOURCES: usize = 10;
/// Longest prefix or label of a source, in characters.
pub const MAX_SOURCE_TEXT_CHARS: usize = 64;
/// Longest source address.
pub const MAX_SOURCE_URL_BYTES: usize = 2048;
/// Longest property name or STATUS value a filter may name.
const MAX_NAME_BYTES: usize = 128;

/// What is wrong with a config, and where: `path` is the JSON path (`filters[2].pattern`,
/// `mapping.SUMMARY`, `window.pastDays`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ConfigError {
    pub path: String,
    pub message: String,
}

impl ConfigError {
    fn new(path: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// One filter rule, checked and compiled.
#[derive(Debug, Clone)]
pub(crate) struct CompiledRule {
    pub action: FilterAction,
    pub test: Test,
    /// How a drop reason names the rule: `exclude SUMMARY ~ /^Canceled:/i`.
    pub label: String,
}

/// What a compiled rule tests.
#[derive(Debug, Clone)]
pub(crate) enum Test {
    /// Index into [`CompiledConfig::property_names`] and the pattern.
    Property(usize, Regex),
    AllDay(bool),
    /// Bit 0 is Monday, bit 6 Sunday.
    Weekdays(u8),
    /// Minutes after midnight, [from, to), wrapping when from > to.
    TimeOfDay(u32, u32),
    Duration(Option<u64>, Option<u64>),
    /// Upper-case.
    Status(String),
    Uid(String, Option<String>),
    /// `VTODO` or `VJOURNAL`.
    Component(String),
}

/// A config ready to run over many feeds: the compiled mapping, the compiled filters (sharing
/// the mapping's regex budget) and the options.
#[derive(Debug, Clone, Default)]
pub struct CompiledConfig {
    pub(crate) mapping: CompiledMapping,
    pub(crate) rules: Vec<CompiledRule>,
    /// Upper-case property names the regex filters read, each once.
    pub(crate) property_names: Vec<String>,
    /// Only a window with at least one bound.
    pub(crate) window: Option<Window>,
    pub(crate) timezones: TimezoneMode,
    pub(crate) alarms: AlarmMode,
    pub(crate) privacy: Privacy,
    /// `occurrences: "each"`: filters on when an event happens and the window judge every
    /// occurrence of a series.
    pub(crate) each_occurrence: bool,
    pub(crate) sources: Vec<Source>,
    /// How many of `rules` are the config's filters (the rest hide events by hand).
    pub(crate) filter_count: usize,
    /// Events changed by hand, applied after the mapping.
    pub(crate) edits: Vec<Edit>,
    /// Each override's (UID, RECURRENCE-ID), in order, for saying which match no event.
    pub(crate) override_keys: Vec<(String, Option<String>)>,
    /// Days past events the source dropped are kept.
    pub(crate) keep_days: Option<u32>,
    /// `properties`: set on every kept event after the mapping.
    pub(crate) properties: CompiledProperties,
    /// Upper-case names the writer reads per event when `properties` are set: the mapping's
    /// and theirs (empty otherwise: the mapping's own list is used).
    pub(crate) needed: Vec<String>,
    /// `uids`: whether events get UIDs made from their content (before the merge).
    pub(crate) uids: UidMode,
}

/// A mapping alone, every option as today.
impl From<CompiledMapping> for CompiledConfig {
    fn from(mapping: CompiledMapping) -> CompiledConfig {
        CompiledConfig {
            mapping,
            ..CompiledConfig::default()
        }
    }
}

/// At most [`MAX_SOURCES`] feeds; prefixes and labels short and without control characters.
fn check_sources(sources: &[Source]) -> Result<(), ConfigError> {
    if sources.len() > MAX_SOURCES {
        return Err(ConfigError::new(
            "sources",
            format!("at most {MAX_SOURCES} feeds can be merged into one calendar"),
        ));
    }
    for (i, source) in sources.iter().enumerate() {
        for (key, text) in [("prefix", &source.prefix), ("label", &source.label)] {
            let Some(text) = text else { continue };
            if text.chars().count() > MAX_SOURCE_TEXT_CHARS {
                return Err(ConfigError::new(
                    format!("sources[{i}].{key}"),
                    format!("at most {MAX_SOURCE_TEXT_CHARS} characters"),
                ));
            }
            if text.chars().any(char::is_control) {
                return Err(ConfigError::new(
                    format!("sources[{i}].{key}"),
                    "control characters are not allowed",
                ));
            }
        }
        if source
            .url
            .as_ref()
            .is_some_and(|u| u.len() > MAX_SOURCE_URL_BYTES)
        {
            return Err(ConfigError::new(
                format!("sources[{i}].url"),
                format!("at most {MAX_SOURCE_URL_BYTES} bytes"),
            ));
        }
    }
    Ok(())
}

const WEEKDAYS: [&str; 7] = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"];
/// The days as a rule's words name them (never the codes): "Monday to Friday", "Saturday, Sunday".
const DAY_NAMES: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// The days of `mask` in words: runs of three days or more as "Monday to Friday".
fn days_in_words(mask: u8) -> String {
    let mut parts = Vec::new();
    let mut day = 0;
    while day < 7 {
        if mask & (1 << day) == 0 {
            day += 1;
            continue;
        }
        let mut end = day;
        while end + 1 < 7 && mask & (1 << (end + 1)) != 0 {
            end += 1;
        }
        if end - day >= 2 {
            parts.push(format!("{} to {}", DAY_NAMES[day], DAY_NAMES[end]));
        } else {
            parts.extend(DAY_NAMES[day..=end].iter().map(|d| (*d).to_owned()));
        }
        day = end + 1;
    }
    parts.join(", ")
}

impl CompiledConfig {
    /// Checks every part of `config` and compiles it; the first problem is the error.
    pub fn compile(config: &CalendarConfig) -> Result<CompiledConfig, ConfigError> {
        let mut budget = RegexBudget::default();
        for field in MappedField::ALL {
            if config.mapping.get(field).len() > MAX_TEMPLATE_BYTES {
                return Err(ConfigError::new(
                    format!("mapping.{}", field.name()),
                    format!("longer than {MAX_TEMPLATE_BYTES} bytes"),
                ));
            }
        }
        let (mapping, errors) = CompiledMapping::compile_within(&config.mapping, &mut budget);
        if let Some(e) = errors.into_iter().next() {
            return Err(ConfigError::new(
                format!("mapping.{}", e.field),
                format!("at character {}: {}", e.position + 1, e.message),
            ));
        }
        if config.filters.len() > MAX_FILTERS {
            return Err(ConfigError::new(
                "filters",
                format!("at most {MAX_FILTERS} filters"),
            ));
        }
        let mut property_names: Vec<String> = Vec::new();
        let mut rules = Vec::with_capacity(config.filters.len());
        for (i, rule) in config.filters.iter().enumerate() {
            let path = format!("filters[{i}]");
            let (test, what) =
                compile_matcher(&rule.matcher, &path, &mut budget, &mut property_names)?;
            rules.push(CompiledRule {
                action: rule.action,
                test,
                label: format!("{} {what}", rule.action),
            });
        }
        let window = match config.window {
            Some(w) => {
                for (value, key) in [(w.past_days, "pastDays"), (w.future_days, "futureDays")] {
                    if value.is_some_and(|d| d > MAX_DAYS) {
                        return Err(ConfigError::new(
                            format!("window.{key}"),
                            format!("at most {MAX_DAYS} days"),
                        ));
                    }
                }
                (w.past_days.is_some() || w.future_days.is_some()).then_some(w)
            }
            None => None,
        };
        if let AlarmMode::AddMinutesBefore(n) = config.alarms {
            if n > MAX_MINUTES_BEFORE {
                return Err(ConfigError::new(
                    "alarms.addMinutesBefore",
                    format!("at most {MAX_MINUTES_BEFORE} minutes (four weeks)"),
                ));
            }
        }
        check_sources(&config.sources)?;
        if let Some(h) = config.history {
            if !(1..=MAX_KEEP_DAYS).contains(&h.keep_days) {
                return Err(ConfigError::new(
                    "history.keepDays",
                    format!("1 to {MAX_KEEP_DAYS} days"),
                ));
            }
        }
        let properties = compile_properties(&config.properties, &mut budget)
            .map_err(|(path, message)| ConfigError { path, message })?;
        let mut needed = Vec::new();
        if !properties.is_empty() {
            needed.clone_from(&mapping.needed);
            for name in properties.names() {
                if !needed.iter().any(|n| n == name) {
                    needed.push(name.to_owned());
                }
            }
        }
        let filter_count = rules.len();
        let (hidden, edits) = compile_overrides(&config.overrides, MAX_UID_BYTES)
            .map_err(|(path, message)| ConfigError { path, message })?;
        rules.extend(hidden.into_iter().map(|(uid, rid)| CompiledRule {
            action: FilterAction::Exclude,
            test: Test::Uid(uid, rid),
            label: "hidden by hand".to_owned(),
        }));
        Ok(CompiledConfig {
            mapping,
            rules,
            property_names,
            window,
            timezones: config.timezones,
            alarms: config.alarms,
            privacy: config.privacy,
            each_occurrence: config.occurrences == Occurrences::Each,
            sources: config.sources.clone(),
            filter_count,
            edits,
            keep_days: config.history.map(|h| h.keep_days),
            properties,
            needed,
            uids: config.uids,
            override_keys: config
                .overrides
                .iter()
                .map(|o| {
                    let rid = o
                        .recurrence_id
                        .as_deref()
                        .map(|r| r.trim().to_ascii_uppercase());
                    (o.uid.trim().to_owned(), rid)
                })
                .collect(),
        })
    }

    /// How many days past events the source dropped are kept (`history.keepDays`).
    pub fn keep_days(&self) -> Option<u32> {
        self.keep_days
    }

    /// The feeds merged into the calendar (empty for a calendar of one feed).
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// The compiled mapping.
    pub fn mapping(&self) -> &CompiledMapping {
        &self.mapping
    }

    /// Whether a date window with a bound is set: then what the remap keeps depends on the day
    /// (the server renders again when the day changes).
    pub fn has_window(&self) -> bool {
        self.window.is_some()
    }

    /// Whether the config leaves every feed exactly as it is (default mapping, no options, no
    /// properties).
    pub fn is_default(&self) -> bool {
        self.mapping.is_default() && !self.has_options() && self.properties.is_empty()
    }

    /// Whether events get UIDs made from their content (`"uids": "content"`), which the
    /// server applies to each source before history and the merge.
    pub fn content_uids(&self) -> bool {
        self.uids == UidMode::Content
    }

    /// The names the writing pass computes once per event.
    pub(crate) fn needed(&self) -> &[String] {
        if self.properties.is_empty() {
            &self.mapping.needed
        } else {
            &self.needed
        }
    }

    /// Whether any option besides the mapping is set (filters, a window, repair, alarms,
    /// privacy): without one, a remap takes the mapping-only path.
    pub fn has_options(&self) -> bool {
        !self.rules.is_empty()
            || !self.edits.is_empty()
            || self.window.is_some()
            || self.timezones != TimezoneMode::Keep
            || self.alarms != AlarmMode::Keep
            || self.privacy != Privacy::Full
    }

    /// Whether filters or a window may drop events.
    pub(crate) fn may_drop(&self) -> bool {
        !self.rules.is_empty() || self.window.is_some()
    }

    /// Heap memory the compiled config holds, for cache budgets.
    pub fn memory_usage(&self) -> usize {
        self.mapping.memory_usage()
            + self
                .rules
                .iter()
                .map(|r| {
                    r.label.len()
                        + match &r.test {
                            Test::Property(_, regex) => regex.memory_usage(),
                            Test::Uid(u, r) => u.len() + r.as_ref().map_or(0, String::len),
                            Test::Status(s) | Test::Component(s) => s.len(),
                            _ => 0,
                        }
                })
                .sum::<usize>()
            + self.property_names.iter().map(String::len).sum::<usize>()
            + self.properties.memory_usage()
    }
}

fn compile_matcher(
    matcher: &Matcher,
    path: &str,
    budget: &mut RegexBudget,
    names: &mut Vec<String>,
) -> Result<(Test, String), ConfigError> {
    Ok(match matcher {
        Matcher::Property {
            field,
            pattern,
            flags,
        } => {
            let name = field.trim().to_ascii_uppercase();
            if name.is_empty()
                || name.len() > MAX_NAME_BYTES
                || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            {
                return Err(ConfigError::new(
                    format!("{path}.field"),
                    "a property name (letters, digits and '-', like SUMMARY or X-MY-FIELD)",
                ));
            }
            if pattern.len() > MAX_FILTER_PATTERN_BYTES {
                return Err(ConfigError::new(
                    format!("{path}.pattern"),
                    format!("longer than {MAX_FILTER_PATTERN_BYTES} bytes"),
                ));
            }
            for (j, c) in flags.chars().enumerate() {
                if !"imsxU".contains(c) || flags.chars().take(j).any(|d| d == c) {
                    return Err(ConfigError::new(
                        format!("{path}.flags"),
                        format!("unknown or repeated flag {c:?}: use i, m, s, x and U"),
                    ));
                }
            }
            let regex = budget
                .compile_pattern(pattern, flags)
                .map_err(|m| ConfigError::new(format!("{path}.pattern"), m))?;
            let index = match names.iter().position(|n| *n == name) {
                Some(i) => i,
                None => {
                    names.push(name.clone());
                    names.len() - 1
                }
            };
            let label = format!("{name} ~ /{pattern}/{flags}");
            (Test::Property(index, regex), label)
        }
        Matcher::AllDay(all_day) => (
            Test::AllDay(*all_day),
            if *all_day { "all-day" } else { "timed" }.to_owned(),
        ),
        Matcher::Weekdays(days) => {
            if days.is_empty() {
                return Err(ConfigError::new(
                    format!("{path}.weekdays"),
                    "name at least one weekday",
                ));
            }
            let mut mask = 0u8;
            for (j, d) in days.iter().enumerate() {
                let Some(bit) = WEEKDAYS
                    .iter()
                    .position(|w| w.eq_ignore_ascii_case(d.trim()))
                else {
                    return Err(ConfigError::new(
                        format!("{path}.weekdays[{j}]"),
                        "a weekday code: MO, TU, WE, TH, FR, SA or SU",
                    ));
                };
                mask |= 1 << bit;
            }
            (Test::Weekdays(mask), format!("on {}", days_in_words(mask)))
        }
        Matcher::TimeOfDay(t) => {
            let from = parse_hhmm(&t.from, false).ok_or_else(|| {
                ConfigError::new(
                    format!("{path}.timeOfDay.from"),
                    "a time HH:MM from 00:00 to 23:59",
                )
            })?;
            let to = parse_hhmm(&t.to, true).ok_or_else(|| {
                ConfigError::new(
                    format!("{path}.timeOfDay.to"),
                    "a time HH:MM from 00:00 to 24:00",
                )
            })?;
            if from == to {
                return Err(ConfigError::new(
                    format!("{path}.timeOfDay"),
                    "from and to are the same time: the range is empty",
                ));
            }
            (
                Test::TimeOfDay(from, to),
                format!("time of day {}–{}", t.from.trim(), t.to.trim()),
            )
        }
        Matcher::Duration(d) => {
            if d.min_minutes.is_none() && d.max_minutes.is_none() {
                return Err(ConfigError::new(
                    format!("{path}.duration"),
                    "give minMinutes, maxMinutes or both",
                ));
            }
            if let (Some(min), Some(max)) = (d.min_minutes, d.max_minutes) {
                if min > max {
                    return Err(ConfigError::new(
                        format!("{path}.duration.minMinutes"),
                        "larger than maxMinutes",
                    ));
                }
            }
            let show = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
            (
                Test::Duration(d.min_minutes, d.max_minutes),
                format!(
                    "duration {}–{} min",
                    show(d.min_minutes),
                    show(d.max_minutes)
                ),
            )
        }
        Matcher::Status(s) => {
            let s = s.trim().to_ascii_uppercase();
            if s.is_empty() || s.len() > MAX_NAME_BYTES {
                return Err(ConfigError::new(
                    format!("{path}.status"),
                    "a STATUS value such as CANCELLED or TENTATIVE",
                ));
            }
            let label = format!("STATUS {s}");
            (Test::Status(s), label)
        }
        Matcher::Uid { uid, recurrence_id } => {
            if uid.is_empty() || uid.len() > MAX_UID_BYTES {
                return Err(ConfigError::new(
                    format!("{path}.uid"),
                    format!("a UID of 1 to {MAX_UID_BYTES} bytes"),
                ));
            }
            let rid = match recurrence_id {
                Some(r) => {
                    let r = r.trim().to_ascii_uppercase();
                    if parse_date_time(&r).is_none() {
                        return Err(ConfigError::new(
                            format!("{path}.recurrenceId"),
                            "a RECURRENCE-ID value: YYYYMMDD or YYYYMMDDTHHMMSS[Z]",
                        ));
                    }
                    Some(r)
                }
                None => None,
            };
            let label = match &rid {
                Some(r) => format!("UID {uid} at {r}"),
                None => format!("UID {uid}"),
            };
            (Test::Uid(uid.clone(), rid), label)
        }
        Matcher::Component(c) => {
            let c = c.trim().to_ascii_uppercase();
            if c != "VTODO" && c != "VJOURNAL" {
                return Err(ConfigError::new(
                    format!("{path}.component"),
                    "VTODO or VJOURNAL",
                ));
            }
            let label = format!("component {c}");
            (Test::Component(c), label)
        }
    })
}

/// `HH:MM` as minutes after midnight; `24:00` only when `end`.
fn parse_hhmm(s: &str, end: bool) -> Option<u32> {
    let (h, m) = s.trim().split_once(':')?;
    if h.len() != 2 || m.len() != 2 || !h.bytes().chain(m.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let h: u32 = h.parse().ok()?;
    let m: u32 = m.parse().ok()?;
    if m > 59 || h > 24 || (h == 24 && (m > 0 || !end)) {
        return None;
    }
    Some(h * 60 + m)
}

/// The JSON word: `include` or `exclude`.
impl fmt::Display for FilterAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FilterAction::Include => "include",
            FilterAction::Exclude => "exclude",
        })
    }
}
