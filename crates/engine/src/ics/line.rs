//! One content line taken apart (name, parameters with quoted values and RFC 6868 escapes, value)
//! and the TEXT escaping rules of RFC 5545 §3.3.11.

use std::borrow::Cow;

/// Where the parts of a content line are, as byte offsets into the unfolded line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineParts<'a> {
    /// The name as written (not yet upper-cased), surrounding whitespace trimmed.
    pub name: &'a str,
    pub params: Vec<RawParam<'a>>,
    pub value: &'a str,
    /// False when the line does not follow the grammar (no unquoted `:`, an unterminated quote):
    /// the parts are then a best guess.
    pub well_formed: bool,
}

/// A parameter as written: name and values still quoted and ^-escaped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawParam<'a> {
    pub name: &'a str,
    pub values: Vec<&'a str>,
}

/// Offset of the end of the name: the first `;` or `:`.
pub fn name_end(line: &[u8]) -> Option<usize> {
    memchr::memchr2(b';', b':', line)
}

/// Takes a content line apart. Never fails: a line that breaks the grammar gets a best guess and
/// `well_formed: false`.
pub fn split_line(line: &str) -> LineParts<'_> {
    let bytes = line.as_bytes();
    let Some(end) = name_end(bytes) else {
        return LineParts {
            name: line.trim(),
            params: Vec::new(),
            value: "",
            well_formed: false,
        };
    };
    let name = line[..end].trim();
    if bytes[end] == b':' {
        return LineParts {
            name,
            params: Vec::new(),
            value: &line[end + 1..],
            well_formed: !name.is_empty(),
        };
    }
    let mut params = Vec::new();
    let mut pos = end; // at a ';'
    loop {
        // bytes[pos] is ';' here.
        pos += 1;
        let pname_start = pos;
        while pos < bytes.len() && !matches!(bytes[pos], b'=' | b';' | b':') {
            pos += 1;
        }
        let pname = line[pname_start..pos].trim();
        let mut values = Vec::new();
        if pos < bytes.len() && bytes[pos] == b'=' {
            loop {
                pos += 1;
                // Whitespace before a quote is tolerated.
                let mut q = pos;
                while q < bytes.len() && bytes[q] == b' ' {
                    q += 1;
                }
                if q < bytes.len() && bytes[q] == b'"' {
                    let Some(close) = memchr::memchr(b'"', &bytes[q + 1..]) else {
                        // Unterminated quote: the rest of the line is a best guess.
                        return fallback(line, end);
                    };
                    values.push(&line[q..q + 1 + close + 1]);
                    pos = q + 1 + close + 1;
                    // Junk between the closing quote and the next delimiter joins the value.
                    while pos < bytes.len() && !matches!(bytes[pos], b',' | b';' | b':') {
                        pos += 1;
                    }
                } else {
                    let vstart = pos;
                    while pos < bytes.len() && !matches!(bytes[pos], b',' | b';' | b':') {
                        pos += 1;
                    }
                    values.push(&line[vstart..pos]);
                }
                if pos >= bytes.len() || bytes[pos] != b',' {
                    break;
                }
            }
        }
        if !pname.is_empty() {
            params.push(RawParam {
                name: pname,
                values,
            });
        }
        if pos >= bytes.len() {
            return fallback(line, end);
        }
        if bytes[pos] == b':' {
            return LineParts {
                name,
                params,
                value: &line[pos + 1..],
                well_formed: !name.is_empty(),
            };
        }
    }
}

fn fallback(line: &str, name_end: usize) -> LineParts<'_> {
    LineParts {
        name: line[..name_end].trim(),
        params: Vec::new(),
        value: line.find(':').map_or("", |i| &line[i + 1..]),
        well_formed: false,
    }
}

/// A parameter value as meant: quotes removed, RFC 6868 `^n ^' ^^` decoded.
pub fn param_value(raw: &str) -> Cow<'_, str> {
    let t = raw.trim();
    let inner = if t.len() >= 2 && t.starts_with('"') && t.ends_with('"') {
        &t[1..t.len() - 1]
    } else {
        t
    };
    if !inner.contains('^') {
        return Cow::Borrowed(inner);
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '^' {
            out.push(c);
            continue;
        }
        match chars.clone().next() {
            Some('n') | Some('N') => {
                out.push('\n');
                chars.next();
            }
            Some('\'') => {
                out.push('"');
                chars.next();
            }
            Some('^') => {
                out.push('^');
                chars.next();
            }
            // Any other ^ stays as written (RFC 6868 §3).
            _ => out.push('^'),
        }
    }
    Cow::Owned(out)
}

/// Decodes a TEXT value: `\n`/`\N` newline, `\,` `\;` `\\`; any other backslash stays.
pub fn unescape_text(value: &str) -> Cow<'_, str> {
    let bytes = value.as_bytes();
    let Some(first) = memchr::memchr(b'\\', bytes) else {
        return Cow::Borrowed(value);
    };
    let mut out = String::with_capacity(value.len());
    let mut last = 0;
    let mut at = Some(first);
    while let Some(i) = at {
        out.push_str(&value[last..i]);
        // Every byte matched below is ASCII, so `i + 2` stays on a character boundary.
        match bytes.get(i + 1) {
            Some(b'n' | b'N') => {
                out.push('\n');
                last = i + 2;
            }
            Some(&c @ (b',' | b';' | b'\\')) => {
                out.push(char::from(c));
                last = i + 2;
            }
            _ => {
                out.push('\\');
                last = i + 1;
            }
        }
        at = memchr::memchr(b'\\', &bytes[last..]).map(|j| last + j);
    }
    out.push_str(&value[last..]);
    Cow::Owned(out)
}

/// Encodes a TEXT value: `\` `;` `,` escaped, every line break (CRLF, LF, CR) as `\n`.
pub fn escape_text(value: &str) -> Cow<'_, str> {
    let bytes = value.as_bytes();
    if memchr::memchr3(b'\\', b';', b',', bytes).is_none()
        && memchr::memchr2(b'\n', b'\r', bytes).is_none()
    {
        return Cow::Borrowed(value);
    }
    let mut out = String::with_capacity(value.len() + 16);
    escape_text_into(&mut out, value);
    Cow::Owned(out)
}

/// Appends `value` escaped as [`escape_text`] escapes it. The special bytes are found with
/// `memchr` (two searches, each picked up where it left off), not one byte at a time.
pub fn escape_text_into(out: &mut String, value: &str) {
    let bytes = value.as_bytes();
    let len = bytes.len();
    let marks =
        |from: usize| memchr::memchr3(b'\\', b';', b',', &bytes[from..]).map_or(len, |p| from + p);
    let breaks =
        |from: usize| memchr::memchr2(b'\n', b'\r', &bytes[from..]).map_or(len, |p| from + p);
    let (mut mark, mut brk) = (marks(0), breaks(0));
    let mut last = 0;
    loop {
        let i = mark.min(brk);
        if i >= len {
            break;
        }
        out.push_str(&value[last..i]);
        let mut next = i + 1;
        match bytes[i] {
            b'\\' => out.push_str("\\\\"),
            b';' => out.push_str("\\;"),
            b',' => out.push_str("\\,"),
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                out.push_str("\\n");
                next = i + 2;
            }
            _ => out.push_str("\\n"),
        }
        last = next;
        if mark < next {
            mark = marks(next);
        }
        if brk < next {
            brk = breaks(next);
        }
    }
    out.push_str(&value[last..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_name_params_and_value() {
        let p = split_line("DTSTART;TZID=Europe/Berlin;VALUE=DATE-TIME:20240101T100000");
        assert_eq!(p.name, "DTSTART");
        assert_eq!(p.params.len(), 2);
        assert_eq!(p.params[0].name, "TZID");
        assert_eq!(p.params[0].values, ["Europe/Berlin"]);
        assert_eq!(p.value, "20240101T100000");
        assert!(p.well_formed);
    }

    #[test]
    fn quoted_parameter_values_may_hold_semicolon_colon_and_comma() {
        let p = split_line(r#"X;TZID="(GMT+10:00) Canberra; Sydney, x":v:w"#);
        assert_eq!(p.params[0].values, [r#""(GMT+10:00) Canberra; Sydney, x""#]);
        assert_eq!(
            param_value(p.params[0].values[0]),
            "(GMT+10:00) Canberra; Sydney, x"
        );
        assert_eq!(p.value, "v:w");
    }

    #[test]
    fn parameters_hold_comma_separated_lists() {
        let p = split_line(r#"ATTENDEE;DELEGATED-TO="mailto:a@x","mailto:b@x";CN=B:mailto:c@x"#);
        assert_eq!(p.params[0].values.len(), 2);
        assert_eq!(p.params[1].name, "CN");
        assert_eq!(p.value, "mailto:c@x");
    }

    #[test]
    fn value_keeps_colons_after_the_first() {
        assert_eq!(split_line("SUMMARY:a: b: c").value, "a: b: c");
    }

    #[test]
    fn empty_parameters_are_skipped() {
        let p = split_line("DTSTART;;VALUE=DATE-TIME:20140409T093000");
        assert_eq!(p.params.len(), 1);
        assert_eq!(p.value, "20140409T093000");
    }

    #[test]
    fn a_line_without_colon_is_not_well_formed() {
        let p = split_line("X");
        assert!(!p.well_formed);
        assert_eq!(p.name, "X");
        assert!(!split_line("A;B=\"unterminated:x").well_formed);
    }

    #[test]
    fn rfc_6868_caret_escapes_decode() {
        assert_eq!(param_value("^n"), "\n");
        assert_eq!(param_value("^^^'^n"), "^\"\n");
        assert_eq!(param_value("^a^ ^asd"), "^a^ ^asd");
        assert_eq!(
            param_value("George Herman ^'Babe^' Ruth"),
            "George Herman \"Babe\" Ruth"
        );
    }

    #[test]
    fn parameter_values_encode_and_quote_when_needed() {}

    #[test]
    fn text_unescape_decodes_newline_comma_semicolon_backslash() {
        assert_eq!(unescape_text(r"a\nb\Nc\,d\;e\\f"), "a\nb\nc,d;e\\f");
        assert_eq!(
            unescape_text(r"keep \x and trailing \"),
            r"keep \x and trailing \"
        );
    }

    #[test]
    fn text_escape_encodes_specials_and_line_breaks() {
        assert_eq!(escape_text("a\\b;c,d\ne\r\nf\rg"), r"a\\b\;c\,d\ne\nf\ng");
        assert_eq!(unescape_text(&escape_text("x;y,z\\\nw")), "x;y,z\\\nw");
    }
}
