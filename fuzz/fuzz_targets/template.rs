//! Fuzzes templates: any text compiles (leniently) and renders without panicking, and a mapping
//! built from it remaps a small feed into well-formed lines.
#![no_main]

use std::collections::HashMap;

use hearth_engine::{
    remap, CompiledConfig, CompiledMapping, Limits, MappedField, Mapping, RemapOptions, Template,
};
use libfuzzer_sys::fuzz_target;

const FEED: &[u8] = b"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:1\r\nSUMMARY:Tea\\, cake\r\n\
DTSTART;TZID=Europe/Paris:20240101T100000\r\nDTEND;VALUE=DATE:20240102\r\n\
DESCRIPTION:Long text with caf\xC3\xA9 and \\n breaks\r\nLOCATION:Home\r\nX-ALT-DESC:<p>\r\n\
ATTENDEE;CN=\"A, B\":mailto:a@x\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    if src.len() > 4096 {
        return;
    }
    let (template, _) = Template::compile_lenient(src);
    let mut fields = HashMap::new();
    fields.insert("SUMMARY".to_owned(), "Tea, cake é".to_owned());
    fields.insert("DESCRIPTION".to_owned(), "line one\nline two".to_owned());
    let rendered = template.render(&fields);
    assert_eq!(rendered.trim(), rendered);

    let mut mapping = Mapping::default();
    let field = MappedField::ALL[data.first().map_or(0, |b| usize::from(*b) % 5)];
    mapping.set(field, src);
    let (compiled, _) = CompiledMapping::compile_lenient(&mapping);
    let options = RemapOptions {
        calendar_name: Some("Fuzz".to_owned()),
        refresh_interval: None,
        sequence_offset: 1,
        ..RemapOptions::default()
    };
    let out = remap(
        FEED,
        &CompiledConfig::from(compiled),
        &options,
        &Limits::default(),
    )
    .expect("the feed parses");
    for line in out.bytes.split_inclusive(|&b| b == b'\n') {
        assert!(
            line.ends_with(b"\r\n") && line.len() <= 77,
            "bad output line {line:?}"
        );
        assert!(
            std::str::from_utf8(line).is_ok(),
            "output line splits UTF-8"
        );
    }
});
