//! Reading, writing and checking configs: the contract's JSON, refusals that name the key, and
//! compile errors that name the JSON path.

use super::*;
use crate::mapping::Mapping;

fn read(json: &str) -> Result<CalendarConfig, String> {
    serde_json::from_str(json).map_err(|e| e.to_string())
}

fn compile_err(json: &str) -> ConfigError {
    let config = read(json).expect("reads");
    CompiledConfig::compile(&config).expect_err("refused")
}

#[test]
fn a_config_of_only_a_mapping_reads_as_todays_behaviour() {
    let c = read(r#"{"mapping": {}}"#).expect("reads");
    assert_eq!(c, CalendarConfig::default());
    assert!(CompiledConfig::compile(&c).expect("compiles").is_default());
    let m = CalendarConfig::from_mapping(Mapping::default());
    assert_eq!(m, c);
}

#[test]
fn the_contract_example_reads_and_writes_back_the_same_json() {
    let json = r#"{"mapping":{"SUMMARY":"${SUMMARY}!","DESCRIPTION":"${DESCRIPTION}","LOCATION":"${LOCATION}","DTSTART":"${DTSTART}","DTEND":"${DTEND}"},"filters":[{"action":"exclude","field":"SUMMARY","pattern":"^Canceled:","flags":"i"},{"action":"include","allDay":false},{"action":"exclude","weekdays":["SA","SU"]},{"action":"include","timeOfDay":{"from":"09:00","to":"17:30"}},{"action":"exclude","duration":{"minMinutes":0,"maxMinutes":60}},{"action":"exclude","status":"CANCELLED"},{"action":"exclude","uid":"x@y","recurrenceId":"20240105T100000Z"},{"action":"exclude","component":"VTODO"}],"window":{"pastDays":30,"futureDays":365},"timezones":"repair","alarms":{"addMinutesBefore":15},"privacy":"busy"}"#;
    let c = read(json).expect("reads");
    assert_eq!(c.filters.len(), 8);
    assert_eq!(c.alarms, AlarmMode::AddMinutesBefore(15));
    assert_eq!(c.timezones, TimezoneMode::Repair);
    assert_eq!(c.privacy, Privacy::Busy);
    assert_eq!(
        c.filters[6].matcher,
        Matcher::Uid {
            uid: "x@y".into(),
            recurrence_id: Some("20240105T100000Z".into())
        }
    );
    assert_eq!(serde_json::to_string(&c).expect("writes"), json);
    let compiled = CompiledConfig::compile(&c).expect("compiles");
    assert!(!compiled.is_default() && compiled.has_options());
    assert!(compiled.memory_usage() > 0);
    for word in ["keep", "strip"] {
        let c = read(&format!(r#"{{"mapping": {{}}, "alarms": "{word}"}}"#)).expect("reads");
        assert!(serde_json::to_string(&c)
            .expect("writes")
            .contains("mapping"));
    }
}

#[test]
fn unknown_keys_are_refused_by_name() {
    let e = read(r#"{"mapping": {}, "filter": []}"#).expect_err("unknown");
    assert!(e.contains("unknown field `filter`"), "{e}");
    let e = read(r#"{"mapping": {}, "window": {"days": 3}}"#).expect_err("unknown");
    assert!(e.contains("unknown field `days`"), "{e}");
    let e = read(r#"{"mapping": {}, "filters": [{"action": "exclude", "colour": "red"}]}"#)
        .expect_err("unknown");
    assert!(e.contains("colour"), "{e}");
    let e = read(r#"{"filters": []}"#).expect_err("mapping is required");
    assert!(e.contains("mapping"), "{e}");
}

#[test]
fn a_filter_has_an_action_and_exactly_one_matcher() {
    for (json, says) in [
        (r#"{"action": "exclude"}"#, "needs one matcher"),
        (
            r#"{"action": "exclude", "allDay": true, "status": "X"}"#,
            "exactly one",
        ),
        (r#"{"allDay": true}"#, "action"),
        (r#"{"action": "drop", "allDay": true}"#, "unknown variant"),
        (
            r#"{"action": "exclude", "pattern": "x"}"#,
            "needs \"field\"",
        ),
        (
            r#"{"action": "exclude", "field": "SUMMARY"}"#,
            "needs \"pattern\"",
        ),
        (
            r#"{"action": "exclude", "allDay": true, "flags": "i"}"#,
            "flags",
        ),
        (
            r#"{"action": "exclude", "recurrenceId": "20240101"}"#,
            "needs \"uid\"",
        ),
    ] {
        let e = read(&format!(r#"{{"mapping": {{}}, "filters": [{json}]}}"#)).expect_err(json);
        assert!(e.contains(says), "{json}: {e}");
    }
}

#[test]
fn option_words_are_checked_where_they_are_read() {
    for json in [
        r#"{"mapping": {}, "timezones": "fix"}"#,
        r#"{"mapping": {}, "privacy": "secret"}"#,
        r#"{"mapping": {}, "alarms": "none"}"#,
        r#"{"mapping": {}, "alarms": {"addMinutes": 5}}"#,
        r#"{"mapping": {}, "window": {"pastDays": -1}}"#,
    ] {
        assert!(read(json).is_err(), "{json}");
    }
}

#[test]
fn compile_errors_name_the_json_path() {
    let cases = [
        (
            r#"{"mapping": {"LOCATION": "${LOCATION|re:s/(/x/}"}}"#,
            "mapping.LOCATION",
        ),
        (
            r#"{"mapping": {}, "filters": [{"action": "exclude", "allDay": true},
              {"action": "exclude", "field": "SUMMARY", "pattern": "("}]}"#,
            "filters[1].pattern",
        ),
        (
            r#"{"mapping": {}, "filters": [{"action": "exclude", "field": "SUM MARY", "pattern": "x"}]}"#,
            "filters[0].field",
        ),
        (
            r#"{"mapping": {}, "filters": [{"action": "exclude", "field": "SUMMARY", "pattern": "x", "flags": "ig"}]}"#,
            "filters[0].flags",
        ),
        (
            r#"{"mapping": {}, "filters": [{"action": "exclude", "weekdays": ["MO", "MON"]}]}"#,
            "filters[0].weekdays[1]",
        ),
        (
            r#"{"mapping": {}, "filters": [{"action": "exclude", "weekdays": []}]}"#,
            "filters[0].weekdays",
        ),
        (
            r#"{"mapping": {}, "filters": [{"action": "exclude", "timeOfDay": {"from": "9:00", "to": "10:00"}}]}"#,
            "filters[0].timeOfDay.from",
        ),
        (
            r#"{"mapping": {}, "filters": [{"action": "exclude", "timeOfDay": {"from": "09:00", "to": "24:01"}}]}"#,
            "filters[0].timeOfDay.to",
        ),
        (
            r#"{"mapping": {}, "filters": [{"action": "exclude", "timeOfDay": {"from": "09:00", "to": "09:00"}}]}"#,
            "filters[0].timeOfDay",
        ),
        (
            r#"{"mapping": {}, "filters": [{"action": "exclude", "duration": {}}]}"#,
            "filters[0].duration",
        ),
        (
            r#"{"mapping": {}, "filters": [{"action": "exclude", "duration": {"minMinutes": 9, "maxMinutes": 8}}]}"#,
            "filters[0].duration.minMinutes",
        ),
        (
            r#"{"mapping": {}, "filters": [{"action": "exclude", "status": " "}]}"#,
            "filters[0].status",
        ),
        (
            r#"{"mapping": {}, "filters": [{"action": "exclude", "uid": ""}]}"#,
            "filters[0].uid",
        ),
        (
            r#"{"mapping": {}, "filters": [{"action": "exclude", "uid": "x", "recurrenceId": "tomorrow"}]}"#,
            "filters[0].recurrenceId",
        ),
        (
            r#"{"mapping": {}, "filters": [{"action": "exclude", "component": "VEVENT"}]}"#,
            "filters[0].component",
        ),
        (
            r#"{"mapping": {}, "window": {"pastDays": 36501}}"#,
            "window.pastDays",
        ),
        (
            r#"{"mapping": {}, "window": {"futureDays": 99999}}"#,
            "window.futureDays",
        ),
        (
            r#"{"mapping": {}, "alarms": {"addMinutesBefore": 40321}}"#,
            "alarms.addMinutesBefore",
        ),
    ];
    for (json, path) in cases {
        let e = compile_err(json);
        assert_eq!(e.path, path, "{json}: {e}");
        assert!(e.to_string().starts_with(&format!("{path}: ")), "{e}");
        assert!(!e.message.is_empty());
    }
}

#[test]
fn limits_hold_on_filters_patterns_uids_and_the_shared_regex_budget() {
    let rule = r#"{"action": "exclude", "allDay": true}"#;
    let many = vec![rule; MAX_FILTERS + 1].join(",");
    let e = compile_err(&format!(r#"{{"mapping": {{}}, "filters": [{many}]}}"#));
    assert_eq!(e.path, "filters");
    let fifty = vec![rule; MAX_FILTERS].join(",");
    let ok = read(&format!(r#"{{"mapping": {{}}, "filters": [{fifty}]}}"#)).expect("reads");
    assert!(CompiledConfig::compile(&ok).is_ok());

    let long = "a".repeat(MAX_FILTER_PATTERN_BYTES + 1);
    let e = compile_err(&format!(
        r#"{{"mapping": {{}}, "filters": [{{"action": "exclude", "field": "X", "pattern": "{long}"}}]}}"#
    ));
    assert_eq!(e.path, "filters[0].pattern");

    let uid = "u".repeat(MAX_UID_BYTES + 1);
    let e = compile_err(&format!(
        r#"{{"mapping": {{}}, "filters": [{{"action": "exclude", "uid": "{uid}"}}]}}"#
    ));
    assert_eq!(e.path, "filters[0].uid");

    // Large Unicode classes: the mapping and the filters draw on one budget.
    let big = r#"{"action": "exclude", "field": "SUMMARY", "pattern": "\\w{40}"}"#;
    let rules = [big; 10].join(",");
    let e = compile_err(&format!(r#"{{"mapping": {{}}, "filters": [{rules}]}}"#));
    assert!(e.path.starts_with("filters["), "{e}");
    assert!(e.message.contains("too large"), "{e}");
}

#[test]
fn the_x_flag_allows_whitespace_and_comments_in_patterns() {
    let c = read(
        r#"{"mapping": {}, "filters": [{"action": "exclude", "field": "SUMMARY", "pattern": "^ cancel  # a comment", "flags": "xi"}]}"#,
    )
    .expect("reads");
    assert!(CompiledConfig::compile(&c).is_ok());
}

#[test]
fn a_source_login_reads_in_each_shape_and_is_written_back_as_set() {
    let c = read(
        r#"{"mapping": {}, "sources": [
            {"url": "https://a.example/x.ics", "auth": {"username": "ann", "password": "pa ss"}},
            {"url": "https://b.example/y.ics", "auth": {"token": "t0k"}},
            {"url": "https://c.example/dav/", "kind": "caldav", "auth": "set"},
            {"url": "https://d.example/z.ics"}
        ]}"#,
    )
    .expect("reads");
    assert_eq!(
        c.sources[0].auth,
        Some(SourceAuth::Basic {
            username: "ann".into(),
            password: "pa ss".into()
        })
    );
    assert_eq!(
        c.sources[1].auth,
        Some(SourceAuth::Bearer {
            token: "t0k".into()
        })
    );
    assert_eq!(c.sources[2].auth, Some(SourceAuth::Set));
    assert_eq!(c.sources[2].kind, SourceKind::Caldav);
    assert_eq!(c.sources[3].kind, SourceKind::Feed);
    let written = serde_json::to_string(&c).expect("writes");
    assert!(
        !written.contains("pa ss") && !written.contains("t0k"),
        "{written}"
    );
    assert_eq!(written.matches(r#""auth":"set""#).count(), 3, "{written}");
    assert!(!written.contains("\"kind\":\"feed\""), "{written}");
    let debug = format!("{c:?}");
    assert!(
        !debug.contains("pa ss") && !debug.contains("t0k"),
        "{debug}"
    );
}

#[test]
fn a_source_login_is_refused_when_empty_too_long_or_with_control_characters() {
    let long = "p".repeat(MAX_AUTH_BYTES + 1);
    for auth in [
        r#"{"username": "", "password": "x"}"#.to_owned(),
        r#"{"username": "a:b", "password": "x"}"#.to_owned(),
        r#"{"token": "a\nb"}"#.to_owned(),
        format!(r#"{{"username": "u", "password": "{long}"}}"#),
        r#"{"token": "x", "username": "u"}"#.to_owned(),
        r#""unset""#.to_owned(),
    ] {
        let json = format!(
            r#"{{"mapping": {{}}, "sources": [{{"url": "https://a.example/", "auth": {auth}}}]}}"#
        );
        assert!(read(&json).is_err(), "{auth} was read");
    }
}

#[test]
fn the_new_keys_are_absent_when_unset_and_read_when_set() {
    let c = read(r#"{"mapping": {}}"#).expect("reads");
    let written = serde_json::to_value(&c).expect("writes");
    let keys: Vec<&String> = written.as_object().expect("an object").keys().collect();
    assert_eq!(keys, ["mapping"]);
    let c = read(
        r#"{"mapping": {}, "agenda": true, "uids": "content", "properties": {"TRANSP": "TRANSPARENT"}}"#,
    )
    .expect("reads");
    assert!(c.agenda);
    assert_eq!(c.uids, UidMode::Content);
    assert_eq!(
        c.properties.get("TRANSP").map(String::as_str),
        Some("TRANSPARENT")
    );
}
