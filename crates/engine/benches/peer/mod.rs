//! The engine's peer in its benchmarks: the `ical` crate (crates.io) reading a feed and writing
//! it back with its generator, the nearest thing in Rust to a remap. It has two ways, and the
//! faster one is the peer: its parser into calendars (a tree, as `ical::IcalParser` gives), or
//! its property parser streamed, each property written back as it comes (as the engine streams).

use ical::generator::Emitter;

/// Parses `input` with `ical`'s parser and writes every calendar back with its generator.
pub fn ical_parse_write(input: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = String::with_capacity(input.len() + input.len() / 8);
    for calendar in ical::IcalParser::new(input) {
        let calendar = calendar.map_err(|e| e.to_string())?;
        out.push_str(&calendar.generate());
    }
    Ok(out.into_bytes())
}

/// Streams `input` through `ical`'s property parser, writing each property (BEGIN and END lines
/// included) back with its generator.
pub fn ical_stream(input: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = String::with_capacity(input.len() + input.len() / 8);
    for property in ical::PropertyParser::from_reader(input) {
        let property = property.map_err(|e| e.to_string())?;
        out.push_str(&property.generate());
    }
    Ok(out.into_bytes())
}
