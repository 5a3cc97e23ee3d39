//! What the fuzz targets (`fuzz/`, `make fuzz`) found, each as the minimized input that failed,
//! and the committed seeds of the `remap` target checked against the engine's own schema: a
//! seed whose config no longer reads would leave the fuzzer stuck at JSON errors.

use std::path::PathBuf;

use hearth_engine::{
    merge, parse, remap, CalendarConfig, CompiledConfig, Limits, MergeInput, Occurrences, Privacy,
    RemapError, RemapOptions,
};

fn seeds(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/seeds")
        .join(target);
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path = e.expect("entry").path();
            let name = path
                .file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned();
            (name, std::fs::read(&path).expect("seed reads"))
        })
        .collect();
    files.sort();
    files
}

#[test]
fn every_remap_seed_config_compiles_and_together_they_reach_every_option() {
    let mut configs = Vec::new();
    for (name, bytes) in seeds("remap") {
        let json = bytes.split(|&b| b == 0).next().expect("a first part");
        let config: CalendarConfig =
            serde_json::from_slice(json).unwrap_or_else(|e| panic!("{name}: {e}"));
        CompiledConfig::compile(&config).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(bytes.contains(&0), "{name} has no feed");
        configs.push(config);
    }
    assert!(configs.iter().any(|c| !c.filters.is_empty()));
    assert!(configs.iter().any(|c| c.window.is_some()));
    assert!(configs.iter().any(|c| c.occurrences == Occurrences::Each));
    assert!(configs.iter().any(|c| !c.overrides.is_empty()));
    assert!(configs.iter().any(|c| c.history.is_some()));
    assert!(configs.iter().any(|c| c.privacy != Privacy::default()));
    assert!(configs.iter().any(|c| !c.sources.is_empty()));
    assert!(configs.iter().any(|c| !c.properties.is_empty()));
}

/// `merge` found (fuzz/artifacts/merge/crash-e9918198…, minimized to 16 `BEGIN:` lines): a
/// source of bare components (no VCALENDAR, which the parser accepts) nested to the depth limit
/// merges into a feed one level deeper, as the merge wraps them in its own VCALENDAR. That is the
/// depth limit answering, not a crash: the remap of the merged feed stops with the depth error,
/// as for any feed past a limit, and the feed reads back within one more level.
#[test]
fn a_bare_source_at_the_depth_limit_merges_one_level_deeper_and_the_remap_answers_with_the_limit() {
    let limits = Limits::default();
    let source = "BEGIN:X\r\n".repeat(limits.max_depth);
    parse(source.as_bytes(), &limits).expect("the source is within the limit");
    let input = MergeInput {
        bytes: source.as_bytes(),
        prefix: None,
    };
    let merged = merge(&[input], &limits, None).expect("the source merges");
    let one_more = Limits {
        max_depth: limits.max_depth + 1,
        ..Limits::default()
    };
    parse(&merged.bytes, &one_more).expect("the merged feed reads within one more level");
    let error = remap(
        &merged.bytes,
        &CompiledConfig::default(),
        &RemapOptions::default(),
        &limits,
    )
    .expect_err("the merged feed is past the depth limit");
    assert!(
        matches!(&error, RemapError::Parse(e) if e.to_string().contains("nest deeper")),
        "{error}"
    );
}
