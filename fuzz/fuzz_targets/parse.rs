//! Fuzzes the ICS parser and the writer: any bytes must parse or fail with a typed error, and a
//! feed that parses must remap to CRLF lines of at most 75 octets that parse back to the same tree.
#![no_main]

use hearth_engine::{parse, remap, CompiledConfig, Limits, RemapOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_input_bytes: 1 << 20,
        ..Limits::default()
    };
    let Ok((before, _)) = parse(data, &limits) else {
        return;
    };
    let _ = before.calendar_properties();
    for ev in before.events() {
        let _ = ev.to_map();
    }
    let out = remap(
        data,
        &CompiledConfig::default(),
        &RemapOptions::default(),
        &limits,
    )
    .expect("an input that parses also remaps");
    for line in out.bytes.split_inclusive(|&b| b == b'\n') {
        assert!(
            line.ends_with(b"\r\n") && line.len() <= 77,
            "bad output line {line:?}"
        );
    }
    let (after, _) = parse(&out.bytes, &limits).expect("output parses");
    assert_eq!(
        strip(after),
        strip(before),
        "default mapping changed the tree"
    );
});

fn strip(doc: hearth_engine::Document) -> Vec<hearth_engine::Component> {
    fn clear(c: &mut hearth_engine::Component) {
        c.line = 0;
        for item in &mut c.items {
            match item {
                hearth_engine::Item::Property(p) => p.line = 0,
                hearth_engine::Item::Component(child) => clear(child),
            }
        }
    }
    let mut comps = doc.components;
    for c in &mut comps {
        clear(c);
    }
    comps
}
