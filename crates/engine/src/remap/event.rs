//! The buffered event as the writer sees it: each direct property's role, and the event's values
//! as templates see them, computed once per event by the same rules as the parsed view.

use std::borrow::Cow;

use crate::ics;
use crate::ics::lexer::LogicalLine;
use crate::ics::line::{self, split_line, unescape_text};
use crate::ics::view::{resolve, PropertyLike, Resolved};
use crate::ics::Fields;
use crate::mapping::MappedField;

/// What a direct property of a VEVENT is to the writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Mapped(MappedField),
    Sequence,
    AltDesc,
    /// Replaced by a DTEND the mapping writes (RFC 5545 allows one or the other).
    Duration,
    Other,
}

pub(super) fn role_of(name: &str) -> Role {
    if let Some(f) = MappedField::from_name(name) {
        Role::Mapped(f)
    } else if name.eq_ignore_ascii_case("SEQUENCE") {
        Role::Sequence
    } else if name.eq_ignore_ascii_case("X-ALT-DESC") {
        Role::AltDesc
    } else if name.eq_ignore_ascii_case("DURATION") {
        Role::Duration
    } else {
        Role::Other
    }
}

/// One buffered line of the current event.
#[derive(Debug, Clone)]
pub(super) enum EvLine<'a> {
    /// The event's own BEGIN or END, or a line of a sub-component: written as it is.
    Pass(LogicalLine<'a>),
    /// A direct property of the event, with its name as written.
    Prop(LogicalLine<'a>, Role, Cow<'a, str>),
    /// An END line the input left out.
    End(String),
}

/// The unfolded text of a line (decoded as the parser does), borrowed from the input when possible.
pub(super) fn line_text<'l>(line: &LogicalLine<'l>) -> Cow<'l, str> {
    // Text already when the input is UTF-8: no second check of its bytes.
    if let Some(text) = line.content_text() {
        return text;
    }
    match line.content() {
        Cow::Borrowed(b) => ics::text(b),
        Cow::Owned(v) => match String::from_utf8(v) {
            Ok(s) => Cow::Owned(s),
            Err(e) => Cow::Owned(ics::text(e.as_bytes()).into_owned()),
        },
    }
}

/// Enough of a line to read its name and parameters: the first physical line when the value
/// starts there (saves unfolding a long DESCRIPTION), else the whole unfolded line.
pub(super) fn head_text<'l>(line: &LogicalLine<'l>) -> Cow<'l, str> {
    if line.folded {
        let first = match line
            .body_text
            .and_then(|b| b.get(..line.first_segment().len()))
        {
            Some(first) => Ok(first),
            None => std::str::from_utf8(line.first_segment()),
        };
        if let Ok(first) = first {
            if split_line(first).well_formed {
                return Cow::Borrowed(first);
            }
        }
    }
    line_text(line)
}

/// The unescaped value of a property line.
pub(super) fn prop_value<'l>(line: &LogicalLine<'l>) -> Cow<'l, str> {
    match line_text(line) {
        Cow::Borrowed(s) => unescape_text(split_line(s).value),
        Cow::Owned(s) => Cow::Owned(unescape_text(split_line(&s).value).into_owned()),
    }
}

/// The buffered event as templates see it, with the values the mapping needs computed once.
pub(super) struct StreamEvent<'e, 'a> {
    lines: &'e [EvLine<'a>],
    names: &'e [String],
    /// `names` resolved once, by the same rules as the parsed view.
    resolved: Resolved<'a>,
}

/// A direct property line of the buffered event, for the shared field rules.
#[derive(Clone, Copy)]
struct LineProperty<'e, 'a> {
    line: &'e LogicalLine<'a>,
    name: &'e str,
}

impl<'a> PropertyLike<'a> for LineProperty<'_, 'a> {
    fn is(&self, name: &str) -> bool {
        self.name.eq_ignore_ascii_case(name)
    }

    fn value(&self) -> Cow<'a, str> {
        prop_value(self.line)
    }

    fn params(&self) -> Vec<(String, String)> {
        let text = line_text(self.line);
        split_line(&text)
            .params
            .iter()
            .map(|p| {
                let decoded: Vec<Cow<'_, str>> =
                    p.values.iter().map(|v| line::param_value(v)).collect();
                (p.name.to_owned(), decoded.join(","))
            })
            .collect()
    }
}

fn line_properties<'e, 'a>(
    lines: &'e [EvLine<'a>],
) -> impl Iterator<Item = LineProperty<'e, 'a>> + Clone {
    lines.iter().filter_map(|l| match l {
        EvLine::Prop(line, _, name) => Some(LineProperty {
            line,
            name: name.as_ref(),
        }),
        _ => None,
    })
}

impl<'e, 'a> StreamEvent<'e, 'a> {
    pub(super) fn new(lines: &'e [EvLine<'a>], names: &'e [String]) -> Self {
        StreamEvent {
            lines,
            names,
            resolved: resolve(line_properties(lines), names),
        }
    }

    pub(super) fn props(&self) -> impl Iterator<Item = (&LogicalLine<'a>, Role, &str)> {
        self.lines.iter().filter_map(|l| match l {
            EvLine::Prop(line, role, name) => Some((line, *role, name.as_ref())),
            _ => None,
        })
    }

    /// Only properties (no parameter fallback): the upstream value of a mapped field.
    pub(super) fn property(&self, name: &str) -> Option<Cow<'_, str>> {
        if let Some(i) = self.names.iter().position(|n| n == name) {
            return self.resolved.properties[i].as_deref().map(Cow::Borrowed);
        }
        resolve(line_properties(self.lines), &[name])
            .properties
            .pop()
            .flatten()
    }
}

impl Fields for StreamEvent<'_, '_> {
    fn field(&self, name: &str) -> Option<Cow<'_, str>> {
        if let Some(i) = self.names.iter().position(|n| n == name) {
            return self.resolved.field(i).map(Cow::Borrowed);
        }
        let mut other = resolve(line_properties(self.lines), &[name]);
        match other.properties.pop().flatten() {
            Some(value) => Some(value),
            None => other.parameters.pop().flatten().map(Cow::Owned),
        }
    }
}
