//! The walk over a feed's lines: the component stack, the limits, missing or stray END lines
//! repaired with warnings, and a `Visitor` told what is found. It drives the tree builder
//! (`tree`), the remap's passes and time-zone repair alike.

use super::lexer::{Lexer, LogicalLine};
use super::limits::{Limits, ParseError, Warnings};
use super::line;
use super::text::text;

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
