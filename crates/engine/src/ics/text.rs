//! The text of content lines: bytes decoded as UTF-8, else byte by byte as Windows-1252, and a
//! line's name read from its first segment when it can be.

use std::borrow::Cow;

use super::lexer::LogicalLine;
use super::line;

/// The text of (an unfolded) line: UTF-8 when it is valid UTF-8; else each byte that is not part
/// of a valid UTF-8 sequence is read as Windows-1252, the usual encoding of feeds that are not
/// UTF-8 (a superset of Latin-1 for printable text). A Latin-1 feed keeps its accents, and a line
/// that mixes both keeps both. Decoding is byte-local, so decoding a prefix cut at an ASCII byte
/// gives a prefix of the whole line's text.
pub(crate) fn text(bytes: &[u8]) -> Cow<'_, str> {
    let first = match std::str::from_utf8(bytes) {
        Ok(s) => return Cow::Borrowed(s),
        Err(e) => e,
    };
    let mut out = String::with_capacity(bytes.len() + 8);
    let mut rest = bytes;
    let mut err = first;
    loop {
        let (valid, after) = rest.split_at(err.valid_up_to());
        out.push_str(std::str::from_utf8(valid).unwrap_or_default());
        // An invalid sequence (or a truncated one at the end) is read one byte at a time.
        let bad = err.error_len().unwrap_or(1);
        for &b in &after[..bad] {
            out.push(windows_1252(b));
        }
        rest = &after[bad..];
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                return Cow::Owned(out);
            }
            Err(e) => err = e,
        }
    }
}

/// What Windows-1252 puts at 0x80..=0x9F (WHATWG's table); its five unassigned bytes map to
/// the C1 controls of the same number, as in WHATWG's decoder. Every other byte is Latin-1.
const CP1252_HIGH: [char; 32] = [
    '\u{20AC}', '\u{81}', '\u{201A}', '\u{192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{2C6}', '\u{2030}', '\u{160}', '\u{2039}', '\u{152}', '\u{8D}', '\u{17D}', '\u{8F}',
    '\u{90}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{2DC}', '\u{2122}', '\u{161}', '\u{203A}', '\u{153}', '\u{9D}', '\u{17E}', '\u{178}',
];

/// One byte as Windows-1252.
fn windows_1252(b: u8) -> char {
    match b {
        0x80..=0x9F => CP1252_HIGH[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

/// The name of a line as written, trimmed; borrowed from the input when it can be.
pub(crate) fn line_name<'a>(line: &LogicalLine<'a>) -> Cow<'a, str> {
    let first = line.first_segment();
    match line::name_end(first) {
        Some(e) => match line
            .body_text
            .and_then(|b| b.get(..e))
            .map_or_else(|| std::str::from_utf8(&first[..e]), Ok)
        {
            Ok(s) => Cow::Borrowed(s.trim()),
            Err(_) => Cow::Owned(text(&first[..e]).trim().to_owned()),
        },
        None => {
            let content = line.content();
            let e = line::name_end(&content).unwrap_or(content.len());
            Cow::Owned(text(&content[..e]).trim().to_owned())
        }
    }
}
