//! Field templates: literal text with `${NAME}` and `${NAME|re:s/PATTERN/REPLACEMENT/FLAGS}`
//! tokens (`syntax`), compiled once with their regexes paid from the mapping's budget (`budget`)
//! and rendered against any `Fields` (`render`).

mod budget;
mod render;
mod syntax;

use std::fmt;

use regex_automata::meta::Regex;

pub use budget::{
    RegexBudget, MAX_MAPPING_REGEX_BYTES, MAX_REGEX_TRANSFORMS, REGEX_CACHE_BYTES, REGEX_SIZE_LIMIT,
};
pub use syntax::FLAGS;
use syntax::{parse_replacement, scan_token, Piece, Scan};

/// Longest template the server accepts (it validates; the engine documents the figure).
pub const MAX_TEMPLATE_BYTES: usize = 4096;
/// Longest rendered field; a replacement that would grow past it is cut (at a character boundary).
pub const MAX_RENDERED_BYTES: usize = 1 << 20;

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
