//! Filters that judge each occurrence (`occurrences: "each"`) through the public engine API:
//! dropped occurrences become EXDATEs, instances moved onto a dropped day go with their
//! occurrence, a series the window outlasts ends with it, one too long to judge stays whole and
//! says so, and the preview's count counts occurrences. Without the key nothing changes. With
//! HEARTH_OCCURRENCES_OUT set, corpus files run through two such configs are written there for
//! tests/equiv/occurrences.py, which checks them against recurring-ical-events' expansion.

use std::path::PathBuf;

use hearth_engine::{
    decide, decide_counting, parse, remap, CalendarConfig, CompiledConfig, KeptWhole, Limits,
    RemapOptions, MAX_ADDED_EXDATES,
};

const HEAD: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n";
const TAIL: &str = "END:VCALENDAR\r\n";

fn event(uid: &str, lines: &str) -> String {
    format!("BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20240101T000000Z\r\nSUMMARY:{uid}\r\n{lines}END:VEVENT\r\n")
}

fn feed(events: &[String]) -> String {
    format!("{HEAD}{}{TAIL}", events.concat())
}

fn config(json: &str) -> CompiledConfig {
    let config: CalendarConfig = serde_json::from_str(json).expect("config reads");
    CompiledConfig::compile(&config).expect("config compiles")
}

/// 2024-01-10 12:00 UTC, a Wednesday.
const NOW: i64 = 1_704_888_000;

fn run(feed: &str, json: &str) -> String {
    let out = remap(
        feed.as_bytes(),
        &config(json),
        &RemapOptions {
            now: Some(NOW),
            ..RemapOptions::default()
        },
        &Limits::default(),
    )
    .expect("remaps");
    let text = String::from_utf8(out.bytes).expect("utf-8");
    parse(text.as_bytes(), &Limits::default()).expect("output parses");
    text
}

const WEEKDAYS: &str = r#"{"action": "include", "weekdays": ["MO", "TU", "WE", "TH", "FR"]}"#;

fn each(filters: &str, extra: &str) -> String {
    format!(r#"{{"mapping": {{}}, "occurrences": "each", "filters": [{filters}]{extra}}}"#)
}

#[test]
fn weekdays_only_on_a_daily_series_removes_the_weekends() {
    // Monday 2024-01-01, 14 days: two weekends.
    let f = feed(&[event(
        "daily",
        "DTSTART;TZID=Europe/Berlin:20240101T090000\r\nDURATION:PT30M\r\nRRULE:FREQ=DAILY;COUNT=14\r\n",
    )]);
    let out = run(&f, &each(WEEKDAYS, ""));
    for day in ["20240106", "20240107", "20240113", "20240114"] {
        assert!(
            out.contains(&format!("EXDATE;TZID=Europe/Berlin:{day}T090000\r\n")),
            "{day}:\n{out}"
        );
    }
    assert_eq!(out.matches("EXDATE").count(), 4, "{out}");
    // Without the key the series is judged by its first occurrence, as before: kept whole.
    let whole = run(
        &f,
        &format!(r#"{{"mapping": {{}}, "filters": [{WEEKDAYS}]}}"#),
    );
    assert!(!whole.contains("EXDATE"), "{whole}");
    let (decisions, _) = decide_counting(
        f.as_bytes(),
        &config(&each(WEEKDAYS, "")),
        &RemapOptions {
            now: Some(NOW),
            ..RemapOptions::default()
        },
        &Limits::default(),
    )
    .expect("decides");
    assert_eq!(decisions[0].dropped_occurrences, 4);
    assert!(decisions[0].kept && decisions[0].kept_whole.is_none());
}

#[test]
fn a_series_only_on_dropped_days_goes_whole_with_the_rules_reason() {
    let f = feed(&[event(
        "weekend",
        "DTSTART:20240106T100000Z\r\nDURATION:PT1H\r\nRRULE:FREQ=WEEKLY;BYDAY=SA,SU;COUNT=6\r\n",
    )]);
    let out = run(&f, &each(WEEKDAYS, ""));
    assert!(!out.contains("BEGIN:VEVENT"), "{out}");
    let d = decide(
        f.as_bytes(),
        &config(&each(WEEKDAYS, "")),
        &RemapOptions::default(),
        &Limits::default(),
    )
    .expect("decides");
    assert!(!d[0].kept);
    assert_eq!(
        d[0].reason.as_deref(),
        Some("filter 1 (include on Monday to Friday)")
    );
}

#[test]
fn an_instance_moved_onto_a_dropped_day_goes_and_its_occurrence_stays_away() {
    // The Tuesday 2024-01-09 occurrence moved to Saturday the 13th.
    let f = feed(&[
        event(
            "weekly",
            "DTSTART:20240102T100000Z\r\nDURATION:PT1H\r\nRRULE:FREQ=WEEKLY;COUNT=4\r\n",
        ),
        event(
            "weekly",
            "RECURRENCE-ID:20240109T100000Z\r\nDTSTART:20240113T100000Z\r\nDURATION:PT1H\r\n",
        ),
    ]);
    let out = run(&f, &each(WEEKDAYS, ""));
    assert_eq!(out.matches("BEGIN:VEVENT").count(), 1, "{out}");
    assert!(out.contains("EXDATE:20240109T100000Z\r\n"), "{out}");
    // An instance moved onto a weekday from a Tuesday stays, and adds nothing.
    let kept = f.replace("DTSTART:20240113T100000Z", "DTSTART:20240111T100000Z");
    let out = run(&kept, &each(WEEKDAYS, ""));
    assert_eq!(out.matches("BEGIN:VEVENT").count(), 2, "{out}");
    assert!(!out.contains("EXDATE"), "{out}");
}

#[test]
fn the_window_ends_a_series_that_outlasts_it() {
    let f = feed(&[event(
        "endless",
        "DTSTART;TZID=Europe/Berlin:20240101T090000\r\nDURATION:PT30M\r\nRRULE:FREQ=DAILY\r\n",
    )]);
    // Nine days on from Wednesday the 10th at noon: the 19th at noon (and 14 hours more for a
    // zoned time), so the 19th at 09:00 is in, the 20th at 09:00 out: UNTIL between the two.
    let out = run(&f, &each("", r#", "window": {"futureDays": 9}"#));
    assert!(
        out.contains("RRULE:FREQ=DAILY;UNTIL=20240120T010000Z\r\n"),
        "{out}"
    );
    // With weekdays only too: the weekends before it are removed.
    let out = run(&f, &each(WEEKDAYS, r#", "window": {"futureDays": 9}"#));
    assert!(out.contains("UNTIL=20240120T010000Z"), "{out}");
    assert_eq!(out.matches("EXDATE").count(), 4, "{out}");
}

#[test]
fn a_series_too_long_to_judge_stays_whole_and_says_so() {
    let f = feed(&[event(
        "forever",
        "DTSTART:20240101T090000Z\r\nDURATION:PT30M\r\nRRULE:FREQ=DAILY\r\n",
    )]);
    let json = each(WEEKDAYS, "");
    let out = run(&f, &json);
    assert!(!out.contains("EXDATE"), "{out}");
    let d = decide(
        f.as_bytes(),
        &config(&json),
        &RemapOptions::default(),
        &Limits::default(),
    )
    .expect("decides");
    // It never ends and no window end bounds it: that is the reason, not its number of occurrences.
    assert!(d[0].kept && d[0].kept_whole == Some(KeptWhole::Endless));
    // A finite series with more dropped occurrences than the bound stays whole too, for that.
    let long = f.replace(
        "FREQ=DAILY",
        &format!("FREQ=DAILY;COUNT={}", MAX_ADDED_EXDATES * 4),
    );
    let out = run(&long, &json);
    assert!(!out.contains("EXDATE"), "{out}");
    let d = decide(
        long.as_bytes(),
        &config(&json),
        &RemapOptions::default(),
        &Limits::default(),
    )
    .expect("decides");
    assert_eq!(d[0].kept_whole, Some(KeptWhole::TooMany));
}

#[test]
fn a_yearly_series_that_never_ends_is_kept_whole_because_it_never_ends_until_days_ahead_ends_it() {
    // A birthday every year, on a weekday or not: a weekend rule drops some of its occurrences.
    let f = feed(&[event(
        "birthday",
        "DTSTART;VALUE=DATE:20240106\r\nRRULE:FREQ=YEARLY\r\n",
    )]);
    let json = each(WEEKDAYS, "");
    let decisions = |json: &str| {
        decide(
            f.as_bytes(),
            &config(json),
            &RemapOptions {
                now: Some(NOW),
                ..RemapOptions::default()
            },
            &Limits::default(),
        )
        .expect("decides")
    };
    let d = decisions(&json);
    assert_eq!(d[0].kept_whole, Some(KeptWhole::Endless), "{d:?}");
    // With "Days ahead" set, the series ends there and its weekend occurrences go one by one.
    let bounded = each(WEEKDAYS, r#", "window": {"futureDays": 3650}"#);
    let d = decisions(&bounded);
    assert!(d[0].kept && d[0].kept_whole.is_none(), "{d:?}");
    assert!(d[0].dropped_occurrences > 0, "{d:?}");
}

#[test]
fn time_of_day_judges_occurrences_of_a_rule_with_several_hours() {
    let f = feed(&[event(
        "twice",
        "DTSTART:20240101T080000Z\r\nDURATION:PT30M\r\nRRULE:FREQ=DAILY;BYHOUR=8,20;COUNT=4\r\n",
    )]);
    let out = run(
        &f,
        &each(
            r#"{"action": "exclude", "timeOfDay": {"from": "18:00", "to": "23:59"}}"#,
            "",
        ),
    );
    assert!(out.contains("EXDATE:20240101T200000Z\r\n"), "{out}");
    assert!(out.contains("EXDATE:20240102T200000Z\r\n"), "{out}");
}

#[test]
fn the_preview_counts_occurrences_in_the_window() {
    let f = feed(&[
        event(
            "daily",
            "DTSTART:20240101T090000Z\r\nDURATION:PT30M\r\nRRULE:FREQ=DAILY\r\n",
        ),
        event("single", "DTSTART:20240111T090000Z\r\nDURATION:PT1H\r\n"),
        event("old", "DTSTART:20231001T090000Z\r\nDURATION:PT1H\r\n"),
    ]);
    let options = RemapOptions {
        now: Some(NOW),
        ..RemapOptions::default()
    };
    // From the 3rd at noon to the 17th at noon: the daily one on the 4th to the 17th (14), the single.
    let json = r#"{"mapping": {}, "window": {"pastDays": 7, "futureDays": 7}}"#;
    let (_, count) =
        decide_counting(f.as_bytes(), &config(json), &options, &Limits::default()).expect("counts");
    assert_eq!(count.count, 15);
    assert!(!count.capped);
    // Weekdays only, judged one by one: the daily one loses two weekends (4 days).
    let (_, count) = decide_counting(
        f.as_bytes(),
        &config(&each(
            WEEKDAYS,
            r#", "window": {"pastDays": 7, "futureDays": 7}"#,
        )),
        &options,
        &Limits::default(),
    )
    .expect("counts");
    assert_eq!(count.count, 11);
}

fn corpus_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("HEARTH_ICS_CORPUS") {
        return PathBuf::from(dir);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/ics-corpus/files")
}

/// The configs the equivalence check knows how to judge in Python, with the `now` they run at.
const EQUIV_CONFIGS: [(&str, &str); 2] = [
    (
        "weekdays",
        r#"{"mapping": {}, "occurrences": "each", "filters": [{"action": "include", "weekdays": ["MO", "TU", "WE", "TH", "FR"]}]}"#,
    ),
    (
        "window",
        r#"{"mapping": {}, "occurrences": "each", "filters": [{"action": "exclude", "weekdays": ["SA", "SU"]}], "window": {"pastDays": 60, "futureDays": 400}}"#,
    ),
];

/// 2019-06-01 00:00 UTC: the corpus has most of its recurring events around then.
const EQUIV_NOW: i64 = 1_559_347_200;

#[test]
fn corpus_files_run_through_occurrence_filters() {
    let dump = std::env::var_os("HEARTH_OCCURRENCES_OUT").map(PathBuf::from);
    let limits = Limits::default();
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("corpus")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ics"))
        .collect();
    files.sort();
    let options = RemapOptions {
        now: Some(EQUIV_NOW),
        ..RemapOptions::default()
    };
    let mut judged = 0;
    for path in &files {
        let input = std::fs::read(path).expect("reads");
        if !input.windows(6).any(|w| w.eq_ignore_ascii_case(b"RRULE:")) {
            continue;
        }
        for (name, json) in EQUIV_CONFIGS {
            let compiled = config(json);
            let Ok(out) = remap(&input, &compiled, &options, &limits) else {
                continue;
            };
            let (doc, _) = parse(&out.bytes, &limits).expect("output parses");
            assert_eq!(doc.event_count(), out.kept_events, "{}", path.display());
            let decisions = decide(&input, &compiled, &options, &limits).expect("decides");
            judged += decisions
                .iter()
                .filter(|d| d.dropped_occurrences > 0)
                .count();
            if let Some(dir) = &dump {
                let stem = path.file_name().and_then(|n| n.to_str()).unwrap_or("x");
                let base = dir.join(format!("{name}__{stem}"));
                std::fs::write(base.with_extension("ics"), &out.bytes).expect("writes");
                // The series kept whole, by their position among the input's events.
                let whole: Vec<String> = decisions
                    .iter()
                    .enumerate()
                    .filter(|(_, d)| d.kept_whole.is_some())
                    .map(|(i, _)| i.to_string())
                    .collect();
                std::fs::write(base.with_extension("whole"), whole.join("\n")).expect("writes");
            }
        }
    }
    assert!(judged > 0, "some corpus series have occurrences dropped");
}
