//! The calendar options end to end through the public engine API: every filter kind, the window,
//! privacy, alarms, series that share a fate, time zones that go with the events that used them,
//! and `decide` agreeing with what the remap writes.

use hearth_engine::{
    check, decide, parse, remap, CalendarConfig, CompiledConfig, Decision, Limits, RemapOptions,
};

const FEED: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n\
BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\nBEGIN:STANDARD\r\nDTSTART:19701025T030000\r\n\
TZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n\
BEGIN:VTIMEZONE\r\nTZID:America/New_York\r\nBEGIN:STANDARD\r\nDTSTART:19701101T020000\r\n\
TZOFFSETFROM:-0400\r\nTZOFFSETTO:-0500\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n\
BEGIN:VEVENT\r\nUID:a\r\nDTSTAMP:20240101T000000Z\r\nSUMMARY:Canceled: standup\r\n\
DTSTART;TZID=Europe/Berlin:20240108T090000\r\nDTEND;TZID=Europe/Berlin:20240108T091500\r\n\
DESCRIPTION:daily\r\nATTENDEE;CN=Ann:mailto:ann@example.com\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:b\r\nDTSTAMP:20240101T000000Z\r\nSUMMARY:Holiday\r\n\
DTSTART;VALUE=DATE:20240106\r\nDTEND;VALUE=DATE:20240108\r\nLOCATION:Beach\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:c\r\nDTSTAMP:20240101T000000Z\r\nSUMMARY:Weekly\r\n\
DTSTART:20240105T100000Z\r\nDURATION:PT1H\r\nRRULE:FREQ=WEEKLY;COUNT=10\r\n\
ORGANIZER:mailto:boss@example.com\r\nX-ALT-DESC;FMTTYPE=text/html:<b>x</b>\r\n\
BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Weekly soon\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\n\
END:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:c\r\nDTSTAMP:20240101T000000Z\r\nRECURRENCE-ID:20240112T100000Z\r\n\
SUMMARY:Moved\r\nDTSTART:20240112T140000Z\r\nDURATION:PT1H\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:d\r\nDTSTAMP:20240101T000000Z\r\nSUMMARY:Call\r\nSTATUS:CANCELLED\r\n\
DTSTART;TZID=America/New_York:20240110T180000\r\n\
DTEND;TZID=America/New_York:20240110T200000\r\nEND:VEVENT\r\n\
BEGIN:VTODO\r\nUID:t\r\nSUMMARY:Chore\r\nEND:VTODO\r\n\
END:VCALENDAR\r\n";

fn config(json: &str) -> CompiledConfig {
    let config: CalendarConfig = serde_json::from_str(json).expect("config reads");
    CompiledConfig::compile(&config).expect("config compiles")
}

fn run_at(json: &str, now: Option<i64>) -> String {
    let out = remap(
        FEED.as_bytes(),
        &config(json),
        &RemapOptions {
            now,
            ..RemapOptions::default()
        },
        &Limits::default(),
    )
    .expect("remaps");
    let text = String::from_utf8(out.bytes).expect("utf-8");
    let (doc, warnings) = parse(text.as_bytes(), &Limits::default()).expect("output parses");
    assert!(warnings.is_empty(), "{warnings:?}\n{text}");
    assert_eq!(doc.event_count(), out.kept_events, "{text}");
    assert_eq!(out.event_count, 5);
    text
}

fn run(json: &str) -> String {
    run_at(json, None)
}

/// The UIDs (with RECURRENCE-ID for overrides) of the events written, in order.
fn kept(text: &str) -> Vec<String> {
    let (doc, _) = parse(text.as_bytes(), &Limits::default()).expect("parses");
    doc.events()
        .map(|e| {
            let uid = e.get("UID").unwrap_or_default().into_owned();
            match e
                .component()
                .properties()
                .find(|p| p.name == "RECURRENCE-ID")
            {
                Some(r) => format!("{uid}@{}", r.value),
                None => uid,
            }
        })
        .collect()
}

fn decisions(json: &str, now: Option<i64>) -> Vec<Decision> {
    let options = RemapOptions {
        now,
        ..RemapOptions::default()
    };
    decide(FEED.as_bytes(), &config(json), &options, &Limits::default()).expect("decides")
}

const ALL: [&str; 5] = ["a", "b", "c", "c@20240112T100000Z", "d"];

#[test]
fn an_exclude_pattern_drops_what_matches_and_names_the_rule() {
    let json = r#"{"mapping": {}, "filters": [
        {"action": "exclude", "field": "SUMMARY", "pattern": "^canceled:", "flags": "i"}]}"#;
    assert_eq!(kept(&run(json)), ["b", "c", "c@20240112T100000Z", "d"]);
    let d = decisions(json, None);
    assert_eq!(
        d[0],
        Decision {
            kept: false,
            reason: Some("filter 1 (exclude SUMMARY ~ /^canceled:/i)".into()),
            dropped_occurrences: 0,
            kept_whole: None,
        }
    );
    assert!(d[1..].iter().all(|d| d.kept && d.reason.is_none()));
}

#[test]
fn an_include_pattern_keeps_only_what_matches_and_an_absent_property_is_empty() {
    let json = r#"{"mapping": {}, "filters": [
        {"action": "include", "field": "LOCATION", "pattern": "^$"}]}"#;
    // Only b has a LOCATION; the override follows its master.
    assert_eq!(kept(&run(json)), ["a", "c", "c@20240112T100000Z", "d"]);
}

#[test]
fn all_day_and_timed_filters_read_the_value_type_of_dtstart() {
    let all_day = r#"{"mapping": {}, "filters": [{"action": "include", "allDay": true}]}"#;
    assert_eq!(kept(&run(all_day)), ["b"]);
    let timed = r#"{"mapping": {}, "filters": [{"action": "exclude", "allDay": false}]}"#;
    assert_eq!(kept(&run(timed)), ["b"]);
}

#[test]
fn weekday_filters_read_the_date_as_written() {
    // a is Monday 8 Jan, b Saturday 6 Jan, c Friday 5 Jan, d Wednesday 10 Jan.
    let json = r#"{"mapping": {}, "filters": [{"action": "exclude", "weekdays": ["SA", "su"]}]}"#;
    assert_eq!(kept(&run(json)), ["a", "c", "c@20240112T100000Z", "d"]);
    let json = r#"{"mapping": {}, "filters": [{"action": "include", "weekdays": ["MO", "WE"]}]}"#;
    assert_eq!(kept(&run(json)), ["a", "d"]);
}

#[test]
fn a_weekday_rule_is_named_by_the_days_in_words_never_their_codes() {
    let reason = |days: &str| {
        let json = format!(
            r#"{{"mapping": {{}}, "filters": [{{"action": "exclude", "weekdays": [{days}]}}]}}"#
        );
        decisions(&json, None)
            .into_iter()
            .find_map(|d| d.reason)
            .unwrap_or_default()
    };
    assert_eq!(
        reason(r#""SU", "SA""#),
        "filter 1 (exclude on Saturday, Sunday)"
    );
    assert_eq!(
        reason(r#""MO", "TU", "WE", "TH", "FR""#),
        "filter 1 (exclude on Monday to Friday)"
    );
    assert_eq!(
        reason(r#""MO", "WE", "FR", "SA", "SU""#),
        "filter 1 (exclude on Monday, Wednesday, Friday to Sunday)"
    );
}

#[test]
fn time_of_day_filters_see_local_start_times_and_never_all_day_events() {
    let json = r#"{"mapping": {}, "filters": [
        {"action": "include", "timeOfDay": {"from": "09:00", "to": "17:30"}}]}"#;
    // a starts 09:00 Berlin, c 10:00 UTC; d at 18:00 and b (all-day) are outside.
    assert_eq!(kept(&run(json)), ["a", "c", "c@20240112T100000Z"]);
    let night = r#"{"mapping": {}, "filters": [
        {"action": "include", "timeOfDay": {"from": "17:00", "to": "09:30"}}]}"#;
    assert_eq!(kept(&run(night)), ["a", "d"]);
}

#[test]
fn duration_filters_count_dtend_duration_and_whole_days() {
    let short = r#"{"mapping": {}, "filters": [
        {"action": "include", "duration": {"maxMinutes": 60}}]}"#;
    assert_eq!(kept(&run(short)), ["a", "c", "c@20240112T100000Z"]);
    let long = r#"{"mapping": {}, "filters": [
        {"action": "include", "duration": {"minMinutes": 2880}}]}"#;
    assert_eq!(kept(&run(long)), ["b"]);
}

#[test]
fn a_status_filter_drops_cancelled_events_and_the_zone_only_they_used() {
    let json = r#"{"mapping": {}, "filters": [{"action": "exclude", "status": "cancelled"}]}"#;
    let out = run(json);
    assert_eq!(kept(&out), ["a", "b", "c", "c@20240112T100000Z"]);
    assert!(out.contains("TZID:Europe/Berlin"));
    assert!(!out.contains("America/New_York"), "{out}");
}

#[test]
fn time_zones_stay_when_nothing_is_dropped() {
    let json = r#"{"mapping": {}, "filters": [{"action": "exclude", "status": "TENTATIVE"}]}"#;
    let out = run(json);
    assert_eq!(out, FEED, "a filter that drops nothing changes nothing");
}

#[test]
fn a_uid_filter_drops_the_master_with_its_overrides() {
    let json = r#"{"mapping": {}, "filters": [{"action": "exclude", "uid": "c"}]}"#;
    assert_eq!(kept(&run(json)), ["a", "b", "d"]);
    let d = decisions(json, None);
    assert_eq!(d[3].reason.as_deref(), Some("filter 1 (exclude UID c)"));
}

#[test]
fn a_uid_and_recurrence_id_filter_drops_one_occurrence_with_an_exdate() {
    let json = r#"{"mapping": {}, "filters": [
        {"action": "exclude", "uid": "c", "recurrenceId": "20240112T100000Z"}]}"#;
    let out = run(json);
    assert_eq!(kept(&out), ["a", "b", "c", "d"]);
    let (doc, _) = parse(out.as_bytes(), &Limits::default()).expect("parses");
    let master = doc.event(2).expect("master");
    assert_eq!(master.get("EXDATE").as_deref(), Some("20240112T100000Z"));
    // An occurrence the feed has no override for disappears the same way.
    let json = r#"{"mapping": {}, "filters": [
        {"action": "exclude", "uid": "c", "recurrenceId": "20240119T100000Z"}]}"#;
    let out = run(json);
    assert_eq!(kept(&out), ALL);
    assert!(out.contains("EXDATE:20240119T100000Z\r\n"), "{out}");
}

#[test]
fn an_override_shares_its_masters_fate_whatever_its_own_properties() {
    let json = r#"{"mapping": {}, "filters": [
        {"action": "exclude", "field": "SUMMARY", "pattern": "Moved"}]}"#;
    assert_eq!(kept(&run(json)), ALL);
    let json = r#"{"mapping": {}, "filters": [
        {"action": "exclude", "field": "SUMMARY", "pattern": "Weekly"}]}"#;
    assert_eq!(kept(&run(json)), ["a", "b", "d"]);
    let d = decisions(json, None);
    assert_eq!(d[2], d[3]);
}

#[test]
fn todos_pass_through_unless_a_component_rule_names_them() {
    let json = r#"{"mapping": {}, "filters": [{"action": "exclude", "status": "CANCELLED"}]}"#;
    assert!(run(json).contains("BEGIN:VTODO"));
    let json = r#"{"mapping": {}, "filters": [{"action": "exclude", "component": "VTODO"}]}"#;
    let out = run(json);
    assert!(!out.contains("VTODO"), "{out}");
    assert_eq!(kept(&out), ALL);
}

#[test]
fn the_window_keeps_what_overlaps_it_and_series_that_can_reach_it() {
    let json = r#"{"mapping": {}, "window": {"pastDays": 1, "futureDays": 1}}"#;
    // 2024-01-20T12:00Z: only the weekly series (ten Fridays from 5 Jan) can still reach it.
    let now = 1_705_752_000;
    assert_eq!(kept(&run_at(json, Some(now))), ["c", "c@20240112T100000Z"]);
    let d = decisions(json, Some(now));
    assert_eq!(d[0].reason.as_deref(), Some("window"));
    // Long after the tenth occurrence the series goes too.
    let later = now + 400 * 86_400;
    assert!(kept(&run_at(json, Some(later))).is_empty());
    // Without a time nothing is dropped.
    assert_eq!(kept(&run_at(json, None)), ALL);
}

#[test]
fn privacy_busy_keeps_only_times_and_says_busy() {
    let out = run(r#"{"mapping": {"SUMMARY": "${SUMMARY} in ${LOCATION}"}, "privacy": "busy"}"#);
    let (doc, _) = parse(out.as_bytes(), &Limits::default()).expect("parses");
    for ev in doc.events() {
        assert_eq!(ev.get("SUMMARY").as_deref(), Some("Busy"));
        for p in ev.component().properties() {
            assert!(
                !hearth_engine::BUSY_REMOVED.contains(&p.name.as_str()),
                "{} kept",
                p.name
            );
        }
        assert!(ev.get("DTSTART").is_some());
    }
    assert!(out.contains("RRULE:FREQ=WEEKLY;COUNT=10"));
    assert!(
        out.contains("DESCRIPTION:Busy"),
        "the kept alarm says Busy too"
    );
    assert!(!out.contains("Weekly soon"));
    assert!(!out.contains("Beach") && !out.contains("ann@example.com"));
}

#[test]
fn alarms_can_be_stripped_or_replaced_by_one_before_each_event() {
    let out = run(r#"{"mapping": {}, "alarms": "strip"}"#);
    assert!(!out.contains("VALARM"));
    let out = run(r#"{"mapping": {}, "alarms": {"addMinutesBefore": 15}}"#);
    assert_eq!(out.matches("BEGIN:VALARM").count(), 5, "{out}");
    assert_eq!(out.matches("TRIGGER:-PT15M").count(), 5);
    assert!(!out.contains("Weekly soon"));
    assert!(out.contains("DESCRIPTION:Canceled: standup\r\n"));
}

#[test]
fn decide_agrees_with_what_the_remap_writes() {
    let configs = [
        r#"{"mapping": {}, "filters": [{"action": "exclude", "weekdays": ["FR"]}]}"#,
        r#"{"mapping": {}, "filters": [{"action": "include", "duration": {"maxMinutes": 30}},
            {"action": "exclude", "uid": "b"}], "window": {"futureDays": 3}}"#,
    ];
    for json in configs {
        let d = decisions(json, Some(1_704_700_000));
        let out = run_at(json, Some(1_704_700_000));
        let expected: Vec<&str> = ALL
            .iter()
            .zip(&d)
            .filter(|(_, d)| d.kept)
            .map(|(u, _)| *u)
            .collect();
        assert_eq!(kept(&out), expected, "{json}");
        assert!(check(out.as_bytes(), &Limits::default()).is_ok());
    }
}

#[test]
fn a_default_config_and_a_mapping_alone_are_todays_remap() {
    let plain = remap(
        FEED.as_bytes(),
        &CompiledConfig::default(),
        &RemapOptions::default(),
        &Limits::default(),
    )
    .expect("remaps");
    assert_eq!(plain.bytes, FEED.as_bytes());
    assert_eq!(plain.kept_events, 5);
    assert!(config(r#"{"mapping": {}}"#).is_default());
    assert!(!config(r#"{"mapping": {}, "privacy": "busy"}"#).is_default());
}

#[test]
fn an_event_inside_a_dropped_todo_goes_with_it_and_the_counts_agree() {
    let feed = "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:t\r\nBEGIN:VEVENT\r\nUID:inner\r\n\
END:VEVENT\r\nEND:VTODO\r\nBEGIN:VEVENT\r\nUID:outer\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
    let config =
        config(r#"{"mapping": {}, "filters": [{"action": "exclude", "component": "VTODO"}]}"#);
    let limits = Limits::default();
    let d = decide(feed.as_bytes(), &config, &RemapOptions::default(), &limits).expect("decides");
    assert_eq!(d.iter().map(|d| d.kept).collect::<Vec<_>>(), [false, true]);
    assert_eq!(
        d[0].reason.as_deref(),
        Some("filter 1 (exclude component VTODO)")
    );
    let out = remap(feed.as_bytes(), &config, &RemapOptions::default(), &limits).expect("remaps");
    assert_eq!(out.kept_events, 1);
    assert_eq!(
        String::from_utf8(out.bytes).expect("utf-8"),
        "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:outer\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    );
}

#[test]
fn dropped_events_with_missing_end_lines_leave_well_formed_output() {
    let feed = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nSTATUS:CANCELLED\r\n\
BEGIN:VALARM\r\nACTION:DISPLAY\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:b\r\n";
    let config =
        config(r#"{"mapping": {}, "filters": [{"action": "exclude", "status": "CANCELLED"}]}"#);
    let out = remap(
        feed.as_bytes(),
        &config,
        &RemapOptions::default(),
        &Limits::default(),
    )
    .expect("remaps");
    assert_eq!(
        String::from_utf8(out.bytes).expect("utf-8"),
        "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:b\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    );
}

#[test]
fn the_window_keeps_an_rdate_in_it_and_judges_zoned_times_generously() {
    let feed = "BEGIN:VCALENDAR\r\n\
BEGIN:VEVENT\r\nUID:rdate\r\nDTSTART:20200101T100000Z\r\nRDATE:20200301T100000Z,20240120T100000Z\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:until\r\nDTSTART:20200101T100000Z\r\nRRULE:FREQ=DAILY;UNTIL=20240118T000000Z\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:open\r\nDTSTART;VALUE=DATE:20000101\r\nRRULE:FREQ=YEARLY\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:future\r\nDTSTART:20240125T100000Z\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:zoned\r\nDTSTART;TZID=Pacific/Kiritimati:20240120T060000\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:no-start\r\nSUMMARY:?\r\nEND:VEVENT\r\n\
END:VCALENDAR\r\n";
    // Now is 2024-01-19T12:00Z; the window is that day only.
    let config = config(r#"{"mapping": {}, "window": {"pastDays": 0, "futureDays": 1}}"#);
    let options = RemapOptions {
        now: Some(1_705_665_600),
        ..RemapOptions::default()
    };
    let d = decide(feed.as_bytes(), &config, &options, &Limits::default()).expect("decides");
    let kept: Vec<bool> = d.iter().map(|d| d.kept).collect();
    assert_eq!(kept, [true, false, true, false, true, true]);
}
