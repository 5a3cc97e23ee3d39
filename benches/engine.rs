//! Criterion benchmarks of the calendar engine on generated feeds: parse, default remap and a
//! realistic mapping (SUMMARY with LOCATION, a global regex on DESCRIPTION).

mod feedgen;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use hearth::calendar::{
    parse, remap, CompiledConfig, CompiledMapping, Limits, MappedField, Mapping, RemapOptions,
};

fn realistic() -> CompiledConfig {
    let mut m = Mapping::default();
    m.set(MappedField::Summary, "${SUMMARY} @ ${LOCATION}");
    m.set(
        MappedField::Description,
        r"${DESCRIPTION|re:s/https?:\/\/\S+/<link>/g}",
    );
    CompiledMapping::compile(&m)
        .expect("the benchmark mapping compiles")
        .into()
}

fn engine(c: &mut Criterion) {
    let limits = Limits::default();
    let options = RemapOptions::default();
    let default = CompiledConfig::default();
    let real = realistic();
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
        group.finish();
    }
}

criterion_group!(benches, engine);
criterion_main!(benches);
