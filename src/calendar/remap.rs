//! The mapping (five field templates) and the writer: streams the input back out, copying every
//! line it does not have to change, rewriting only the mapped properties of each VEVENT.

use std::borrow::Cow;
use std::io::{self, Write};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::calendar::ics::lexer::{LogicalLine, MAX_LINE_OCTETS};
use crate::calendar::ics::line::{self, escape_text, name_end, split_line, unescape_text};
use crate::calendar::ics::view::join_values;
use crate::calendar::ics::{
    self, line_name, Fields, Limits, ParseError, Visitor, Warning, Warnings,
};
use crate::calendar::template::{RegexBudget, Template, TemplateError};

/// The five event properties a mapping sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MappedField {
    Summary,
    Description,
    Location,
    Dtstart,
    Dtend,
}

impl MappedField {
    pub const ALL: [MappedField; 5] = [
        MappedField::Summary,
        MappedField::Description,
        MappedField::Location,
        MappedField::Dtstart,
        MappedField::Dtend,
    ];

    /// The property name, which is also the mapping key.
    pub fn name(self) -> &'static str {
        match self {
            MappedField::Summary => "SUMMARY",
            MappedField::Description => "DESCRIPTION",
            MappedField::Location => "LOCATION",
            MappedField::Dtstart => "DTSTART",
            MappedField::Dtend => "DTEND",
        }
    }

    /// The field called `name` (any case).
    pub fn from_name(name: &str) -> Option<MappedField> {
        MappedField::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
    }

    fn is_date(self) -> bool {
        matches!(self, MappedField::Dtstart | MappedField::Dtend)
    }
}

fn default_template(field: MappedField) -> String {
    format!("${{{}}}", field.name())
}

/// The templates of a calendar, as the browser and the mapping file give them. A key left out
/// keeps its default, the field's own token (`"SUMMARY": "${SUMMARY}"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mapping {
    #[serde(rename = "SUMMARY", default = "default_summary")]
    pub summary: String,
    #[serde(rename = "DESCRIPTION", default = "default_description")]
    pub description: String,
    #[serde(rename = "LOCATION", default = "default_location")]
    pub location: String,
    #[serde(rename = "DTSTART", default = "default_dtstart")]
    pub dtstart: String,
    #[serde(rename = "DTEND", default = "default_dtend")]
    pub dtend: String,
}

fn default_summary() -> String {
    default_template(MappedField::Summary)
}
fn default_description() -> String {
    default_template(MappedField::Description)
}
fn default_location() -> String {
    default_template(MappedField::Location)
}
fn default_dtstart() -> String {
    default_template(MappedField::Dtstart)
}
fn default_dtend() -> String {
    default_template(MappedField::Dtend)
}

impl Default for Mapping {
    fn default() -> Self {
        Mapping {
            summary: default_summary(),
            description: default_description(),
            location: default_location(),
            dtstart: default_dtstart(),
            dtend: default_dtend(),
        }
    }
}

impl Mapping {
    /// The template of `field`.
    pub fn get(&self, field: MappedField) -> &str {
        match field {
            MappedField::Summary => &self.summary,
            MappedField::Description => &self.description,
            MappedField::Location => &self.location,
            MappedField::Dtstart => &self.dtstart,
            MappedField::Dtend => &self.dtend,
        }
    }

    /// Sets the template of `field`.
    pub fn set(&mut self, field: MappedField, template: impl Into<String>) {
        let slot = match field {
            MappedField::Summary => &mut self.summary,
            MappedField::Description => &mut self.description,
            MappedField::Location => &mut self.location,
            MappedField::Dtstart => &mut self.dtstart,
            MappedField::Dtend => &mut self.dtend,
        };
        *slot = template.into();
    }
}

#[derive(Debug, Clone)]
struct FieldTemplate {
    template: Template,
    /// `${FIELD}` itself: the property is left exactly as it is.
    identity: bool,
}

/// A mapping with every template compiled once, to render for many events.
#[derive(Debug, Clone)]
pub struct CompiledMapping {
    fields: [FieldTemplate; 5],
    /// Upper-case names the writer reads per event: those the changing templates use and the
    /// changing fields themselves. Only these are computed for each event.
    needed: Vec<String>,
}

impl Default for CompiledMapping {
    fn default() -> Self {
        CompiledMapping::compile_lenient(&Mapping::default()).0
    }
}

impl CompiledMapping {
    /// Compiles every template; the first problem is an error naming the field.
    pub fn compile(mapping: &Mapping) -> Result<CompiledMapping, TemplateError> {
        let (compiled, mut errors) = CompiledMapping::compile_lenient(mapping);
        if errors.is_empty() {
            Ok(compiled)
        } else {
            Err(errors.swap_remove(0))
        }
    }

    /// Compiles every template and collects all problems (each naming its field); the result
    /// still renders, a broken token leaving its value unchanged.
    pub fn compile_lenient(mapping: &Mapping) -> (CompiledMapping, Vec<TemplateError>) {
        let mut errors = Vec::new();
        let mut budget = RegexBudget::default();
        let fields = MappedField::ALL.map(|field| {
            let (template, errs) = Template::compile_within(mapping.get(field), &mut budget);
            errors.extend(errs.into_iter().map(|mut e| {
                e.field = field.name().to_owned();
                e
            }));
            let identity = template.is_identity(field.name());
            FieldTemplate { template, identity }
        });
        let mut needed: Vec<String> = Vec::new();
        for (field, slot) in MappedField::ALL.iter().zip(&fields) {
            if slot.identity {
                continue;
            }
            let names = slot.template.names().chain(std::iter::once(field.name()));
            for name in names {
                if !needed.iter().any(|n| n == name) {
                    needed.push(name.to_owned());
                }
            }
        }
        (CompiledMapping { fields, needed }, errors)
    }

    fn slot(&self, field: MappedField) -> &FieldTemplate {
        &self.fields[field as usize]
    }

    /// The compiled template of `field`.
    pub fn template(&self, field: MappedField) -> &Template {
        &self.slot(field).template
    }

    /// Whether `field` keeps its property exactly as upstream has it.
    pub fn is_identity(&self, field: MappedField) -> bool {
        self.slot(field).identity
    }

    /// Heap memory the compiled mapping holds, for cache budgets.
    pub fn memory_usage(&self) -> usize {
        self.fields
            .iter()
            .map(|f| f.template.memory_usage())
            .sum::<usize>()
            + self.needed.iter().map(String::len).sum::<usize>()
    }

    /// Whether the whole mapping leaves events as they are.
    pub fn is_default(&self) -> bool {
        self.fields.iter().all(|f| f.identity)
    }

    /// Renders one field for one event.
    pub fn render<F: Fields + ?Sized>(&self, field: MappedField, fields: &F) -> String {
        self.slot(field).template.render(fields)
    }

    /// Renders all five fields, in the order of `MappedField::ALL`.
    pub fn render_all<F: Fields + ?Sized>(&self, fields: &F) -> Vec<(MappedField, String)> {
        MappedField::ALL
            .into_iter()
            .map(|f| (f, self.render(f, fields)))
            .collect()
    }
}

/// What the server adds to a hosted feed besides the mapping.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RemapOptions {
    /// Sets X-WR-CALNAME and NAME of each VCALENDAR.
    pub calendar_name: Option<String>,
    /// Sets REFRESH-INTERVAL;VALUE=DURATION and X-PUBLISHED-TTL.
    pub refresh_interval: Option<Duration>,
    /// Added to the SEQUENCE (0 when absent) of every event the mapping changed, so that
    /// clients that cache by SEQUENCE pick up the edit.
    pub sequence_offset: u32,
    /// Largest output allowed; past it the remap stops with [`RemapError::TooLarge`] (the
    /// server sets [`output_limit`] of the input; the command line leaves it unset).
    pub max_output_bytes: Option<usize>,
}

/// Absolute cap on a hosted feed's remapped size.
pub const MAX_OUTPUT_BYTES: usize = 32 << 20;

/// The largest remapped feed allowed for an input of `input_len` bytes: four times the input
/// plus 1 MiB (room for any sensible mapping), and never more than [`MAX_OUTPUT_BYTES`].
pub fn output_limit(input_len: usize) -> usize {
    input_len
        .saturating_mul(4)
        .saturating_add(1 << 20)
        .min(MAX_OUTPUT_BYTES)
}

/// The remapped feed and what happened on the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemapOutput {
    pub bytes: Vec<u8>,
    pub warnings: Vec<Warning>,
    pub event_count: usize,
    /// Events in which at least one mapped property changed.
    pub changed_events: usize,
}

/// Counts from `remap_into`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemapStats {
    pub warnings: Vec<Warning>,
    pub event_count: usize,
    pub changed_events: usize,
}

/// Why `remap_into` stopped.
#[derive(Debug, thiserror::Error)]
pub enum RemapError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error("writing the feed failed: {0}")]
    Io(#[from] io::Error),
    /// The output would pass `RemapOptions::max_output_bytes`; `field` is the mapped field whose
    /// rendered values took the most room (the one to fix).
    #[error("{field}: the mapping makes the feed larger than {limit} bytes (its rendered values take {field_bytes} bytes before the limit is reached)")]
    TooLarge {
        limit: usize,
        field: &'static str,
        field_bytes: usize,
    },
}

/// Remaps a whole feed in memory.
pub fn remap(
    input: &[u8],
    mapping: &CompiledMapping,
    options: &RemapOptions,
    limits: &Limits,
) -> Result<RemapOutput, RemapError> {
    let reserve = input.len() + input.len() / 16 + 256;
    let reserve = options
        .max_output_bytes
        .map_or(reserve, |max| reserve.min(max));
    let mut bytes = Vec::with_capacity(reserve);
    let stats = remap_into(input, mapping, options, limits, &mut bytes)?;
    Ok(RemapOutput {
        bytes,
        warnings: stats.warnings,
        event_count: stats.event_count,
        changed_events: stats.changed_events,
    })
}

/// Remaps a feed, streaming the output into `out` (the CLI writes straight to stdout so that
/// memory stays near the input size). On a parse error the output written so far is incomplete.
pub fn remap_into<W: Write>(
    input: &[u8],
    mapping: &CompiledMapping,
    options: &RemapOptions,
    limits: &Limits,
    out: W,
) -> Result<RemapStats, RemapError> {
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
    };
    let mut visitor = RemapVisitor {
        mapping,
        options,
        passthrough: mapping.is_default(),
        stack: Vec::new(),
        managed,
        managed_written: Vec::new(),
        event: Vec::new(),
        in_event: false,
        event_warnings: Vec::new(),
        changed_events: 0,
        w: &mut writer,
    };
    let mut warnings = Warnings::default();
    let stats = ics::walk(input, limits, &mut visitor, &mut warnings)?;
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
    })
}

/// RFC 5545 DURATION for a refresh interval, e.g. `PT15M`, `P1DT12H`.
pub fn format_duration(d: Duration) -> String {
    let secs = d.as_secs();
    if secs == 0 {
        return "PT0S".to_owned();
    }
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (h, m, s) = (rest / 3600, rest % 3600 / 60, rest % 60);
    let mut out = String::from("P");
    if days > 0 {
        out.push_str(&format!("{days}D"));
    }
    if rest > 0 {
        out.push('T');
        if h > 0 {
            out.push_str(&format!("{h}H"));
        }
        if m > 0 {
            out.push_str(&format!("{m}M"));
        }
        if s > 0 {
            out.push_str(&format!("{s}S"));
        }
    }
    out
}

/// Appends `line` (without terminator) folded at 75 octets, never inside a UTF-8 character or a
/// backslash escape, with CRLF endings.
pub fn write_folded(out: &mut Vec<u8>, line: &[u8]) {
    if line.len() <= MAX_LINE_OCTETS {
        out.extend_from_slice(line);
        out.extend_from_slice(b"\r\n");
        return;
    }
    out.reserve(line.len() + line.len() / 64 * 3 + 2);
    let mut start = 0;
    let mut limit = MAX_LINE_OCTETS;
    while start < line.len() {
        let mut end = start + limit;
        if end >= line.len() {
            end = line.len();
        } else {
            // Back off to the start of a UTF-8 character...
            while end > start + 1 && (line[end] & 0xC0) == 0x80 {
                end -= 1;
            }
            // ...and off a backslash that escapes the next character. Chunks start on escape
            // boundaries, so counting inside the chunk gives the right parity.
            let backslashes = line[start..end]
                .iter()
                .rev()
                .take_while(|&&b| b == b'\\')
                .count();
            if backslashes % 2 == 1 && end > start + 1 {
                end -= 1;
            }
        }
        if start > 0 {
            out.push(b' ');
        }
        out.extend_from_slice(&line[start..end]);
        out.extend_from_slice(b"\r\n");
        start = end;
        limit = MAX_LINE_OCTETS - 1;
    }
}

/// The output side: copies runs of clean input lines in one write, folds the rest.
struct Writer<'a, W: Write> {
    input: &'a [u8],
    out: W,
    /// A run of input bytes (start, end) waiting to be copied.
    pending: Option<(usize, usize)>,
    error: Option<io::Error>,
    scratch: Vec<u8>,
    /// Bytes written so far, and the most that may be.
    written: usize,
    limit: usize,
    /// The limit was reached: nothing more is written, and the walk does no more work.
    over: bool,
    /// Bytes of rendered lines per mapped field, to name the field behind an oversized feed.
    field_bytes: [usize; 5],
}

impl<'a, W: Write> Writer<'a, W> {
    /// Whether writing has stopped (an I/O error or the size limit): callers skip their work.
    fn stopped(&self) -> bool {
        self.over || self.error.is_some()
    }

    fn offset(&self, slice: &[u8]) -> usize {
        slice.as_ptr() as usize - self.input.as_ptr() as usize
    }

    fn write_raw(&mut self, bytes: &[u8]) {
        if self.stopped() {
            return;
        }
        if bytes.len() > self.limit - self.written {
            self.over = true;
            return;
        }
        self.written += bytes.len();
        if let Err(e) = self.out.write_all(bytes) {
            self.error = Some(e);
        }
    }

    fn flush_pending(&mut self) {
        if let Some((s, e)) = self.pending.take() {
            let input = self.input;
            self.write_raw(&input[s..e]);
        }
    }

    /// An input line written as it is: copied when already clean, else unfolded and re-folded.
    fn original(&mut self, line: &LogicalLine<'a>) {
        if line.clean {
            let start = self.offset(line.raw);
            let end = start + line.raw.len();
            match &mut self.pending {
                Some((_, e)) if *e == start => *e = end,
                _ => {
                    self.flush_pending();
                    self.pending = Some((start, end));
                }
            }
            return;
        }
        let content = line.content();
        let text = ics::text(&content);
        // Leading whitespace would turn the line into a fold of the one before.
        self.text_line(text.trim_start_matches([' ', '\t']).as_bytes());
    }

    /// A line the writer made (without terminator).
    fn text_line(&mut self, line: &[u8]) {
        self.flush_pending();
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        write_folded(&mut scratch, line);
        self.write_raw(&scratch);
        self.scratch = scratch;
    }
}

/// What a direct property of a VEVENT is to the writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Mapped(MappedField),
    Sequence,
    AltDesc,
    Other,
}

fn role_of(name: &str) -> Role {
    if let Some(f) = MappedField::from_name(name) {
        Role::Mapped(f)
    } else if name.eq_ignore_ascii_case("SEQUENCE") {
        Role::Sequence
    } else if name.eq_ignore_ascii_case("X-ALT-DESC") {
        Role::AltDesc
    } else {
        Role::Other
    }
}

/// One buffered line of the current event.
#[derive(Debug, Clone)]
enum EvLine<'a> {
    /// The event's own BEGIN or END, or a line of a sub-component: written as it is.
    Pass(LogicalLine<'a>),
    /// A direct property of the event, with its name as written.
    Prop(LogicalLine<'a>, Role, Cow<'a, str>),
    /// An END line the input left out.
    End(String),
}

struct RemapVisitor<'m, 'a, 'w, W: Write> {
    mapping: &'m CompiledMapping,
    options: &'m RemapOptions,
    /// The mapping changes nothing: every line streams straight through.
    passthrough: bool,
    stack: Vec<String>,
    /// Calendar properties the options set: (name, line).
    managed: Vec<(&'static str, String)>,
    managed_written: Vec<bool>,
    event: Vec<EvLine<'a>>,
    in_event: bool,
    event_warnings: Vec<(u32, String)>,
    changed_events: usize,
    w: &'w mut Writer<'a, W>,
}

/// The unfolded text of a line, borrowed from the input when possible.
fn line_text<'l>(line: &LogicalLine<'l>) -> Cow<'l, str> {
    match line.content() {
        Cow::Borrowed(b) => String::from_utf8_lossy(b),
        Cow::Owned(v) => match String::from_utf8(v) {
            Ok(s) => Cow::Owned(s),
            Err(e) => Cow::Owned(String::from_utf8_lossy(e.as_bytes()).into_owned()),
        },
    }
}

/// Enough of a line to read its name and parameters: the first physical line when the value
/// starts there (saves unfolding a long DESCRIPTION), else the whole unfolded line.
fn head_text<'l>(line: &LogicalLine<'l>) -> Cow<'l, str> {
    if line.folded {
        if let Ok(first) = std::str::from_utf8(line.first_segment()) {
            if split_line(first).well_formed {
                return Cow::Borrowed(first);
            }
        }
    }
    line_text(line)
}

/// The unescaped value of a property line.
fn prop_value<'l>(line: &LogicalLine<'l>) -> Cow<'l, str> {
    match line_text(line) {
        Cow::Borrowed(s) => unescape_text(split_line(s).value),
        Cow::Owned(s) => Cow::Owned(unescape_text(split_line(&s).value).into_owned()),
    }
}

/// The buffered event as templates see it, with the values the mapping needs computed once.
struct StreamEvent<'e, 'a> {
    lines: &'e [EvLine<'a>],
    names: &'e [String],
    /// Joined property values for `names`.
    values: Vec<Option<Cow<'a, str>>>,
    /// For names without a property: the first parameter of that name.
    params: Vec<Option<String>>,
}

impl<'e, 'a> StreamEvent<'e, 'a> {
    fn new(lines: &'e [EvLine<'a>], names: &'e [String]) -> Self {
        let mut values: Vec<Option<Cow<'a, str>>> = vec![None; names.len()];
        for l in lines {
            let EvLine::Prop(line, _, name) = l else {
                continue;
            };
            let Some(i) = names.iter().position(|n| n.eq_ignore_ascii_case(name)) else {
                continue;
            };
            let v = prop_value(line);
            values[i] = Some(match values[i].take() {
                None => v,
                Some(prev) => Cow::Owned(format!("{prev}, {v}")),
            });
        }
        let mut params: Vec<Option<String>> = vec![None; names.len()];
        if values.iter().any(Option::is_none) {
            for l in lines {
                let EvLine::Prop(line, ..) = l else { continue };
                let text = line_text(line);
                for p in split_line(&text).params {
                    let slot = names.iter().enumerate().position(|(i, n)| {
                        values[i].is_none() && params[i].is_none() && n.eq_ignore_ascii_case(p.name)
                    });
                    if let Some(i) = slot {
                        let decoded: Vec<Cow<'_, str>> =
                            p.values.iter().map(|v| line::param_value(v)).collect();
                        params[i] = Some(decoded.join(","));
                    }
                }
            }
        }
        StreamEvent {
            lines,
            names,
            values,
            params,
        }
    }

    fn props(&self) -> impl Iterator<Item = (&LogicalLine<'a>, Role, &str)> {
        self.lines.iter().filter_map(|l| match l {
            EvLine::Prop(line, role, name) => Some((line, *role, name.as_ref())),
            _ => None,
        })
    }

    /// Only properties (no parameter fallback): the upstream value of a mapped field.
    fn property(&self, name: &str) -> Option<Cow<'_, str>> {
        if let Some(i) = self.names.iter().position(|n| n == name) {
            return self.values[i].as_deref().map(Cow::Borrowed);
        }
        join_values(
            self.props()
                .filter(|(_, _, n)| n.eq_ignore_ascii_case(name))
                .map(|(l, _, _)| prop_value(l)),
        )
    }
}

impl Fields for StreamEvent<'_, '_> {
    fn field(&self, name: &str) -> Option<Cow<'_, str>> {
        if let Some(i) = self.names.iter().position(|n| n == name) {
            return self.values[i]
                .as_deref()
                .or(self.params[i].as_deref())
                .map(Cow::Borrowed);
        }
        if let Some(v) = self.property(name) {
            return Some(v);
        }
        for (l, _, _) in self.props() {
            let text = line_text(l);
            let parts = split_line(&text);
            if let Some(p) = parts
                .params
                .iter()
                .find(|p| p.name.eq_ignore_ascii_case(name))
            {
                let values: Vec<Cow<'_, str>> =
                    p.values.iter().map(|v| line::param_value(v)).collect();
                return Some(Cow::Owned(values.join(",")));
            }
        }
        None
    }
}

/// A valid DATE (`YYYYMMDD`) or DATE-TIME (`YYYYMMDDTHHMMSS[Z]`), upper-cased; else `None`.
fn date_value(v: &str) -> Option<(String, bool, bool)> {
    let v = v.to_ascii_uppercase();
    let b = v.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    let num =
        |r: std::ops::Range<usize>| b[r].iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
    if b.len() < 8 || !digits(0..8) {
        return None;
    }
    let (month, day) = (num(4..6), num(6..8));
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    if b.len() == 8 {
        return Some((v, true, false));
    }
    let utc = b.len() == 16 && b[15] == b'Z';
    if (b.len() == 15 || utc) && b[8] == b'T' && digits(9..15) {
        let (h, m, s) = (num(9..11), num(11..13), num(13..15));
        if h <= 23 && m <= 59 && s <= 60 {
            return Some((v, false, utc));
        }
    }
    None
}

/// The `;…` parameter text of a property line as written (empty when it has none).
fn raw_params(text: &str) -> &str {
    let parts = split_line(text);
    if !parts.well_formed {
        return "";
    }
    let Some(start) = name_end(text.as_bytes()) else {
        return "";
    };
    let value_at = parts.value.as_ptr() as usize - text.as_ptr() as usize;
    if value_at == 0 || start >= value_at - 1 {
        return "";
    }
    &text[start..value_at - 1]
}

/// Parameters for a new DTSTART/DTEND value: the original ones, TZID dropped for UTC, VALUE set
/// for a DATE and dropped for a DATE-TIME.
fn date_params(text: &str, is_date: bool, utc: bool) -> String {
    let parts = split_line(text);
    let mut out = String::new();
    if is_date {
        out.push_str(";VALUE=DATE");
    }
    if !parts.well_formed {
        return out;
    }
    for p in &parts.params {
        if p.name.eq_ignore_ascii_case("VALUE") || (utc && p.name.eq_ignore_ascii_case("TZID")) {
            continue;
        }
        out.push(';');
        out.push_str(p.name);
        out.push('=');
        out.push_str(&p.values.join(","));
    }
    out
}

impl<'a, W: Write> RemapVisitor<'_, 'a, '_, W> {
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

    /// Decides what the mapping does to the buffered event and writes it.
    fn finish_event(&mut self) {
        if self.w.stopped() {
            self.event.clear();
            return;
        }
        let lines = std::mem::take(&mut self.event);
        let view = StreamEvent::new(&lines, &self.mapping.needed);
        let begin_line = match lines.first() {
            Some(EvLine::Pass(l)) => l.line_no,
            _ => 0,
        };
        // Replacement line for each field that changes: None = drop other occurrences too.
        let mut replace: [Option<Option<String>>; 5] = Default::default();
        let mut changed = false;
        for field in MappedField::ALL {
            if self.mapping.is_identity(field) {
                continue;
            }
            let rendered = self.mapping.render(field, &view);
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
                let params = first.as_deref().map_or_else(
                    || {
                        if is_date {
                            ";VALUE=DATE".to_owned()
                        } else {
                            String::new()
                        }
                    },
                    |t| date_params(t, is_date, utc),
                );
                replace[field as usize] = Some(Some(format!("{}{params}:{value}", field.name())));
            } else {
                if first.is_none() && rendered.is_empty() {
                    continue;
                }
                let params = first.as_deref().map_or("", raw_params);
                replace[field as usize] = Some(Some(format!(
                    "{}{params}:{}",
                    field.name(),
                    escape_text(&rendered)
                )));
            }
            changed = true;
        }
        if changed {
            self.changed_events += 1;
        }
        let drop_alt = !self.mapping.is_identity(MappedField::Description);
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
            match l {
                EvLine::Pass(line) => self.w.original(line),
                EvLine::End(name) => self.w.text_line(format!("END:{name}").as_bytes()),
                EvLine::Prop(line, role, _) => match role {
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
                    Role::Sequence if sequence.is_some() => {
                        if !sequence_done {
                            sequence_done = true;
                            if let Some(seq) = &sequence {
                                self.w.text_line(seq.as_bytes());
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
        self.event = lines;
        self.event.clear();
    }
}

fn truncate_for_message(s: &str) -> &str {
    match s.char_indices().nth(60) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

impl<'a, W: Write> Visitor<'a> for RemapVisitor<'_, 'a, '_, W> {
    fn begin(&mut self, line: &LogicalLine<'a>, name: &str) {
        if self.in_calendar_header() {
            self.write_unwritten_managed();
        }
        if name == "VCALENDAR" && self.stack.is_empty() {
            self.managed_written = vec![false; self.managed.len()];
        }
        self.stack.push(name.to_owned());
        if self.in_event {
            self.event.push(EvLine::Pass(*line));
        } else if name == "VEVENT" && !self.passthrough {
            self.in_event = true;
            self.event.push(EvLine::Pass(*line));
        } else {
            self.w.original(line);
        }
    }

    fn end(&mut self, line: Option<&LogicalLine<'a>>, name: &str) {
        if self.in_calendar_header() && name == "VCALENDAR" {
            self.write_unwritten_managed();
        }
        self.stack.pop();
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

    fn property(&mut self, line: &LogicalLine<'a>) {
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

#[cfg(test)]
mod tests;
