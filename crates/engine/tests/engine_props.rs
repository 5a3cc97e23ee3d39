//! Property tests for the calendar engine: escaping and folding round-trip, and no template or
//! input, however broken, makes the engine panic.

use std::collections::HashMap;

use hearth_engine::{
    escape_text, parse, remap, unescape_text, write_folded, CompiledConfig, CompiledMapping,
    Limits, MappedField, Mapping, RemapOptions, Template,
};
use proptest::prelude::*;

/// Small inputs that still reach every branch of the lexer and the line parser.
fn ics_like() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"BEGIN:VCALENDAR".to_vec()),
        Just(b"END:VCALENDAR".to_vec()),
        Just(b"BEGIN:VEVENT".to_vec()),
        Just(b"END:VEVENT".to_vec()),
        Just(b"BEGIN:VALARM".to_vec()),
        Just(b"END:VALARM".to_vec()),
        Just(b"SUMMARY;LANGUAGE=en:a\\, b\\nc".to_vec()),
        Just(b"DTSTART;TZID=\"Europe/Paris\":20240101T100000".to_vec()),
        Just(b"X-ALT-DESC;FMTTYPE=text/html:<p>".to_vec()),
        Just(b"SEQUENCE:1".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\r\n ".to_vec()),
        Just(b"\n\t".to_vec()),
        Just(b"\xEF\xBB\xBF".to_vec()),
        Just(b"\xC3".to_vec()),
        Just(b";\":,^n\\".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..20),
        "[ -~é€😀]{0,90}".prop_map(String::into_bytes),
    ];
    proptest::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

fn template_like() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("${".to_owned()),
        Just("}".to_owned()),
        Just("$".to_owned()),
        Just("|re:s/".to_owned()),
        Just("/".to_owned()),
        Just("\\".to_owned()),
        Just("SUMMARY".to_owned()),
        Just("DTSTART".to_owned()),
        Just("$1$&$9".to_owned()),
        Just("(a|b)*".to_owned()),
        Just("gimsU".to_owned()),
        "[ -~é]{0,8}",
    ];
    proptest::collection::vec(piece, 0..16).prop_map(|pieces| pieces.concat())
}

fn unfold(bytes: &[u8]) -> String {
    let text = String::from_utf8(bytes.to_vec()).expect("folding keeps UTF-8 whole");
    text.replace("\r\n ", "")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn escape_then_unescape_gives_the_text_back(s in "\\PC*") {
        let normalised = s.replace("\r\n", "\n").replace('\r', "\n");
        let escaped = escape_text(&s);
        prop_assert_eq!(unescape_text(&escaped), normalised);
    }

    #[test]
    fn fold_then_unfold_gives_the_line_back(s in "[^\r\n]{0,400}") {
        let mut out = Vec::new();
        write_folded(&mut out, s.as_bytes());
        prop_assert!(out.ends_with(b"\r\n"));
        for line in out.split_inclusive(|&b| b == b'\n') {
            prop_assert!(line.len() <= 77, "line of {} octets", line.len() - 2);
            prop_assert!(std::str::from_utf8(line).is_ok());
        }
        prop_assert_eq!(unfold(&out[..out.len() - 2]), s);
    }

    #[test]
    fn escaped_text_never_folds_inside_an_escape(s in "[a-z,;\\\\\n é]{0,300}") {
        let line = format!("DESCRIPTION:{}", escape_text(&s));
        let mut out = Vec::new();
        write_folded(&mut out, line.as_bytes());
        let text = String::from_utf8(out).expect("utf-8");
        for l in text.split_terminator("\r\n") {
            let trailing = l.chars().rev().take_while(|&c| c == '\\').count();
            prop_assert!(trailing % 2 == 0, "escape split at {:?}", l);
        }
        let (doc, _) = parse(format!("BEGIN:VEVENT\r\n{text}END:VEVENT\r\n").as_bytes(), &Limits::default()).expect("parses");
        let got = doc.event(0).and_then(|e| e.get("DESCRIPTION")).unwrap_or_default();
        prop_assert_eq!(got, s);
    }

    #[test]
    fn any_template_compiles_and_renders_without_panicking(src in template_like(), value in "\\PC{0,40}") {
        let (template, _errors) = Template::compile_lenient(&src);
        let mut fields = HashMap::new();
        fields.insert("SUMMARY".to_owned(), value.clone());
        fields.insert("DTSTART".to_owned(), value);
        let rendered = template.render(&fields);
        prop_assert_eq!(rendered.trim(), rendered.as_str());
    }

    #[test]
    fn any_input_parses_or_fails_cleanly(input in ics_like()) {
        let _ = parse(&input, &Limits::default());
    }

    #[test]
    fn any_input_remaps_to_well_formed_lines(input in ics_like(), summary in template_like()) {
        let mut mapping = Mapping::default();
        mapping.set(MappedField::Summary, summary);
        mapping.set(MappedField::Dtstart, "${DTSTART|re:s/T.*//}");
        let (compiled, _) = CompiledMapping::compile_lenient(&mapping);
        if let Ok(out) = remap(&input, &CompiledConfig::from(compiled), &RemapOptions { sequence_offset: 1, ..RemapOptions::default() }, &Limits::default()) {
            for line in out.bytes.split_inclusive(|&b| b == b'\n') {
                prop_assert!(line.ends_with(b"\r\n"));
                prop_assert!(line.len() <= 77);
            }
            let again = parse(&out.bytes, &Limits::default());
            prop_assert!(again.is_ok() || out.bytes.is_empty());
        }
    }

    #[test]
    fn default_mapping_output_parses_to_the_same_tree(input in ics_like()) {
        let Ok((before, _)) = parse(&input, &Limits::default()) else { return Ok(()) };
        let out = remap(&input, &CompiledConfig::default(), &RemapOptions::default(), &Limits::default()).expect("parsed input remaps");
        let (after, _) = parse(&out.bytes, &Limits::default()).expect("output parses");
        prop_assert_eq!(after.without_line_numbers(), before.without_line_numbers());
    }
}
