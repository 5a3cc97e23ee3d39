//! Merging several feeds into one calendar, before the mapping and options run over it:
//! one VCALENDAR (its own lines from the first source that has one), one VTIMEZONE per TZID
//! (`pick`), each event once across sources (`pick`), each source's prefix before the SUMMARY
//! of its events. Every line the merge does not change is copied byte for byte; a changed line
//! is written folded with CRLF.

mod pick;
pub(crate) mod scan;
mod uids;

use crate::ics::{self, escape_text, write_folded, Limits, ParseError, Warning, Warnings};
use crate::interrupt::{self, Interrupt, Interrupted};
use crate::tz::TzRewrite;
use scan::{line_text, Kind, Line, Part, Scan, Scanned, Seg};

pub use crate::config::MAX_SOURCES;
pub use uids::{content_uids, uid_churn, UidChurn, UidError};

/// One feed to merge: its bytes and the text put before its events' SUMMARY. Empty bytes stand
/// for a source with nothing to give (a feed the server could not fetch yet): it adds nothing,
/// and the other sources keep their numbers.
#[derive(Debug, Clone, Copy)]
pub struct MergeInput<'a> {
    pub bytes: &'a [u8],
    pub prefix: Option<&'a str>,
}

/// The merged feed and where its events came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub bytes: Vec<u8>,
    /// For each VEVENT of `bytes`, in order, the index of its source.
    pub origins: Vec<u16>,
    /// Events of each source (before duplicates are left out).
    pub source_events: Vec<usize>,
    /// Events left out because another source's copy of them won.
    pub duplicates: usize,
    /// Each source's parser warnings, as `source 2: line 5: …`.
    pub warnings: Vec<Warning>,
}

/// Why sources could not be merged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    #[error("source {}: {error}", index + 1)]
    Source { index: usize, error: ParseError },
    #[error("at most {MAX_SOURCES} feeds can be merged, not {0}")]
    TooMany(usize),
    #[error("the feeds together are {size} bytes, more than the limit of {limit}")]
    TooLarge { size: usize, limit: usize },
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
}

/// Merges `inputs` in order. Each is read within `limits`, and together they stay within
/// `limits.max_input_bytes`; the output is at most that plus the prefixes and renamed zones.
pub fn merge(
    inputs: &[MergeInput<'_>],
    limits: &Limits,
    stop: Option<&Interrupt>,
) -> Result<Merged, MergeError> {
    if inputs.len() > MAX_SOURCES {
        return Err(MergeError::TooMany(inputs.len()));
    }
    let size: usize = inputs.iter().map(|i| i.bytes.len()).sum();
    if size > limits.max_input_bytes {
        return Err(MergeError::TooLarge {
            size,
            limit: limits.max_input_bytes,
        });
    }
    let mut scanned = Vec::with_capacity(inputs.len());
    let mut warnings = Warnings::default();
    for (index, input) in inputs.iter().enumerate() {
        interrupt::check(stop)?;
        if input.bytes.is_empty() {
            scanned.push(Scanned::default());
            continue;
        }
        let mut scan = Scan::default();
        let mut own = Warnings::default();
        ics::walk(input.bytes, limits, &mut scan, &mut own)
            .map_err(|error| MergeError::Source { index, error })?;
        for w in own.finish() {
            warnings.push(0, format!("source {}: {w}", index + 1));
        }
        // Held until the output is written: no room to spare beside it.
        scan.out.parts.shrink_to_fit();
        scanned.push(scan.out);
    }
    interrupt::check(stop)?;
    let bytes: Vec<&[u8]> = inputs.iter().map(|i| i.bytes).collect();
    let picks = pick::pick(&bytes, &scanned);
    let first_zone = scanned.first().and_then(|s| s.x_wr_timezone.clone());
    let source_events: Vec<usize> = scanned
        .iter()
        .map(|s| {
            s.parts
                .iter()
                .filter(|p| matches!(p.kind, Kind::Event(_)))
                .count()
        })
        .collect();
    // The output grows by an eighth at a time (see `Output::room`) while the sources' parts go
    // once written, so that the two together stay near the size of the inputs.
    let mut out = Output {
        bytes: Vec::with_capacity((size + 256).min(FIRST_OUTPUT_BYTES)),
        origins: Vec::new(),
    };
    out.bytes.extend_from_slice(b"BEGIN:VCALENDAR\r\n");
    match scanned
        .iter()
        .enumerate()
        .find(|(_, s)| !s.calendar_lines.is_empty())
    {
        Some((s, source)) => {
            out.segs(inputs[s].bytes, &source.calendar_lines);
        }
        None => out
            .bytes
            .extend_from_slice(b"VERSION:2.0\r\nPRODID:-//Hearth//Merged feeds//EN\r\n"),
    }
    // Time zones first, so that every event after them finds its zone.
    for pass in [Pass::Timezones, Pass::Rest] {
        for (s, source) in scanned.iter_mut().enumerate() {
            interrupt::check(stop)?;
            // A later source's floating times keep meaning its own X-WR-TIMEZONE.
            let floating = (s > 0 && source.x_wr_timezone != first_zone)
                .then(|| {
                    source
                        .x_wr_timezone
                        .as_deref()
                        .and_then(crate::tz::known_zone)
                })
                .flatten();
            let rewrite = TzRewrite::for_merge(picks.renames[s].clone(), floating);
            let prefix = inputs[s].prefix.filter(|p| !p.is_empty());
            let kept = &picks.kept[s];
            let write = |out: &mut Output, p: usize, part: &Part| {
                let timezone = matches!(part.kind, Kind::Timezone { .. });
                if timezone != (pass == Pass::Timezones) || !kept[p] {
                    return;
                }
                let event = matches!(part.kind, Kind::Event(_));
                if event {
                    out.origins.push(u16::try_from(s).unwrap_or(u16::MAX));
                }
                out.part(
                    inputs[s].bytes,
                    part,
                    &rewrite,
                    timezone,
                    prefix.filter(|_| event),
                );
            };
            match pass {
                Pass::Timezones => {
                    for (p, part) in source.parts.iter().enumerate() {
                        write(&mut out, p, part);
                    }
                }
                // The last look at each part: it goes once written.
                Pass::Rest => {
                    for (p, part) in std::mem::take(&mut source.parts).into_iter().enumerate() {
                        write(&mut out, p, &part);
                    }
                }
            }
        }
    }
    out.bytes.extend_from_slice(b"END:VCALENDAR\r\n");
    Ok(Merged {
        bytes: out.bytes,
        origins: out.origins,
        source_events,
        duplicates: picks.duplicates,
        warnings: warnings.finish(),
    })
}

/// What the output starts with; it grows from there (see `Output::room`).
const FIRST_OUTPUT_BYTES: usize = 64 << 10;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Timezones,
    Rest,
}

struct Output {
    bytes: Vec<u8>,
    origins: Vec<u16>,
}

impl Output {
    /// Makes room for `more` bytes, growing by an eighth rather than doubling.
    fn room(&mut self, more: usize) {
        if self.bytes.capacity() - self.bytes.len() < more {
            self.bytes
                .reserve_exact(more.max(self.bytes.capacity() / 8));
        }
    }

    /// Copies raw lines as they are (with a CRLF when the input's last line had none).
    fn raw(&mut self, raw: &[u8]) {
        self.room(raw.len() + 2);
        self.bytes.extend_from_slice(raw);
        if !raw.ends_with(b"\n") && !raw.ends_with(b"\r") {
            self.bytes.extend_from_slice(b"\r\n");
        }
    }

    /// Writes a changed line, folded.
    fn folded(&mut self, line: &[u8]) {
        self.room(line.len() + line.len() / 24 + 8);
        write_folded(&mut self.bytes, line);
    }

    /// Copies a raw line as it is (with a CRLF when the input's last line had none).
    fn copy(&mut self, input: &[u8], line: &Line<'_>) {
        match *line {
            Line::Raw { start, len, .. } => self.raw(&input[start..start + len]),
            Line::MissingEnd(name) => self.folded(format!("END:{name}").as_bytes()),
        }
    }

    /// Copies spans of lines as they are, a whole span at a time.
    fn segs(&mut self, input: &[u8], segs: &[Seg]) {
        for seg in segs {
            match seg {
                Seg::Lines { start, end, .. } => self.raw(&input[*start..*end]),
                Seg::MissingEnd(name) => self.folded(format!("END:{name}").as_bytes()),
            }
        }
    }

    /// Writes one component: zone renames on every line, the prefix on its own SUMMARY (one
    /// added when it has none).
    fn part(
        &mut self,
        input: &[u8],
        part: &Part,
        rewrite: &TzRewrite,
        timezone: bool,
        prefix: Option<&str>,
    ) {
        if prefix.is_none() && rewrite.is_empty() {
            self.segs(input, &part.segs);
            return;
        }
        let mut prefixed = prefix.is_none();
        let mut lines = part.lines(input).peekable();
        while let Some(line) = lines.next() {
            // The part's END: a SUMMARY it lacked goes just before it.
            if lines.peek().is_none() && !prefixed {
                if let Some(prefix) = prefix {
                    let summary = format!("SUMMARY:{}", escape_text(prefix.trim_end()));
                    self.folded(summary.as_bytes());
                }
                prefixed = true;
            }
            let Line::Raw { start, len, depth } = line else {
                self.copy(input, &line);
                continue;
            };
            let summary = depth == 1 && !prefixed && is_named(input, start, len, b"SUMMARY");
            if !summary && rewrite.is_empty() {
                self.copy(input, &line);
                continue;
            }
            let text = line_text(input, start, len);
            let mut changed = None;
            if !rewrite.is_empty() && rewrite.may_change_text(text.as_bytes()) {
                changed = rewrite.rewrite(&text, timezone && depth == 1);
            }
            if summary {
                prefixed = true;
                if let Some(prefix) = prefix {
                    let base = changed.as_deref().unwrap_or(&text);
                    changed = Some(with_prefix(base, prefix));
                }
            }
            match changed {
                Some(new) => self.folded(new.as_bytes()),
                None => self.copy(input, &line),
            }
        }
    }
}

/// Whether a raw line's name is `name` (any case); a fold inside or just after the name is
/// read through.
fn is_named(input: &[u8], start: usize, len: usize, name: &[u8]) -> bool {
    let raw = &input[start..start + len];
    let named = |line: &[u8]| {
        line.len() > name.len()
            && line[..name.len()].eq_ignore_ascii_case(name)
            && matches!(line[name.len()], b':' | b';')
    };
    let first_end = memchr::memchr2(b'\r', b'\n', raw).unwrap_or(raw.len());
    if first_end > name.len() {
        return named(raw);
    }
    named(line_text(input, start, len).as_bytes())
}

/// `SUMMARY;LANGUAGE=en:Standup` with the escaped prefix before the value.
fn with_prefix(line: &str, prefix: &str) -> String {
    let parts = ics::line::split_line(line);
    let at = line.len() - parts.value.len();
    format!("{}{}{}", &line[..at], escape_text(prefix), parts.value)
}

#[cfg(test)]
mod tests;
