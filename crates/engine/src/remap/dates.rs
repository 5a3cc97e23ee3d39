//! DTSTART and DTEND values: what counts as a valid DATE or DATE-TIME, and the parameters a
//! rewritten date line keeps.

use super::event::{head_text, Role, StreamEvent};
use crate::ics::line::{name_end, split_line};
use crate::mapping::MappedField;

/// A valid DATE (`YYYYMMDD`) or DATE-TIME (`YYYYMMDDTHHMMSS[Z]`), upper-cased; else `None`.
pub(super) fn date_value(v: &str) -> Option<(String, bool, bool)> {
    let v = v.to_ascii_uppercase();
    let b = v.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    let num =
        |r: std::ops::Range<usize>| b[r].iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
    if b.len() < 8 || !digits(0..8) {
        return None;
    }
    let (month, day) = (num(4..6), num(6..8));
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    if b.len() == 8 {
        return Some((v, true, false));
    }
    let utc = b.len() == 16 && b[15] == b'Z';
    if (b.len() == 15 || utc) && b[8] == b'T' && digits(9..15) {
        let (h, m, s) = (num(9..11), num(11..13), num(13..15));
        if h <= 23 && m <= 59 && s <= 60 {
            return Some((v, false, utc));
        }
    }
    None
}

/// The `;…` parameter text of a property line as written (empty when it has none).
pub(super) fn raw_params(text: &str) -> &str {
    let parts = split_line(text);
    if !parts.well_formed {
        return "";
    }
    let Some(start) = name_end(text.as_bytes()) else {
        return "";
    };
    // The value runs to the end of the line.
    let value_at = text.len() - parts.value.len();
    if value_at == 0 || start >= value_at - 1 {
        return "";
    }
    &text[start..value_at - 1]
}

/// Parameters for a DTSTART/DTEND the event did not have: VALUE=DATE for a DATE; a local
/// DATE-TIME DTEND takes DTSTART's TZID, so that it is not floating beside a zoned start.
pub(super) fn added_date_params(
    field: MappedField,
    view: &StreamEvent<'_, '_>,
    is_date: bool,
    utc: bool,
) -> String {
    if is_date {
        return ";VALUE=DATE".to_owned();
    }
    if utc || field != MappedField::Dtend {
        return String::new();
    }
    let start = view
        .props()
        .find(|(_, r, _)| *r == Role::Mapped(MappedField::Dtstart))
        .map(|(l, _, _)| head_text(l));
    let Some(start) = start else {
        return String::new();
    };
    let parts = split_line(&start);
    if !parts.well_formed {
        return String::new();
    }
    parts
        .params
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case("TZID"))
        .map_or_else(String::new, |p| format!(";TZID={}", p.values.join(",")))
}

/// Parameters for a new DTSTART/DTEND value: the original ones, with VALUE set for a DATE and
/// dropped for a DATE-TIME, and TZID dropped for UTC and for a DATE (RFC 5545 §3.2.19 allows a
/// TZID only on a local DATE-TIME).
pub(super) fn date_params(text: &str, is_date: bool, utc: bool) -> String {
    let parts = split_line(text);
    let mut out = String::new();
    if is_date {
        out.push_str(";VALUE=DATE");
    }
    if !parts.well_formed {
        return out;
    }
    for p in &parts.params {
        if p.name.eq_ignore_ascii_case("VALUE")
            || ((utc || is_date) && p.name.eq_ignore_ascii_case("TZID"))
        {
            continue;
        }
        out.push(';');
        out.push_str(p.name);
        out.push('=');
        out.push_str(&p.values.join(","));
    }
    out
}

pub(super) fn truncate_for_message(s: &str) -> &str {
    match s.char_indices().nth(60) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}
