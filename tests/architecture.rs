//! The house plan, guarded: ARCHITECTURE.md's table says which modules of the server each
//! module imports. This reads the table and the sources and fails when a module imports one it
//! does not list (or no longer imports one it lists), when a module has no row, or when the
//! imports between modules form a cycle. It also holds every production file to 600 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module name to the modules its row says it imports.
fn declared() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut table = BTreeMap::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // | module | what it is for | imports |
        if cells.len() != 5 || !cells[1].starts_with('`') {
            continue;
        }
        let imports: BTreeSet<String> = backticked(cells[3])
            .into_iter()
            .filter(|name| !name.contains('/') && !name.contains('.'))
            .collect();
        for name in backticked(cells[1]) {
            let module = name
                .trim_end_matches('/')
                .trim_end_matches(".rs")
                .to_owned();
            if !module.contains('/') && !module.is_empty() {
                table.insert(module, imports.clone());
            }
        }
    }
    table
}

/// The words written in backticks in a table cell.
fn backticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

fn rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .expect("read_dir")
            .map(|e| e.expect("entry").path())
            .collect();
        entries.sort();
        for entry in entries {
            rust_files(&entry, out);
        }
    } else if path.extension().is_some_and(|e| e == "rs") {
        out.push(path.to_owned());
    }
}

/// Module name to the server modules its sources name (`crate::x`).
fn actual() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph = BTreeMap::new();
    for entry in std::fs::read_dir(&src).expect("src") {
        let path = entry.expect("entry").path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if stem == "lib" || stem == "main" {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&path, &mut files);
        let mut used = BTreeSet::new();
        for file in files {
            let text = std::fs::read_to_string(&file).expect("source");
            for (at, _) in text.match_indices("crate::") {
                let rest = &text[at + "crate::".len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() && name != stem {
                    used.insert(name);
                }
            }
        }
        graph.insert(stem.to_owned(), used);
    }
    graph
}

#[test]
fn every_module_imports_exactly_what_its_row_says() {
    let declared = declared();
    let actual = actual();
    let mut problems = Vec::new();
    for (module, uses) in &actual {
        let Some(listed) = declared.get(module) else {
            problems.push(format!("`{module}` has no row in ARCHITECTURE.md"));
            continue;
        };
        for extra in uses.difference(listed) {
            problems.push(format!(
                "`{module}` imports `{extra}`, which its row does not list"
            ));
        }
        for gone in listed.difference(uses) {
            problems.push(format!(
                "`{module}`'s row lists `{gone}`, which it no longer imports"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "ARCHITECTURE.md and the code disagree:\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn the_modules_import_each_other_without_cycles() {
    let graph = actual();
    // Depth-first search with colours: grey is on the current path, a grey neighbour a cycle.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(node) {
            Some(1) => {
                let start = path.iter().position(|p| p == node).unwrap_or(0);
                let mut cycle = path[start..].to_vec();
                cycle.push(node.to_owned());
                return Some(cycle);
            }
            Some(2) => return None,
            _ => {}
        }
        state.insert(node.to_owned(), 1);
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if graph.contains_key(next) {
                if let Some(cycle) = visit(next, graph, state, path) {
                    return Some(cycle);
                }
            }
        }
        path.pop();
        state.insert(node.to_owned(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        let mut path = Vec::new();
        if let Some(cycle) = visit(node, &graph, &mut state, &mut path) {
            panic!(
                "the modules import each other in a cycle: {}",
                cycle.join(" → ")
            );
        }
    }
}

/// The identifier `text` starts with.
fn leading_name(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// For each module that is a folder, its files (but `mod.rs`, the face that declares them) and
/// the sibling files each names through `super::`.
fn sibling_graphs() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules = BTreeMap::new();
    for entry in std::fs::read_dir(&src).expect("src") {
        let dir = entry.expect("entry").path();
        if !dir.is_dir() {
            continue;
        }
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        let mut files = BTreeMap::new();
        for file in std::fs::read_dir(&dir).expect("module dir") {
            let path = file.expect("entry").path();
            let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            if stem == "mod" || path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            files.insert(stem.to_owned(), path.clone());
        }
        let mut graph = BTreeMap::new();
        for (stem, path) in &files {
            let text = std::fs::read_to_string(path).expect("source");
            // Only production code: a file's tests may use anything.
            let production = text.split("#[cfg(test)]").next().unwrap_or_default();
            let mut uses = BTreeSet::new();
            for (at, _) in production.match_indices("super::") {
                let rest = &production[at + "super::".len()..];
                // `super::name…`, or `super::{a, b::c}` naming several.
                let names: Vec<String> = match rest.strip_prefix('{') {
                    Some(group) => group
                        .split('}')
                        .next()
                        .unwrap_or_default()
                        .split(',')
                        .map(|item| leading_name(item.trim()))
                        .collect(),
                    None => vec![leading_name(rest)],
                };
                for next in names {
                    if files.contains_key(&next) && &next != stem {
                        uses.insert(next);
                    }
                }
            }
            graph.insert(stem.clone(), uses);
        }
        modules.insert(name, graph);
    }
    modules
}

#[test]
fn the_files_of_one_module_import_each_other_without_cycles() {
    for (module, graph) in sibling_graphs() {
        let mut done = BTreeSet::new();
        for start in graph.keys() {
            // Iterative search for a path from a file back to itself.
            let mut stack = vec![(start.clone(), vec![start.clone()])];
            while let Some((node, path)) = stack.pop() {
                for next in graph.get(&node).into_iter().flatten() {
                    if next == start {
                        panic!(
                            "the files of `{module}` import each other in a cycle: {} → {start}",
                            path.join(" → ")
                        );
                    }
                    if !path.contains(next) && !done.contains(next) {
                        let mut longer = path.clone();
                        longer.push(next.clone());
                        stack.push((next.clone(), longer));
                    }
                }
            }
            done.insert(start.clone());
        }
    }
}

/// The most lines a production file (the lines before its `#[cfg(test)]`) may have: past it a
/// file does more than one job. The engine's test (`crates/engine/tests/architecture.rs`)
/// holds its files to the same.
const MAX_PRODUCTION_LINES: usize = 600;

#[test]
fn no_production_file_passes_600_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut long = Vec::new();
    for path in &files {
        let relative = path.strip_prefix(&src).expect("under src");
        let name = relative.to_string_lossy().replace('\\', "/");
        let tests_only = relative
            .iter()
            .any(|part| part == "tests" || part == "tests.rs");
        if tests_only {
            continue;
        }
        let text = std::fs::read_to_string(path).expect("source");
        let lines = text
            .lines()
            .take_while(|line| !line.starts_with("#[cfg(test)]"))
            .count();
        if lines > MAX_PRODUCTION_LINES {
            long.push(format!("src/{name} has {lines}"));
        }
    }
    assert!(
        files.len() >= 20,
        "the reader should see the server's files"
    );
    assert!(
        long.is_empty(),
        "production files over {MAX_PRODUCTION_LINES} lines (split them by job):\n  {}",
        long.join("\n  ")
    );
}
