//! Time-zone repair on the real-world corpus (../shared/ics-corpus beside the project, or
//! HEARTH_ICS_CORPUS): every repaired feed parses cleanly, keeps its events, names only IANA or
//! feed-defined zones, and defines every zone its events use. With HEARTH_REPAIRED_OUT set, the
//! repaired feeds are written there for the Python checkers (tests/equiv/check_repaired.py).

use std::collections::BTreeSet;
use std::path::PathBuf;

use hearth_engine::tz::windows_to_iana;
use hearth_engine::{
    parse, remap, CalendarConfig, CompiledConfig, Component, Limits, RemapOptions,
};

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = std::env::var_os("HEARTH_ICS_CORPUS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/ics-corpus/files"),
        PathBuf::from,
    );
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus at {}: {e}", dir.display()))
        .map(|entry| entry.expect("dir entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "ics"))
        .map(|path| {
            let name = path
                .file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned();
            (name, std::fs::read(&path).expect("readable"))
        })
        .collect();
    files.sort();
    assert!(files.len() >= 70, "expected the 76-file corpus");
    files
}

/// TZID parameters used outside VTIMEZONEs, and the TZIDs VTIMEZONEs define, in one component.
fn zones(c: &Component, used: &mut BTreeSet<String>, defined: &mut BTreeSet<String>) {
    if c.name == "VTIMEZONE" {
        if let Some(p) = c.properties().find(|p| p.name == "TZID") {
            defined.insert(p.value.trim().to_owned());
        }
        return;
    }
    for p in c.properties() {
        if let Some(tzid) = p.param("TZID") {
            used.insert(tzid.trim().to_owned());
        }
    }
    for child in c.children() {
        zones(child, used, defined);
    }
}

#[test]
fn repaired_corpus_feeds_parse_cleanly_and_define_every_zone_they_use() {
    let config: CalendarConfig =
        serde_json::from_str(r#"{"mapping": {}, "timezones": "repair"}"#).expect("config");
    let compiled = CompiledConfig::compile(&config).expect("compiles");
    let options = RemapOptions {
        now: Some(1_735_689_600), // 2025-01-01
        ..RemapOptions::default()
    };
    let limits = Limits::default();
    let out_dir = std::env::var_os("HEARTH_REPAIRED_OUT").map(PathBuf::from);
    let mut added_zones = 0;
    for (name, bytes) in corpus() {
        let Ok((before, before_warnings)) = parse(&bytes, &limits) else {
            continue;
        };
        let out =
            remap(&bytes, &compiled, &options, &limits).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (i, line) in out.bytes.split_inclusive(|&b| b == b'\n').enumerate() {
            assert!(
                line.ends_with(b"\r\n") && line.len() <= 77 && std::str::from_utf8(line).is_ok(),
                "{name}: line {} is not a CRLF line of at most 75 octets",
                i + 1
            );
        }
        let (after, after_warnings) =
            parse(&out.bytes, &limits).unwrap_or_else(|e| panic!("{name}: output: {e}"));
        assert_eq!(after.event_count(), before.event_count(), "{name}");
        // Re-parsing the repaired feed finds nothing new to complain about.
        assert!(
            after_warnings.len() <= before_warnings.len(),
            "{name}: {after_warnings:?}"
        );
        for cal in after.components.iter().filter(|c| c.name == "VCALENDAR") {
            let (mut used, mut defined) = (BTreeSet::new(), BTreeSet::new());
            zones(cal, &mut used, &mut defined);
            for tzid in used {
                let unknown = out.warnings.iter().any(|w| w.message.contains(&tzid));
                assert!(
                    defined.contains(&tzid) || unknown,
                    "{name}: TZID {tzid:?} has no VTIMEZONE and no warning"
                );
                assert!(
                    windows_to_iana(&tzid).is_none()
                        || tzid == "UTC"
                        || jiff::tz::TimeZone::get(&tzid).is_ok(),
                    "{name}: Windows zone {tzid:?} left as it was"
                );
            }
        }
        let before_zones: usize = before
            .components
            .iter()
            .map(|c| c.children().filter(|z| z.name == "VTIMEZONE").count())
            .sum();
        let after_zones: usize = after
            .components
            .iter()
            .map(|c| c.children().filter(|z| z.name == "VTIMEZONE").count())
            .sum();
        added_zones += after_zones.saturating_sub(before_zones);
        for w in out
            .warnings
            .iter()
            .filter(|w| w.message.contains("time zone"))
        {
            eprintln!("{name}: {w}");
        }
        if let Some(dir) = &out_dir {
            std::fs::create_dir_all(dir).expect("output dir");
            std::fs::write(dir.join(&name), &out.bytes).expect("written");
        }
    }
    // The corpus has feeds whose zones have no VTIMEZONE: the repair must have added some.
    assert!(added_zones > 0, "no VTIMEZONE added anywhere");
}

/// Zones across both hemispheres, with and without DST, with rule changes and odd rules.
const ZONES: [&str; 24] = [
    "Europe/Berlin",
    "Europe/London",
    "Europe/Dublin",
    "Europe/Moscow",
    "Europe/Istanbul",
    "America/New_York",
    "America/Los_Angeles",
    "America/Sao_Paulo",
    "America/Santiago",
    "America/Nuuk",
    "America/Havana",
    "America/St_Johns",
    "Asia/Kolkata",
    "Asia/Tokyo",
    "Asia/Jerusalem",
    "Asia/Tehran",
    "Asia/Kathmandu",
    "Australia/Sydney",
    "Australia/Lord_Howe",
    "Pacific/Auckland",
    "Pacific/Chatham",
    "Africa/Cairo",
    "Africa/Casablanca",
    "Etc/GMT+5",
];

#[test]
fn repair_synthesises_a_vtimezone_for_each_zone_an_event_names() {
    let mut feed = String::from("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//hearth//tz//EN\r\n");
    for (i, zone) in ZONES.iter().enumerate() {
        feed.push_str(&format!(
            "BEGIN:VEVENT\r\nUID:{i}\r\nDTSTAMP:20240101T000000Z\r\nSUMMARY:{zone}\r\n\
DTSTART;TZID={zone}:{}0301T090000\r\nDURATION:PT1H\r\nRRULE:FREQ=MONTHLY\r\nEND:VEVENT\r\n",
            1995 + i
        ));
    }
    feed.push_str("END:VCALENDAR\r\n");
    let config: CalendarConfig =
        serde_json::from_str(r#"{"mapping": {}, "timezones": "repair"}"#).expect("config");
    let compiled = CompiledConfig::compile(&config).expect("compiles");
    let out = remap(
        feed.as_bytes(),
        &compiled,
        &RemapOptions::default(),
        &Limits::default(),
    )
    .expect("remaps");
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    let (doc, warnings) = parse(&out.bytes, &Limits::default()).expect("parses");
    assert!(warnings.is_empty(), "{warnings:?}");
    let (mut used, mut defined) = (BTreeSet::new(), BTreeSet::new());
    zones(&doc.components[0], &mut used, &mut defined);
    assert_eq!(used.len(), ZONES.len());
    assert_eq!(used, defined);
    if let Some(dir) = std::env::var_os("HEARTH_REPAIRED_OUT").map(PathBuf::from) {
        std::fs::create_dir_all(&dir).expect("output dir");
        std::fs::write(dir.join("synthetic-zones.ics"), &out.bytes).expect("written");
    }
}
