//! Fuzzes the template renderer against parsed events: the input is a mapping's templates (up to
//! five, one per mapped field, separated by `\x01`) compiled leniently from one shared regex
//! budget, then a NUL and a feed (a small built-in feed when absent). Every event's fields are
//! rendered through the `EventView`s the remap reads: the result is trimmed, within
//! `MAX_RENDERED_BYTES`, the same with a running interrupt as without, and the same as the
//! single-template path with its own budget when the mapping's budget was not exhausted.
#![no_main]

#[path = "common.rs"]
mod common;

use hearth_engine::{
    parse, CompiledMapping, Interrupt, MappedField, Mapping, RegexBudget, Template,
    MAX_RENDERED_BYTES,
};
use libfuzzer_sys::fuzz_target;

const FEED: &[u8] = b"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:1\r\nSUMMARY:Tea\\, cake\r\n\
DTSTART;TZID=Europe/Paris:20240101T100000\r\nDTEND;VALUE=DATE:20240102\r\n\
DESCRIPTION:Room 4.12 \xE2\x80\x93 Dr. A. Smith\\nhttps://x.test/a?b=1\\n\\nnotes\r\n\
LOCATION:Home\\; garden\r\nCATEGORIES:a,b\r\nCATEGORIES:c\r\nX-ALT-DESC;FMTTYPE=text/html:<p>\r\n\
ATTENDEE;CN=\"A, B\":mailto:a@x\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

/// Events rendered per input: enough for every seed, few enough to keep runs fast.
const MAX_EVENTS: usize = 32;

fuzz_target!(|data: &[u8]| {
    let parts = common::parts(data);
    let Ok(templates) = std::str::from_utf8(parts[0]) else {
        return;
    };
    let feed = parts.get(1).copied().unwrap_or(FEED);
    let mut mapping = Mapping::default();
    let sources: Vec<&str> = templates
        .split('\x01')
        .take(MappedField::ALL.len())
        .collect();
    for (field, src) in MappedField::ALL.iter().zip(&sources) {
        mapping.set(*field, *src);
    }
    let mut budget = RegexBudget::default();
    let (compiled, errors) = CompiledMapping::compile_within(&mapping, &mut budget);
    // A lone template with its own budget renders the same when the mapping's budget held.
    let single = (sources.len() == 1 && errors.is_empty())
        .then(|| Template::compile_lenient(mapping.get(MappedField::ALL[0])).0);

    let Ok((doc, _)) = parse(feed, &common::limits()) else {
        return;
    };
    let running = Interrupt::new();
    for event in doc.events().take(MAX_EVENTS) {
        for field in MappedField::ALL {
            let plain = compiled.render(field, &event);
            assert_eq!(plain.trim(), plain, "{} rendered untrimmed", field.name());
            assert!(
                plain.len() <= MAX_RENDERED_BYTES,
                "{} rendered {} bytes",
                field.name(),
                plain.len()
            );
            let checked = compiled
                .render_checked(field, &event, &running)
                .expect("an interrupt nobody stopped stops nothing");
            assert_eq!(
                checked,
                plain,
                "{} renders differently when checked",
                field.name()
            );
        }
        if let Some(t) = &single {
            assert_eq!(
                t.render(&event),
                compiled.render(MappedField::ALL[0], &event),
                "the lone template renders differently from the mapping's"
            );
        }
    }
});
