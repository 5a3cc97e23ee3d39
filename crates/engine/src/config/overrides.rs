//! Events changed by hand (`overrides`), checked and compiled: hiding becomes (in `compile`) an
//! exclude rule on the event's UID (and RECURRENCE-ID, which removes one occurrence of a series
//! with an EXDATE, as a uid filter does); a new title, a shift and a note become edits the
//! writing pass applies after the mapping.

use super::schema::Override;
use super::window::parse_date_time;

/// Most overrides in one config.
pub const MAX_OVERRIDES: usize = 500;
/// Longest new title, in characters.
pub const MAX_OVERRIDE_SUMMARY_CHARS: usize = 500;
/// Longest note, in characters.
pub const MAX_OVERRIDE_NOTE_CHARS: usize = 4000;
/// Largest shift either way: a year.
pub const MAX_SHIFT_MINUTES: i64 = 366 * 24 * 60;

/// An edit of the events with one UID (or one occurrence of it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    /// Position in `overrides`, for saying which ones matched nothing.
    pub index: usize,
    pub uid: String,
    /// Upper-case and trimmed, as events' RECURRENCE-IDs are compared.
    pub recurrence_id: Option<String>,
    pub summary: Option<String>,
    pub shift_minutes: Option<i64>,
    pub note: Option<String>,
}

/// What is wrong with an override: the JSON path and the words.
pub(crate) type OverrideError = (String, String);

/// An event hidden by hand: its UID, and RECURRENCE-ID for one occurrence.
pub(crate) type Hidden = (String, Option<String>);

fn error(i: usize, key: &str, message: impl Into<String>) -> OverrideError {
    (format!("overrides[{i}]{key}"), message.into())
}

fn check_text(i: usize, key: &str, text: &Option<String>, max: usize) -> Result<(), OverrideError> {
    let Some(text) = text else { return Ok(()) };
    if text.chars().count() > max {
        return Err(error(i, key, format!("at most {max} characters")));
    }
    if key == ".summary" && text.chars().any(char::is_control) {
        return Err(error(i, key, "control characters are not allowed"));
    }
    if text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(error(
            i,
            key,
            "control characters other than line breaks are not allowed",
        ));
    }
    Ok(())
}

/// Checks `overrides`; the hidden events, and the rest as edits.
pub(crate) fn compile_overrides(
    overrides: &[Override],
    max_uid_bytes: usize,
) -> Result<(Vec<Hidden>, Vec<Edit>), OverrideError> {
    if overrides.len() > MAX_OVERRIDES {
        return Err((
            "overrides".into(),
            format!("at most {MAX_OVERRIDES} events changed by hand"),
        ));
    }
    let mut hidden = Vec::new();
    let mut edits = Vec::new();
    for (i, o) in overrides.iter().enumerate() {
        let uid = o.uid.trim();
        if uid.is_empty() {
            return Err(error(i, ".uid", "the event's UID is missing"));
        }
        if uid.len() > max_uid_bytes {
            return Err(error(i, ".uid", format!("at most {max_uid_bytes} bytes")));
        }
        let recurrence_id = match o.recurrence_id.as_deref().map(str::trim) {
            None => None,
            Some(r) if parse_date_time(r).is_some() => Some(r.to_ascii_uppercase()),
            Some(_) => {
                return Err(error(
                    i,
                    ".recurrenceId",
                    "a DATE (20240311) or DATE-TIME (20240311T100000) as the occurrence's RECURRENCE-ID",
                ))
            }
        };
        check_text(i, ".summary", &o.summary, MAX_OVERRIDE_SUMMARY_CHARS)?;
        check_text(i, ".note", &o.note, MAX_OVERRIDE_NOTE_CHARS)?;
        if o.shift_minutes.is_some_and(|m| m.abs() > MAX_SHIFT_MINUTES) {
            return Err(error(
                i,
                ".shiftMinutes",
                "at most a year (527040 minutes) either way",
            ));
        }
        let edits_something =
            o.summary.is_some() || o.shift_minutes.is_some_and(|m| m != 0) || o.note.is_some();
        match (o.hide, edits_something) {
            (true, true) => {
                return Err(error(
                    i,
                    "",
                    "a hidden event has nothing else to change: hide it, or change it",
                ))
            }
            (false, false) => return Err(error(
                i,
                "",
                "an override hides the event or changes its summary, time (shiftMinutes) or note",
            )),
            (true, false) => hidden.push((uid.to_owned(), recurrence_id)),
            (false, true) => edits.push(Edit {
                index: i,
                uid: uid.to_owned(),
                recurrence_id,
                summary: o.summary.clone(),
                shift_minutes: o.shift_minutes.filter(|m| *m != 0),
                note: o.note.clone(),
            }),
        }
    }
    Ok((hidden, edits))
}
