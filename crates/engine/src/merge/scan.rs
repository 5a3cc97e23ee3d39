//! The first look at each source of a merge: its calendar's own lines, and each component
//! inside it (events, time zones, anything else) as a few spans of the input, with what the
//! merge decides by: an event's UID, RECURRENCE-ID, SEQUENCE and LAST-MODIFIED/DTSTAMP, a time
//! zone's TZID. A component keeps one span per run of adjacent lines at the same depth (an
//! event with an alarm: five), not one per line, and its lines are read again from them when
//! needed; what is copied stays byte for byte.

use crate::ics::lexer::{Lexer, LogicalLine};
use crate::ics::{line_name, parse_property, text, Flow, Visitor, GO_ON};

/// A line of a part: a span of the input, or an END the input left out.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Line<'p> {
    Raw {
        start: usize,
        len: usize,
        /// 0 for the part's own BEGIN/END, 1 for its direct properties and children's BEGINs.
        depth: u16,
    },
    MissingEnd(&'p str),
}

/// Adjacent lines of a part at one depth, as a span of the input, or an END the input left out.
#[derive(Debug, Clone)]
pub(crate) enum Seg {
    Lines {
        start: usize,
        end: usize,
        depth: u16,
    },
    MissingEnd(Box<str>),
}

/// What the merge decides an event by.
#[derive(Debug, Clone, Default)]
pub(crate) struct EventKey {
    pub uid: Option<String>,
    pub recurrence_id: Option<String>,
    pub sequence: u64,
    /// LAST-MODIFIED, else DTSTAMP, as its digits (comparable as text).
    pub stamp: String,
}

#[derive(Debug, Clone)]
pub(crate) enum Kind {
    Event(EventKey),
    Timezone { tzid: Option<String> },
    Other,
}

/// One component directly inside a VCALENDAR (or a bare one at the top level).
#[derive(Debug, Clone)]
pub(crate) struct Part {
    pub kind: Kind,
    /// Its own BEGIN and END lines are kept in the spans of depth 1 beside its properties
    /// (fewer spans); [`Part::lines`] gives them depth 0 again.
    pub segs: Vec<Seg>,
    /// Where its own END line starts (`usize::MAX`: the input left it out).
    own_end: usize,
}

impl Part {
    fn new(kind: Kind, begin: &LogicalLine<'_>) -> Part {
        let mut part = Part {
            kind,
            segs: Vec::new(),
            own_end: usize::MAX,
        };
        push_line(&mut part.segs, begin, 1);
        part
    }

    fn push(&mut self, line: &LogicalLine<'_>, depth: usize) {
        if depth == 0 {
            self.own_end = line.start;
        }
        push_line(&mut self.segs, line, depth.max(1));
    }

    /// The part's lines in order, read again from its spans as the walk gave them.
    pub fn lines<'p>(&'p self, input: &'p [u8]) -> Lines<'p> {
        let begin = match self.segs.first() {
            Some(Seg::Lines { start, .. }) => *start,
            _ => usize::MAX,
        };
        Lines {
            zero: [begin, self.own_end],
            ..lines(&self.segs, input)
        }
    }
}

/// Adds a line to `segs`: to the last span when it follows it at the same depth.
fn push_line(segs: &mut Vec<Seg>, line: &LogicalLine<'_>, depth: usize) {
    let depth = u16::try_from(depth).unwrap_or(u16::MAX);
    let end = line.start + line.raw.len();
    if let Some(Seg::Lines {
        end: last,
        depth: d,
        ..
    }) = segs.last_mut()
    {
        if *last == line.start && *d == depth {
            *last = end;
            return;
        }
    }
    segs.push(Seg::Lines {
        start: line.start,
        end,
        depth,
    });
}

/// The lines of `segs` in order.
pub(crate) fn lines<'p>(segs: &'p [Seg], input: &'p [u8]) -> Lines<'p> {
    Lines {
        segs: segs.iter(),
        input,
        current: None,
        zero: [usize::MAX; 2],
    }
}

/// Iterator over the lines of a part's spans (see [`Part::lines`]).
pub(crate) struct Lines<'p> {
    segs: std::slice::Iter<'p, Seg>,
    input: &'p [u8],
    current: Option<(Lexer<'p>, u16)>,
    /// Where the lines of depth 0 start: a part's own BEGIN and END.
    zero: [usize; 2],
}

impl<'p> Iterator for Lines<'p> {
    type Item = Line<'p>;

    fn next(&mut self) -> Option<Line<'p>> {
        loop {
            if let Some((lexer, depth)) = &mut self.current {
                if let Some(l) = lexer.next() {
                    return Some(Line::Raw {
                        start: l.start,
                        len: l.raw.len(),
                        depth: if self.zero.contains(&l.start) {
                            0
                        } else {
                            *depth
                        },
                    });
                }
                self.current = None;
            }
            match self.segs.next()? {
                Seg::Lines { start, end, depth } => {
                    self.current = Some((Lexer::span(self.input, *start, *end), *depth));
                }
                Seg::MissingEnd(name) => return Some(Line::MissingEnd(name)),
            }
        }
    }
}

/// A source as the merge sees it.
#[derive(Debug, Default)]
pub(crate) struct Scanned {
    /// The direct properties of its first VCALENDAR.
    pub calendar_lines: Vec<Seg>,
    pub x_wr_timezone: Option<String>,
    pub parts: Vec<Part>,
}

#[derive(Default)]
pub(crate) struct Scan {
    pub out: Scanned,
    /// Names of the open components.
    stack: Vec<String>,
    /// Stack depth the open part starts at.
    part_base: Option<usize>,
    open: Option<Part>,
    calendars_seen: usize,
    /// Components seen (for the interrupt check).
    pub components: usize,
}

fn digits(value: &str) -> String {
    let mut d: String = value.chars().filter(char::is_ascii_digit).collect();
    // A DATE compares as the start of its day.
    while d.len() < 14 {
        d.push('0');
    }
    d.shrink_to_fit();
    d
}

impl Scan {
    fn in_first_calendar(&self) -> bool {
        self.calendars_seen == 1 && self.stack.len() == 1 && self.stack[0] == "VCALENDAR"
    }

    /// Reads what the merge needs from a direct property of the open part.
    fn note_key(part: &mut Part, line: &LogicalLine<'_>) {
        let name = line_name(line);
        let is = |n: &str| name.eq_ignore_ascii_case(n);
        let wanted = match &part.kind {
            Kind::Event(_) => {
                is("UID")
                    || is("RECURRENCE-ID")
                    || is("SEQUENCE")
                    || is("LAST-MODIFIED")
                    || is("DTSTAMP")
            }
            Kind::Timezone { .. } => is("TZID"),
            Kind::Other => false,
        };
        if !wanted {
            return;
        }
        let p = parse_property(line);
        let value = p.text().trim().to_owned();
        match &mut part.kind {
            Kind::Event(key) => match p.name.as_str() {
                "UID" => key.uid = Some(value),
                "RECURRENCE-ID" => {
                    let zone = p.param("TZID").unwrap_or_default();
                    key.recurrence_id = Some(format!("{zone}|{}", digits(&value)));
                }
                "SEQUENCE" => key.sequence = value.parse().unwrap_or(0),
                "LAST-MODIFIED" => key.stamp = digits(&value),
                "DTSTAMP" if key.stamp.is_empty() => key.stamp = digits(&value),
                _ => {}
            },
            Kind::Timezone { tzid } => *tzid = Some(value),
            Kind::Other => {}
        }
    }
}

impl<'a> Visitor<'a> for Scan {
    fn begin(&mut self, line: &LogicalLine<'a>, name: &str) -> Flow {
        let depth = self.stack.len();
        if depth == 0 && name == "VCALENDAR" {
            self.calendars_seen += 1;
        } else if self.open.is_none()
            && (depth == 0 || (depth == 1 && self.stack[0] == "VCALENDAR"))
        {
            self.components += 1;
            let kind = match name {
                "VEVENT" => Kind::Event(EventKey::default()),
                "VTIMEZONE" => Kind::Timezone { tzid: None },
                _ => Kind::Other,
            };
            self.part_base = Some(depth);
            self.open = Some(Part::new(kind, line));
        } else if let (Some(part), Some(base)) = (self.open.as_mut(), self.part_base) {
            part.push(line, depth - base);
        }
        self.stack.push(name.to_owned());
        GO_ON
    }

    fn end(&mut self, line: Option<&LogicalLine<'a>>, name: &str) -> Flow {
        self.stack.pop();
        let depth = self.stack.len();
        if let (Some(part), Some(base)) = (self.open.as_mut(), self.part_base) {
            match line {
                Some(l) => part.push(l, depth - base),
                None => part.segs.push(Seg::MissingEnd(name.into())),
            }
            if depth == base {
                if let Some(mut done) = self.open.take() {
                    done.segs.shrink_to_fit();
                    self.out.parts.push(done);
                }
                self.part_base = None;
            }
        }
        GO_ON
    }

    fn property(&mut self, line: &LogicalLine<'a>) -> Flow {
        let depth = self.stack.len();
        if let (Some(part), Some(base)) = (self.open.as_mut(), self.part_base) {
            part.push(line, depth - base);
            if depth - base == 1 {
                Scan::note_key(part, line);
            }
        } else if self.in_first_calendar() {
            push_line(&mut self.out.calendar_lines, line, 1);
            if line_name(line).eq_ignore_ascii_case("X-WR-TIMEZONE") {
                let p = parse_property(line);
                let zone = p.text().trim().to_owned();
                self.out.x_wr_timezone = (!zone.is_empty()).then_some(zone);
            }
        }
        GO_ON
    }
}

/// The unfolded text of a raw line (without its terminator), for comparing and rewriting.
pub(crate) fn line_text(input: &[u8], start: usize, len: usize) -> String {
    let raw = &input[start..start + len];
    let body = raw.strip_suffix(b"\n").unwrap_or(raw);
    let body = body.strip_suffix(b"\r").unwrap_or(body);
    let unfolded = crate::ics::lexer::unfold(body);
    text(&unfolded).into_owned()
}
