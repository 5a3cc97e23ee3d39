//! What a parse may take and what it reports: the caps on input size, line length, nesting and
//! events, the typed errors that refuse an input, and the bounded list of warnings.

use std::fmt;

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
