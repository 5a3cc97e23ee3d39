//! The lossless ICS parser: content lines, the component tree, limits, warnings and typed errors.
//! `walk` drives both the tree builder here and the streaming writer in `remap`.

use std::borrow::Cow;
use std::fmt;

use super::lexer::{Lexer, LogicalLine};
use super::line::{self, unescape_text};
use super::view::EventView;

/// Caps that keep a hostile or broken feed from using unbounded memory or time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest input in bytes.
    pub max_input_bytes: usize,
    /// Longest unfolded content line in bytes.
    pub max_line_bytes: usize,
    /// Deepest component nesting (VCALENDAR > VEVENT > VALARM is 3).
    pub max_depth: usize,
    /// Most VEVENTs in one input.
    pub max_events: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_input_bytes: 32 * 1024 * 1024,
            max_line_bytes: 1024 * 1024,
            max_depth: 16,
            max_events: 200_000,
        }
    }
}

/// Why an input cannot be used at all. `line` is the 1-based physical line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("the feed is {size} bytes, more than the limit of {limit}")]
    InputTooLarge { size: usize, limit: usize },
    #[error("line {line}: the content line is longer than the limit of {limit} bytes")]
    LineTooLong { line: u32, limit: usize },
    #[error("line {line}: components nest deeper than the limit of {limit}")]
    TooDeep { line: u32, limit: usize },
    #[error("line {line}: the feed has more than the limit of {limit} events")]
    TooManyEvents { line: u32, limit: usize },
    #[error("not an iCalendar feed: no BEGIN line found")]
    NotICalendar,
}

/// Something the parser tolerated (and how), for the caller to show or log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// 1-based physical line, 0 when the warning is not about one line.
    pub line: u32,
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            f.write_str(&self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

/// Most warnings kept; a broken feed could otherwise produce one per line.
pub const MAX_WARNINGS: usize = 100;

/// Collects warnings up to `MAX_WARNINGS`, then counts the rest.
#[derive(Debug, Default)]
pub(crate) struct Warnings {
    list: Vec<Warning>,
    dropped: usize,
}

impl Warnings {
    pub(crate) fn push(&mut self, line: u32, message: impl Into<String>) {
        if self.list.len() < MAX_WARNINGS {
            self.list.push(Warning {
                line,
                message: message.into(),
            });
        } else {
            self.dropped += 1;
        }
    }

    pub(crate) fn finish(mut self) -> Vec<Warning> {
        if self.dropped > 0 {
            self.list.push(Warning {
                line: 0,
                message: format!("{} more warnings not shown", self.dropped),
            });
        }
        self.list
    }
}

/// Receives the structure of a feed from `walk`.
/// Each call says whether the walk goes on: `Break` stops it (a write error, an output limit).
pub(crate) trait Visitor<'a> {
    /// A `BEGIN:` line; `name` is upper-case.
    fn begin(&mut self, line: &LogicalLine<'a>, name: &str) -> Flow;
    /// An `END:` line, or `None` for one the input left out; `name` is upper-case.
    fn end(&mut self, line: Option<&LogicalLine<'a>>, name: &str) -> Flow;
    /// Any other line inside a component (`line_name` reads its name).
    fn property(&mut self, line: &LogicalLine<'a>) -> Flow;
}

/// What a visitor answers: go on, or stop the walk.
pub(crate) type Flow = std::ops::ControlFlow<()>;

/// Go on walking.
pub(crate) const GO_ON: Flow = std::ops::ControlFlow::Continue(());

/// What `walk` learnt about the whole input.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct WalkStats {
    pub events: usize,
    /// The visitor stopped the walk before the end of the input.
    pub stopped: bool,
}

enum LineKind {
    Begin(String),
    End(String),
    Other,
}

/// The text of (an unfolded) line: UTF-8 when it is valid UTF-8; else each byte that is not part
/// of a valid UTF-8 sequence is read as Windows-1252, the usual encoding of feeds that are not
/// UTF-8 (a superset of Latin-1 for printable text). A Latin-1 feed keeps its accents, and a line
/// that mixes both keeps both. Decoding is byte-local, so decoding a prefix cut at an ASCII byte
/// gives a prefix of the whole line's text.
pub(crate) fn text(bytes: &[u8]) -> Cow<'_, str> {
    let first = match std::str::from_utf8(bytes) {
        Ok(s) => return Cow::Borrowed(s),
        Err(e) => e,
    };
    let mut out = String::with_capacity(bytes.len() + 8);
    let mut rest = bytes;
    let mut err = first;
    loop {
        let (valid, after) = rest.split_at(err.valid_up_to());
        out.push_str(std::str::from_utf8(valid).unwrap_or_default());
        // An invalid sequence (or a truncated one at the end) is read one byte at a time.
        let bad = err.error_len().unwrap_or(1);
        for &b in &after[..bad] {
            out.push(windows_1252(b));
        }
        rest = &after[bad..];
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                return Cow::Owned(out);
            }
            Err(e) => err = e,
        }
    }
}

/// What Windows-1252 puts at 0x80..=0x9F (WHATWG's table); its five unassigned bytes map to
/// the C1 controls of the same number, as in WHATWG's decoder. Every other byte is Latin-1.
const CP1252_HIGH: [char; 32] = [
    '\u{20AC}', '\u{81}', '\u{201A}', '\u{192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{2C6}', '\u{2030}', '\u{160}', '\u{2039}', '\u{152}', '\u{8D}', '\u{17D}', '\u{8F}',
    '\u{90}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{2DC}', '\u{2122}', '\u{161}', '\u{203A}', '\u{153}', '\u{9D}', '\u{17E}', '\u{178}',
];

/// One byte as Windows-1252.
fn windows_1252(b: u8) -> char {
    match b {
        0x80..=0x9F => CP1252_HIGH[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

/// The name of a line as written, trimmed; borrowed from the input when it can be.
pub(crate) fn line_name<'a>(line: &LogicalLine<'a>) -> Cow<'a, str> {
    let first = line.first_segment();
    match line::name_end(first) {
        Some(e) => match std::str::from_utf8(&first[..e]) {
            Ok(s) => Cow::Borrowed(s.trim()),
            Err(_) => Cow::Owned(text(&first[..e]).trim().to_owned()),
        },
        None => {
            let content = line.content();
            let e = line::name_end(&content).unwrap_or(content.len());
            Cow::Owned(text(&content[..e]).trim().to_owned())
        }
    }
}

/// Whether `bytes` starts with `word` (any case) followed by optional blanks and `:` or `;`.
fn starts_with_name(bytes: &[u8], word: &[u8]) -> bool {
    bytes.len() > word.len()
        && bytes[..word.len()].eq_ignore_ascii_case(word)
        && bytes[word.len()..]
            .iter()
            .find(|b| !matches!(b, b' ' | b'\t'))
            .is_some_and(|b| matches!(b, b':' | b';'))
}

/// Whether a line opens or closes a component. Cheap for ordinary lines: only those starting
/// with B or E are looked at further.
fn classify(line: &LogicalLine<'_>) -> LineKind {
    let first = line.first_segment();
    let content;
    let head: &[u8] = if line.folded && line::name_end(first).is_none() {
        // A fold before the end of the name (inside it, or in blanks after it, as the writer
        // folds `BEGIN` followed by 70 tabs): only the unfolded line shows the name's end.
        content = line.content();
        &content
    } else {
        first
    };
    // Only a line after a blank line can start with blanks; the writer drops them.
    let blanks = head
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count();
    let head = &head[blanks..];
    let is_begin = match head.first() {
        Some(b'B' | b'b') if starts_with_name(head, b"BEGIN") => true,
        Some(b'E' | b'e') if starts_with_name(head, b"END") => false,
        _ => return LineKind::Other,
    };
    let content = line.content();
    let whole = text(&content);
    let parts = line::split_line(&whole);
    let comp = parts.value.trim().to_ascii_uppercase();
    if comp.is_empty() {
        return LineKind::Other;
    }
    if is_begin {
        LineKind::Begin(comp)
    } else {
        LineKind::End(comp)
    }
}

/// Walks the lines of `input`, keeping the component stack, enforcing `limits`, repairing
/// missing or misplaced END lines (with warnings) and telling `visitor` what it finds.
pub(crate) fn walk<'a, V: Visitor<'a>>(
    input: &'a [u8],
    limits: &Limits,
    visitor: &mut V,
    warnings: &mut Warnings,
) -> Result<WalkStats, ParseError> {
    if input.len() > limits.max_input_bytes {
        return Err(ParseError::InputTooLarge {
            size: input.len(),
            limit: limits.max_input_bytes,
        });
    }
    let lexer = Lexer::new(input);
    let all_utf8 = lexer.all_utf8();
    let mut stack: Vec<String> = Vec::new();
    // Stack index of the VEVENT being read, if any: VEVENTs inside it are not events.
    let mut in_event: Option<usize> = None;
    let mut stats = WalkStats::default();
    let mut saw_component = false;
    for line in lexer {
        if line.raw.len() > limits.max_line_bytes && line.content_len() > limits.max_line_bytes {
            return Err(ParseError::LineTooLong {
                line: line.line_no,
                limit: limits.max_line_bytes,
            });
        }
        // Folds may split a character: only the unfolded line says whether it is UTF-8.
        if !all_utf8
            && std::str::from_utf8(line.body).is_err()
            && std::str::from_utf8(&line.content()).is_err()
        {
            warnings.push(line.line_no, "not valid UTF-8: read as Windows-1252");
        }
        match classify(&line) {
            LineKind::Begin(comp) => {
                if stack.len() >= limits.max_depth {
                    return Err(ParseError::TooDeep {
                        line: line.line_no,
                        limit: limits.max_depth,
                    });
                }
                if comp == "VEVENT" && in_event.is_none() {
                    stats.events += 1;
                    if stats.events > limits.max_events {
                        return Err(ParseError::TooManyEvents {
                            line: line.line_no,
                            limit: limits.max_events,
                        });
                    }
                    in_event = Some(stack.len());
                }
                saw_component = true;
                if visitor.begin(&line, &comp).is_break() {
                    stats.stopped = true;
                    return Ok(stats);
                }
                stack.push(comp);
            }
            LineKind::End(comp) => {
                let Some(at) = stack.iter().rposition(|c| *c == comp) else {
                    warnings.push(
                        line.line_no,
                        format!("END:{comp} without a matching BEGIN ignored"),
                    );
                    continue;
                };
                while stack.len() > at + 1 {
                    let inner = stack.pop().unwrap_or_default();
                    warnings.push(
                        line.line_no,
                        format!("missing END:{inner} added before END:{comp}"),
                    );
                    if visitor.end(None, &inner).is_break() {
                        stats.stopped = true;
                        return Ok(stats);
                    }
                }
                stack.pop();
                if in_event == Some(at) || in_event.is_some_and(|e| e > at) {
                    in_event = None;
                }
                if visitor.end(Some(&line), &comp).is_break() {
                    stats.stopped = true;
                    return Ok(stats);
                }
            }
            LineKind::Other => {
                if stack.is_empty() {
                    warnings.push(line.line_no, "text outside any component ignored");
                    continue;
                }
                if visitor.property(&line).is_break() {
                    stats.stopped = true;
                    return Ok(stats);
                }
            }
        }
    }
    while let Some(comp) = stack.pop() {
        warnings.push(
            0,
            format!("missing END:{comp} added at the end of the feed"),
        );
        if visitor.end(None, &comp).is_break() {
            stats.stopped = true;
            return Ok(stats);
        }
    }
    if !saw_component {
        return Err(ParseError::NotICalendar);
    }
    Ok(stats)
}

/// A parsed feed: every component and property in input order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Document {
    /// Top-level components (normally one VCALENDAR; some files hold several or a bare VEVENT).
    pub components: Vec<Component>,
    event_count: usize,
}

/// A component (VCALENDAR, VEVENT, VALARM, X-...): its name and contents in input order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Component {
    /// Upper-case name.
    pub name: String,
    /// Line of its BEGIN.
    pub line: u32,
    pub items: Vec<Item>,
}

/// One entry of a component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Property(Property),
    Component(Component),
}

/// A content line: upper-case name, parameters and the value as written (still escaped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Property {
    pub name: String,
    pub params: Vec<Param>,
    pub value: String,
    /// Line it started on.
    pub line: u32,
    /// False when the line broke the grammar and its parts are a best guess.
    pub well_formed: bool,
}

/// A parameter: upper-case name and its values, unquoted and RFC 6868-decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub values: Vec<String>,
}

impl Property {
    /// The value with TEXT escapes decoded.
    pub fn text(&self) -> Cow<'_, str> {
        unescape_text(&self.value)
    }

    /// The first parameter called `name` (upper-case), its values joined with ",".
    pub fn param(&self, name: &str) -> Option<String> {
        self.params
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.values.join(","))
    }
}

impl Component {
    /// Direct properties, in order.
    pub fn properties(&self) -> impl Iterator<Item = &Property> + Clone {
        self.items.iter().filter_map(|i| match i {
            Item::Property(p) => Some(p),
            Item::Component(_) => None,
        })
    }

    /// Direct sub-components, in order.
    pub fn children(&self) -> impl Iterator<Item = &Component> {
        self.items.iter().filter_map(|i| match i {
            Item::Component(c) => Some(c),
            Item::Property(_) => None,
        })
    }
}

/// Parses a property line into its parts.
pub(crate) fn parse_property(line: &LogicalLine<'_>) -> Property {
    let content = line.content();
    let s = text(&content);
    let parts = line::split_line(&s);
    Property {
        name: parts.name.to_ascii_uppercase(),
        params: parts
            .params
            .iter()
            .map(|p| Param {
                name: p.name.to_ascii_uppercase(),
                values: p
                    .values
                    .iter()
                    .map(|v| line::param_value(v).into_owned())
                    .collect(),
            })
            .collect(),
        value: parts.value.to_owned(),
        line: line.line_no,
        well_formed: parts.well_formed,
    }
}

struct TreeBuilder {
    done: Vec<Component>,
    open: Vec<Component>,
    warnings_malformed: Vec<u32>,
}

impl<'a> Visitor<'a> for TreeBuilder {
    fn begin(&mut self, line: &LogicalLine<'a>, name: &str) -> Flow {
        self.open.push(Component {
            name: name.to_owned(),
            line: line.line_no,
            items: Vec::new(),
        });
        GO_ON
    }

    fn end(&mut self, _line: Option<&LogicalLine<'a>>, _name: &str) -> Flow {
        if let Some(c) = self.open.pop() {
            match self.open.last_mut() {
                Some(parent) => parent.items.push(Item::Component(c)),
                None => self.done.push(c),
            }
        }
        GO_ON
    }

    fn property(&mut self, line: &LogicalLine<'a>) -> Flow {
        let p = parse_property(line);
        if !p.well_formed {
            self.warnings_malformed.push(line.line_no);
        }
        if let Some(c) = self.open.last_mut() {
            c.items.push(Item::Property(p));
        }
        GO_ON
    }
}

/// What [`check`] found: whether the feed has a top-level VCALENDAR, and how many events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checked {
    pub has_calendar: bool,
    pub events: usize,
}

/// Reads a feed the way [`parse`] does (same limits, same errors) without building the tree:
/// enough to tell whether a body is a calendar, in time linear in the input and no memory beyond
/// the component stack.
pub fn check(input: &[u8], limits: &Limits) -> Result<Checked, ParseError> {
    struct TopLevel {
        depth: usize,
        has_calendar: bool,
    }
    impl<'a> Visitor<'a> for TopLevel {
        fn begin(&mut self, _: &LogicalLine<'a>, name: &str) -> Flow {
            if self.depth == 0 && name == "VCALENDAR" {
                self.has_calendar = true;
            }
            self.depth += 1;
            GO_ON
        }
        fn end(&mut self, _: Option<&LogicalLine<'a>>, _: &str) -> Flow {
            self.depth = self.depth.saturating_sub(1);
            GO_ON
        }
        fn property(&mut self, _: &LogicalLine<'a>) -> Flow {
            GO_ON
        }
    }
    let mut visitor = TopLevel {
        depth: 0,
        has_calendar: false,
    };
    let stats = walk(input, limits, &mut visitor, &mut Warnings::default())?;
    Ok(Checked {
        has_calendar: visitor.has_calendar,
        events: stats.events,
    })
}

/// Parses a whole feed into its component tree.
pub fn parse(input: &[u8], limits: &Limits) -> Result<(Document, Vec<Warning>), ParseError> {
    let mut warnings = Warnings::default();
    let mut builder = TreeBuilder {
        done: Vec::new(),
        open: Vec::new(),
        warnings_malformed: Vec::new(),
    };
    let stats = walk(input, limits, &mut builder, &mut warnings)?;
    for line in builder.warnings_malformed {
        warnings.push(line, "malformed content line kept as it is");
    }
    let mut list = warnings.finish();
    list.sort_by_key(|w| if w.line == 0 { u32::MAX } else { w.line });
    Ok((
        Document {
            components: builder.done,
            event_count: stats.events,
        },
        list,
    ))
}

impl Document {
    /// The same tree with every line number set to 0: for comparing trees whose line numbers
    /// legitimately differ (folding moves them).
    pub fn without_line_numbers(mut self) -> Document {
        fn clear(c: &mut Component) {
            c.line = 0;
            for item in &mut c.items {
                match item {
                    Item::Property(p) => p.line = 0,
                    Item::Component(child) => clear(child),
                }
            }
        }
        for c in &mut self.components {
            clear(c);
        }
        self
    }

    /// Number of events (VEVENTs not nested inside another VEVENT).
    pub fn event_count(&self) -> usize {
        self.event_count
    }

    /// Properties of the top-level VCALENDARs as (upper-case name, unescaped value).
    pub fn calendar_properties(&self) -> Vec<(String, String)> {
        self.components
            .iter()
            .filter(|c| c.name == "VCALENDAR")
            .flat_map(|c| c.properties())
            .map(|p| (p.name.clone(), p.text().into_owned()))
            .collect()
    }

    /// The events in input order, as lazy key/value views.
    pub fn events(&self) -> impl Iterator<Item = EventView<'_>> {
        fn collect<'d>(c: &'d Component, out: &mut Vec<&'d Component>) {
            if c.name == "VEVENT" {
                out.push(c);
                return;
            }
            for child in c.children() {
                collect(child, out);
            }
        }
        let mut found = Vec::with_capacity(self.event_count);
        for c in &self.components {
            collect(c, &mut found);
        }
        found.into_iter().map(EventView::new)
    }

    /// Event `index` (0-based) as a lazy key/value view.
    pub fn event(&self, index: usize) -> Option<EventView<'_>> {
        self.events().nth(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(input: &str) -> (Document, Vec<Warning>) {
        parse(input.as_bytes(), &Limits::default()).expect("parses")
    }

    #[test]
    fn check_reads_like_parse_without_the_tree() {
        let feed = b"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:a\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
        let checked = check(feed, &Limits::default()).expect("reads");
        assert_eq!(
            checked,
            Checked {
                has_calendar: true,
                events: 2
            }
        );
        let bare = check(b"BEGIN:VEVENT\r\nEND:VEVENT\r\n", &Limits::default()).expect("reads");
        assert!(!bare.has_calendar);
        assert_eq!(
            check(b"<html>", &Limits::default()),
            Err(ParseError::NotICalendar)
        );
        let tight = Limits {
            max_events: 1,
            ..Limits::default()
        };
        assert!(matches!(
            check(feed, &tight),
            Err(ParseError::TooManyEvents { .. })
        ));
    }

    #[test]
    fn keeps_the_whole_component_tree_in_order() {
        let (d, w) = doc(
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VTIMEZONE\nTZID:X\nBEGIN:STANDARD\n\
DTSTART:19700101T000000\nEND:STANDARD\nEND:VTIMEZONE\nBEGIN:VEVENT\nBEGIN:VALARM\nEND:VALARM\n\
END:VEVENT\nBEGIN:VTODO\nEND:VTODO\nBEGIN:X-THING\nEND:X-THING\nEND:VCALENDAR\n",
        );
        assert!(w.is_empty(), "{w:?}");
        let cal = &d.components[0];
        let names: Vec<&str> = cal.children().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["VTIMEZONE", "VEVENT", "VTODO", "X-THING"]);
        assert_eq!(d.event_count(), 1);
    }

    #[test]
    fn lower_case_names_are_read_as_upper_case() {
        let (d, _) = doc(
            "begin:vcalendar\nbegin:vevent\nsummary;language=en:x\nend:vevent\nend:vcalendar\n",
        );
        let ev = d.event(0).expect("event");
        let p = ev.component().properties().next().expect("property");
        assert_eq!(p.name, "SUMMARY");
        assert_eq!(p.params[0].name, "LANGUAGE");
    }

    #[test]
    fn several_calendars_in_one_file_are_all_kept() {
        let (d, _) =
            doc("BEGIN:VCALENDAR\nX-A:1\nEND:VCALENDAR\nBEGIN:VCALENDAR\nX-B:2\nEND:VCALENDAR\n");
        assert_eq!(d.components.len(), 2);
        assert_eq!(
            d.calendar_properties(),
            [
                ("X-A".to_owned(), "1".to_owned()),
                ("X-B".to_owned(), "2".to_owned())
            ]
        );
    }

    #[test]
    fn junk_around_the_calendar_is_ignored_with_a_warning() {
        let (d, w) = doc("hello\nBEGIN:VCALENDAR\nEND:VCALENDAR\nbye\n");
        assert_eq!(d.components.len(), 1);
        assert_eq!(w.len(), 2);
        assert_eq!(w[0].line, 1);
    }

    #[test]
    fn missing_end_lines_are_tolerated_and_reported() {
        let (d, w) = doc("BEGIN:VCALENDAR\nBEGIN:VEVENT\nSUMMARY:x\n");
        assert_eq!(d.event_count(), 1);
        assert_eq!(d.components[0].children().count(), 1);
        assert_eq!(w.len(), 2);
        let (_, w) = doc("BEGIN:VCALENDAR\nBEGIN:VEVENT\nEND:VCALENDAR\n");
        assert!(w[0].message.contains("END:VEVENT"));
    }

    #[test]
    fn stray_end_is_ignored_with_a_warning() {
        let (d, w) = doc("BEGIN:VCALENDAR\nEND:VEVENT\nEND:VCALENDAR\n");
        assert_eq!(d.components.len(), 1);
        assert_eq!(w.len(), 1);
    }

    #[test]
    fn malformed_lines_inside_components_are_kept_with_a_warning() {
        let (d, w) = doc("BEGIN:VCALENDAR\nX\nEND:VCALENDAR\n");
        let p = d.components[0].properties().next().expect("kept");
        assert!(!p.well_formed);
        assert_eq!(w.len(), 1);
    }

    #[test]
    fn invalid_utf8_is_decoded_lossily_with_a_warning() {
        let (d, w) = parse(
            b"BEGIN:VCALENDAR\nX-A:a\xFFb\nEND:VCALENDAR\n",
            &Limits::default(),
        )
        .expect("parses");
        assert_eq!(d.calendar_properties()[0].1, "a\u{FF}b");
        assert_eq!(w[0].line, 2);
    }

    #[test]
    fn a_line_that_is_not_utf8_reads_as_windows_1252_with_one_warning() {
        let (d, w) = parse(
            b"BEGIN:VCALENDAR\nX-A:Caf\xE9 M\xFCller \x80 \x93q\x94\nX-B:ok\nEND:VCALENDAR\n",
            &Limits::default(),
        )
        .expect("parses");
        assert_eq!(
            d.calendar_properties()[0].1,
            "Café Müller € \u{201C}q\u{201D}"
        );
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].line, 2);
        assert!(w[0].message.contains("Windows-1252"), "{w:?}");
    }

    #[test]
    fn a_line_mixing_utf8_and_windows_1252_keeps_both() {
        assert_eq!(text(b"\xC3\xA9t\xE9 \xE2\x82\xAC\x80\xC3"), "été €€Ã");
        assert_eq!(
            text(b"\x81\x8D\x8F\x90\x9D"),
            "\u{81}\u{8D}\u{8F}\u{90}\u{9D}"
        );
    }

    #[test]
    fn a_fold_that_splits_a_character_is_not_invalid_utf8() {
        let (d, w) = parse(
            b"BEGIN:VCALENDAR\nX-A:\xC3\n \xA9t\xC3\xA9\nX-B:a\xFF\nEND:VCALENDAR\n",
            &Limits::default(),
        )
        .expect("parses");
        assert_eq!(d.calendar_properties()[0].1, "été");
        assert_eq!(w.len(), 1, "only X-B is not UTF-8: {w:?}");
        assert_eq!(w[0].line, 4);
    }

    #[test]
    fn a_begin_line_folded_in_the_blanks_after_its_name_is_still_a_begin() {
        // The fuzzer's find: `BEGIN`, 70 tabs, `:n` is a BEGIN; the writer folds it after the
        // tabs, and the folded form must read back as the same BEGIN.
        let mut folded = b"BEGIN".to_vec();
        folded.extend_from_slice(&[b'\t'; 70]);
        folded.extend_from_slice(b"\r\n :n\r\nEND:N\r\n");
        let (d, _) = parse(&folded, &Limits::default()).expect("parses");
        assert_eq!(d.components.len(), 1);
        assert_eq!(d.components[0].name, "N");
        let (d, _) = parse(
            b"BE\r\n GIN:VCALENDAR\r\nE\r\n ND :VCALENDAR\r\n",
            &Limits::default(),
        )
        .expect("parses");
        assert_eq!(d.components[0].name, "VCALENDAR");
        assert!(d.components[0].items.is_empty());
    }

    #[test]
    fn input_size_limit_is_a_typed_error() {
        let limits = Limits {
            max_input_bytes: 10,
            ..Limits::default()
        };
        let err = parse(b"BEGIN:VCALENDAR\nEND:VCALENDAR\n", &limits).expect_err("too big");
        assert!(matches!(
            err,
            ParseError::InputTooLarge {
                size: 30,
                limit: 10
            }
        ));
    }

    #[test]
    fn line_length_limit_counts_the_unfolded_line() {
        let limits = Limits {
            max_line_bytes: 20,
            ..Limits::default()
        };
        let input = "BEGIN:VCALENDAR\nX-A:0123456789\n 0123456789\nEND:VCALENDAR\n";
        let err = parse(input.as_bytes(), &limits).expect_err("too long");
        assert_eq!(err, ParseError::LineTooLong { line: 2, limit: 20 });
    }

    #[test]
    fn depth_limit_is_a_typed_error() {
        let limits = Limits {
            max_depth: 2,
            ..Limits::default()
        };
        let input =
            "BEGIN:VCALENDAR\nBEGIN:VEVENT\nBEGIN:VALARM\nEND:VALARM\nEND:VEVENT\nEND:VCALENDAR\n";
        let err = parse(input.as_bytes(), &limits).expect_err("too deep");
        assert_eq!(err, ParseError::TooDeep { line: 3, limit: 2 });
    }

    #[test]
    fn event_limit_is_a_typed_error() {
        let limits = Limits {
            max_events: 1,
            ..Limits::default()
        };
        let input =
            "BEGIN:VCALENDAR\nBEGIN:VEVENT\nEND:VEVENT\nBEGIN:VEVENT\nEND:VEVENT\nEND:VCALENDAR\n";
        let err = parse(input.as_bytes(), &limits).expect_err("too many");
        assert_eq!(err, ParseError::TooManyEvents { line: 4, limit: 1 });
    }

    #[test]
    fn input_without_any_component_is_not_icalendar() {
        assert_eq!(
            parse(b"", &Limits::default()),
            Err(ParseError::NotICalendar)
        );
        assert_eq!(
            parse(b"<!doctype html>", &Limits::default()),
            Err(ParseError::NotICalendar)
        );
    }

    #[test]
    fn quoted_parameters_and_rfc_6868_reach_the_tree() {
        let (d, _) = doc("BEGIN:VCALENDAR\nX-P;A=\"x;y:z\";B=^'q^';C=u,v:val:ue\nEND:VCALENDAR\n");
        let p = d.components[0].properties().next().expect("property");
        assert_eq!(p.param("A").as_deref(), Some("x;y:z"));
        assert_eq!(p.param("B").as_deref(), Some("\"q\""));
        assert_eq!(p.param("C").as_deref(), Some("u,v"));
        assert_eq!(p.value, "val:ue");
    }
}
