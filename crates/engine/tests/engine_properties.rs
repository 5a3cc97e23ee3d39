//! `properties` and `"uids": "content"` through the public engine API: the five properties set,
//! replaced, removed and escaped; what is refused when compiled and what is dropped when
//! written; privacy `busy` against them; absent keys leaving the output byte for byte; content
//! UIDs that hold still when the source's change, shared by a series, distinct when two events
//! are the same.

use hearth_engine::{
    content_uids, parse, remap, uid_churn, CalendarConfig, CompiledConfig, Limits, RemapOptions,
};

const FEED: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n\
BEGIN:VEVENT\r\nUID:a\r\nDTSTAMP:20240101T000000Z\r\nSUMMARY:Standup\r\n\
DTSTART:20240108T090000Z\r\nDTEND:20240108T091500Z\r\nCATEGORIES:Team\r\nCATEGORIES:Daily\r\n\
URL:https://example.org/a\r\nTRANSP:OPAQUE\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:b\r\nDTSTAMP:20240101T000000Z\r\nSUMMARY:Holiday\r\n\
DTSTART;VALUE=DATE:20240106\r\nX-KIND:teal\r\nEND:VEVENT\r\n\
END:VCALENDAR\r\n";

fn compile(json: &str) -> Result<CompiledConfig, hearth_engine::ConfigError> {
    let config: CalendarConfig = serde_json::from_str(json).expect("config reads");
    CompiledConfig::compile(&config)
}

fn run_on(feed: &str, json: &str) -> (String, Vec<String>) {
    let out = remap(
        feed.as_bytes(),
        &compile(json).expect("compiles"),
        &RemapOptions::default(),
        &Limits::default(),
    )
    .expect("remaps");
    let text = String::from_utf8(out.bytes).expect("utf-8");
    let (_, warnings) = parse(text.as_bytes(), &Limits::default()).expect("output parses");
    assert!(warnings.is_empty(), "{warnings:?}\n{text}");
    let messages = out.warnings.iter().map(|w| w.message.clone()).collect();
    (text, messages)
}

fn run(json: &str) -> String {
    run_on(FEED, json).0
}

/// The lines of event `n` (0-based) of `text`.
fn event(text: &str, n: usize) -> Vec<&str> {
    text.split("BEGIN:VEVENT\r\n")
        .nth(n + 1)
        .expect("event")
        .split("END:VEVENT")
        .next()
        .expect("body")
        .lines()
        .collect()
}

#[test]
fn properties_are_set_on_every_event_replacing_the_events_own() {
    let text = run(
        r#"{"mapping": {}, "properties": {"TRANSP": "transparent", "CATEGORIES": "${CATEGORIES},Work",
            "CLASS": "private", "URL": "https://example.org/cal", "COLOR": "Teal"}}"#,
    );
    let a = event(&text, 0);
    assert!(a.contains(&"TRANSP:TRANSPARENT"), "{text}");
    assert!(a.contains(&"CLASS:PRIVATE"), "{text}");
    assert!(a.contains(&"URL:https://example.org/cal"), "{text}");
    assert!(a.contains(&"COLOR:teal"), "{text}");
    // The event's two CATEGORIES lines read as one list, written once with the added one.
    assert_eq!(
        a.iter()
            .filter(|l| l.starts_with("CATEGORIES"))
            .collect::<Vec<_>>(),
        vec![&"CATEGORIES:Team,Daily,Work"],
        "{text}"
    );
    assert!(!a.contains(&"TRANSP:OPAQUE"), "{text}");
    let b = event(&text, 1);
    assert!(b.contains(&"CATEGORIES:Work"), "{text}");
    assert!(b.contains(&"TRANSP:TRANSPARENT"), "{text}");
}

#[test]
fn an_empty_result_removes_the_property() {
    let text = run(r#"{"mapping": {}, "properties": {"URL": "", "CATEGORIES": "${NOTHING}"}}"#);
    assert!(!text.contains("URL:"), "{text}");
    assert!(!text.contains("CATEGORIES"), "{text}");
    assert!(text.contains("TRANSP:OPAQUE"), "{text}");
}

#[test]
fn categories_are_escaped_as_text_and_listed_once_each() {
    let text = run(r#"{"mapping": {}, "properties": {"CATEGORIES": "a;b, c\\d ,A;B,,"}}"#);
    assert!(
        event(&text, 1).contains(&"CATEGORIES:a\\;b,c\\\\d"),
        "{text}"
    );
}

#[test]
fn a_key_outside_the_five_and_constant_values_that_are_not_valid_are_refused() {
    for (json, path, words) in [
        (
            r#"{"DTSTAMP": "x"}"#,
            "properties.DTSTAMP",
            "TRANSP, CATEGORIES, CLASS, URL or COLOR",
        ),
        (
            r#"{"TRANSP": "free"}"#,
            "properties.TRANSP",
            "OPAQUE, TRANSPARENT",
        ),
        (
            r#"{"CLASS": "secret"}"#,
            "properties.CLASS",
            "PUBLIC, PRIVATE, CONFIDENTIAL",
        ),
        (
            r##"{"COLOR": "#ff0000"}"##,
            "properties.COLOR",
            "CSS colour name",
        ),
        (
            r#"{"URL": "not an address"}"#,
            "properties.URL",
            "without spaces",
        ),
        (
            r#"{"URL": "${SUMMARY|re:s/(/x/}"}"#,
            "properties.URL",
            "at character",
        ),
        (
            r#"{"transp": "OPAQUE", "TRANSP": "OPAQUE"}"#,
            "properties.transp",
            "twice",
        ),
    ] {
        let e = compile(&format!(r#"{{"mapping": {{}}, "properties": {json}}}"#)).expect_err(json);
        assert_eq!(e.path, path, "{json}");
        assert!(e.message.contains(words), "{json}: {}", e.message);
    }
    let long = "x".repeat(hearth_engine::MAX_TEMPLATE_BYTES + 1);
    let e = compile(&format!(
        r#"{{"mapping": {{}}, "properties": {{"URL": "{long}"}}}}"#
    ))
    .expect_err("long");
    assert_eq!(e.path, "properties.URL");
}

#[test]
fn a_computed_value_that_is_not_valid_is_dropped_with_a_warning() {
    // Event b's X-KIND is a colour, event a has none: a keeps nothing, b gets teal.
    let (text, warnings) = run_on(
        FEED,
        r#"{"mapping": {}, "properties": {"COLOR": "${X-KIND}x"}}"#,
    );
    assert!(!text.contains("COLOR"), "{text}");
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].contains("COLOR template gave \"x\""),
        "{warnings:?}"
    );
    let (text, warnings) = run_on(
        FEED,
        r#"{"mapping": {}, "properties": {"COLOR": "${X-KIND}"}}"#,
    );
    assert!(event(&text, 1).contains(&"COLOR:teal"), "{text}");
    assert!(
        !event(&text, 0).iter().any(|l| l.starts_with("COLOR")),
        "{text}"
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    // A TRANSP the event gives that is not valid leaves the event's own.
    let (text, warnings) = run_on(
        FEED,
        r#"{"mapping": {}, "properties": {"TRANSP": "${SUMMARY}"}}"#,
    );
    assert!(event(&text, 0).contains(&"TRANSP:OPAQUE"), "{text}");
    assert_eq!(warnings.len(), 2, "{warnings:?}");
}

#[test]
fn privacy_busy_still_strips_url_and_categories_but_keeps_show_as_free() {
    let text = run(
        r#"{"mapping": {}, "privacy": "busy", "properties": {"TRANSP": "TRANSPARENT",
            "CATEGORIES": "Work", "URL": "https://example.org/", "COLOR": "teal", "CLASS": "PRIVATE"}}"#,
    );
    assert!(!text.contains("CATEGORIES"), "{text}");
    assert!(!text.contains("URL"), "{text}");
    assert!(event(&text, 0).contains(&"TRANSP:TRANSPARENT"), "{text}");
    assert!(event(&text, 1).contains(&"COLOR:teal"), "{text}");
    assert!(event(&text, 1).contains(&"CLASS:PRIVATE"), "{text}");
    assert!(event(&text, 0).contains(&"SUMMARY:Busy"), "{text}");
}

#[test]
fn absent_or_unchanging_properties_and_source_uids_leave_the_output_byte_for_byte() {
    let plain = run(r#"{"mapping": {}}"#);
    assert_eq!(plain, FEED);
    for json in [
        r#"{"mapping": {}, "properties": {}}"#,
        r#"{"mapping": {}, "properties": {"TRANSP": "${TRANSP}"}}"#,
        r#"{"mapping": {}, "uids": "source"}"#,
        r#"{"mapping": {}, "uids": "content"}"#,
    ] {
        assert_eq!(run(json), plain, "{json}");
    }
    // A value the event already has, written as valid: the event is left as it is.
    let (text, _) = run_on(
        FEED,
        r#"{"mapping": {}, "properties": {"TRANSP": "OPAQUE"}}"#,
    );
    assert!(event(&text, 0).contains(&"TRANSP:OPAQUE"), "{text}");
    assert_eq!(event(&text, 0), event(FEED, 0));
}

const SERIES: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n\
BEGIN:VEVENT\r\nUID:{1}\r\nSUMMARY:Weekly\r\nDTSTART:20240105T100000Z\r\n\
RRULE:FREQ=WEEKLY;COUNT=4\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:{1}\r\nRECURRENCE-ID:20240112T100000Z\r\nSUMMARY:Moved\r\n\
DTSTART:20240112T140000Z\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:{2}\r\nSUMMARY:Twin\r\nDTSTART:20240106T100000Z\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:{3}\r\nSUMMARY:Twin\r\nDTSTART:20240106T100000Z\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nSUMMARY:No uid\r\nDTSTART:20240107T100000Z\r\nEND:VEVENT\r\n\
END:VCALENDAR\r\n";

fn fetch(n: u32) -> String {
    SERIES
        .replace("{1}", &format!("w-{n}"))
        .replace("{2}", &format!("t1-{n}"))
        .replace("{3}", &format!("t2-{n}"))
}

fn uids(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("UID:"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn content_uids_hold_still_when_the_sources_change_at_every_fetch() {
    let limits = Limits::default();
    let first =
        content_uids(fetch(1).as_bytes(), "https://a.example/", &limits, None).expect("first");
    let second =
        content_uids(fetch(2).as_bytes(), "https://a.example/", &limits, None).expect("second");
    assert_eq!(first, second);
    let text = String::from_utf8(first).expect("utf-8");
    let got = uids(&text);
    assert_eq!(got.len(), 5, "{text}");
    // The series' instance takes its master's UID; identical events are made distinct in order.
    assert_eq!(got[0], got[1]);
    assert_eq!(got[3], format!("{}-2", got[2]));
    assert!(got.iter().all(|u| u.starts_with("hearth-")), "{got:?}");
    let distinct: std::collections::BTreeSet<&String> = got.iter().collect();
    assert_eq!(distinct.len(), 4);
    // Every other line is as it was.
    let without = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.starts_with("UID:"))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(without(&text), without(&fetch(1)));
    // Another source gives other UIDs for the same events.
    let other =
        content_uids(fetch(1).as_bytes(), "https://b.example/", &limits, None).expect("other");
    let other = uids(&String::from_utf8(other).expect("utf-8"));
    assert!(other.iter().all(|u| !got.contains(u)), "{other:?}");
    // The summary and start are the content: a changed summary is another event.
    let renamed = fetch(3).replace("SUMMARY:Weekly", "SUMMARY:Weekly sync");
    let renamed =
        content_uids(renamed.as_bytes(), "https://a.example/", &limits, None).expect("renamed");
    let renamed = uids(&String::from_utf8(renamed).expect("utf-8"));
    assert_ne!(renamed[0], got[0]);
    assert_eq!(renamed[2..], got[2..]);
}

#[test]
fn uid_churn_tells_a_source_whose_uids_change_from_one_whose_events_change() {
    let limits = Limits::default();
    let churn = uid_churn(fetch(1).as_bytes(), fetch(2).as_bytes(), &limits).expect("churn");
    // Weekly and the two twins under new UIDs (the event without a UID is not counted).
    assert_eq!((churn.events, churn.renamed), (3, 3));
    assert!(churn.most_renamed());
    let same = uid_churn(fetch(1).as_bytes(), fetch(1).as_bytes(), &limits).expect("same");
    assert_eq!((same.events, same.renamed), (3, 0));
    assert!(!same.most_renamed());
    // New events under new UIDs are not renamed ones.
    let other = fetch(2)
        .replace("SUMMARY:Weekly", "SUMMARY:Other")
        .replace("SUMMARY:Twin", "SUMMARY:New");
    let changed = uid_churn(fetch(1).as_bytes(), other.as_bytes(), &limits).expect("changed");
    assert_eq!(changed.renamed, 0);
}
