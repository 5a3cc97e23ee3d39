//! Merging against the real-world corpus and hand-made conflicting feeds (`tests/merge/`): every
//! merge reads back with each event once per UID across sources, its events counted and traced
//! to their source. With HEARTH_MERGE_OUT set, each merge's inputs and output are listed there
//! for tests/equiv/merge.py, which checks them with python icalendar and recurring-ical-events.

use std::path::{Path, PathBuf};

use hearth_engine::{merge, parse, Limits, MergeInput};

fn corpus_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("HEARTH_ICS_CORPUS") {
        return PathBuf::from(dir);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/ics-corpus/files")
}

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/merge")
}

fn ics_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ics"))
        .collect();
    files.sort();
    files
}

/// Merges `paths` with prefixes `[1] `, `[2] `, …; checks what any merge must hold, and lists
/// it in `manifest` when the equivalence check asked for the outputs.
fn merge_and_check(paths: &[PathBuf], out: Option<(&Path, &mut String)>, tag: &str) {
    let limits = Limits::default();
    let bodies: Vec<Vec<u8>> = paths
        .iter()
        .map(|p| std::fs::read(p).expect("reads"))
        .collect();
    let prefixes: Vec<String> = (1..=paths.len()).map(|i| format!("[{i}] ")).collect();
    let inputs: Vec<MergeInput<'_>> = bodies
        .iter()
        .zip(&prefixes)
        .map(|(b, p)| MergeInput {
            bytes: b,
            prefix: Some(p),
        })
        .collect();
    let Ok(merged) = merge(&inputs, &limits, None) else {
        // A file the parser refuses is refused as a source too (covered by unit tests).
        assert!(bodies.iter().any(|b| parse(b, &limits).is_err()), "{tag}");
        return;
    };
    let (doc, _) = parse(&merged.bytes, &limits).unwrap_or_else(|e| panic!("{tag}: {e}"));
    assert_eq!(doc.components.len(), 1, "{tag}: one VCALENDAR");
    let events = doc.event_count();
    let given: usize = merged.source_events.iter().sum();
    assert_eq!(events, given - merged.duplicates, "{tag}");
    assert_eq!(merged.origins.len(), events, "{tag}");
    // Each output event carries its source's prefix.
    for (event, origin) in doc.events().zip(&merged.origins) {
        let summary = event.get("SUMMARY").unwrap_or_default();
        let prefix = prefixes[usize::from(*origin)].trim_end();
        assert!(
            summary.starts_with(prefix),
            "{tag}: {summary:?} lacks {prefix:?}"
        );
    }
    if let Some((dir, manifest)) = out {
        let file = format!("{tag}.ics");
        std::fs::write(dir.join(&file), &merged.bytes).expect("writes");
        let inputs: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        manifest.push_str(&format!("{file}\t{}\n", inputs.join("\t")));
    }
}

#[test]
fn corpus_pairs_triples_and_conflicting_feeds_merge_into_one_calendar() {
    let corpus = ics_files(&corpus_dir());
    assert!(corpus.len() >= 70, "the 76-file corpus");
    let fixtures = ics_files(&fixtures_dir());
    let dump = std::env::var_os("HEARTH_MERGE_OUT").map(PathBuf::from);
    let mut manifest = String::new();
    let mut sets: Vec<(String, Vec<PathBuf>)> = Vec::new();
    for i in 0..corpus.len() {
        let next = &corpus[(i + 1) % corpus.len()];
        sets.push((format!("pair{i:02}"), vec![corpus[i].clone(), next.clone()]));
    }
    for i in (0..corpus.len()).step_by(7) {
        let set = (0..3)
            .map(|k| corpus[(i + k * 11) % corpus.len()].clone())
            .collect();
        sets.push((format!("triple{i:02}"), set));
    }
    // The hand-made conflicts in every order.
    for order in [[0, 1, 2], [2, 1, 0], [1, 0, 2], [1, 2, 0]] {
        let set = order.iter().map(|&k| fixtures[k].clone()).collect();
        sets.push((format!("conflict{}{}{}", order[0], order[1], order[2]), set));
    }
    // A feed merged with itself: every event once.
    sets.push((
        "self".into(),
        vec![fixtures[0].clone(), fixtures[0].clone()],
    ));
    for (tag, paths) in &sets {
        let out = dump.as_deref().map(|d| (d, &mut manifest));
        merge_and_check(paths, out, tag);
    }
    if let Some(dir) = dump {
        std::fs::write(dir.join("manifest.tsv"), manifest).expect("writes");
    }
}
