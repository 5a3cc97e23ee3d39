//! The engine against the real-world corpus (../shared/ics-corpus beside the project, or
//! HEARTH_ICS_CORPUS): the default mapping gives back the same tree with well-formed lines; a real
//! mapping changes only the mapped properties; a realistic config with options gives clean output
//! that keeps exactly what `decide` keeps.

use std::path::PathBuf;

use hearth_engine::{
    decide, parse, remap, CalendarConfig, CompiledConfig, CompiledMapping, Component, Document,
    Item, Limits, MappedField, Mapping, RemapOptions, Window,
};

fn corpus_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("HEARTH_ICS_CORPUS") {
        return PathBuf::from(dir);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/ics-corpus/files")
}

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = corpus_dir();
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus at {}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.expect("dir entry").path();
            let name = path
                .file_name()
                .expect("file name")
                .to_string_lossy()
                .into_owned();
            (name, std::fs::read(&path).expect("readable"))
        })
        .filter(|(name, _)| name.ends_with(".ics"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 70,
        "expected the 76-file corpus, found {}",
        files.len()
    );
    files
}

/// The tree without line numbers (which legitimately move when folding changes).
fn normalised(doc: Document) -> Vec<Component> {
    doc.without_line_numbers().components
}

fn assert_well_formed_lines(name: &str, out: &[u8]) {
    assert!(
        out.ends_with(b"\r\n"),
        "{name}: output does not end in CRLF"
    );
    for (i, line) in out.split_inclusive(|&b| b == b'\n').enumerate() {
        assert!(line.ends_with(b"\r\n"), "{name}: line {} not CRLF", i + 1);
        let body = &line[..line.len() - 2];
        assert!(!body.contains(&b'\r'), "{name}: bare CR in line {}", i + 1);
        assert!(
            body.len() <= 75,
            "{name}: line {} has {} octets",
            i + 1,
            body.len()
        );
        assert!(
            std::str::from_utf8(body).is_ok(),
            "{name}: line {} splits UTF-8",
            i + 1
        );
    }
}

#[test]
fn default_mapping_round_trips_every_corpus_file() {
    let limits = Limits::default();
    let mapping = CompiledConfig::default();
    for (name, bytes) in corpus() {
        let (before, _) = parse(&bytes, &limits).unwrap_or_else(|e| panic!("{name}: {e}"));
        let out = remap(&bytes, &mapping, &RemapOptions::default(), &limits)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(out.event_count, before.event_count(), "{name}: event count");
        assert_eq!(out.changed_events, 0, "{name}");
        assert_well_formed_lines(&name, &out.bytes);
        let (after, warnings) = parse(&out.bytes, &limits).expect("output parses");
        assert!(
            warnings.iter().all(|w| w.message.contains("malformed")),
            "{name}: output has warnings {warnings:?}"
        );
        assert_eq!(
            normalised(after),
            normalised(before),
            "{name}: tree changed"
        );
    }
}

#[test]
fn default_mapping_copies_clean_crlf_files_byte_for_byte() {
    let limits = Limits::default();
    let mapping = CompiledConfig::default();
    let mut copied = 0;
    for (name, bytes) in corpus() {
        let clean = bytes.ends_with(b"\r\n")
            && !bytes.starts_with(b"\xEF\xBB\xBF")
            && bytes
                .split_inclusive(|&b| b == b'\n')
                .all(|l| l.ends_with(b"\r\n") && l.len() <= 77 && l.len() > 2)
            && std::str::from_utf8(&bytes).is_ok();
        if !clean {
            continue;
        }
        let out = remap(&bytes, &mapping, &RemapOptions::default(), &limits).expect("remaps");
        if out.warnings.is_empty() {
            assert_eq!(
                out.bytes, bytes,
                "{name}: a clean file must pass through unchanged"
            );
            copied += 1;
        }
    }
    assert!(copied >= 5, "only {copied} clean files in the corpus");
}

fn real_mapping() -> Mapping {
    let mut m = Mapping::default();
    m.set(MappedField::Summary, "${SUMMARY} @ ${LOCATION}");
    m.set(
        MappedField::Description,
        r"${DESCRIPTION|re:s/(\w+)/<$1>/g} (${UID})",
    );
    m.set(MappedField::Location, "${LOCATION|re:s/,.*//s}");
    m
}

/// Direct properties of a component other than those the mapping may change.
fn untouched(c: &Component) -> Vec<Item> {
    c.items
        .iter()
        .filter(|item| match item {
            Item::Property(p) => !matches!(
                p.name.as_str(),
                "SUMMARY" | "DESCRIPTION" | "LOCATION" | "X-ALT-DESC"
            ),
            Item::Component(_) => true,
        })
        .cloned()
        .collect()
}

fn compare(name: &str, before: &Component, after: &Component) {
    assert_eq!(before.name, after.name, "{name}");
    if before.name == "VEVENT" {
        let (b, a) = (untouched(before), untouched(after));
        assert_eq!(
            b.len(),
            a.len(),
            "{name}: property count of event at line {}",
            before.line
        );
        for (x, y) in b.iter().zip(&a) {
            match (x, y) {
                (Item::Property(p), Item::Property(q)) => {
                    assert_eq!(
                        (&p.name, &p.params, &p.value),
                        (&q.name, &q.params, &q.value),
                        "{name}"
                    )
                }
                (Item::Component(p), Item::Component(q)) => compare(name, p, q),
                _ => panic!("{name}: structure changed in event at line {}", before.line),
            }
        }
        return;
    }
    assert_eq!(
        before.items.len(),
        after.items.len(),
        "{name}: items of {}",
        before.name
    );
    for (x, y) in before.items.iter().zip(&after.items) {
        match (x, y) {
            (Item::Property(p), Item::Property(q)) => {
                assert_eq!(
                    (&p.name, &p.params, &p.value),
                    (&q.name, &q.params, &q.value),
                    "{name}"
                )
            }
            (Item::Component(p), Item::Component(q)) => compare(name, p, q),
            _ => panic!("{name}: structure changed in {}", before.name),
        }
    }
}

#[test]
fn a_real_mapping_changes_only_the_mapped_properties() {
    let limits = Limits::default();
    let mapping =
        CompiledConfig::from(CompiledMapping::compile(&real_mapping()).expect("compiles"));
    for (name, bytes) in corpus() {
        let (before, _) = parse(&bytes, &limits).expect("parses");
        let out = remap(&bytes, &mapping, &RemapOptions::default(), &limits).expect("remaps");
        assert_well_formed_lines(&name, &out.bytes);
        let (after, _) = parse(&out.bytes, &limits).expect("output parses");
        assert_eq!(before.components.len(), after.components.len(), "{name}");
        for (b, a) in before.components.iter().zip(&after.components) {
            compare(&name, b, a);
        }
        // Every event's mapped fields equal what the templates render from the upstream event.
        for (ev_before, ev_after) in before.events().zip(after.events()) {
            for field in [
                MappedField::Summary,
                MappedField::Description,
                MappedField::Location,
            ] {
                let rendered = mapping.mapping().render(field, &ev_before);
                let upstream = ev_before.get(field.name()).unwrap_or_default();
                let got = ev_after.get(field.name()).unwrap_or_default();
                if rendered == upstream.trim() {
                    assert_eq!(
                        got,
                        upstream,
                        "{name}: unchanged {} rewritten",
                        field.name()
                    );
                } else {
                    assert_eq!(got, rendered, "{name}: {}", field.name());
                }
            }
            assert!(
                ev_after.get("X-ALT-DESC").is_none(),
                "{name}: X-ALT-DESC kept"
            );
        }
    }
}

/// A realistic calendar config: a mapping, three filters, privacy `busy`, an added alarm.
const REALISTIC_CONFIG: &str = r#"{
    "mapping": {"SUMMARY": "${SUMMARY} @ ${LOCATION}", "LOCATION": "${LOCATION|re:s/,.*//s}"},
    "filters": [
        {"action": "exclude", "field": "SUMMARY", "pattern": "^(canceled|cancelled|abgesagt)\\b", "flags": "i"},
        {"action": "exclude", "status": "CANCELLED"},
        {"action": "exclude", "weekdays": ["SU"]}
    ],
    "privacy": "busy",
    "alarms": {"addMinutesBefore": 15}
}"#;

/// TZIDs that the direct and nested properties of `c` name, outside VTIMEZONEs.
fn tzids_used(c: &Component, out: &mut Vec<String>) {
    if c.name == "VTIMEZONE" {
        return;
    }
    for item in &c.items {
        match item {
            Item::Property(p) => out.extend(p.param("TZID")),
            Item::Component(child) => tzids_used(child, out),
        }
    }
}

fn tzids_defined(doc: &Document) -> Vec<String> {
    let mut found = Vec::new();
    for cal in &doc.components {
        for c in cal.children().filter(|c| c.name == "VTIMEZONE") {
            found.extend(
                c.properties()
                    .find(|p| p.name == "TZID")
                    .map(|p| p.value.clone()),
            );
        }
    }
    found
}

#[test]
fn a_realistic_config_gives_every_corpus_file_clean_output_that_follows_decide() {
    let limits = Limits::default();
    let config: CalendarConfig = serde_json::from_str(REALISTIC_CONFIG).expect("config reads");
    let mut with_window = config.clone();
    with_window.window = Some(Window {
        past_days: Some(30),
        future_days: Some(365),
    });
    // 2024-06-01T00:00:00Z.
    let now = 1_717_200_000;
    // tests/equiv/options.sh reads the outputs with python icalendar and recurring-ical-events.
    let dump = std::env::var_os("HEARTH_OPTIONS_OUT").map(PathBuf::from);
    let mut dropped = 0;
    for (tag, config) in [("filters", config), ("window", with_window)] {
        let compiled = CompiledConfig::compile(&config).expect("compiles");
        for (name, bytes) in corpus() {
            let (before, warnings_before) = parse(&bytes, &limits).expect("parses");
            let options = RemapOptions {
                now: Some(now),
                ..RemapOptions::default()
            };
            let out = remap(&bytes, &compiled, &options, &limits)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            if let Some(dir) = &dump {
                let path = dir.join(format!("{tag}__{name}"));
                std::fs::write(&path, &out.bytes).expect("output written");
                std::fs::write(path.with_extension("kept"), out.kept_events.to_string())
                    .expect("count written");
            }
            if out.bytes.is_empty() {
                // A bare VEVENT file (no VCALENDAR) whose every event was dropped.
                assert_eq!(out.kept_events, 0, "{name}");
                assert!(
                    before.components.iter().all(|c| c.name == "VEVENT"),
                    "{name}"
                );
                dropped += before.event_count();
                continue;
            }
            assert_well_formed_lines(&name, &out.bytes);
            let (after, warnings) = parse(&out.bytes, &limits).expect("output parses");
            let malformed_before = warnings_before
                .iter()
                .filter(|w| w.message.contains("malformed"))
                .count();
            assert!(
                warnings.iter().all(|w| w.message.contains("malformed"))
                    && warnings.len() <= malformed_before,
                "{name}: new warnings {warnings:?}"
            );
            assert_eq!(after.event_count(), out.kept_events, "{name}");
            assert_eq!(out.event_count, before.event_count(), "{name}");
            let decisions = decide(&bytes, &compiled, &options, &limits).expect("decides");
            assert_eq!(decisions.len(), before.event_count(), "{name}");
            assert_eq!(
                decisions.iter().filter(|d| d.kept).count(),
                out.kept_events,
                "{name}"
            );
            dropped += before.event_count() - out.kept_events;
            // The kept events are the ones decide keeps, in order.
            let uids = |doc: &Document| -> Vec<String> {
                doc.events()
                    .map(|e| e.get("UID").unwrap_or_default().into_owned())
                    .collect()
            };
            let expected: Vec<String> = uids(&before)
                .into_iter()
                .zip(&decisions)
                .filter(|(_, d)| d.kept)
                .map(|(u, _)| u)
                .collect();
            assert_eq!(uids(&after), expected, "{name}");
            for ev in after.events() {
                assert_eq!(ev.get("SUMMARY").as_deref(), Some("Busy"), "{name}");
                let alarms: Vec<&Component> = ev
                    .component()
                    .children()
                    .filter(|c| c.name == "VALARM")
                    .collect();
                assert_eq!(alarms.len(), 1, "{name}: one added alarm");
                for p in ev.component().properties() {
                    assert!(
                        !hearth_engine::BUSY_REMOVED.contains(&p.name.as_str()),
                        "{name}: {} kept",
                        p.name
                    );
                }
            }
            // Every zone a kept event names that the feed defined is still defined.
            let defined_before = tzids_defined(&before);
            let defined_after = tzids_defined(&after);
            let mut used = Vec::new();
            for c in &after.components {
                tzids_used(c, &mut used);
            }
            for tz in used {
                if defined_before.contains(&tz) {
                    assert!(
                        defined_after.contains(&tz),
                        "{name}: VTIMEZONE {tz} dropped"
                    );
                }
            }
        }
    }
    assert!(dropped > 0, "the filters and the window dropped nothing");
}
