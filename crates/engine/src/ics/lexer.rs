//! Splits raw bytes into logical content lines: CRLF, LF or lone CR endings, folded
//! continuations joined on bytes (RFC 5545 §3.1), a leading UTF-8 BOM skipped, blank lines dropped.

use std::borrow::Cow;

/// Longest physical line (without its CRLF) that the writer may copy through unchanged.
pub const MAX_LINE_OCTETS: usize = 75;

/// One logical (unfolded) line, still pointing into the input.
#[derive(Debug, Clone, Copy)]
pub struct LogicalLine<'a> {
    /// All physical lines of this logical line, terminators included.
    pub raw: &'a [u8],
    /// Byte offset of `raw` in the input.
    pub start: usize,
    /// `raw` without its final line terminator (still folded).
    pub body: &'a [u8],
    /// 1-based number of the first physical line.
    pub line_no: u32,
    /// Whether `body` contains folds.
    pub folded: bool,
    /// Every physical line ends in CRLF, is at most 75 octets, no fold splits a UTF-8
    /// character, and the bytes are valid UTF-8: the writer may copy `raw` as it is.
    pub clean: bool,
    /// `body` as text when the whole input is valid UTF-8 (checked once by the lexer, so no line
    /// needs checking again; unfolded, it stays text, as folds are cut at ASCII bytes).
    pub body_text: Option<&'a str>,
}

impl<'a> LogicalLine<'a> {
    /// The unfolded bytes of the line.
    pub fn content(&self) -> Cow<'a, [u8]> {
        if !self.folded {
            return Cow::Borrowed(self.body);
        }
        Cow::Owned(unfold(self.body))
    }

    /// The unfolded text of the line when the input is valid UTF-8 ([`LogicalLine::body_text`]).
    pub fn content_text(&self) -> Option<Cow<'a, str>> {
        let body = self.body_text?;
        if !self.folded {
            return Some(Cow::Borrowed(body));
        }
        let mut out = String::with_capacity(body.len());
        let mut rest = body;
        while let Some(pos) = memchr::memchr2(b'\r', b'\n', rest.as_bytes()) {
            out.push_str(&rest[..pos]);
            let skip =
                if rest.as_bytes()[pos] == b'\r' && rest.as_bytes().get(pos + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
            // The fold's space or tab goes too; each cut is at an ASCII byte.
            rest = rest.get(pos + skip + 1..).unwrap_or_default();
        }
        out.push_str(rest);
        Some(Cow::Owned(out))
    }

    /// The bytes of the first physical line: enough to read the name of almost every line.
    pub fn first_segment(&self) -> &'a [u8] {
        if !self.folded {
            return self.body;
        }
        match memchr::memchr2(b'\r', b'\n', self.body) {
            Some(end) => &self.body[..end],
            None => self.body,
        }
    }

    /// The unfolded length in octets, without allocating.
    pub fn content_len(&self) -> usize {
        if !self.folded {
            return self.body.len();
        }
        let mut len = 0;
        let mut rest = self.body;
        while let Some(pos) = memchr::memchr2(b'\r', b'\n', rest) {
            len += pos;
            let skip = if rest[pos] == b'\r' && rest.get(pos + 1) == Some(&b'\n') {
                2
            } else {
                1
            };
            // A terminator inside `body` is always followed by the fold's space or tab.
            rest = rest.get(pos + skip + 1..).unwrap_or_default();
        }
        len + rest.len()
    }
}

/// Joins folded physical lines: each terminator inside `body` plus the following space or tab go.
pub fn unfold(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut rest = body;
    while let Some(pos) = memchr::memchr2(b'\r', b'\n', rest) {
        out.extend_from_slice(&rest[..pos]);
        let skip = if rest[pos] == b'\r' && rest.get(pos + 1) == Some(&b'\n') {
            2
        } else {
            1
        };
        rest = rest.get(pos + skip + 1..).unwrap_or_default();
    }
    out.extend_from_slice(rest);
    out
}

/// Iterator over the logical lines of an input.
pub struct Lexer<'a> {
    input: &'a [u8],
    pos: usize,
    /// Number of the next physical line.
    line_no: u32,
    /// The whole input is valid UTF-8, so no line needs checking on its own.
    all_utf8: bool,
    /// The input as text from where the lexer starts (`skip` bytes in), when it is UTF-8.
    text: Option<&'a str>,
    skip: usize,
}

impl<'a> Lexer<'a> {
    pub fn new(input: &'a [u8]) -> Self {
        let start = if input.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        let text = std::str::from_utf8(&input[start..]).ok();
        Lexer {
            input,
            pos: start,
            line_no: 1,
            all_utf8: text.is_some(),
            text,
            skip: start,
        }
    }

    /// The lines of `input[start..end]`, where `start` and `end` are where lines of the whole
    /// input begin and end: the same lines, at the same offsets, as lexing all of it gives
    /// (line numbers aside; `clean` checks each line's UTF-8 on its own).
    pub fn span(input: &'a [u8], start: usize, end: usize) -> Self {
        Lexer {
            input: &input[..end],
            pos: start,
            line_no: 0,
            all_utf8: false,
            text: None,
            skip: 0,
        }
    }

    /// Whether every byte of the input is valid UTF-8.
    pub fn all_utf8(&self) -> bool {
        self.all_utf8
    }

    /// Reads one physical line from `pos`: (end of text, end including terminator, ends in CRLF).
    fn physical(&self, pos: usize) -> (usize, usize, bool) {
        let rest = &self.input[pos..];
        match memchr::memchr2(b'\r', b'\n', rest) {
            None => (self.input.len(), self.input.len(), false),
            Some(i) => {
                let end = pos + i;
                if rest[i] == b'\r' {
                    if rest.get(i + 1) == Some(&b'\n') {
                        (end, end + 2, true)
                    } else {
                        (end, end + 1, false)
                    }
                } else {
                    (end, end + 1, false)
                }
            }
        }
    }
}

impl<'a> Iterator for Lexer<'a> {
    type Item = LogicalLine<'a>;

    fn next(&mut self) -> Option<LogicalLine<'a>> {
        loop {
            if self.pos >= self.input.len() {
                return None;
            }
            let start = self.pos;
            let line_no = self.line_no;
            let (text_end, line_end, crlf) = self.physical(start);
            self.line_no = self.line_no.saturating_add(1);
            self.pos = line_end;
            if text_end == start {
                // A blank line is not a content line.
                continue;
            }
            // A line that starts with whitespace (after a blank line) would read back as a fold.
            let mut clean = crlf
                && text_end - start <= MAX_LINE_OCTETS
                && !matches!(self.input[start], b' ' | b'\t');
            let mut body_end = text_end;
            let mut folded = false;
            // Continuation lines start with a space or a tab.
            while let Some(&c) = self.input.get(self.pos) {
                if c != b' ' && c != b'\t' {
                    break;
                }
                let (t_end, l_end, crlf) = self.physical(self.pos);
                clean = clean
                    && crlf
                    && t_end - self.pos <= MAX_LINE_OCTETS
                    && !matches!(self.input.get(self.pos + 1), Some(0x80..=0xBF));
                folded = true;
                body_end = t_end;
                self.pos = l_end;
                self.line_no = self.line_no.saturating_add(1);
            }
            let body = &self.input[start..body_end];
            if matches!(body[0], b' ' | b'\t')
                && body
                    .iter()
                    .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
            {
                // Only whitespace, and not a fold of anything: as blank as a blank line.
                continue;
            }
            let raw = &self.input[start..self.pos];
            if clean && !self.all_utf8 {
                clean = std::str::from_utf8(raw).is_ok();
            }
            let body_text = self
                .text
                .and_then(|t| t.get(start - self.skip..body_end - self.skip));
            return Some(LogicalLine {
                raw,
                start,
                body,
                line_no,
                folded,
                clean,
                body_text,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contents(input: &[u8]) -> Vec<String> {
        Lexer::new(input)
            .map(|l| String::from_utf8_lossy(&l.content()).into_owned())
            .collect()
    }

    #[test]
    fn accepts_crlf_lf_and_lone_cr_endings() {
        assert_eq!(
            contents(b"A:1\r\nB:2\nC:3\rD:4"),
            ["A:1", "B:2", "C:3", "D:4"]
        );
    }

    #[test]
    fn joins_folds_that_start_with_space_or_tab() {
        assert_eq!(
            contents(b"A:12\r\n 34\n\t56\r\nB:x\r\n"),
            ["A:123456", "B:x"]
        );
    }

    #[test]
    fn unfolds_on_bytes_so_a_fold_may_split_a_utf8_character() {
        let input = b"S:\xC3\r\n \xA9t\xC3\xA9\r\n";
        assert_eq!(contents(input), ["S:été"]);
        let line = Lexer::new(input).next().expect("a line");
        assert!(!line.clean, "a split character must be re-folded");
    }

    #[test]
    fn skips_a_bom_and_blank_lines() {
        assert_eq!(
            contents(b"\xEF\xBB\xBFA:1\r\n\r\n\nB:2\r\n"),
            ["A:1", "B:2"]
        );
    }

    #[test]
    fn whitespace_only_lines_count_as_blank() {
        assert_eq!(contents(b"A:1\r\n\r\n \r\n\t\nB:2\r\n"), ["A:1", "B:2"]);
    }

    #[test]
    fn counts_physical_line_numbers() {
        let lines: Vec<u32> = Lexer::new(b"A:1\n 2\n\nB:3\n").map(|l| l.line_no).collect();
        assert_eq!(lines, [1, 4]);
    }

    #[test]
    fn clean_only_for_crlf_lines_within_75_octets() {
        let long = format!("X:{}\r\n", "a".repeat(74));
        let ok = format!("X:{}\r\n", "a".repeat(73));
        assert!(!Lexer::new(long.as_bytes()).next().expect("line").clean);
        assert!(Lexer::new(ok.as_bytes()).next().expect("line").clean);
        assert!(!Lexer::new(b"X:1\n").next().expect("line").clean);
        assert!(!Lexer::new(b"X:1").next().expect("line").clean);
    }

    #[test]
    fn content_len_matches_unfolded_content() {
        for l in Lexer::new(b"A:12\r\n 34\n\t56\rB:x\r 1") {
            assert_eq!(l.content_len(), l.content().len());
        }
    }
}
