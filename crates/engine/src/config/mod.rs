//! A calendar's configuration: what its JSON says (`schema`), checked and compiled once
//! (`compile`, with the events changed by hand of `overrides`), and what it decides of one
//! event (`matching`, with the dates of `window`).

mod compile;
pub(crate) mod matching;
pub(crate) mod occurrences;
pub(crate) mod overrides;
pub(crate) mod properties;
mod schema;
pub(crate) mod window;

pub use compile::{
    CompiledConfig, ConfigError, MAX_DAYS, MAX_FILTERS, MAX_FILTER_PATTERN_BYTES, MAX_KEEP_DAYS,
    MAX_MINUTES_BEFORE, MAX_SOURCES, MAX_SOURCE_TEXT_CHARS, MAX_SOURCE_URL_BYTES, MAX_UID_BYTES,
};
pub use overrides::{
    MAX_OVERRIDES, MAX_OVERRIDE_NOTE_CHARS, MAX_OVERRIDE_SUMMARY_CHARS, MAX_SHIFT_MINUTES,
};
pub use properties::{
    CompiledProperties, EventProperty, CSS_COLOURS, MAX_CATEGORIES, MAX_URL_BYTES,
};
pub use schema::{
    AlarmMode, CalendarConfig, DurationRange, FilterAction, FilterRule, History, Matcher,
    Occurrences, Override, Privacy, Source, SourceAuth, SourceKind, TimeOfDay, TimezoneMode,
    UidMode, Window, MAX_AUTH_BYTES,
};

#[cfg(test)]
mod tests;
