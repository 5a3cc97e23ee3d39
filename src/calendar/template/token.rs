//! Building a token from its parts (what the regex dialog inserts) and reading one back.

use super::{is_name_byte, scan_token, unescape_part, Scan, FLAGS};

/// The parts of one token, in the form a user types them: pattern and replacement unescaped.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TokenParts {
    pub field: String,
    /// Empty: no transform.
    pub pattern: String,
    pub replacement: String,
    /// A subset of `gimsU`, in that order.
    pub flags: String,
}

fn escape_part(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    for c in s.chars() {
        if matches!(c, '\\' | '/' | '}') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `${FIELD}` for an empty pattern, else `${FIELD|re:s/PATTERN/REPLACEMENT/FLAGS}` with `\`, `/`
/// and `}` escaped. Unknown flags are dropped and the rest put in the order `gimsU`.
pub fn build_token(field: &str, pattern: &str, replacement: &str, flags: &str) -> String {
    if pattern.is_empty() {
        return format!("${{{field}}}");
    }
    let flags: String = FLAGS.chars().filter(|f| flags.contains(*f)).collect();
    format!(
        "${{{field}|re:s/{}/{}/{flags}}}",
        escape_part(pattern),
        escape_part(replacement)
    )
}

/// Reads a string that is exactly one token back into its parts; `None` for anything else
/// (including a token with a syntax error).
pub fn parse_token(token: &str) -> Option<TokenParts> {
    if !token.starts_with("${") {
        return None;
    }
    match scan_token(token, 0) {
        Scan::Token { end, name, regex } if end == token.len() => {
            let field = token[2..].bytes().take_while(|b| is_name_byte(*b)).count();
            let field = token[2..2 + field].to_owned();
            let _ = name;
            Some(match regex {
                None => TokenParts {
                    field,
                    ..TokenParts::default()
                },
                Some(raw) => TokenParts {
                    field,
                    pattern: raw.pattern,
                    replacement: unescape_part(&raw.replacement),
                    flags: FLAGS.chars().filter(|f| raw.flags.contains(*f)).collect(),
                },
            })
        }
        _ => None,
    }
}
