//! Criterion benchmarks of the calendar engine on generated feeds: parse, default remap, a
//! realistic mapping (SUMMARY with LOCATION, a global regex on DESCRIPTION), and a realistic
//! config (that mapping plus three filters), also with time-zone repair on.

mod feedgen;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use hearth_engine::{
    decide, parse, remap, CalendarConfig, CompiledConfig, CompiledMapping, Limits, MappedField,
    Mapping, RemapOptions,
};

fn realistic_mapping() -> Mapping {
    let mut m = Mapping::default();
    m.set(MappedField::Summary, "${SUMMARY} @ ${LOCATION}");
    m.set(
        MappedField::Description,
        r"${DESCRIPTION|re:s/https?:\/\/\S+/<link>/g}",
    );
    m
}

fn realistic() -> CompiledConfig {
    CompiledMapping::compile(&realistic_mapping())
        .expect("the benchmark mapping compiles")
        .into()
}

/// The realistic mapping plus three filters of the kinds owners use most; `timezones` is
/// `keep` or `repair`.
fn realistic_config(timezones: &str) -> CompiledConfig {
    let json = r#"{"mapping": {}, "timezones": "TIMEZONES", "filters": [
            {"action": "exclude", "field": "SUMMARY", "pattern": "^(canceled|retro)\\b", "flags": "i"},
            {"action": "exclude", "weekdays": ["SA", "SU"]},
            {"action": "exclude", "status": "CANCELLED"}]}"#
        .replace("TIMEZONES", timezones);
    let mut config: CalendarConfig =
        serde_json::from_str(&json).expect("the benchmark config reads");
    config.mapping = realistic_mapping();
    CompiledConfig::compile(&config).expect("the benchmark config compiles")
}

fn engine(c: &mut Criterion) {
    let limits = Limits::default();
    let options = RemapOptions::default();
    let default = CompiledConfig::default();
    let real = realistic();
    let config = realistic_config("keep");
    let repair = realistic_config("repair");
    for events in [1_000usize, 10_000] {
        let input = feedgen::feed(events);
        let mut group = c.benchmark_group(format!("{events}_events"));
        group.throughput(Throughput::Bytes(input.len() as u64));
        group.sample_size(if events > 1_000 { 10 } else { 30 });
        group.bench_function("parse_tree", |b| {
            b.iter(|| parse(&input, &limits).expect("parses"))
        });
        group.bench_function("remap_default", |b| {
            b.iter(|| remap(&input, &default, &options, &limits).expect("remaps"))
        });
        group.bench_function("remap_realistic", |b| {
            b.iter(|| remap(&input, &real, &options, &limits).expect("remaps"))
        });
        group.bench_function("remap_config", |b| {
            b.iter(|| remap(&input, &config, &options, &limits).expect("remaps"))
        });
        group.bench_function("remap_config_repair", |b| {
            b.iter(|| remap(&input, &repair, &options, &limits).expect("remaps"))
        });
        // The first pass alone, as the editor's preview runs it.
        group.bench_function("decide_config", |b| {
            b.iter(|| decide(&input, &config, &options, &limits).expect("decides"))
        });
        group.finish();
    }
}

criterion_group!(benches, engine);
criterion_main!(benches);
