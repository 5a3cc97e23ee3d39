use super::*;
use crate::{parse, Component, Document};

fn repair(input: &str) -> (String, TzRepairOutput) {
    let out = repair_timezones(input.as_bytes(), &Limits::default()).expect("repairs");
    let text = String::from_utf8(out.bytes.clone()).expect("utf-8");
    for line in text.split_inclusive('\n') {
        assert!(line.ends_with("\r\n") && line.len() <= 77, "{line:?}");
    }
    (text, out)
}

fn doc(text: &str) -> Document {
    let (doc, warnings) = parse(text.as_bytes(), &Limits::default()).expect("parses");
    assert!(warnings.is_empty(), "{warnings:?}");
    doc
}

fn tzids(cal: &Component) -> Vec<String> {
    cal.children()
        .filter(|c| c.name == "VTIMEZONE")
        .filter_map(|c| c.properties().find(|p| p.name == "TZID"))
        .map(|p| p.value.clone())
        .collect()
}

fn event_param(doc: &Document, prop: &str) -> Option<String> {
    doc.event(0)
        .expect("event")
        .component()
        .properties()
        .find(|p| p.name == prop)
        .and_then(|p| p.param("TZID"))
}

const OUTLOOK: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:Microsoft Exchange Server 2010\r\n\
BEGIN:VTIMEZONE\r\nTZID:W. Europe Standard Time\r\nBEGIN:STANDARD\r\nDTSTART:16010101T030000\r\n\
TZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nRRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10\r\n\
END:STANDARD\r\nBEGIN:DAYLIGHT\r\nDTSTART:16010101T020000\r\nTZOFFSETFROM:+0100\r\n\
TZOFFSETTO:+0200\r\nRRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3\r\nEND:DAYLIGHT\r\n\
END:VTIMEZONE\r\nBEGIN:VEVENT\r\nUID:1\r\nSUMMARY:Stand-up\r\n\
DTSTART;TZID=W. Europe Standard Time:20240105T093000\r\n\
DTEND;TZID=\"W. Europe Standard Time\":20240105T094500\r\n\
EXDATE;TZID=W. Europe Standard Time:20240112T093000,20240119T093000\r\n\
RRULE:FREQ=WEEKLY\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

#[test]
fn windows_tzids_become_iana_in_events_and_in_their_vtimezone() {
    let (text, out) = repair(OUTLOOK);
    assert!(!text.contains("W. Europe"), "{text}");
    assert!(
        text.contains("DTSTART;TZID=Europe/Berlin:20240105T093000\r\n"),
        "{text}"
    );
    assert!(text.contains("DTEND;TZID=Europe/Berlin:20240105T094500\r\n"));
    assert!(text.contains("EXDATE;TZID=Europe/Berlin:20240112T093000,20240119T093000\r\n"));
    assert!(text.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n"));
    // The feed's own VTIMEZONE is kept (renamed): none is added.
    assert_eq!(out.added, Vec::<String>::new());
    assert_eq!(out.renamed, 4);
    let d = doc(&text);
    assert_eq!(tzids(&d.components[0]), ["Europe/Berlin"]);
}

#[test]
fn a_zone_without_vtimezone_gets_one_after_the_calendar_properties() {
    let input = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nX-WR-CALNAME:Work\r\nBEGIN:VEVENT\r\nUID:1\r\n\
DTSTART;TZID=America/New_York:20230310T090000\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:2\r\n\
DTSTART;TZID=GMT Standard Time 1:20240301T090000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
    let (text, out) = repair(input);
    assert_eq!(out.added, ["America/New_York", "Europe/London"]);
    assert!(
        text.starts_with(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nX-WR-CALNAME:Work\r\nBEGIN:VTIMEZONE\r\n\
TZID:America/New_York\r\n"
        ),
        "{text}"
    );
    assert!(text.contains("DTSTART;TZID=Europe/London:20240301T090000\r\n"));
    let d = doc(&text);
    assert_eq!(
        tzids(&d.components[0]),
        ["America/New_York", "Europe/London"]
    );
    // Synthesised from the earliest year that uses the zone: New York's rule since 2007 covers
    // 2023, so two RRULE observances.
    let ny = d.components[0].children().next().expect("VTIMEZONE");
    assert_eq!(ny.children().count(), 2);
}

#[test]
fn floating_times_get_the_calendars_declared_zone() {
    let input = "BEGIN:VCALENDAR\r\nX-WR-TIMEZONE:Europe/Berlin\r\nBEGIN:VEVENT\r\nUID:1\r\n\
DTSTART:20240105T100000\r\nDTEND;VALUE=DATE-TIME:20240105T110000\r\n\
EXDATE:20240112T100000,20240119T100000\r\nRDATE;VALUE=PERIOD:20240201T100000/PT1H\r\n\
RRULE:FREQ=WEEKLY\r\nBEGIN:VALARM\r\nTRIGGER;VALUE=DATE-TIME:20240105T090000Z\r\nEND:VALARM\r\n\
END:VEVENT\r\nBEGIN:VEVENT\r\nUID:2\r\nDTSTART;VALUE=DATE:20240106\r\nDTEND:20240107T000000Z\r\n\
END:VEVENT\r\nEND:VCALENDAR\r\n";
    let (text, out) = repair(input);
    assert_eq!(out.floating_fixed, 3, "{text}");
    assert!(text.contains("DTSTART;TZID=Europe/Berlin:20240105T100000\r\n"));
    assert!(text.contains("DTEND;VALUE=DATE-TIME;TZID=Europe/Berlin:20240105T110000\r\n"));
    assert!(text.contains("EXDATE;TZID=Europe/Berlin:20240112T100000,20240119T100000\r\n"));
    // Periods, DATEs and UTC times are not floating DATE-TIMEs.
    assert!(text.contains("RDATE;VALUE=PERIOD:20240201T100000/PT1H\r\n"));
    assert!(text.contains("DTSTART;VALUE=DATE:20240106\r\nDTEND:20240107T000000Z\r\n"));
    assert!(text.contains("TRIGGER;VALUE=DATE-TIME:20240105T090000Z\r\n"));
    assert_eq!(out.added, ["Europe/Berlin"]);
    assert_eq!(tzids(&doc(&text).components[0]), ["Europe/Berlin"]);
}

#[test]
fn floating_times_stay_without_a_known_declared_zone() {
    let plain = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART:20240105T100000\r\nEND:VEVENT\r\n\
END:VCALENDAR\r\n";
    let (text, out) = repair(plain);
    assert_eq!(text, plain);
    assert!(out.warnings.is_empty());
    let (text, out) = repair(&plain.replace(
        "BEGIN:VCALENDAR\r\n",
        "BEGIN:VCALENDAR\r\nX-WR-TIMEZONE:Nowhere\r\n",
    ));
    assert!(text.contains("DTSTART:20240105T100000\r\n"));
    assert!(
        out.warnings[0].message.contains("Nowhere"),
        "{:?}",
        out.warnings
    );
    // A Windows name in X-WR-TIMEZONE is understood.
    let (text, _) = repair(&plain.replace(
        "BEGIN:VCALENDAR\r\n",
        "BEGIN:VCALENDAR\r\nX-WR-TIMEZONE:Tokyo Standard Time\r\n",
    ));
    assert!(
        text.contains("DTSTART;TZID=Asia/Tokyo:20240105T100000\r\n"),
        "{text}"
    );
    // ... and renamed, for clients that read the calendar's zone from it.
    assert!(text.contains("X-WR-TIMEZONE:Asia/Tokyo\r\n"), "{text}");
}

#[test]
fn a_vtimezone_renamed_onto_a_defined_zone_goes() {
    let input = OUTLOOK.replace(
        "BEGIN:VEVENT\r\n",
        "BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\n\
TZOFFSETFROM:+0100\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\nBEGIN:VEVENT\r\n",
    );
    let (text, _) = repair(&input);
    let d = doc(&text);
    // The Windows one came first and keeps the name; the later duplicate goes.
    assert_eq!(tzids(&d.components[0]), ["Europe/Berlin"]);
    assert!(text.contains("INTERVAL=1;BYDAY=-1SU;BYMONTH=10"), "{text}");
    assert!(!text.contains("DTSTART:19700101T000000"), "{text}");
}

#[test]
fn prefixed_iana_names_lose_their_prefix() {
    let input = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\n\
DTSTART;TZID=/mozilla.org/20050126_1/America/Argentina/Buenos_Aires:20240105T100000\r\n\
DTEND;TZID=/freeassociation.sourceforge.net/Tzfile/Europe/Paris:20240105T110000\r\n\
END:VEVENT\r\nEND:VCALENDAR\r\n";
    let (text, out) = repair(input);
    let d = doc(&text);
    assert_eq!(
        event_param(&d, "DTSTART").as_deref(),
        Some("America/Argentina/Buenos_Aires")
    );
    assert_eq!(event_param(&d, "DTEND").as_deref(), Some("Europe/Paris"));
    assert_eq!(out.added.len(), 2);
}

#[test]
fn unknown_zones_without_vtimezone_are_left_with_a_warning() {
    let input =
        "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART;TZID=Customized Time Zone:20240105T100000\r\n\
END:VEVENT\r\nEND:VCALENDAR\r\n";
    let (text, out) = repair(input);
    assert_eq!(text, input);
    assert_eq!(out.warnings.len(), 1);
    assert!(out.warnings[0].message.contains("Customized Time Zone"));
    // With its own VTIMEZONE it is fine as it is.
    let defined = input.replace(
        "BEGIN:VEVENT",
        "BEGIN:VTIMEZONE\r\nTZID:Customized Time Zone\r\nBEGIN:STANDARD\r\nDTSTART:16010101T000000\r\n\
TZOFFSETFROM:+0100\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\nBEGIN:VEVENT",
    );
    let (text, out) = repair(&defined);
    assert_eq!(text, defined);
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
}

#[test]
fn a_feed_with_nothing_to_repair_is_copied_byte_for_byte() {
    // A duplicate VTIMEZONE the feed has itself stays: the repair only renames.
    let input = "BEGIN:VCALENDAR\r\nBEGIN:VTIMEZONE\r\nTZID:Europe/Paris\r\nEND:VTIMEZONE\r\n\
BEGIN:VTIMEZONE\r\nTZID:Europe/Paris\r\nEND:VTIMEZONE\r\nBEGIN:VEVENT\r\nDTSTART;TZID=Europe/Paris:20240105T100000\r\nDTEND:20240105T110000Z\r\n\
SUMMARY:a TZID in text is only text\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
    let (text, out) = repair(input);
    assert_eq!(text, input);
    assert_eq!(
        (out.renamed, out.added.len(), out.floating_fixed),
        (0, 0, 0)
    );
}

#[test]
fn vtimezones_go_into_the_calendar_that_needs_them() {
    // X-WR-TIMEZONE is per calendar: the second one's floating VTODO stays floating.
    let input = "BEGIN:VCALENDAR\r\nX-WR-TIMEZONE:Asia/Kolkata\r\nEND:VCALENDAR\r\n\
BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nDUE:20240105T100000\r\nEND:VTODO\r\nEND:VCALENDAR\r\n";
    let (text, out) = repair(input);
    // The first calendar has no floating time: nothing is added to it.
    assert!(text.starts_with("BEGIN:VCALENDAR\r\nX-WR-TIMEZONE:Asia/Kolkata\r\nEND:VCALENDAR\r\n"));
    assert!(
        text.contains("DUE:20240105T100000\r\n"),
        "no X-WR-TIMEZONE in the second"
    );
    assert!(out.added.is_empty());
    let input = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART;TZID=Asia/Kolkata:20240105T100000\r\n\
END:VEVENT";
    let (text, _) = repair(input);
    assert!(text.starts_with("BEGIN:VCALENDAR\r\nBEGIN:VTIMEZONE\r\nTZID:Asia/Kolkata\r\n"));
    assert!(text.ends_with("END:VEVENT\r\nEND:VCALENDAR\r\n"), "{text}");
}

/// Through `remap` with `"timezones": "repair"` (and other options around it).
mod through_remap {
    use super::*;
    use crate::{remap, CalendarConfig, CompiledConfig, RemapOptions};

    pub(super) fn remap_with(config_json: &str, input: &str) -> (String, Vec<Warning>) {
        let config: CalendarConfig = serde_json::from_str(config_json).expect("config");
        let compiled = CompiledConfig::compile(&config).expect("compiles");
        let options = RemapOptions {
            now: Some(1_704_067_200), // 2024-01-01
            ..RemapOptions::default()
        };
        let out = remap(input.as_bytes(), &compiled, &options, &Limits::default()).expect("remaps");
        let text = String::from_utf8(out.bytes).expect("utf-8");
        for line in text.split_inclusive('\n') {
            assert!(line.ends_with("\r\n") && line.len() <= 77, "{line:?}");
        }
        (text, out.warnings)
    }

    pub(super) const REPAIR: &str = r#"{"mapping": {}, "timezones": "repair"}"#;

    #[test]
    fn repair_renames_adds_and_fixes_floating_times_like_the_pass_on_its_own() {
        let input = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nX-WR-TIMEZONE:Europe/Paris\r\n\
BEGIN:VEVENT\r\nUID:1\r\nDTSTART;TZID=Eastern Standard Time:20240105T100000\r\n\
DTEND;TZID=Eastern Standard Time:20240105T110000\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:2\r\n\
DTSTART:20240106T100000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
        let (text, warnings) = remap_with(REPAIR, input);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert!(
            text.contains("DTSTART;TZID=America/New_York:20240105T100000\r\n"),
            "{text}"
        );
        assert!(text.contains("DTEND;TZID=America/New_York:20240105T110000\r\n"));
        assert!(text.contains("DTSTART;TZID=Europe/Paris:20240106T100000\r\n"));
        assert!(
            text.starts_with(
                "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nX-WR-TIMEZONE:Europe/Paris\r\n\
BEGIN:VTIMEZONE\r\nTZID:America/New_York\r\n"
            ),
            "{text}"
        );
        let d = doc(&text);
        assert_eq!(
            tzids(&d.components[0]),
            ["America/New_York", "Europe/Paris"]
        );
        // The pass on its own writes the same lines (its VTIMEZONEs may start a year later:
        // the remap's survey estimates the first year on the early side).
        let (alone, out) = repair(input);
        let events = |t: &str| t[t.rfind("END:VTIMEZONE").expect("zones")..].to_owned();
        assert_eq!(events(&text), events(&alone));
        assert_eq!(out.added, ["America/New_York", "Europe/Paris"]);
    }

    #[test]
    fn repair_renames_the_feeds_vtimezone_and_the_mappings_own_lines() {
        // A DTSTART template writes a line with the original's parameters: renamed too.
        let config = r#"{"mapping": {"DTSTART": "${DTSTART|re:s/T093000/T100000/}"},
            "timezones": "repair"}"#;
        let (text, _) = remap_with(config, OUTLOOK);
        assert!(!text.contains("W. Europe"), "{text}");
        assert!(
            text.contains("DTSTART;TZID=Europe/Berlin:20240105T100000\r\n"),
            "{text}"
        );
        assert!(text.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n"));
        assert_eq!(tzids(&doc(&text).components[0]), ["Europe/Berlin"]);
    }

    #[test]
    fn repair_adds_zones_only_for_kept_events() {
        let input = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:1\r\nSUMMARY:keep\r\n\
DTSTART;TZID=Asia/Tokyo:20240105T100000\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:2\r\n\
SUMMARY:Canceled: drop\r\nDTSTART;TZID=Australia/Sydney:20240105T100000\r\nEND:VEVENT\r\n\
END:VCALENDAR\r\n";
        let config = r#"{"mapping": {}, "timezones": "repair",
            "filters": [{"action": "exclude", "field": "SUMMARY", "pattern": "^Canceled:"}]}"#;
        let (text, _) = remap_with(config, input);
        let d = doc(&text);
        assert_eq!(tzids(&d.components[0]), ["Asia/Tokyo"]);
        assert!(!text.contains("Sydney"), "{text}");
    }

    #[test]
    fn keep_leaves_zones_as_they_are() {
        let (text, _) = remap_with(r#"{"mapping": {}, "timezones": "keep"}"#, OUTLOOK);
        assert_eq!(text, OUTLOOK);
    }

    #[test]
    fn an_unknown_zone_is_a_warning_of_the_remap() {
        let input = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:1\r\n\
DTSTART;TZID=Customized Time Zone:20240105T100000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
        let (text, warnings) = remap_with(REPAIR, input);
        assert_eq!(text, input);
        assert!(
            warnings
                .iter()
                .any(|w| w.message.contains("Customized Time Zone")),
            "{warnings:?}"
        );
    }
}

#[test]
fn a_vtimezone_tzid_is_text_and_matches_once_unescaped() {
    // ical4j's sample: the VTIMEZONE says `Kuala Lumpur\, Singapore`, events say it quoted.
    let input = "BEGIN:VCALENDAR\r\nBEGIN:VTIMEZONE\r\nTZID:Kuala Lumpur\\, Singapore\r\n\
BEGIN:STANDARD\r\nDTSTART:16010101T000000\r\nTZOFFSETFROM:+0800\r\nTZOFFSETTO:+0800\r\n\
END:STANDARD\r\nEND:VTIMEZONE\r\nBEGIN:VEVENT\r\nUID:1\r\n\
DTSTART;TZID=\"Kuala Lumpur, Singapore\":20081031T093000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
    let (text, out) = repair(input);
    assert!(out.added.is_empty(), "{text}");
    let d = doc(&text);
    assert_eq!(tzids(&d.components[0]), ["Asia/Singapore"]);
    assert_eq!(
        event_param(&d, "DTSTART").as_deref(),
        Some("Asia/Singapore")
    );
    let (through_remap, _) = through_remap::remap_with(through_remap::REPAIR, input);
    assert_eq!(
        tzids(&doc(&through_remap).components[0]),
        ["Asia/Singapore"]
    );
}

mod properties {
    use super::*;
    use crate::escape_text;
    use proptest::prelude::*;

    const ZONES: [&str; 8] = [
        "Europe/Berlin",
        "W. Europe Standard Time",
        "GMT Standard Time 2",
        "(UTC-05:00) Eastern Time (US & Canada)",
        "/mozilla.org/20050126_1/Asia/Tokyo",
        "Customized Time Zone",
        "Asia/Kolkata",
        "Tokyo Standard Time",
    ];

    /// A feed of events whose times name zones from `ZONES` (or none), some with VTIMEZONEs,
    /// with or without X-WR-TIMEZONE.
    fn feed() -> impl Strategy<Value = String> {
        let event = (
            proptest::option::of(0..ZONES.len()),
            1990u32..2030,
            any::<bool>(),
        );
        (
            proptest::collection::vec(event, 1..6),
            proptest::collection::vec(0..ZONES.len(), 0..3),
            proptest::option::of(0..ZONES.len()),
        )
            .prop_map(|(events, defined, wr)| {
                let mut f = String::from("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n");
                if let Some(z) = wr {
                    f.push_str(&format!("X-WR-TIMEZONE:{}\r\n", ZONES[z]));
                }
                for z in defined {
                    f.push_str(&format!(
                        "BEGIN:VTIMEZONE\r\nTZID:{}\r\nBEGIN:STANDARD\r\nDTSTART:16010101T000000\r\n\
TZOFFSETFROM:+0100\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n",
                        escape_text(ZONES[z])
                    ));
                }
                for (i, (zone, year, exdate)) in events.into_iter().enumerate() {
                    let params = zone.map_or(String::new(), |z| format!(";TZID=\"{}\"", ZONES[z]));
                    f.push_str(&format!(
                        "BEGIN:VEVENT\r\nUID:{i}\r\nDTSTART{params}:{year}0105T100000\r\n"
                    ));
                    if exdate {
                        f.push_str(&format!("EXDATE{params}:{year}0112T100000\r\n"));
                    }
                    f.push_str("END:VEVENT\r\n");
                }
                f.push_str("END:VCALENDAR\r\n");
                f
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn repaired_feeds_define_their_zones_and_a_second_repair_changes_nothing(input in feed()) {
            let (text, out) = repair(&input);
            let d = doc(&text);
            prop_assert_eq!(d.event_count(), input.matches("BEGIN:VEVENT").count());
            let defined = tzids(&d.components[0]);
            for ev in d.events() {
                for p in ev.component().properties() {
                    if let Some(tzid) = p.param("TZID") {
                        let warned = out.warnings.iter().any(|w| w.message.contains(&tzid));
                        prop_assert!(defined.contains(&tzid) || warned, "{} in {}", tzid, text);
                    }
                }
            }
            let (again, second) = repair(&text);
            prop_assert_eq!(&again, &text);
            prop_assert_eq!((second.renamed, second.added.len(), second.floating_fixed), (0, 0, 0));
        }
    }
}
