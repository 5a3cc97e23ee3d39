//! Criterion benchmarks of the calendar engine on generated feeds: parse, default remap, a
//! realistic mapping (SUMMARY with LOCATION, a capture-group regex on DESCRIPTION), and a
//! realistic config (that mapping plus three filters), also with time-zone repair on, beside the
//! peer (the `ical` crate's parser and writer on the same feed); merges of three feeds (the three
//! largest files of the shared corpus, and three generated feeds); and last the ratios
//! "engine / ical", both timed in turn in this one process.

mod feedgen;
mod peer;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use hearth_engine::{
    decide, merge, parse, remap, CalendarConfig, CompiledConfig, CompiledMapping, Limits,
    MappedField, Mapping, MergeInput, RemapOptions,
};

/// The issue's realistic mapping, as `bench/remap.sh` has it too: SUMMARY with LOCATION, and
/// every link in DESCRIPTION shown as its host (a capture group).
fn realistic_mapping() -> Mapping {
    let mut m = Mapping::default();
    m.set(MappedField::Summary, "${SUMMARY} @ ${LOCATION}");
    m.set(
        MappedField::Description,
        r"${DESCRIPTION|re:s/https?:\/\/([^\/\s]+)\S*/[$1]/g}",
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
        group.bench_function("peer_ical_parse_write", |b| {
            b.iter(|| peer::ical_parse_write(&input).expect("ical reads the feed"))
        });
        group.bench_function("peer_ical_stream", |b| {
            b.iter(|| peer::ical_stream(&input).expect("ical reads the feed"))
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

/// The three largest files of the shared corpus (beside the project, or HEARTH_ICS_CORPUS).
fn largest_corpus_files() -> Vec<Vec<u8>> {
    let dir = std::env::var_os("HEARTH_ICS_CORPUS").map_or_else(
        || {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../../shared/ics-corpus/files")
        },
        std::path::PathBuf::from,
    );
    let mut files: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .expect("the shared corpus")
        .filter_map(|e| std::fs::read(e.ok()?.path()).ok())
        .collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.len()));
    files.truncate(3);
    files
}

fn merging(c: &mut Criterion) {
    let limits = Limits::default();
    let prefixes = ["[Work] ", "[Home] ", "[Club] "];
    let sets = [
        ("3_corpus_feeds", largest_corpus_files()),
        (
            "3_generated_5k",
            (0..3).map(|_| feedgen::feed(5_000)).collect(),
        ),
    ];
    let mut group = c.benchmark_group("merge");
    group.sample_size(10);
    for (name, feeds) in &sets {
        let inputs: Vec<MergeInput<'_>> = feeds
            .iter()
            .zip(prefixes)
            .map(|(bytes, prefix)| MergeInput {
                bytes,
                prefix: Some(prefix),
            })
            .collect();
        let total: usize = feeds.iter().map(Vec::len).sum();
        group.throughput(Throughput::Bytes(total as u64));
        group.bench_function(*name, |b| {
            b.iter(|| merge(&inputs, &limits, None).expect("merges"))
        });
    }
    group.finish();
}

/// Best time of `f` over `rounds` rounds, each round timing every function once in turn, so the
/// engine and its peer meet the same load on a shared machine.
fn best_in_turn(rounds: usize, fs: &mut [&mut dyn FnMut()]) -> Vec<Duration> {
    let mut best = vec![Duration::MAX; fs.len()];
    for _ in 0..rounds {
        for (f, b) in fs.iter_mut().zip(&mut best) {
            let t0 = Instant::now();
            f();
            *b = (*b).min(t0.elapsed());
        }
    }
    best
}

/// "engine / ical: 6.4×": the default and the realistic remap against the faster of the peer's
/// two ways (tree or stream) on the same 10,000-event feed, the best of 7 rounds taken in turn.
fn ratios(_: &mut Criterion) {
    let limits = Limits::default();
    let options = RemapOptions::default();
    let default = CompiledConfig::default();
    let real = realistic();
    let input = feedgen::feed(10_000);
    let times = best_in_turn(
        7,
        &mut [
            &mut || {
                drop(black_box(
                    peer::ical_parse_write(&input).expect("ical reads"),
                ))
            },
            &mut || drop(black_box(peer::ical_stream(&input).expect("ical reads"))),
            &mut || {
                drop(black_box(
                    remap(&input, &default, &options, &limits).expect("remaps"),
                ))
            },
            &mut || {
                drop(black_box(
                    remap(&input, &real, &options, &limits).expect("remaps"),
                ))
            },
        ],
    );
    let [tree_t, stream_t, default_t, real_t] = times[..] else {
        unreachable!("four timings")
    };
    let peer_t = tree_t.min(stream_t);
    let mbs = |t: Duration| input.len() as f64 / 1e6 / t.as_secs_f64();
    println!(
        "ratios, 10,000 events ({:.1} MB), best of 7 in turn: ical tree {:.0} MB/s, ical stream {:.0} MB/s",
        input.len() as f64 / 1e6,
        mbs(tree_t),
        mbs(stream_t)
    );
    for (name, t) in [("default", default_t), ("realistic", real_t)] {
        println!(
            "  {name:<9} remap {:>5.0} MB/s   engine / ical: {:.1}×",
            mbs(t),
            peer_t.as_secs_f64() / t.as_secs_f64()
        );
    }
}

criterion_group!(benches, engine, merging, ratios);
criterion_main!(benches);
