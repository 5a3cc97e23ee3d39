//! Rendering a compiled template for one event: tokens replaced by field values, regex transforms
//! applied, the result cut at its size limit and trimmed, the interrupt looked at as it goes.

use std::borrow::Cow;

use regex_automata::util::captures::Captures;

use super::syntax::Piece;
use super::{Part, Template, Transform, MAX_RENDERED_BYTES};
use crate::ics::Fields;
use crate::interrupt::{self, Interrupt, Interrupted};

/// Matches a transform replaces between two looks at the interrupt: often enough that one
/// token over a 10 MB value stops within a fraction of its work, rarely enough to cost nothing.
pub(super) const MATCHES_PER_CHECK: usize = 256;

impl Template {
    /// Renders for one event: unknown names give "", the result is trimmed.
    pub fn render<F: Fields + ?Sized>(&self, fields: &F) -> String {
        // Without an interrupt nothing stops the rendering: the error cannot happen.
        self.render_with(fields, None).unwrap_or_default()
    }

    /// As [`Template::render`], stopping with [`Interrupted`] once `interrupt` is stopped: it
    /// is checked before each token and every few hundred matches of a regex transform.
    pub fn render_checked<F: Fields + ?Sized>(
        &self,
        fields: &F,
        interrupt: &Interrupt,
    ) -> Result<String, Interrupted> {
        self.render_with(fields, Some(interrupt))
    }

    /// Renders, checking `interrupt` when there is one.
    pub(crate) fn render_with<F: Fields + ?Sized>(
        &self,
        fields: &F,
        interrupt: Option<&Interrupt>,
    ) -> Result<String, Interrupted> {
        let mut out = String::new();
        for part in &self.parts {
            if out.len() > MAX_RENDERED_BYTES {
                break;
            }
            match part {
                Part::Literal(s) => out.push_str(s),
                Part::Token { name, transform } => {
                    interrupt::check(interrupt)?;
                    let value = fields.field(name).unwrap_or(Cow::Borrowed(""));
                    match transform {
                        None => out.push_str(&value),
                        Some(t) => t.apply(&value, &mut out, interrupt)?,
                    }
                }
            }
        }
        if out.len() > MAX_RENDERED_BYTES {
            let mut cut = MAX_RENDERED_BYTES;
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
        }
        let trimmed = out.trim();
        if trimmed.len() == out.len() {
            Ok(out)
        } else {
            Ok(trimmed.to_owned())
        }
    }
}

impl Transform {
    /// Appends `value` with the replacements made; looks at `interrupt` every
    /// [`MATCHES_PER_CHECK`] matches (a global pattern may match every character).
    pub(super) fn apply(
        &self,
        value: &str,
        out: &mut String,
        interrupt: Option<&Interrupt>,
    ) -> Result<(), Interrupted> {
        let mut last = 0;
        out.reserve(value.len());
        // Plain matching is much faster than capturing: capture only when `$1`..`$9` need it.
        let groups = self
            .replacement
            .iter()
            .any(|p| matches!(p, Piece::Group(_)));
        if groups {
            for (n, caps) in self.regex.captures_iter(value).enumerate() {
                if n % MATCHES_PER_CHECK == MATCHES_PER_CHECK - 1 {
                    interrupt::check(interrupt)?;
                }
                let Some(m) = caps.get_match() else { continue };
                out.push_str(&value[last..m.start()]);
                self.expand(value, &caps, out);
                last = m.end();
                if !self.global || out.len() > MAX_RENDERED_BYTES {
                    break;
                }
            }
        } else {
            for (n, m) in self.regex.find_iter(value).enumerate() {
                if n % MATCHES_PER_CHECK == MATCHES_PER_CHECK - 1 {
                    interrupt::check(interrupt)?;
                }
                out.push_str(&value[last..m.start()]);
                for piece in &self.replacement {
                    match piece {
                        Piece::Text(s) => out.push_str(s),
                        Piece::Whole => out.push_str(&value[m.range()]),
                        Piece::Group(_) => {}
                    }
                }
                last = m.end();
                if !self.global || out.len() > MAX_RENDERED_BYTES {
                    break;
                }
            }
        }
        out.push_str(&value[last..]);
        Ok(())
    }

    fn expand(&self, value: &str, caps: &Captures, out: &mut String) {
        let group = |n: usize| caps.get_group(n).map_or("", |span| &value[span.range()]);
        for piece in &self.replacement {
            match piece {
                Piece::Text(s) => out.push_str(s),
                Piece::Whole => out.push_str(group(0)),
                Piece::Group(n) => out.push_str(group(*n)),
            }
        }
    }
}
