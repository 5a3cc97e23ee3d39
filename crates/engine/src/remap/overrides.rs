//! The writing pass's side of events changed by hand: a new title, a shift in time and a note,
//! applied to an event after the mapping (and before privacy, which still hides what it hides);
//! and, for the editor, which overrides match no event of a feed any more.

use std::collections::HashSet;

use super::dates::raw_params;
use super::event::{head_text, Role, StreamEvent};
use crate::config::window::parse_date_time;
use crate::config::CompiledConfig;
use crate::ics::lexer::LogicalLine;
use crate::ics::line::escape_text;
use crate::ics::{
    self, line_name, parse_property, Flow, Limits, ParseError, Visitor, Warnings, GO_ON,
};
use crate::mapping::MappedField;

/// Replacement lines by field, as the writing pass keeps them: `Some(Some(line))` replaces.
pub(super) type Replace = [Option<Option<String>>; 5];

/// The field's line as it will be written: its replacement, else its first line in the event.
fn current_line(
    view: &StreamEvent<'_, '_>,
    replace: &Replace,
    field: MappedField,
) -> Option<String> {
    if let Some(Some(line)) = &replace[field as usize] {
        return Some(line.clone());
    }
    view.props()
        .find(|(_, r, _)| *r == Role::Mapped(field))
        .map(|(l, _, _)| head_text(l).into_owned())
}

/// Applies the config's edits for this event to `replace`; `rendered` holds the mapped values
/// of fields the mapping changed. Returns the indices of the overrides that applied.
pub(super) fn apply_edits(
    config: &CompiledConfig,
    view: &StreamEvent<'_, '_>,
    replace: &mut Replace,
    rendered: &[Option<String>; 5],
) -> Vec<usize> {
    if config.edits.is_empty() {
        return Vec::new();
    }
    let Some(uid) = view.property("UID").map(|u| u.trim().to_owned()) else {
        return Vec::new();
    };
    let rid = view
        .property("RECURRENCE-ID")
        .map(|r| r.trim().to_ascii_uppercase());
    let mut applied = Vec::new();
    for edit in &config.edits {
        if edit.uid != uid || (edit.recurrence_id.is_some() && edit.recurrence_id != rid) {
            continue;
        }
        applied.push(edit.index);
        if let Some(summary) = &edit.summary {
            let params = current_line(view, replace, MappedField::Summary)
                .map(|l| raw_params(&l).to_owned())
                .unwrap_or_default();
            replace[MappedField::Summary as usize] =
                Some(Some(format!("SUMMARY{params}:{}", escape_text(summary))));
        }
        if let Some(note) = &edit.note {
            let field = MappedField::Description;
            let base = match &rendered[field as usize] {
                Some(v) => v.clone(),
                None => view
                    .property("DESCRIPTION")
                    .map(|d| d.into_owned())
                    .unwrap_or_default(),
            };
            let text = if base.trim().is_empty() {
                note.clone()
            } else {
                format!("{}\n\n{note}", base.trim_end())
            };
            let params = current_line(view, replace, field)
                .map(|l| raw_params(&l).to_owned())
                .unwrap_or_default();
            replace[field as usize] =
                Some(Some(format!("DESCRIPTION{params}:{}", escape_text(&text))));
        }
        if let Some(minutes) = edit.shift_minutes {
            for field in [MappedField::Dtstart, MappedField::Dtend] {
                let Some(line) = current_line(view, replace, field) else {
                    continue;
                };
                let parts = ics::line::split_line(&line);
                let Some(moved) = parse_date_time(parts.value).map(|d| d.shifted(minutes)) else {
                    continue;
                };
                let params = raw_params(&line).to_owned();
                replace[field as usize] =
                    Some(Some(format!("{}{params}:{}", field.name(), moved.format())));
            }
        }
    }
    applied
}

/// The (UID, RECURRENCE-ID) of every top-level event.
#[derive(Default)]
struct EventKeys {
    keys: HashSet<(String, Option<String>)>,
    depth: usize,
    /// Depth of the VEVENT being read.
    event_at: Option<usize>,
    uid: Option<String>,
    rid: Option<String>,
}

impl<'a> Visitor<'a> for EventKeys {
    fn begin(&mut self, _: &LogicalLine<'a>, name: &str) -> Flow {
        self.depth += 1;
        if name == "VEVENT" && self.event_at.is_none() {
            self.event_at = Some(self.depth);
            self.uid = None;
            self.rid = None;
        }
        GO_ON
    }

    fn end(&mut self, _: Option<&LogicalLine<'a>>, _: &str) -> Flow {
        if self.event_at == Some(self.depth) {
            self.event_at = None;
            if let Some(uid) = self.uid.take() {
                self.keys.insert((uid, self.rid.take()));
            }
        }
        self.depth = self.depth.saturating_sub(1);
        GO_ON
    }

    fn property(&mut self, line: &LogicalLine<'a>) -> Flow {
        if self.event_at != Some(self.depth) {
            return GO_ON;
        }
        let name = line_name(line);
        let uid = name.eq_ignore_ascii_case("UID");
        if uid || name.eq_ignore_ascii_case("RECURRENCE-ID") {
            let value = parse_property(line).text().trim().to_owned();
            if uid {
                self.uid = Some(value);
            } else {
                self.rid = Some(value.to_ascii_uppercase());
            }
        }
        GO_ON
    }
}

/// The positions (in `overrides`) of the overrides that match no event of `input`: the event is
/// gone upstream. An occurrence counts as there while its series is (which occurrences a rule
/// gives is not expanded here).
pub fn unmatched_overrides(
    input: &[u8],
    config: &CompiledConfig,
    limits: &Limits,
) -> Result<Vec<usize>, ParseError> {
    if config.override_keys.is_empty() {
        return Ok(Vec::new());
    }
    let mut keys = EventKeys::default();
    ics::walk(input, limits, &mut keys, &mut Warnings::default())?;
    Ok(config
        .override_keys
        .iter()
        .enumerate()
        .filter(|(_, (uid, rid))| {
            let series = keys.keys.contains(&(uid.clone(), None));
            let found = match rid {
                None => series || keys.keys.iter().any(|(u, _)| u == uid),
                Some(r) => series || keys.keys.contains(&(uid.clone(), Some(r.clone()))),
            };
            !found
        })
        .map(|(i, _)| i)
        .collect())
}

#[cfg(test)]
mod tests {
    use crate::RemapOptions;
    use crate::{decide, remap, unmatched_overrides, CalendarConfig, CompiledConfig, Limits};

    const FEED: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n\
BEGIN:VEVENT\r\nUID:weekly\r\nDTSTART;TZID=Europe/Berlin:20240304T090000\r\nDTEND;TZID=Europe/Berlin:20240304T093000\r\nRRULE:FREQ=WEEKLY;COUNT=6\r\nSUMMARY:Sync\r\nDESCRIPTION:Agenda\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:weekly\r\nRECURRENCE-ID;TZID=Europe/Berlin:20240311T090000\r\nDTSTART;TZID=Europe/Berlin:20240311T110000\r\nDTEND;TZID=Europe/Berlin:20240311T113000\r\nSUMMARY:Sync (late)\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:trip\r\nDTSTART;VALUE=DATE:20240320\r\nDTEND;VALUE=DATE:20240322\r\nSUMMARY:Trip\r\nEND:VEVENT\r\n\
END:VCALENDAR\r\n";

    fn config(json: &str) -> CompiledConfig {
        let config: CalendarConfig = serde_json::from_str(json).expect("reads");
        CompiledConfig::compile(&config).expect("compiles")
    }

    fn out(json: &str) -> String {
        let options = RemapOptions::default();
        let bytes = remap(FEED.as_bytes(), &config(json), &options, &Limits::default())
            .expect("remaps")
            .bytes;
        String::from_utf8(bytes).expect("utf-8")
    }

    #[test]
    fn a_new_title_a_note_and_a_shift_apply_after_the_mapping() {
        let feed = out(r#"{"mapping": {"SUMMARY": "${SUMMARY}!"}, "overrides": [
            {"uid": "trip", "summary": "Trip to Lyon", "shiftMinutes": 1440},
            {"uid": "weekly", "recurrenceId": "20240311T090000", "note": "Room 2, this week"}
        ]}"#);
        assert!(feed.contains("SUMMARY:Trip to Lyon\r\n"), "{feed}");
        assert!(
            feed.contains("DTSTART;VALUE=DATE:20240321\r\nDTEND;VALUE=DATE:20240323\r\n"),
            "{feed}"
        );
        // The mapping still applies where nothing was changed by hand.
        assert!(feed.contains("SUMMARY:Sync!\r\n"), "{feed}");
        // The occurrence had no description: the note is added as its description.
        assert!(
            feed.contains("SUMMARY:Sync (late)!\r\nDESCRIPTION:Room 2\\, this week\r\nEND:VEVENT"),
            "{feed}"
        );
        // Only the occurrence got the note; the series keeps its description.
        assert!(feed.contains("DESCRIPTION:Agenda\r\n"), "{feed}");
    }

    #[test]
    fn a_shift_moves_start_and_end_in_their_zone_across_midnight() {
        let feed = out(r#"{"mapping": {}, "overrides": [
            {"uid": "weekly", "recurrenceId": "20240311T090000", "shiftMinutes": -690}
        ]}"#);
        assert!(
            feed.contains("RECURRENCE-ID;TZID=Europe/Berlin:20240311T090000\r\n"),
            "{feed}"
        );
        assert!(
            feed.contains("DTSTART;TZID=Europe/Berlin:20240310T233000\r\n"),
            "{feed}"
        );
        assert!(
            feed.contains("DTEND;TZID=Europe/Berlin:20240311T000000\r\n"),
            "{feed}"
        );
    }

    #[test]
    fn a_note_is_added_below_the_description() {
        let feed =
            out(r#"{"mapping": {}, "overrides": [{"uid": "weekly", "note": "Bring slides"}]}"#);
        assert!(
            feed.contains("DESCRIPTION:Agenda\\n\\nBring slides\r\n"),
            "{feed}"
        );
        // Without a description the note is the description.
        assert!(
            feed.contains("SUMMARY:Sync (late)\r\nDESCRIPTION:Bring slides\r\nEND:VEVENT"),
            "{feed}"
        );
    }

    #[test]
    fn hiding_an_occurrence_adds_an_exdate_and_hiding_an_event_drops_it() {
        let json = r#"{"mapping": {}, "overrides": [
            {"uid": "weekly", "recurrenceId": "20240318T090000", "hide": true},
            {"uid": "trip", "hide": true}
        ]}"#;
        let feed = out(json);
        assert!(
            feed.contains("EXDATE;TZID=Europe/Berlin:20240318T090000\r\n"),
            "{feed}"
        );
        assert!(!feed.contains("Trip"), "{feed}");
        let decisions = decide(
            FEED.as_bytes(),
            &config(json),
            &RemapOptions::default(),
            &Limits::default(),
        )
        .expect("decides");
        assert_eq!(decisions[2].reason.as_deref(), Some("hidden by hand"));
        assert!(decisions[0].kept);
    }

    #[test]
    fn overrides_whose_event_is_gone_are_named() {
        let c = config(
            r#"{"mapping": {}, "overrides": [
            {"uid": "trip", "summary": "x"},
            {"uid": "gone", "hide": true},
            {"uid": "weekly", "recurrenceId": "20240325T090000", "hide": true},
            {"uid": "trip", "recurrenceId": "20240320", "note": "an occurrence of a series that is there"}
        ]}"#,
        );
        assert_eq!(
            unmatched_overrides(FEED.as_bytes(), &c, &Limits::default()).expect("reads"),
            [1]
        );
    }

    #[test]
    fn bad_overrides_are_named_by_their_path() {
        for (json, path) in [
            (r#"[{"uid": "", "hide": true}]"#, "overrides[0].uid"),
            (r#"[{"uid": "a"}]"#, "overrides[0]"),
            (
                r#"[{"uid": "a", "hide": true, "summary": "b"}]"#,
                "overrides[0]",
            ),
            (
                r#"[{"uid": "a", "recurrenceId": "soon", "hide": true}]"#,
                "overrides[0].recurrenceId",
            ),
            (
                r#"[{"uid": "a", "shiftMinutes": 600000}]"#,
                "overrides[0].shiftMinutes",
            ),
            (
                r#"[{"uid": "a", "summary": "x\ny"}]"#,
                "overrides[0].summary",
            ),
        ] {
            let config: CalendarConfig =
                serde_json::from_str(&format!(r#"{{"mapping": {{}}, "overrides": {json}}}"#))
                    .expect("reads");
            let error = CompiledConfig::compile(&config).expect_err(json);
            assert_eq!(error.path, path, "{json}: {error}");
        }
    }
}
