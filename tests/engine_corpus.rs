//! The engine against the real-world corpus (../shared/ics-corpus): the default mapping gives back
//! the same tree with well-formed lines; a real mapping changes only the mapped properties.

use std::path::PathBuf;

use hearth::calendar::{
    parse, remap, CompiledConfig, CompiledMapping, Component, Document, Item, Limits, MappedField,
    Mapping, RemapOptions,
};

fn corpus_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("HEARTH_ICS_CORPUS") {
        return PathBuf::from(dir);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/ics-corpus/files")
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
