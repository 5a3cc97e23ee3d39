//! The first look at each source of a merge: its calendar's own lines, and each component
//! inside it (events, time zones, anything else) as the spans of its lines, with what the merge
//! decides by: an event's UID, RECURRENCE-ID, SEQUENCE and LAST-MODIFIED/DTSTAMP, a time zone's
//! TZID. Lines are kept as spans of the input, so what is copied stays byte for byte.

use crate::ics::lexer::LogicalLine;
use crate::ics::{line_name, parse_property, text, Flow, Visitor, GO_ON};

/// A line of a part: a span of the input, or an END the input left out.
#[derive(Debug, Clone)]
pub(crate) enum Line {
    Raw {
        start: usize,
        len: usize,
        /// 0 for the part's own BEGIN/END, 1 for its direct properties and children's BEGINs.
        depth: u16,
    },
    MissingEnd(String),
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
    pub lines: Vec<Line>,
}

/// A source as the merge sees it.
#[derive(Debug, Default)]
pub(crate) struct Scanned {
    /// The direct properties of its first VCALENDAR.
    pub calendar_lines: Vec<Line>,
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
    d
}

impl Scan {
    fn in_first_calendar(&self) -> bool {
        self.calendars_seen == 1 && self.stack.len() == 1 && self.stack[0] == "VCALENDAR"
    }

    fn raw(line: &LogicalLine<'_>, depth: usize) -> Line {
        Line::Raw {
            start: line.start,
            len: line.raw.len(),
            depth: u16::try_from(depth).unwrap_or(u16::MAX),
        }
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
            self.open = Some(Part {
                kind,
                lines: vec![Scan::raw(line, 0)],
            });
        } else if let (Some(part), Some(base)) = (self.open.as_mut(), self.part_base) {
            part.lines.push(Scan::raw(line, depth - base));
        }
        self.stack.push(name.to_owned());
        GO_ON
    }

    fn end(&mut self, line: Option<&LogicalLine<'a>>, name: &str) -> Flow {
        self.stack.pop();
        let depth = self.stack.len();
        if let (Some(part), Some(base)) = (self.open.as_mut(), self.part_base) {
            part.lines.push(match line {
                Some(l) => Scan::raw(l, depth - base),
                None => Line::MissingEnd(name.to_owned()),
            });
            if depth == base {
                if let Some(done) = self.open.take() {
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
            part.lines.push(Scan::raw(line, depth - base));
            if depth - base == 1 {
                Scan::note_key(part, line);
            }
        } else if self.in_first_calendar() {
            self.out.calendar_lines.push(Scan::raw(line, 1));
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
