//! What the fuzz targets (`fuzz/`, `make fuzz`) found, each as the minimized input that failed,
//! and the committed seeds of the `remap` target checked against the engine's own schema: a
//! seed whose config no longer reads would leave the fuzzer stuck at JSON errors.

use std::path::PathBuf;

use hearth_engine::{CalendarConfig, CompiledConfig, Occurrences, Privacy};

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
