//! Field templates: literal text with `${NAME}` and `${NAME|re:s/PATTERN/REPLACEMENT/FLAGS}`
//! tokens, compiled once (regexes included) and rendered against any `Fields`.

use std::borrow::Cow;
use std::fmt;

use regex_automata::meta::{self, Regex};
use regex_automata::util::captures::Captures;
use regex_automata::util::syntax;

use crate::ics::Fields;
use crate::interrupt::{self, Interrupt, Interrupted};

/// Compiled size cap for one pattern, so a hostile pattern cannot take memory or time.
pub const REGEX_SIZE_LIMIT: usize = 2 << 20;
/// Regex transforms one mapping (all five templates together) may hold; tokens past it are
/// not compiled at all.
pub const MAX_REGEX_TRANSFORMS: usize = 32;
/// Compiled size of all the regexes of one mapping together: many small patterns cannot add up
/// to what one large one may not take. (Unicode classes are large: `\w{20}` alone is 1.1 MB.)
pub const MAX_MAPPING_REGEX_BYTES: usize = 4 << 20;
/// Lazy-DFA cache of one regex (per thread that runs it); past it the engine clears the cache
/// or falls back to a slower matcher rather than growing.
pub const REGEX_CACHE_BYTES: usize = 256 << 10;
/// Longest template the server accepts (it validates; the engine documents the figure).
pub const MAX_TEMPLATE_BYTES: usize = 4096;
/// Longest rendered field; a replacement that would grow past it is cut (at a character boundary).
pub const MAX_RENDERED_BYTES: usize = 1 << 20;
/// The flags a regex token may carry.
pub const FLAGS: &str = "gimsU";
/// Matches a transform replaces between two looks at the interrupt: often enough that one
/// token over a 10 MB value stops within a fraction of its work, rarely enough to cost nothing.
const MATCHES_PER_CHECK: usize = 256;

/// What one mapping may still spend on regular expressions; shared by its templates, so the
/// limits hold for the mapping as a whole (`/api/render`, publishing and `hearth remap` alike).
#[derive(Debug, Clone)]
pub struct RegexBudget {
    transforms_left: usize,
    bytes_left: usize,
}

impl Default for RegexBudget {
    fn default() -> Self {
        RegexBudget {
            transforms_left: MAX_REGEX_TRANSFORMS,
            bytes_left: MAX_MAPPING_REGEX_BYTES,
        }
    }
}

impl RegexBudget {
    /// Compiles one pattern with its flags (`i m s x U`; others are the caller's) against what
    /// is left, or says which limit it would break. Templates and filters alike spend from it.
    pub(crate) fn compile_pattern(&mut self, pattern: &str, flags: &str) -> Result<Regex, String> {
        if self.transforms_left == 0 {
            return Err(format!(
                "a mapping may hold at most {MAX_REGEX_TRANSFORMS} regular expressions"
            ));
        }
        // Every attempt counts, so a mapping cannot make the server try a thousand patterns.
        self.transforms_left -= 1;
        let limit = REGEX_SIZE_LIMIT.min(self.bytes_left);
        let regex = Regex::builder()
            .syntax(
                syntax::Config::new()
                    .case_insensitive(flags.contains('i'))
                    .multi_line(flags.contains('m'))
                    .dot_matches_new_line(flags.contains('s'))
                    .ignore_whitespace(flags.contains('x'))
                    .swap_greed(flags.contains('U')),
            )
            .configure(
                meta::Config::new()
                    .nfa_size_limit(Some(limit))
                    .onepass_size_limit(Some(limit))
                    .dfa_size_limit(Some(limit))
                    .hybrid_cache_capacity(REGEX_CACHE_BYTES),
            )
            .build(pattern)
            .map_err(|e| self.message(&e, limit))?;
        let used = regex.memory_usage();
        if used > self.bytes_left {
            return Err(self.total_message());
        }
        self.bytes_left -= used;
        Ok(regex)
    }

    fn total_message(&self) -> String {
        format!(
            "the mapping's patterns together are too large (at most {} KiB compiled): simplify them",
            MAX_MAPPING_REGEX_BYTES >> 10
        )
    }

    /// The useful line of a regex error ("unclosed group"), not its multi-line drawing.
    fn message(&self, e: &meta::BuildError, limit: usize) -> String {
        if let Some(syntax) = e.syntax_error() {
            let text = syntax.to_string();
            let line = text
                .lines()
                .rev()
                .find_map(|l| l.trim().strip_prefix("error: "))
                .unwrap_or("invalid pattern");
            return format!("invalid pattern: {line}");
        }
        if e.size_limit().is_some() && limit < REGEX_SIZE_LIMIT {
            return self.total_message();
        }
        if e.size_limit().is_some() {
            return "the pattern is too large".to_owned();
        }
        format!("invalid pattern: {e}")
    }
}

/// A problem in a template: the mapping field it is in (empty for a lone template), the
/// 0-based character position in the template, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct TemplateError {
    pub field: String,
    pub position: usize,
    pub message: String,
}

impl TemplateError {
    fn describe(&self) -> String {
        if self.field.is_empty() {
            format!("at character {}: {}", self.position + 1, self.message)
        } else {
            format!(
                "{} at character {}: {}",
                self.field,
                self.position + 1,
                self.message
            )
        }
    }
}

/// A template parsed and compiled, ready to render for many events.
#[derive(Debug, Clone)]
pub struct Template {
    parts: Vec<Part>,
}

#[derive(Debug, Clone)]
enum Part {
    Literal(String),
    Token {
        name: String,
        transform: Option<Transform>,
    },
}

#[derive(Debug, Clone)]
struct Transform {
    regex: Regex,
    replacement: Vec<Piece>,
    global: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Group(usize),
    Whole,
}

/// What the scanner found at a `${`.
enum Scan {
    /// Not a token: the `$` is literal text.
    Literal,
    /// A token ending before byte `end`.
    Token {
        end: usize,
        name: String,
        regex: Option<RawRegex>,
    },
    /// A token whose transform is broken: it renders the plain value.
    Broken {
        end: usize,
        name: String,
        at: usize,
        message: String,
    },
}

struct RawRegex {
    pattern: String,
    replacement: String,
    flags: String,
    /// Byte offsets in the template, for error positions.
    pattern_at: usize,
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

/// Byte offset of the first `delim` at or after `from` that is not escaped by a backslash.
fn find_unescaped(bytes: &[u8], from: usize, delim: u8) -> Option<usize> {
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b if b == delim => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Length of a counted repetition `{n}`, `{n,}` or `{n,m}` starting at `bytes[0]` (a `{`).
fn quantifier_len(bytes: &[u8]) -> Option<usize> {
    let digits = |from: usize| {
        bytes[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let n = digits(1);
    if n == 0 {
        return None;
    }
    let mut i = 1 + n;
    if bytes.get(i) == Some(&b',') {
        i += 1 + digits(i + 1);
    }
    (bytes.get(i) == Some(&b'}')).then_some(i + 1)
}

/// Byte offset of the `}` that closes a token, from `from`: like [`find_unescaped`], but the
/// braces of a counted repetition (`\d{6}`, `{2,}`, `{1,3}`) are part of the pattern.
fn find_token_close(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'{' => i += quantifier_len(&bytes[i..]).unwrap_or(1),
            b'}' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Undoes the token escapes `\/`, `\\`, `\}`; any other backslash pair stays as written.
pub(crate) fn unescape_part(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some(e @ ('/' | '\\' | '}')) => out.push(e),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

fn scan_token(src: &str, start: usize) -> Scan {
    let bytes = src.as_bytes();
    let mut j = start + 2;
    while j < bytes.len() && is_name_byte(bytes[j]) {
        j += 1;
    }
    if j == start + 2 {
        return Scan::Literal;
    }
    let name = src[start + 2..j].to_ascii_uppercase();
    match bytes.get(j) {
        Some(b'}') => Scan::Token {
            end: j + 1,
            name,
            regex: None,
        },
        Some(b'|') => {
            let Some(close) = find_token_close(bytes, j + 1) else {
                return Scan::Literal;
            };
            let end = close + 1;
            let body_at = j + 1;
            let body = &src[body_at..close];
            let broken = |at: usize, message: &str| Scan::Broken {
                end,
                name: name.clone(),
                at,
                message: message.to_owned(),
            };
            if !body.starts_with("re:s/") {
                return broken(body_at, "expected re:s/PATTERN/REPLACEMENT/FLAGS after |");
            }
            let pattern_at = body_at + 5;
            let Some(p_end) = find_unescaped(bytes[..close].as_ref(), pattern_at, b'/') else {
                return broken(close, "expected / after the pattern");
            };
            let Some(r_end) = find_unescaped(bytes[..close].as_ref(), p_end + 1, b'/') else {
                return broken(close, "expected / after the replacement");
            };
            let flags = &src[r_end + 1..close];
            if let Some((k, c)) = flags.char_indices().find(|(_, c)| !FLAGS.contains(*c)) {
                return broken(
                    r_end + 1 + k,
                    &format!("unknown flag '{c}' (use g, i, m, s or U)"),
                );
            }
            Scan::Token {
                end,
                name,
                regex: Some(RawRegex {
                    pattern: unescape_part(&src[pattern_at..p_end]),
                    replacement: src[p_end + 1..r_end].to_owned(),
                    flags: flags.to_owned(),
                    pattern_at,
                }),
            }
        }
        _ => Scan::Literal,
    }
}

/// Parses the replacement: `$1`..`$9`, `$&`, `$$`, `\n`, `\t`, `\\` after the token escapes.
fn parse_replacement(raw: &str) -> Vec<Piece> {
    let s = unescape_part(raw);
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '$' => match chars.peek().copied() {
                Some(d @ '1'..='9') => {
                    chars.next();
                    if !text.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut text)));
                    }
                    pieces.push(Piece::Group(d as usize - '0' as usize));
                }
                Some('&') => {
                    chars.next();
                    if !text.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut text)));
                    }
                    pieces.push(Piece::Whole);
                }
                Some('$') => {
                    chars.next();
                    text.push('$');
                }
                _ => text.push('$'),
            },
            '\\' => match chars.peek().copied() {
                Some('n') => {
                    chars.next();
                    text.push('\n');
                }
                Some('t') => {
                    chars.next();
                    text.push('\t');
                }
                Some('\\') => {
                    chars.next();
                    text.push('\\');
                }
                _ => text.push('\\'),
            },
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    pieces
}

fn char_pos(src: &str, byte: usize) -> usize {
    src.get(..byte).map_or(0, |s| s.chars().count())
}

impl Template {
    /// Compiles a template; the first problem is an error.
    pub fn compile(src: &str) -> Result<Template, TemplateError> {
        let (t, mut errors) = Template::compile_lenient(src);
        if errors.is_empty() {
            Ok(t)
        } else {
            Err(errors.swap_remove(0))
        }
    }

    /// Compiles a template and reports every problem; the template still renders, a broken
    /// token giving its field's value unchanged. A lone template has a mapping's regex budget.
    pub fn compile_lenient(src: &str) -> (Template, Vec<TemplateError>) {
        Template::compile_within(src, &mut RegexBudget::default())
    }

    /// As [`Template::compile_lenient`], spending from `budget` (shared by a mapping's templates):
    /// a regex past the budget is an error and its token renders the plain value.
    pub fn compile_within(src: &str, budget: &mut RegexBudget) -> (Template, Vec<TemplateError>) {
        let bytes = src.as_bytes();
        let mut parts = Vec::new();
        let mut errors = Vec::new();
        let mut literal = String::new();
        let mut i = 0;
        let mut lit_from = 0;
        while let Some(off) = memchr::memchr(b'$', &bytes[i..]) {
            let at = i + off;
            if bytes.get(at + 1) != Some(&b'{') {
                i = at + 1;
                continue;
            }
            let (end, name, transform) = match scan_token(src, at) {
                Scan::Literal => {
                    i = at + 1;
                    continue;
                }
                Scan::Broken {
                    end,
                    name,
                    at: err_at,
                    message,
                } => {
                    errors.push(TemplateError {
                        field: String::new(),
                        position: char_pos(src, err_at),
                        message,
                    });
                    (end, name, None)
                }
                Scan::Token { end, name, regex } => {
                    let transform = match regex {
                        Some(raw) if !raw.pattern.is_empty() => {
                            match budget.compile_pattern(&raw.pattern, &raw.flags) {
                                Ok(regex) => Some(Transform {
                                    regex,
                                    replacement: parse_replacement(&raw.replacement),
                                    global: raw.flags.contains('g'),
                                }),
                                Err(message) => {
                                    errors.push(TemplateError {
                                        field: String::new(),
                                        position: char_pos(src, raw.pattern_at),
                                        message,
                                    });
                                    None
                                }
                            }
                        }
                        _ => None,
                    };
                    (end, name, transform)
                }
            };
            literal.push_str(&src[lit_from..at]);
            if !literal.is_empty() {
                parts.push(Part::Literal(std::mem::take(&mut literal)));
            }
            parts.push(Part::Token { name, transform });
            i = end;
            lit_from = end;
        }
        literal.push_str(&src[lit_from..]);
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        (Template { parts }, errors)
    }

    /// Whether rendering gives exactly the (trimmed) value of `name`: `${NAME}` and nothing else.
    pub fn is_identity(&self, name: &str) -> bool {
        let mut tokens = self.parts.iter().filter(|p| match p {
            Part::Literal(s) => !s.trim().is_empty(),
            Part::Token { .. } => true,
        });
        matches!(
            (tokens.next(), tokens.next()),
            (Some(Part::Token { name: n, transform: None }), None) if n.eq_ignore_ascii_case(name)
        )
    }

    /// Heap memory the compiled template holds (its regexes and text), for cache budgets.
    pub fn memory_usage(&self) -> usize {
        self.parts
            .iter()
            .map(|p| match p {
                Part::Literal(s) => s.len(),
                Part::Token { name, transform } => {
                    name.len() + transform.as_ref().map_or(0, |t| t.regex.memory_usage())
                }
            })
            .sum()
    }

    /// The names the template reads, upper-case, in order (with repeats).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Token { name, .. } => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

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
    fn apply(
        &self,
        value: &str,
        out: &mut String,
        interrupt: Option<&Interrupt>,
    ) -> Result<(), Interrupted> {
        let mut last = 0;
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

impl fmt::Display for Template {
    /// A debugging summary: the names the template reads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.names().collect();
        write!(f, "template reading [{}]", names.join(", "))
    }
}

#[cfg(test)]
mod tests;
