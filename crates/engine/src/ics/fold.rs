//! Folding content lines at 75 octets (RFC 5545 §3.1): the writer's side of what the lexer
//! unfolds. Below both the remap and time-zone repair, which write folded lines alike.

use super::lexer::MAX_LINE_OCTETS;

/// Appends `line` (without terminator) folded at 75 octets, never inside a UTF-8 character or a
/// backslash escape, with CRLF endings.
pub fn write_folded(out: &mut Vec<u8>, line: &[u8]) {
    if line.len() <= MAX_LINE_OCTETS {
        out.extend_from_slice(line);
        out.extend_from_slice(b"\r\n");
        return;
    }
    out.reserve(line.len() + line.len() / 64 * 3 + 2);
    let mut start = 0;
    let mut limit = MAX_LINE_OCTETS;
    while start < line.len() {
        let mut end = start + limit;
        if end >= line.len() {
            end = line.len();
        } else {
            // Back off to the start of a UTF-8 character...
            while end > start + 1 && (line[end] & 0xC0) == 0x80 {
                end -= 1;
            }
            // ...and off a backslash that escapes the next character. Chunks start on escape
            // boundaries, so counting inside the chunk gives the right parity.
            let backslashes = line[start..end]
                .iter()
                .rev()
                .take_while(|&&b| b == b'\\')
                .count();
            if backslashes % 2 == 1 && end > start + 1 {
                end -= 1;
            }
        }
        if start > 0 {
            out.push(b' ');
        }
        out.extend_from_slice(&line[start..end]);
        out.extend_from_slice(b"\r\n");
        start = end;
        limit = MAX_LINE_OCTETS - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_folded_counts_the_leading_space() {
        let mut out = Vec::new();
        write_folded(&mut out, "x".repeat(75 + 74 + 1).as_bytes());
        let text = String::from_utf8(out).expect("utf-8");
        let lines: Vec<&str> = text.split_terminator("\r\n").collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].len(), 75);
        assert_eq!(lines[1].len(), 75);
        assert_eq!(lines[2], " x");
    }
}
