//! What one mapping may spend on regular expressions: the limits per pattern and per mapping,
//! and the budget its templates and filters compile their patterns from.

use regex_automata::meta::{self, Regex};
use regex_automata::util::syntax;

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
