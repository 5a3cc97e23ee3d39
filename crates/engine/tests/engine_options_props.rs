//! Property tests for calendar options on generated feeds: include and exclude complement each
//! other, kept + dropped = total, a series shares one fate, `decide` agrees with the remap,
//! privacy `busy` leaves none of what it removes, and every option's output still reads cleanly.

use hearth_engine::config::{DurationRange, TimeOfDay};
use hearth_engine::{
    check, decide, parse, remap, AlarmMode, CalendarConfig, CompiledConfig, FilterAction,
    FilterRule, Limits, Matcher, Privacy, RemapOptions, Window, BUSY_REMOVED,
};
use proptest::prelude::*;

/// 2024-01-15T12:00:00Z, the "now" of every window here.
const NOW: i64 = 1_705_320_000;

#[derive(Debug, Clone)]
struct Ev {
    uid: usize,
    rid: Option<u32>,
    summary: &'static str,
    /// 0 DATE, 1 UTC, 2 TZID, 3 floating.
    kind: u8,
    day: u32,
    hour: u32,
    /// 0 DTEND, 1 DURATION, 2 neither.
    length: u8,
    minutes: u32,
    rrule: Option<&'static str>,
    status: Option<&'static str>,
    alarm: bool,
    private: bool,
}

fn ev() -> impl Strategy<Value = Ev> {
    (
        (
            0usize..4,
            proptest::option::of(1u32..4),
            prop::sample::select(vec!["Standup", "Canceled: review", "Lunch", "Focus time"]),
        ),
        (0u8..4, 1u32..29, 0u32..24, 0u8..3, 0u32..3000),
        (
            proptest::option::of(prop::sample::select(vec![
                "FREQ=WEEKLY;COUNT=5",
                "FREQ=DAILY;UNTIL=20240301T000000Z",
                "FREQ=MONTHLY",
            ])),
            proptest::option::of(prop::sample::select(vec!["CANCELLED", "CONFIRMED"])),
            any::<bool>(),
            any::<bool>(),
        ),
    )
        .prop_map(
            |(
                (uid, rid, summary),
                (kind, day, hour, length, minutes),
                (rrule, status, alarm, private),
            )| Ev {
                uid,
                rid,
                summary,
                kind,
                day,
                hour,
                length,
                minutes,
                rrule,
                status,
                alarm,
                private,
            },
        )
}

fn feed(events: &[Ev], todo: bool) -> String {
    let mut s = String::from(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//props//EN\r\n\
BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\nBEGIN:STANDARD\r\nDTSTART:19701025T030000\r\n\
TZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n\
BEGIN:VTIMEZONE\r\nTZID:Unused/Zone\r\nEND:VTIMEZONE\r\n",
    );
    for e in events {
        s.push_str(&format!(
            "BEGIN:VEVENT\r\nUID:u{}\r\nDTSTAMP:20240101T000000Z\r\n",
            e.uid
        ));
        if let Some(r) = e.rid {
            s.push_str(&format!("RECURRENCE-ID:202401{:02}T090000Z\r\n", r * 7));
        }
        s.push_str(&format!("SUMMARY:{}\r\n", e.summary));
        let date = format!("202401{:02}", e.day);
        let time = format!("{date}T{:02}0000", e.hour);
        let (start, end_date) = match e.kind {
            0 => (format!("DTSTART;VALUE=DATE:{date}"), true),
            1 => (format!("DTSTART:{time}Z"), false),
            2 => (format!("DTSTART;TZID=Europe/Berlin:{time}"), false),
            _ => (format!("DTSTART:{time}"), false),
        };
        s.push_str(&start);
        s.push_str("\r\n");
        match (e.length, end_date) {
            (0, true) => s.push_str(&format!("DTEND;VALUE=DATE:202402{:02}\r\n", e.day)),
            (0, false) => {
                let end = start.replacen("DTSTART", "DTEND", 1);
                let end = end.replacen(&format!("T{:02}0000", e.hour), "T235900", 1);
                s.push_str(&end);
                s.push_str("\r\n");
            }
            (1, _) => s.push_str(&format!("DURATION:PT{}M\r\n", e.minutes)),
            _ => {}
        }
        if let Some(r) = e.rrule.filter(|_| e.rid.is_none()) {
            s.push_str(&format!("RRULE:{r}\r\n"));
        }
        if let Some(st) = e.status {
            s.push_str(&format!("STATUS:{st}\r\n"));
        }
        if e.private {
            s.push_str(
                "DESCRIPTION:secret plans\r\nLOCATION:Room 1\r\nATTENDEE;CN=Ann:mailto:a@x\r\n\
ORGANIZER:mailto:o@x\r\nURL:https://x/\r\nX-ALT-DESC;FMTTYPE=text/html:<b>s</b>\r\n",
            );
        }
        if e.alarm {
            s.push_str(
                "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:secret alarm\r\nTRIGGER:-PT5M\r\n\
END:VALARM\r\n",
            );
        }
        s.push_str("END:VEVENT\r\n");
    }
    if todo {
        s.push_str("BEGIN:VTODO\r\nUID:t\r\nSUMMARY:todo\r\nEND:VTODO\r\n");
    }
    s.push_str("END:VCALENDAR\r\n");
    s
}

/// One matcher of any kind (no uid + recurrenceId, which removes one occurrence on purpose).
fn matcher() -> impl Strategy<Value = Matcher> {
    prop_oneof![
        (
            prop::sample::select(vec!["SUMMARY", "DESCRIPTION", "STATUS", "X-NONE"]),
            prop::sample::select(vec!["^Canceled:", "a", "^$", "(?i)lunch|focus"]),
            prop::sample::select(vec!["", "i", "m"]),
        )
            .prop_map(|(f, p, fl)| Matcher::Property {
                field: f.into(),
                pattern: p.into(),
                flags: fl.into(),
            }),
        any::<bool>().prop_map(Matcher::AllDay),
        proptest::collection::vec(
            prop::sample::select(vec!["MO", "TU", "WE", "TH", "FR", "SA", "SU"]),
            1..4
        )
        .prop_map(|d| Matcher::Weekdays(d.into_iter().map(String::from).collect())),
        (0u32..24, 0u32..24)
            .prop_filter("a non-empty range", |(a, b)| a != b)
            .prop_map(|(a, b)| Matcher::TimeOfDay(TimeOfDay {
                from: format!("{a:02}:00"),
                to: format!("{b:02}:30"),
            })),
        (
            proptest::option::of(0u64..200),
            proptest::option::of(200u64..5000)
        )
            .prop_filter("a bound", |(a, b)| a.is_some() || b.is_some())
            .prop_map(|(a, b)| Matcher::Duration(DurationRange {
                min_minutes: a,
                max_minutes: b,
            })),
        prop::sample::select(vec!["CANCELLED", "confirmed"])
            .prop_map(|s| Matcher::Status(s.into())),
        (0usize..4).prop_map(|u| Matcher::Uid {
            uid: format!("u{u}"),
            recurrence_id: None,
        }),
        Just(Matcher::Component("VTODO".into())),
    ]
}

fn rule() -> impl Strategy<Value = FilterRule> {
    (any::<bool>(), matcher()).prop_map(|(include, matcher)| FilterRule {
        action: if include {
            FilterAction::Include
        } else {
            FilterAction::Exclude
        },
        matcher,
    })
}

fn options() -> impl Strategy<Value = CalendarConfig> {
    (
        proptest::collection::vec(rule(), 0..4),
        proptest::option::of((
            proptest::option::of(0u32..40),
            proptest::option::of(0u32..40),
        )),
        prop_oneof![
            Just(AlarmMode::Keep),
            Just(AlarmMode::Strip),
            (0u32..100).prop_map(AlarmMode::AddMinutesBefore)
        ],
        any::<bool>(),
    )
        .prop_map(|(filters, window, alarms, busy)| CalendarConfig {
            filters,
            window: window.map(|(p, f)| Window {
                past_days: p,
                future_days: f,
            }),
            alarms,
            privacy: if busy { Privacy::Busy } else { Privacy::Full },
            ..CalendarConfig::default()
        })
}

/// Options that count the window from `NOW`, as the remap and `decide` share them.
fn at_now() -> RemapOptions {
    RemapOptions {
        now: Some(NOW),
        ..RemapOptions::default()
    }
}

fn compile(config: &CalendarConfig) -> CompiledConfig {
    CompiledConfig::compile(config).expect("generated configs compile")
}

/// (uid, recurrence-id) of every event of a feed, in order.
fn ids(text: &str) -> Vec<(String, Option<String>)> {
    let (doc, _) = parse(text.as_bytes(), &Limits::default()).expect("parses");
    doc.events()
        .map(|e| {
            let rid = e
                .component()
                .properties()
                .find(|p| p.name == "RECURRENCE-ID")
                .map(|p| p.value.clone());
            (e.get("UID").unwrap_or_default().into_owned(), rid)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn include_and_exclude_of_one_matcher_complement_each_other(
        events in proptest::collection::vec(ev(), 0..12),
        m in matcher(),
    ) {
        let input = feed(&events, true);
        let with = |action| {
            let c = CalendarConfig {
                filters: vec![FilterRule { action, matcher: m.clone() }],
                ..CalendarConfig::default()
            };
            decide(input.as_bytes(), &compile(&c), &at_now(), &Limits::default()).expect("decides")
        };
        let inc = with(FilterAction::Include);
        let exc = with(FilterAction::Exclude);
        prop_assert_eq!(inc.len(), events.len());
        for (i, e) in inc.iter().zip(&exc) {
            if matches!(m, Matcher::Component(_)) {
                // A component rule never names a VEVENT: events stay either way.
                prop_assert!(i.kept && e.kept);
            } else {
                prop_assert_ne!(i.kept, e.kept);
            }
        }
    }

    #[test]
    fn kept_and_dropped_add_up_and_decide_agrees_with_the_output(
        events in proptest::collection::vec(ev(), 0..12),
        todo in any::<bool>(),
        config in options(),
    ) {
        let input = feed(&events, todo);
        let compiled = compile(&config);
        let limits = Limits::default();
        let options = at_now();
        let decisions = decide(input.as_bytes(), &compiled, &options, &limits).expect("decides");
        let out = remap(input.as_bytes(), &compiled, &options, &limits).expect("remaps");
        let text = String::from_utf8(out.bytes.clone()).expect("utf-8");
        prop_assert_eq!(out.event_count, events.len());
        prop_assert_eq!(decisions.len(), events.len());
        let kept = decisions.iter().filter(|d| d.kept).count();
        prop_assert_eq!(out.kept_events, kept);
        prop_assert!(decisions.iter().all(|d| d.kept == d.reason.is_none()));
        let (doc, warnings) = parse(&out.bytes, &limits).expect("output parses");
        prop_assert!(warnings.is_empty(), "{:?}\n{}", warnings, text);
        prop_assert_eq!(doc.event_count(), kept);
        prop_assert_eq!(check(&out.bytes, &limits).expect("checks").events, kept);
        for line in out.bytes.split_inclusive(|&b| b == b'\n') {
            prop_assert!(line.ends_with(b"\r\n") && line.len() <= 77);
        }
        let expected: Vec<_> = ids(&input)
            .into_iter()
            .zip(&decisions)
            .filter(|(_, d)| d.kept)
            .map(|(id, _)| id)
            .collect();
        prop_assert_eq!(ids(&text), expected);
        // Each kept event carries exactly the alarms the option asks for.
        let alarms = text.matches("BEGIN:VALARM").count();
        match config.alarms {
            AlarmMode::Strip => prop_assert_eq!(alarms, 0),
            AlarmMode::AddMinutesBefore(_) => prop_assert_eq!(alarms, kept),
            AlarmMode::Keep => {}
        }
    }

    #[test]
    fn a_master_and_its_overrides_always_share_a_fate(
        events in proptest::collection::vec(ev(), 0..12),
        config in options(),
    ) {
        let input = feed(&events, false);
        let d = decide(input.as_bytes(), &compile(&config), &at_now(), &Limits::default())
            .expect("decides");
        for (i, e) in events.iter().enumerate() {
            if e.rid.is_none() {
                continue;
            }
            let master = events.iter().position(|m| m.uid == e.uid && m.rid.is_none());
            if let Some(m) = master {
                prop_assert_eq!(&d[i], &d[m], "override {} and master {}", i, m);
            }
        }
    }

    #[test]
    fn privacy_busy_leaves_none_of_what_it_removes(
        events in proptest::collection::vec(ev(), 0..12),
        mut config in options(),
    ) {
        config.privacy = Privacy::Busy;
        let input = feed(&events, true);
        let options = at_now();
        let out = remap(input.as_bytes(), &compile(&config), &options, &Limits::default())
            .expect("remaps");
        let text = String::from_utf8(out.bytes).expect("utf-8");
        prop_assert!(!text.contains("secret"), "{}", text);
        let (doc, _) = parse(text.as_bytes(), &Limits::default()).expect("parses");
        for ev in doc.events() {
            let summary = ev.get("SUMMARY");
            prop_assert_eq!(summary.as_deref(), Some("Busy"));
            for p in ev.component().properties() {
                prop_assert!(!BUSY_REMOVED.contains(&p.name.as_str()), "{} kept", p.name);
            }
            prop_assert!(ev.get("DTSTART").is_some());
        }
    }
}
