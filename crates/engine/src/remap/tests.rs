use std::io;
use std::time::Duration;

use super::dates::date_value;
use super::*;
use crate::ics::ParseError;
use crate::interrupt::{Interrupt, Interrupted};

const FEED: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nX-WR-CALNAME:Old\r\n\
BEGIN:VTIMEZONE\r\nTZID:Europe/Paris\r\nEND:VTIMEZONE\r\n\
BEGIN:VEVENT\r\nUID:1\r\nDTSTAMP:20240101T000000Z\r\nSUMMARY:Tea\r\nLOCATION:Kitchen\\, home\r\n\
DTSTART;TZID=Europe/Paris:20240105T100000\r\nDTEND;TZID=Europe/Paris:20240105T110000\r\n\
DESCRIPTION:Line one\\nLine two\r\nX-ALT-DESC;FMTTYPE=text/html:<p>x</p>\r\nSEQUENCE:2\r\n\
BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:alarm\r\nEND:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

fn run(mapping: &Mapping, options: &RemapOptions, input: &str) -> String {
    let compiled = CompiledConfig::from(CompiledMapping::compile(mapping).expect("compiles"));
    let out = remap(input.as_bytes(), &compiled, options, &Limits::default()).expect("remaps");
    String::from_utf8(out.bytes).expect("utf-8")
}

fn with(field: MappedField, template: &str) -> Mapping {
    let mut m = Mapping::default();
    m.set(field, template);
    m
}

#[test]
fn default_mapping_copies_a_clean_feed_byte_for_byte() {
    assert_eq!(
        run(&Mapping::default(), &RemapOptions::default(), FEED),
        FEED
    );
}

#[test]
fn default_mapping_normalises_endings_and_folding_only() {
    let input = "BEGIN:VCALENDAR\nBEGIN:VEVENT\nSUMMARY:a\n b\nEND:VEVENT\nEND:VCALENDAR";
    let out = run(&Mapping::default(), &RemapOptions::default(), input);
    assert_eq!(
        out,
        "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:ab\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    );
}

#[test]
fn only_the_mapped_property_changes() {
    let out = run(
        &with(MappedField::Summary, "${SUMMARY} @ ${LOCATION}"),
        &RemapOptions::default(),
        FEED,
    );
    let expected = FEED.replace("SUMMARY:Tea\r\n", "SUMMARY:Tea @ Kitchen\\, home\r\n");
    assert_eq!(out, expected);
}

#[test]
fn text_values_are_escaped() {
    let out = run(
        &with(MappedField::Location, "a;b,c\\d ${DESCRIPTION}"),
        &RemapOptions::default(),
        FEED,
    );
    assert!(
        out.contains("LOCATION:a\\;b\\,c\\\\d Line one\\nLine two\r\n"),
        "{out}"
    );
}

#[test]
fn non_default_description_drops_x_alt_desc() {
    let out = run(
        &with(MappedField::Description, "${DESCRIPTION}!"),
        &RemapOptions::default(),
        FEED,
    );
    assert!(!out.contains("X-ALT-DESC"));
    assert!(out.contains("DESCRIPTION:Line one\\nLine two!\r\n"));
    assert!(
        out.contains("DESCRIPTION:alarm\r\n"),
        "the VALARM keeps its own DESCRIPTION"
    );
    let kept = run(
        &with(MappedField::Summary, "x"),
        &RemapOptions::default(),
        FEED,
    );
    assert!(kept.contains("X-ALT-DESC"));
}

#[test]
fn rendering_the_same_value_keeps_the_original_line() {
    let out = run(
        &with(MappedField::Summary, " ${SUMMARY|re:s/zzz/y/} "),
        &RemapOptions::default(),
        FEED,
    );
    assert_eq!(out, FEED);
}

#[test]
fn empty_render_writes_an_empty_property_if_it_existed_and_adds_nothing_otherwise() {
    let out = run(
        &with(MappedField::Location, "${NOPE}"),
        &RemapOptions::default(),
        FEED,
    );
    assert!(out.contains("\r\nLOCATION:\r\n"));
    let input = FEED.replace("LOCATION:Kitchen\\, home\r\n", "");
    let out = run(
        &with(MappedField::Location, "${NOPE}"),
        &RemapOptions::default(),
        &input,
    );
    assert!(!out.contains("LOCATION"));
}

#[test]
fn missing_mapped_property_is_added_before_sub_components() {
    let input = FEED.replace("LOCATION:Kitchen\\, home\r\n", "");
    let out = run(
        &with(MappedField::Location, "${SUMMARY} room"),
        &RemapOptions::default(),
        &input,
    );
    assert!(
        out.contains("SEQUENCE:2\r\nLOCATION:Tea room\r\nBEGIN:VALARM"),
        "{out}"
    );
}

#[test]
fn dtstart_takes_a_valid_date_time_and_keeps_its_parameters() {
    let out = run(
        &with(MappedField::Dtstart, "${DTSTART|re:s/T10/T09/}"),
        &RemapOptions::default(),
        FEED,
    );
    assert!(
        out.contains("DTSTART;TZID=Europe/Paris:20240105T090000\r\n"),
        "{out}"
    );
}

#[test]
fn dtstart_in_utc_drops_tzid() {
    let out = run(
        &with(MappedField::Dtstart, "20240105T090000Z"),
        &RemapOptions::default(),
        FEED,
    );
    assert!(out.contains("DTSTART:20240105T090000Z\r\n"), "{out}");
}

#[test]
fn a_date_sets_value_date_and_drops_tzid() {
    // RFC 5545 §3.2.19: TZID is only for a local DATE-TIME.
    let out = run(
        &with(MappedField::Dtend, "${DTEND|re:s/T.*//}"),
        &RemapOptions::default(),
        FEED,
    );
    assert!(out.contains("DTEND;VALUE=DATE:20240105\r\n"), "{out}");
    let out = run(
        &with(MappedField::Dtstart, "${DTSTART|re:s/T\\d{6}//}"),
        &RemapOptions::default(),
        FEED,
    );
    assert!(out.contains("DTSTART;VALUE=DATE:20240105\r\n"), "{out}");
    assert!(!out.contains("DTSTART;TZID"), "{out}");
}

#[test]
fn a_date_time_from_an_all_day_date_drops_value_date_and_keeps_other_parameters() {
    let input = FEED.replace(
        "DTSTART;TZID=Europe/Paris:20240105T100000",
        "DTSTART;VALUE=DATE;X-P=1:20240105",
    );
    let out = run(
        &with(MappedField::Dtstart, "${DTSTART}T080000"),
        &RemapOptions::default(),
        &input,
    );
    assert!(out.contains("DTSTART;X-P=1:20240105T080000\r\n"), "{out}");
}

#[test]
fn a_dtend_template_replaces_duration() {
    let input = FEED.replace(
        "DTEND;TZID=Europe/Paris:20240105T110000\r\n",
        "DURATION:PT1H\r\n",
    );
    let out = run(
        &with(MappedField::Dtend, "20240105T120000"),
        &RemapOptions::default(),
        &input,
    );
    assert!(!out.contains("DURATION"), "{out}");
    // The added DTEND takes DTSTART's zone rather than floating beside it.
    assert!(
        out.contains("DTEND;TZID=Europe/Paris:20240105T120000\r\nBEGIN:VALARM"),
        "{out}"
    );
    let (doc, _) = ics::parse(out.as_bytes(), &Limits::default()).expect("parses");
    let ev = doc.event(0).expect("event");
    assert_eq!(
        ev.component()
            .properties()
            .filter(|p| p.name == "DTEND")
            .count(),
        1
    );
    // A DTEND template that leaves the event without a DTEND keeps DURATION.
    let out = run(
        &with(MappedField::Dtend, "${DTEND}"),
        &RemapOptions::default(),
        &input,
    );
    assert!(out.contains("DURATION:PT1H\r\n"), "{out}");
    let out = run(
        &with(MappedField::Dtend, "nonsense"),
        &RemapOptions::default(),
        &input,
    );
    assert!(out.contains("DURATION:PT1H\r\n"), "{out}");
}

#[test]
fn x_alt_desc_stays_when_the_description_template_renders_the_original() {
    // A regex that matches nothing leaves DESCRIPTION as it was: its HTML twin stays.
    let out = run(
        &with(MappedField::Description, "${DESCRIPTION|re:s/nomatch/x/}"),
        &RemapOptions::default(),
        FEED,
    );
    assert_eq!(out, FEED);
    let out = run(
        &with(MappedField::Description, "${DESCRIPTION|re:s/one/1/}"),
        &RemapOptions::default(),
        FEED,
    );
    assert!(!out.contains("X-ALT-DESC"), "{out}");
}

#[test]
fn a_windows_1252_feed_comes_out_as_utf8_with_its_accents() {
    let input = b"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:Caf\xE9 \x96 M\xFCller\r\n\
END:VEVENT\r\nEND:VCALENDAR\r\n";
    let out = remap(
        input,
        &CompiledConfig::default(),
        &RemapOptions::default(),
        &Limits::default(),
    )
    .expect("remaps");
    let text = String::from_utf8(out.bytes).expect("utf-8");
    assert!(text.contains("SUMMARY:Café – Müller\r\n"), "{text}");
    assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
    let compiled = CompiledConfig::from(
        CompiledMapping::compile(&with(MappedField::Summary, "${SUMMARY}!")).expect("compiles"),
    );
    let out = remap(
        input,
        &compiled,
        &RemapOptions::default(),
        &Limits::default(),
    )
    .expect("ok");
    let text = String::from_utf8(out.bytes).expect("utf-8");
    assert!(text.contains("SUMMARY:Café – Müller!\r\n"), "{text}");
}

#[test]
fn fuzz_regression_begin_with_70_tabs_round_trips() {
    // `BEGIN`, 70 tabs, `:n`, no line ending: the writer folds after the tabs, and the folded
    // line must read back as the same BEGIN (parse -> remap -> parse gives the same tree).
    let mut input = b"BEGIN".to_vec();
    input.extend_from_slice(&[b'\t'; 70]);
    input.extend_from_slice(b":n");
    assert_default_round_trip(&input);
    // The same with blanks before the `;` of a parameter and around other names.
    let mut input = b"BEGIN:VCALENDAR\r\nX-NAME".to_vec();
    input.extend_from_slice(&[b' '; 80]);
    input.extend_from_slice(b";P=1:v\r\nEND");
    input.extend_from_slice(&[b'\t'; 75]);
    input.extend_from_slice(b":VCALENDAR\r\n");
    assert_default_round_trip(&input);
}

fn assert_default_round_trip(input: &[u8]) {
    let limits = Limits::default();
    let (before, _) = ics::parse(input, &limits).expect("parses");
    let out = remap(
        input,
        &CompiledConfig::default(),
        &RemapOptions::default(),
        &limits,
    )
    .expect("remaps");
    for line in out.bytes.split_inclusive(|&b| b == b'\n') {
        assert!(line.ends_with(b"\r\n") && line.len() <= 77, "{line:?}");
    }
    let (after, _) = ics::parse(&out.bytes, &limits).expect("output parses");
    assert_eq!(
        after.without_line_numbers(),
        before.without_line_numbers(),
        "{:?}",
        String::from_utf8_lossy(&out.bytes)
    );
}

#[test]
fn invalid_date_keeps_the_original_with_a_warning() {
    let compiled = CompiledConfig::from(
        CompiledMapping::compile(&with(MappedField::Dtstart, "tomorrow")).expect("ok"),
    );
    let out = remap(
        FEED.as_bytes(),
        &compiled,
        &RemapOptions::default(),
        &Limits::default(),
    )
    .expect("ok");
    assert_eq!(String::from_utf8(out.bytes).expect("utf-8"), FEED);
    assert!(
        out.warnings.iter().any(|w| w.message.contains("DTSTART")),
        "{:?}",
        out.warnings
    );
    assert_eq!(out.changed_events, 0);
}

#[test]
fn date_validation_accepts_dates_and_date_times_only() {
    assert!(date_value("20240229").is_some());
    assert!(date_value("20240101T235960Z").is_some());
    assert!(date_value("20241301").is_none());
    assert!(date_value("20240101T250000").is_none());
    assert!(date_value("2024-01-01").is_none());
    assert!(date_value("").is_none());
}

#[test]
fn calendar_name_sets_x_wr_calname_and_name() {
    let options = RemapOptions {
        calendar_name: Some("My, cal".to_owned()),
        ..RemapOptions::default()
    };
    let out = run(&Mapping::default(), &options, FEED);
    assert!(out.contains("X-WR-CALNAME:My\\, cal\r\n"));
    assert!(!out.contains("X-WR-CALNAME:Old"));
    assert!(out.contains("NAME:My\\, cal\r\nBEGIN:VTIMEZONE"), "{out}");
}

#[test]
fn refresh_interval_sets_refresh_interval_and_published_ttl() {
    let options = RemapOptions {
        refresh_interval: Some(Duration::from_secs(900)),
        ..RemapOptions::default()
    };
    let out = run(&Mapping::default(), &options, FEED);
    assert!(out.contains("REFRESH-INTERVAL;VALUE=DURATION:PT15M\r\nX-PUBLISHED-TTL:PT15M\r\n"));
    assert_eq!(
        format_duration(Duration::from_secs(36 * 3600 + 5)),
        "P1DT12H5S"
    );
    assert_eq!(format_duration(Duration::from_secs(86_400)), "P1D");
}

#[test]
fn sequence_offset_applies_only_to_changed_events() {
    let options = RemapOptions {
        sequence_offset: 3,
        ..RemapOptions::default()
    };
    let out = run(&with(MappedField::Summary, "New"), &options, FEED);
    assert!(out.contains("SEQUENCE:5\r\n"), "{out}");
    let same = run(&with(MappedField::Summary, "Tea"), &options, FEED);
    assert!(same.contains("SEQUENCE:2\r\n"));
    let input = FEED.replace("SEQUENCE:2\r\n", "");
    let added = run(&with(MappedField::Summary, "New"), &options, &input);
    assert!(added.contains("SEQUENCE:3\r\nBEGIN:VALARM"), "{added}");
}

#[test]
fn dtstamp_is_never_touched() {
    let out = run(
        &with(MappedField::Summary, "${DTSTAMP}"),
        &RemapOptions::default(),
        FEED,
    );
    assert!(out.contains("DTSTAMP:20240101T000000Z\r\n"));
    assert!(out.contains("SUMMARY:20240101T000000Z\r\n"));
}

#[test]
fn long_values_fold_at_75_octets_without_splitting_characters_or_escapes() {
    let value = "é,".repeat(60);
    let out = run(
        &with(MappedField::Summary, &value),
        &RemapOptions::default(),
        FEED,
    );
    for l in out.split("\r\n") {
        assert!(l.len() <= 75, "{l}");
        assert!(!l.ends_with('\\'), "escape split: {l}");
    }
    let (doc, _) = ics::parse(out.as_bytes(), &Limits::default()).expect("parses");
    assert_eq!(
        doc.event(0).and_then(|e| e.get("SUMMARY")).as_deref(),
        Some(value.as_str())
    );
}

#[test]
fn missing_end_lines_are_added_with_warnings() {
    let input =
        "BEGIN:VCALENDAR\nBEGIN:VEVENT\nSUMMARY:a\nBEGIN:VALARM\nACTION:DISPLAY\nEND:VEVENT\n";
    let compiled = CompiledConfig::from(
        CompiledMapping::compile(&with(MappedField::Summary, "b")).expect("ok"),
    );
    let out = remap(
        input.as_bytes(),
        &compiled,
        &RemapOptions::default(),
        &Limits::default(),
    )
    .expect("ok");
    let text = String::from_utf8(out.bytes).expect("utf-8");
    assert_eq!(
        text,
        "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:b\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nEND:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    );
    assert_eq!(out.warnings.len(), 2, "{:?}", out.warnings);
}

#[test]
fn junk_outside_components_is_dropped() {
    let input = "junk\r\nBEGIN:VCALENDAR\r\nEND:VCALENDAR\r\ntrailer\r\n";
    let out = run(&Mapping::default(), &RemapOptions::default(), input);
    assert_eq!(out, "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n");
}

#[test]
fn mapping_json_keeps_defaults_for_absent_keys_and_refuses_unknown_keys() {
    let m: Mapping = serde_json::from_str(r#"{"SUMMARY": "x"}"#).expect("parses");
    assert_eq!(m.summary, "x");
    assert_eq!(m.description, "${DESCRIPTION}");
    assert!(serde_json::from_str::<Mapping>(r#"{"TITLE": "x"}"#).is_err());
}

#[test]
fn compile_errors_name_the_field() {
    let err = CompiledMapping::compile(&with(MappedField::Location, "${LOCATION|re:s/(/x/}"))
        .expect_err("bad");
    assert_eq!(err.field, "LOCATION");
    assert_eq!(err.position, 16);
    let (compiled, errors) =
        CompiledMapping::compile_lenient(&with(MappedField::Location, "${LOCATION|re:s/(/x/}"));
    assert_eq!(errors.len(), 1);
    let mut fields = std::collections::HashMap::new();
    fields.insert("LOCATION".to_owned(), "here".to_owned());
    assert_eq!(compiled.render(MappedField::Location, &fields), "here");
}

#[test]
fn repeated_mapped_properties_collapse_into_one_when_changed() {
    let input = FEED.replace("SUMMARY:Tea\r\n", "SUMMARY:Tea\r\nSUMMARY:Cake\r\n");
    let out = run(
        &with(MappedField::Summary, "${SUMMARY}!"),
        &RemapOptions::default(),
        &input,
    );
    assert!(out.contains("SUMMARY:Tea\\, Cake!\r\n"), "{out}");
    assert_eq!(out.matches("SUMMARY").count(), 1);
}

#[test]
fn bare_vevent_without_vcalendar_is_an_event() {
    let input = "BEGIN:VEVENT\nSUMMARY:a\nEND:VEVENT";
    let out = run(
        &with(MappedField::Summary, "b"),
        &RemapOptions::default(),
        input,
    );
    assert_eq!(out, "BEGIN:VEVENT\r\nSUMMARY:b\r\nEND:VEVENT\r\n");
}

#[test]
fn not_icalendar_input_is_an_error() {
    let compiled = CompiledConfig::default();
    let err = remap(
        b"<html></html>",
        &compiled,
        &RemapOptions::default(),
        &Limits::default(),
    )
    .expect_err("refused");
    assert!(
        matches!(err, RemapError::Parse(ParseError::NotICalendar)),
        "{err:?}"
    );
}

#[test]
fn output_past_the_limit_stops_the_remap_and_names_the_field_that_grew_it() {
    let mapping = Mapping {
        description: "${DESCRIPTION}".repeat(200),
        ..Mapping::default()
    };
    let compiled = CompiledConfig::from(CompiledMapping::compile(&mapping).expect("compiles"));
    let limit = 4096;
    let options = RemapOptions {
        max_output_bytes: Some(limit),
        ..RemapOptions::default()
    };
    let err =
        remap(FEED.as_bytes(), &compiled, &options, &Limits::default()).expect_err("too large");
    match err {
        RemapError::TooLarge {
            limit: l, field, ..
        } => {
            assert_eq!(l, limit);
            assert_eq!(field, "DESCRIPTION");
        }
        other => panic!("{other:?}"),
    }
    // The same mapping fits a generous bound, and the default mapping fits a tight one.
    let roomy = RemapOptions {
        max_output_bytes: Some(output_limit(FEED.len())),
        ..RemapOptions::default()
    };
    assert!(remap(FEED.as_bytes(), &compiled, &roomy, &Limits::default()).is_ok());
    let tight = RemapOptions {
        max_output_bytes: Some(FEED.len() + 16),
        ..RemapOptions::default()
    };
    let same = remap(
        FEED.as_bytes(),
        &CompiledConfig::default(),
        &tight,
        &Limits::default(),
    )
    .expect("fits");
    assert_eq!(same.bytes, FEED.as_bytes());
}

#[test]
fn the_output_limit_is_four_times_the_input_plus_a_mebibyte_capped_absolutely() {
    assert_eq!(output_limit(0), 1 << 20);
    assert_eq!(output_limit(1000), 4000 + (1 << 20));
    assert_eq!(output_limit(100 << 20), MAX_OUTPUT_BYTES);
}

fn filtering() -> CompiledConfig {
    let config: crate::CalendarConfig = serde_json::from_str(
        r#"{"mapping": {"SUMMARY": "${SUMMARY|re:s/T/t/g}"}, "filters": [{"action": "exclude", "field": "SUMMARY", "pattern": "^Canceled"}]}"#,
    )
    .expect("config");
    CompiledConfig::compile(&config).expect("compiles")
}

fn stopped() -> Interrupt {
    let interrupt = Interrupt::new();
    interrupt.stop();
    interrupt
}

#[test]
fn a_stopped_interrupt_refuses_the_remap_before_writing_anything() {
    let options = RemapOptions {
        interrupt: Some(stopped()),
        ..RemapOptions::default()
    };
    for config in [CompiledConfig::default(), filtering()] {
        let mut out = Vec::new();
        let err = remap_into(
            FEED.as_bytes(),
            &config,
            &options,
            &Limits::default(),
            &mut out,
        )
        .expect_err("interrupted");
        assert!(matches!(err, RemapError::Interrupted), "{err:?}");
        assert!(out.is_empty(), "{}", String::from_utf8_lossy(&out));
    }
}

#[test]
fn an_interrupt_that_is_never_stopped_changes_nothing() {
    let options = RemapOptions {
        interrupt: Some(Interrupt::new()),
        ..RemapOptions::default()
    };
    let mapping = with(MappedField::Summary, "${SUMMARY|re:s/e/E/g} @ ${LOCATION}");
    assert_eq!(
        run(&mapping, &options, FEED),
        run(&mapping, &RemapOptions::default(), FEED)
    );
    let config = filtering();
    let limits = Limits::default();
    let with_flag = remap(FEED.as_bytes(), &config, &options, &limits).expect("remaps");
    let without =
        remap(FEED.as_bytes(), &config, &RemapOptions::default(), &limits).expect("remaps");
    assert_eq!(with_flag, without);
}

/// An output that stops the interrupt the first time the remap writes to it.
struct StopOnWrite {
    bytes: Vec<u8>,
    interrupt: Interrupt,
}

impl Write for StopOnWrite {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.interrupt.stop();
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_stop_during_the_walk_ends_it_at_the_next_component() {
    let two = FEED.replace(
        "END:VCALENDAR\r\n",
        "BEGIN:VEVENT\r\nUID:2\r\nSUMMARY:Second\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
    );
    let interrupt = Interrupt::new();
    let options = RemapOptions {
        interrupt: Some(interrupt.clone()),
        ..RemapOptions::default()
    };
    // No token in the template: only the check at each component can see the stop.
    let config = CompiledConfig::from(
        CompiledMapping::compile(&with(MappedField::Summary, "New")).expect("compiles"),
    );
    let mut out = StopOnWrite {
        bytes: Vec::new(),
        interrupt,
    };
    let err = remap_into(
        two.as_bytes(),
        &config,
        &options,
        &Limits::default(),
        &mut out,
    )
    .expect_err("interrupted");
    assert!(matches!(err, RemapError::Interrupted), "{err:?}");
    // The first event was being written when the stop came; the second was never read.
    let text = String::from_utf8(out.bytes).expect("utf-8");
    assert!(text.contains("SUMMARY:New\r\n"), "{text}");
    assert!(!text.contains("UID:2"), "{text}");
}

#[test]
fn decide_honours_the_interrupt_and_agrees_without_one() {
    let config = filtering();
    let input = FEED.replace("SUMMARY:Tea", "SUMMARY:Canceled tea");
    let limits = Limits::default();
    let stop = RemapOptions {
        interrupt: Some(stopped()),
        ..RemapOptions::default()
    };
    let err = decide(input.as_bytes(), &config, &stop, &limits).expect_err("interrupted");
    assert!(matches!(err, RemapError::Interrupted), "{err:?}");
    let go_on = RemapOptions {
        interrupt: Some(Interrupt::new()),
        ..RemapOptions::default()
    };
    let decisions = decide(input.as_bytes(), &config, &go_on, &limits).expect("decides");
    assert_eq!(
        decisions,
        decide(input.as_bytes(), &config, &RemapOptions::default(), &limits).expect("decides")
    );
    assert_eq!(decisions.len(), 1);
    assert!(!decisions[0].kept);
}

#[test]
fn render_all_checked_stops_on_a_stopped_interrupt_and_else_matches_render_all() {
    let mapping = CompiledMapping::compile(&with(MappedField::Summary, "${SUMMARY|re:s/a/A/g}"))
        .expect("compiles");
    let event: std::collections::BTreeMap<String, String> =
        [("SUMMARY".to_owned(), "banana".to_owned())].into();
    assert_eq!(
        mapping.render_all_checked(&event, &stopped()),
        Err(Interrupted)
    );
    let all = mapping
        .render_all_checked(&event, &Interrupt::new())
        .expect("renders");
    assert_eq!(all, mapping.render_all(&event));
    assert_eq!(all[0], (MappedField::Summary, "bAnAnA".to_owned()));
}
