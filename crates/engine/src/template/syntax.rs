//! The token syntax of a template: finding `${NAME}` and `${NAME|re:s/PATTERN/REPLACEMENT/FLAGS}`
//! in the text, with its escapes, and reading a replacement into its pieces.

/// The flags a regex token may carry.
pub const FLAGS: &str = "gimsU";

/// What the scanner found at a `${`.
pub(super) enum Scan {
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

pub(super) struct RawRegex {
    pub(super) pattern: String,
    pub(super) replacement: String,
    pub(super) flags: String,
    /// Byte offsets in the template, for error positions.
    pub(super) pattern_at: usize,
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
fn unescape_part(s: &str) -> String {
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

pub(super) fn scan_token(src: &str, start: usize) -> Scan {
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

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Piece {
    Text(String),
    Group(usize),
    Whole,
}

/// Parses the replacement: `$1`..`$9`, `$&`, `$$`, `\n`, `\t`, `\\` after the token escapes.
pub(super) fn parse_replacement(raw: &str) -> Vec<Piece> {
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
