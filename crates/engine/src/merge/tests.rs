use super::*;

fn cal(body: &str) -> String {
    format!("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n{body}END:VCALENDAR\r\n")
}

fn event(uid: &str, summary: &str, extra: &str) -> String {
    format!(
        "BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20240101T000000Z\r\nDTSTART:20240301T090000Z\r\nSUMMARY:{summary}\r\n{extra}END:VEVENT\r\n"
    )
}

fn merged(feeds: &[(&str, Option<&str>)]) -> Merged {
    let inputs: Vec<MergeInput<'_>> = feeds
        .iter()
        .map(|(bytes, prefix)| MergeInput {
            bytes: bytes.as_bytes(),
            prefix: *prefix,
        })
        .collect();
    merge(&inputs, &Limits::default(), None).expect("merges")
}

fn text(m: &Merged) -> String {
    String::from_utf8(m.bytes.clone()).expect("utf-8")
}

fn summaries(m: &Merged) -> Vec<String> {
    let (doc, _) = crate::parse(&m.bytes, &Limits::default()).expect("parses");
    doc.events()
        .map(|e| e.get("SUMMARY").map(|s| s.into_owned()).unwrap_or_default())
        .collect()
}

#[test]
fn two_feeds_become_one_calendar_with_each_prefix_and_origin() {
    let a = cal(&format!(
        "{}{}",
        event("a1", "Standup", ""),
        event("a2", "Review", "")
    ));
    let b = cal(&event("b1", "Dentist", ""));
    let m = merged(&[(&a, Some("[Work] ")), (&b, Some("[Home] "))]);
    let out = text(&m);
    assert_eq!(out.matches("BEGIN:VCALENDAR").count(), 1);
    assert_eq!(out.matches("PRODID").count(), 1);
    assert_eq!(
        summaries(&m),
        ["[Work] Standup", "[Work] Review", "[Home] Dentist"]
    );
    assert_eq!(m.origins, [0, 0, 1]);
    assert_eq!(m.source_events, [2, 1]);
    assert_eq!(m.duplicates, 0);
}

#[test]
fn lines_the_merge_does_not_change_are_copied_byte_for_byte() {
    let folded = "DESCRIPTION:a long description that is folded over two physical lines of the\r\n  feed as written\r\n";
    let a = cal(&event("a1", "Standup", folded));
    let m = merged(&[(&a, None)]);
    assert!(text(&m).contains(folded));
    assert!(text(&m).contains("SUMMARY:Standup\r\n"));
}

#[test]
fn the_prefix_is_escaped_and_keeps_the_summarys_parameters() {
    let a = cal(&event("a1", "Plan\\, then do", "").replace("SUMMARY:", "SUMMARY;LANGUAGE=en:"));
    let m = merged(&[(&a, Some("Work, Team: "))]);
    assert!(text(&m).contains("SUMMARY;LANGUAGE=en:Work\\, Team: Plan\\, then do\r\n"));
    assert_eq!(summaries(&m), ["Work, Team: Plan, then do"]);
}

#[test]
fn an_event_without_summary_gets_the_prefix_as_its_summary() {
    let a = cal("BEGIN:VEVENT\r\nUID:x\r\nDTSTART:20240301T090000Z\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Soon\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\nEND:VEVENT\r\n");
    let m = merged(&[(&a, Some("[Gym] "))]);
    assert_eq!(summaries(&m), ["[Gym]"]);
    // The alarm's own lines are not the event's SUMMARY.
    assert!(text(&m).contains("DESCRIPTION:Soon\r\n"));
}

#[test]
fn a_shared_uid_appears_once_the_higher_sequence_winning_in_any_order() {
    let old = cal(&event("same", "Old time", "SEQUENCE:1\r\n"));
    let new = cal(&event("same", "New time", "SEQUENCE:2\r\n"));
    for (feeds, origin) in [([&old, &new], 1u16), ([&new, &old], 0)] {
        let m = merged(&[(feeds[0], None), (feeds[1], None)]);
        assert_eq!(summaries(&m), ["New time"]);
        assert_eq!(m.origins, [origin]);
        assert_eq!(m.duplicates, 1);
    }
}

#[test]
fn equal_sequences_go_to_the_later_change_then_to_the_earlier_source() {
    let a = cal(&event("same", "A", "LAST-MODIFIED:20240105T100000Z\r\n"));
    let b = cal(&event("same", "B", "LAST-MODIFIED:20240106T100000Z\r\n"));
    assert_eq!(summaries(&merged(&[(&a, None), (&b, None)])), ["B"]);
    // No LAST-MODIFIED: the DTSTAMPs (equal here) then the source order decide.
    let c = cal(&event("same", "C", ""));
    let d = cal(&event("same", "D", ""));
    assert_eq!(summaries(&merged(&[(&c, None), (&d, None)])), ["C"]);
    assert_eq!(summaries(&merged(&[(&d, None), (&c, None)])), ["D"]);
}

#[test]
fn a_series_travels_whole_with_its_overrides() {
    let moved = "BEGIN:VEVENT\r\nUID:s\r\nDTSTAMP:20240101T000000Z\r\nRECURRENCE-ID:20240308T090000Z\r\nDTSTART:20240308T110000Z\r\nSUMMARY:Moved\r\nEND:VEVENT\r\n";
    let a = cal(&format!(
        "{}{moved}",
        event("s", "Weekly", "RRULE:FREQ=WEEKLY;COUNT=4\r\nSEQUENCE:3\r\n")
    ));
    let b = cal(&event(
        "s",
        "Weekly (stale)",
        "RRULE:FREQ=WEEKLY;COUNT=4\r\nSEQUENCE:1\r\n",
    ));
    let m = merged(&[(&b, None), (&a, None)]);
    assert_eq!(summaries(&m), ["Weekly", "Moved"]);
    assert_eq!(m.origins, [1, 1]);
    // The other way round the stale source loses too, and its series goes whole.
    let m = merged(&[(&a, None), (&b, None)]);
    assert_eq!(summaries(&m), ["Weekly", "Moved"]);
}

#[test]
fn events_without_uid_and_repeats_inside_one_source_are_all_kept() {
    let no_uid = "BEGIN:VEVENT\r\nDTSTART:20240301T090000Z\r\nSUMMARY:Anon\r\nEND:VEVENT\r\n";
    let a = cal(&format!(
        "{no_uid}{}{}",
        event("d", "One", ""),
        event("d", "Two", "")
    ));
    let b = cal(no_uid);
    let m = merged(&[(&a, None), (&b, None)]);
    assert_eq!(summaries(&m), ["Anon", "One", "Two", "Anon"]);
}

const BERLIN: &str = "BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\nBEGIN:STANDARD\r\nDTSTART:19701025T030000\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r\nEND:STANDARD\r\nBEGIN:DAYLIGHT\r\nDTSTART:19700329T020000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r\nEND:DAYLIGHT\r\nEND:VTIMEZONE\r\n";

fn zoned(uid: &str, tz: &str) -> String {
    format!("BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTART;TZID={tz}:20240301T090000\r\nSUMMARY:{uid}\r\nEND:VEVENT\r\n")
}

#[test]
fn one_vtimezone_per_tzid_when_sources_define_it_alike() {
    let a = cal(&format!("{}{BERLIN}", zoned("a", "Europe/Berlin")));
    let b = cal(&format!(
        "{}{}",
        BERLIN.replace(
            "TZID:Europe/Berlin\r\n",
            "TZID:Europe/Berlin\r\nLAST-MODIFIED:20230101T000000Z\r\n"
        ),
        zoned("b", "Europe/Berlin")
    ));
    let out = text(&merged(&[(&a, None), (&b, None)]));
    assert_eq!(out.matches("BEGIN:VTIMEZONE").count(), 1);
    // Zones come before the events.
    assert!(out.find("BEGIN:VTIMEZONE") < out.find("BEGIN:VEVENT"));
    assert_eq!(out.matches("DTSTART;TZID=Europe/Berlin:").count(), 2);
}

#[test]
fn a_tzid_defined_differently_gets_a_name_of_its_own_and_its_events_follow() {
    let other = BERLIN.replace("TZOFFSETTO:+0100", "TZOFFSETTO:+0000");
    let a = cal(&format!("{BERLIN}{}", zoned("a", "Europe/Berlin")));
    let b = cal(&format!("{other}{}", zoned("b", "Europe/Berlin")));
    let out = text(&merged(&[(&a, None), (&b, None)]));
    assert_eq!(out.matches("BEGIN:VTIMEZONE").count(), 2);
    assert!(out.contains("TZID:Europe/Berlin\r\n"));
    assert!(out.contains("TZID:Europe/Berlin-2\r\n"));
    assert!(out.contains("UID:a\r\nDTSTART;TZID=Europe/Berlin:20240301T090000"));
    assert!(out.contains("UID:b\r\nDTSTART;TZID=Europe/Berlin-2:20240301T090000"));
}

#[test]
fn a_later_sources_floating_times_keep_its_own_zone() {
    let a = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nX-WR-TIMEZONE:Europe/London\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTART:20240301T090000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
    let b = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nX-WR-TIMEZONE:America/New_York\r\nBEGIN:VEVENT\r\nUID:b\r\nDTSTART:20240301T090000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
    let out = text(&merged(&[(a, None), (b, None)]));
    assert!(out.contains("X-WR-TIMEZONE:Europe/London\r\n"));
    assert!(!out.contains("America/New_York\r\n"));
    assert!(out.contains("UID:a\r\nDTSTART:20240301T090000\r\n"));
    assert!(out.contains("UID:b\r\nDTSTART;TZID=America/New_York:20240301T090000\r\n"));
}

#[test]
fn other_components_and_a_missing_end_are_kept() {
    let a = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VTODO\r\nUID:t\r\nSUMMARY:Task\r\nEND:VTODO\r\nBEGIN:VEVENT\r\nUID:e\r\nSUMMARY:Cut off";
    let m = merged(&[(a, Some("P "))]);
    let out = text(&m);
    // A VTODO is not an event: no prefix.
    assert!(out.contains("SUMMARY:Task\r\n"));
    assert!(out.contains("SUMMARY:P Cut off\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"));
    assert!(m
        .warnings
        .iter()
        .any(|w| w.message.starts_with("source 1: ")));
}

#[test]
fn a_source_without_vcalendar_still_merges_into_one() {
    let bare = "BEGIN:VEVENT\r\nUID:bare\r\nSUMMARY:Bare\r\nEND:VEVENT\r\n";
    let m = merged(&[(bare, None)]);
    assert!(text(&m).starts_with("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:"));
    assert_eq!(summaries(&m), ["Bare"]);
}

#[test]
fn budgets_and_bad_sources_are_errors_naming_the_source() {
    let ok = cal(&event("a", "A", ""));
    let eleven: Vec<MergeInput<'_>> = (0..11)
        .map(|_| MergeInput {
            bytes: ok.as_bytes(),
            prefix: None,
        })
        .collect();
    assert_eq!(
        merge(&eleven, &Limits::default(), None),
        Err(MergeError::TooMany(11))
    );
    let small = Limits {
        max_input_bytes: ok.len() * 2 - 1,
        ..Limits::default()
    };
    let two = [MergeInput {
        bytes: ok.as_bytes(),
        prefix: None,
    }; 2];
    assert!(matches!(
        merge(&two, &small, None),
        Err(MergeError::TooLarge { .. })
    ));
    let bad = [
        MergeInput {
            bytes: ok.as_bytes(),
            prefix: None,
        },
        MergeInput {
            bytes: b"hello",
            prefix: None,
        },
    ];
    let error = merge(&bad, &Limits::default(), None).expect_err("not a calendar");
    assert!(error.to_string().starts_with("source 2: "), "{error}");
    let stop = Interrupt::new();
    stop.stop();
    assert!(matches!(
        merge(&two, &Limits::default(), Some(&stop)),
        Err(MergeError::Interrupted(_))
    ));
}

#[test]
fn a_summary_folded_right_after_its_name_still_gets_the_prefix() {
    let a = cal("BEGIN:VEVENT\r\nUID:f\r\nSUMMARY\r\n :Folded\r\nEND:VEVENT\r\n");
    let m = merged(&[(&a, Some("[F] "))]);
    assert_eq!(summaries(&m), ["[F] Folded"]);
}
