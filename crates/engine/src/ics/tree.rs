//! The component tree of a feed: `parse` builds it (a visitor of the walk), `check` reads a feed
//! the same way without building it, and `Document` answers what the server shows of it.

use std::borrow::Cow;

use super::lexer::LogicalLine;
use super::limits::{Limits, ParseError, Warning, Warnings};
use super::line::{self, unescape_text};
use super::text::text;
use super::walk::{walk, Flow, Visitor, GO_ON};

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
}
