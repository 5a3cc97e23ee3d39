//! A calendar's configuration: what its JSON says (`schema`), checked and compiled once
//! (`compile`), and what it decides of one event (`matching`, with the dates of `window`).

mod compile;
pub(crate) mod matching;
mod schema;
pub(crate) mod window;

pub use compile::{
    CompiledConfig, ConfigError, MAX_DAYS, MAX_FILTERS, MAX_FILTER_PATTERN_BYTES,
    MAX_MINUTES_BEFORE, MAX_SOURCES, MAX_SOURCE_TEXT_CHARS, MAX_SOURCE_URL_BYTES, MAX_UID_BYTES,
};
pub use schema::{
    AlarmMode, CalendarConfig, DurationRange, FilterAction, FilterRule, Matcher, Privacy, Source,
    TimeOfDay, TimezoneMode, Window,
};

#[cfg(test)]
mod tests;
