use super::*;

fn doc(input: &str) -> (Document, Vec<Warning>) {
    parse(input.as_bytes(), &Limits::default()).expect("parses")
}

#[test]
fn check_reads_like_parse_without_the_tree() {
    let feed = b"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:a\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
    let checked = check(feed, &Limits::default()).expect("reads");
    assert_eq!(
        checked,
        Checked {
            has_calendar: true,
            events: 2
        }
    );
    let bare = check(b"BEGIN:VEVENT\r\nEND:VEVENT\r\n", &Limits::default()).expect("reads");
    assert!(!bare.has_calendar);
    assert_eq!(
        check(b"<html>", &Limits::default()),
        Err(ParseError::NotICalendar)
    );
    let tight = Limits {
        max_events: 1,
        ..Limits::default()
    };
    assert!(matches!(
        check(feed, &tight),
        Err(ParseError::TooManyEvents { .. })
    ));
}

#[test]
fn keeps_the_whole_component_tree_in_order() {
    let (d, w) = doc(
        "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VTIMEZONE\nTZID:X\nBEGIN:STANDARD\n\
DTSTART:19700101T000000\nEND:STANDARD\nEND:VTIMEZONE\nBEGIN:VEVENT\nBEGIN:VALARM\nEND:VALARM\n\
END:VEVENT\nBEGIN:VTODO\nEND:VTODO\nBEGIN:X-THING\nEND:X-THING\nEND:VCALENDAR\n",
    );
    assert!(w.is_empty(), "{w:?}");
    let cal = &d.components[0];
    let names: Vec<&str> = cal.children().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["VTIMEZONE", "VEVENT", "VTODO", "X-THING"]);
    assert_eq!(d.event_count(), 1);
}

#[test]
fn lower_case_names_are_read_as_upper_case() {
    let (d, _) =
        doc("begin:vcalendar\nbegin:vevent\nsummary;language=en:x\nend:vevent\nend:vcalendar\n");
    let ev = d.event(0).expect("event");
    let p = ev.component().properties().next().expect("property");
    assert_eq!(p.name, "SUMMARY");
    assert_eq!(p.params[0].name, "LANGUAGE");
}

#[test]
fn several_calendars_in_one_file_are_all_kept() {
    let (d, _) =
        doc("BEGIN:VCALENDAR\nX-A:1\nEND:VCALENDAR\nBEGIN:VCALENDAR\nX-B:2\nEND:VCALENDAR\n");
    assert_eq!(d.components.len(), 2);
    assert_eq!(
        d.calendar_properties(),
        [
            ("X-A".to_owned(), "1".to_owned()),
            ("X-B".to_owned(), "2".to_owned())
        ]
    );
}

#[test]
fn junk_around_the_calendar_is_ignored_with_a_warning() {
    let (d, w) = doc("hello\nBEGIN:VCALENDAR\nEND:VCALENDAR\nbye\n");
    assert_eq!(d.components.len(), 1);
    assert_eq!(w.len(), 2);
    assert_eq!(w[0].line, 1);
}

#[test]
fn missing_end_lines_are_tolerated_and_reported() {
    let (d, w) = doc("BEGIN:VCALENDAR\nBEGIN:VEVENT\nSUMMARY:x\n");
    assert_eq!(d.event_count(), 1);
    assert_eq!(d.components[0].children().count(), 1);
    assert_eq!(w.len(), 2);
    let (_, w) = doc("BEGIN:VCALENDAR\nBEGIN:VEVENT\nEND:VCALENDAR\n");
    assert!(w[0].message.contains("END:VEVENT"));
}

#[test]
fn stray_end_is_ignored_with_a_warning() {
    let (d, w) = doc("BEGIN:VCALENDAR\nEND:VEVENT\nEND:VCALENDAR\n");
    assert_eq!(d.components.len(), 1);
    assert_eq!(w.len(), 1);
}

#[test]
fn malformed_lines_inside_components_are_kept_with_a_warning() {
    let (d, w) = doc("BEGIN:VCALENDAR\nX\nEND:VCALENDAR\n");
    let p = d.components[0].properties().next().expect("kept");
    assert!(!p.well_formed);
    assert_eq!(w.len(), 1);
}

#[test]
fn invalid_utf8_is_decoded_lossily_with_a_warning() {
    let (d, w) = parse(
        b"BEGIN:VCALENDAR\nX-A:a\xFFb\nEND:VCALENDAR\n",
        &Limits::default(),
    )
    .expect("parses");
    assert_eq!(d.calendar_properties()[0].1, "a\u{FF}b");
    assert_eq!(w[0].line, 2);
}

#[test]
fn a_line_that_is_not_utf8_reads_as_windows_1252_with_one_warning() {
    let (d, w) = parse(
        b"BEGIN:VCALENDAR\nX-A:Caf\xE9 M\xFCller \x80 \x93q\x94\nX-B:ok\nEND:VCALENDAR\n",
        &Limits::default(),
    )
    .expect("parses");
    assert_eq!(
        d.calendar_properties()[0].1,
        "Café Müller € \u{201C}q\u{201D}"
    );
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].line, 2);
    assert!(w[0].message.contains("Windows-1252"), "{w:?}");
}

#[test]
fn a_line_mixing_utf8_and_windows_1252_keeps_both() {
    assert_eq!(text(b"\xC3\xA9t\xE9 \xE2\x82\xAC\x80\xC3"), "été €€Ã");
    assert_eq!(
        text(b"\x81\x8D\x8F\x90\x9D"),
        "\u{81}\u{8D}\u{8F}\u{90}\u{9D}"
    );
}

#[test]
fn a_fold_that_splits_a_character_is_not_invalid_utf8() {
    let (d, w) = parse(
        b"BEGIN:VCALENDAR\nX-A:\xC3\n \xA9t\xC3\xA9\nX-B:a\xFF\nEND:VCALENDAR\n",
        &Limits::default(),
    )
    .expect("parses");
    assert_eq!(d.calendar_properties()[0].1, "été");
    assert_eq!(w.len(), 1, "only X-B is not UTF-8: {w:?}");
    assert_eq!(w[0].line, 4);
}

#[test]
fn a_begin_line_folded_in_the_blanks_after_its_name_is_still_a_begin() {
    // The fuzzer's find: `BEGIN`, 70 tabs, `:n` is a BEGIN; the writer folds it after the
    // tabs, and the folded form must read back as the same BEGIN.
    let mut folded = b"BEGIN".to_vec();
    folded.extend_from_slice(&[b'\t'; 70]);
    folded.extend_from_slice(b"\r\n :n\r\nEND:N\r\n");
    let (d, _) = parse(&folded, &Limits::default()).expect("parses");
    assert_eq!(d.components.len(), 1);
    assert_eq!(d.components[0].name, "N");
    let (d, _) = parse(
        b"BE\r\n GIN:VCALENDAR\r\nE\r\n ND :VCALENDAR\r\n",
        &Limits::default(),
    )
    .expect("parses");
    assert_eq!(d.components[0].name, "VCALENDAR");
    assert!(d.components[0].items.is_empty());
}

#[test]
fn input_size_limit_is_a_typed_error() {
    let limits = Limits {
        max_input_bytes: 10,
        ..Limits::default()
    };
    let err = parse(b"BEGIN:VCALENDAR\nEND:VCALENDAR\n", &limits).expect_err("too big");
    assert!(matches!(
        err,
        ParseError::InputTooLarge {
            size: 30,
            limit: 10
        }
    ));
}

#[test]
fn line_length_limit_counts_the_unfolded_line() {
    let limits = Limits {
        max_line_bytes: 20,
        ..Limits::default()
    };
    let input = "BEGIN:VCALENDAR\nX-A:0123456789\n 0123456789\nEND:VCALENDAR\n";
    let err = parse(input.as_bytes(), &limits).expect_err("too long");
    assert_eq!(err, ParseError::LineTooLong { line: 2, limit: 20 });
}

#[test]
fn depth_limit_is_a_typed_error() {
    let limits = Limits {
        max_depth: 2,
        ..Limits::default()
    };
    let input =
        "BEGIN:VCALENDAR\nBEGIN:VEVENT\nBEGIN:VALARM\nEND:VALARM\nEND:VEVENT\nEND:VCALENDAR\n";
    let err = parse(input.as_bytes(), &limits).expect_err("too deep");
    assert_eq!(err, ParseError::TooDeep { line: 3, limit: 2 });
}

#[test]
fn event_limit_is_a_typed_error() {
    let limits = Limits {
        max_events: 1,
        ..Limits::default()
    };
    let input =
        "BEGIN:VCALENDAR\nBEGIN:VEVENT\nEND:VEVENT\nBEGIN:VEVENT\nEND:VEVENT\nEND:VCALENDAR\n";
    let err = parse(input.as_bytes(), &limits).expect_err("too many");
    assert_eq!(err, ParseError::TooManyEvents { line: 4, limit: 1 });
}

#[test]
fn input_without_any_component_is_not_icalendar() {
    assert_eq!(
        parse(b"", &Limits::default()),
        Err(ParseError::NotICalendar)
    );
    assert_eq!(
        parse(b"<!doctype html>", &Limits::default()),
        Err(ParseError::NotICalendar)
    );
}

#[test]
fn quoted_parameters_and_rfc_6868_reach_the_tree() {
    let (d, _) = doc("BEGIN:VCALENDAR\nX-P;A=\"x;y:z\";B=^'q^';C=u,v:val:ue\nEND:VCALENDAR\n");
    let p = d.components[0].properties().next().expect("property");
    assert_eq!(p.param("A").as_deref(), Some("x;y:z"));
    assert_eq!(p.param("B").as_deref(), Some("\"q\""));
    assert_eq!(p.param("C").as_deref(), Some("u,v"));
    assert_eq!(p.value, "val:ue");
}
