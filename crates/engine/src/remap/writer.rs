//! The output side of a remap: RFC 5545 durations, and the writer that copies runs of clean
//! input lines in one write, re-folds the rest (`ics::write_folded`), and stops at the output
//! limit.

use std::io::{self, Write};
use std::time::Duration;

use crate::ics;
use crate::ics::lexer::LogicalLine;
use crate::ics::write_folded;
use crate::tz::TzRewrite;

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

/// The output side: copies runs of clean input lines in one write, folds the rest.
pub(super) struct Writer<'a, W: Write> {
    pub(super) input: &'a [u8],
    pub(super) out: W,
    /// A run of input bytes (start, end) waiting to be copied.
    pub(super) pending: Option<(usize, usize)>,
    pub(super) error: Option<io::Error>,
    pub(super) scratch: Vec<u8>,
    /// Bytes written so far, and the most that may be.
    pub(super) written: usize,
    pub(super) limit: usize,
    /// The limit was reached: nothing more is written, and the walk does no more work.
    pub(super) over: bool,
    /// Bytes of rendered lines per mapped field, to name the field behind an oversized feed.
    pub(super) field_bytes: [usize; 5],
    /// Time-zone repair: how lines change as they are written (input lines and made ones).
    pub(super) tz: Option<TzRewrite>,
    /// Inside a VTIMEZONE (its observances' local times are not floating times).
    pub(super) in_vtimezone: bool,
    /// VTIMEZONEs the repair adds, written once after the first calendar's properties.
    pub(super) vtimezones_to_add: Vec<String>,
}

impl<'a, W: Write> Writer<'a, W> {
    /// Whether writing has stopped (an I/O error or the size limit): callers skip their work.
    pub(super) fn stopped(&self) -> bool {
        self.over || self.error.is_some()
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

    pub(super) fn flush_pending(&mut self) {
        if let Some((s, e)) = self.pending.take() {
            let input = self.input;
            self.write_raw(&input[s..e]);
        }
    }

    /// An input line written as it is: copied when already clean, else unfolded and re-folded.
    pub(super) fn original(&mut self, line: &LogicalLine<'a>) {
        let repaired = self.tz.as_ref().is_some_and(|tz| tz.may_change(line));
        if line.clean && !repaired {
            let start = line.start;
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

    /// A line the writer made (without terminator). With time-zone repair on, it names zones
    /// as the repair does, like the input lines.
    pub(super) fn text_line(&mut self, line: &[u8]) {
        self.flush_pending();
        let repaired = self
            .tz
            .as_ref()
            .filter(|tz| tz.may_change_text(line))
            .and_then(|tz| tz.rewrite(std::str::from_utf8(line).ok()?, self.in_vtimezone));
        let line = repaired.as_deref().map_or(line, str::as_bytes);
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        write_folded(&mut scratch, line);
        self.write_raw(&scratch);
        self.scratch = scratch;
    }

    /// Writes the VTIMEZONEs the repair adds (already folded CRLF text), the first time only.
    pub(super) fn added_vtimezones(&mut self) {
        if self.vtimezones_to_add.is_empty() {
            return;
        }
        self.flush_pending();
        for text in std::mem::take(&mut self.vtimezones_to_add) {
            self.write_raw(text.as_bytes());
        }
    }
}
