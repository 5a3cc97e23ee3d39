//! The calendar engine: ICS parsing, templates with regular expressions, and the writer.
//! Pure: no async, bytes in, bytes out; the one exception is the tz database that time-zone
//! repair reads (the system's zoneinfo files, loaded once and cached by jiff, else the copy
//! built in).
//!
//! A crate of its own, which imports nothing of the server (the server reaches it as
//! `hearth::calendar`), so the fuzzer, the benchmarks and the property tests build without the
//! server and its embedded UI.
//!
//! What the server and the command line call:
//! - [`parse`]`(bytes, &Limits) -> Result<(Document, Vec<Warning>), ParseError>`: the component
//!   tree. [`Document::calendar_properties`] gives the VCALENDAR header as (name, value) pairs,
//!   [`Document::event_count`] the number of events, [`Document::events`] / [`Document::event`]
//!   lazy [`EventView`]s; [`EventView::to_map`] is the `BTreeMap<String, String>` the browser
//!   shows (upper-case names, unescaped values, parameter names as extra keys, repeats joined).
//! - [`Fields`]: what templates read; implemented by [`EventView`] and by
//!   `HashMap<String, String>` / `BTreeMap<String, String>` (a sample event from the browser).
//! - [`Mapping`] (serde, the five upper-case keys, absent keys default to `${KEY}`) compiled once
//!   into a [`CompiledMapping`] with [`CompiledMapping::compile`] (first [`TemplateError`]) or
//!   [`CompiledMapping::compile_lenient`] (all errors, still renders); then
//!   [`CompiledMapping::render`] / [`CompiledMapping::render_all`] for any [`Fields`].
//!   A single template: [`Template::compile`] / [`Template::compile_lenient`] and
//!   [`Template::render`].
//! - [`CalendarConfig`] (serde: the mapping plus filters, window, timezones, alarms, privacy)
//!   compiled once into a [`CompiledConfig`] with [`CompiledConfig::compile`] (a [`ConfigError`]
//!   naming the JSON path); `CompiledConfig::from(CompiledMapping)` for a mapping alone.
//! - [`remap`]`(bytes, &CompiledConfig, &RemapOptions, &Limits) -> Result<RemapOutput, RemapError>`,
//!   or [`remap_into`] to stream into any `io::Write`; [`decide`]`(bytes, &CompiledConfig,
//!   &RemapOptions, &Limits)` gives the keep/drop [`Decision`] of every event by the same first
//!   pass the remap follows.
//! - [`merge`]`(&[MergeInput], &Limits, Option<&Interrupt>) -> Result<Merged, MergeError>`:
//!   several feeds as one (a calendar's `sources`), before the remap runs over the result; each
//!   event once across sources, one VTIMEZONE per TZID, each source's prefix on its SUMMARYs,
//!   and `Merged::origins` saying which source each event came from.
//! - [`content_uids`]`(bytes, source, &Limits, Option<&Interrupt>)`: one source's events
//!   given UIDs made from their content (`"uids": "content"`), applied to each source before
//!   history compares its copies and before the merge; [`uid_churn`]`(old, new, &Limits)` how
//!   many events of a new copy are old ones under new UIDs (the editor offers the former).
//! - [`vanished_events`]`(old, new, now, &Limits)`: the events a new copy of a feed dropped
//!   after they ended, with their lines, which a calendar with `history` keeps serving
//!   ([`kept_calendar`] makes them a feed to merge).
//! - [`Interrupt`]: a stop flag another thread sets when the request's time runs out; set in
//!   [`RemapOptions::interrupt`], the remap and `decide` stop with [`RemapError::Interrupted`],
//!   and [`Template::render_checked`] / [`CompiledMapping::render_checked`] with [`Interrupted`].
//! - [`agenda`]`(bytes, &AgendaRequest, &Limits, Option<&Interrupt>)`: a calendar's coming
//!   events in its time zone, series expanded within the span (the agenda page and its JSON).
//! - [`tz`]: time-zone repair, which the remap applies for `"timezones": "repair"`:
//!   [`tz::windows_to_iana`], [`tz::vtimezone`]`(iana, from_year)`, and the pass on its own,
//!   [`tz::repair_timezones`]`(bytes, &Limits)`.

// Production code handles every error; tests may expect (clippy.toml allows it there).
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod agenda;
pub mod config;
pub mod history;
pub mod ics;
pub mod interrupt;
pub mod mapping;
pub mod merge;
pub mod remap;
pub mod template;
pub mod tz;

pub use agenda::{
    agenda, Agenda, AgendaError, AgendaEvent, AgendaRequest, When, DEFAULT_AGENDA_DAYS,
    MAX_AGENDA_DAYS, MAX_AGENDA_EVENTS,
};
pub use config::{
    AlarmMode, CalendarConfig, CompiledConfig, ConfigError, FilterAction, FilterRule, Matcher,
    Occurrences, Override, Privacy, Source, TimezoneMode, UidMode, Window, MAX_SOURCES,
};
pub use history::{kept_calendar, vanished_events, KeptEvent, Vanished};
pub use ics::{
    check, escape_text, parse, unescape_text, write_folded, Checked, Component, Document,
    EventView, Fields, Item, Limits, Param, ParseError, Property, Warning,
};
pub use interrupt::{Interrupt, Interrupted};
pub use merge::{
    content_uids, merge, uid_churn, MergeError, MergeInput, Merged, UidChurn, UidError,
};
pub use remap::{
    decide, decide_counting, format_duration, output_limit, remap, remap_into, unmatched_overrides,
    CompiledMapping, Decision, KeptWhole, MappedField, Mapping, OccurrenceCount, RemapError,
    RemapOptions, RemapOutput, RemapStats, BUSY_REMOVED, COUNT_DAYS, MAX_ADDED_EXDATES,
    MAX_OUTPUT_BYTES,
};
pub use template::{
    RegexBudget, Template, TemplateError, MAX_MAPPING_REGEX_BYTES, MAX_REGEX_TRANSFORMS,
    MAX_RENDERED_BYTES, MAX_TEMPLATE_BYTES, REGEX_CACHE_BYTES, REGEX_SIZE_LIMIT,
};
