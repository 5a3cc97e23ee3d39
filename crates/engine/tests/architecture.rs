//! The engine's house plan, guarded by reading its sources: its modules (ics, template, mapping,
//! config, remap, tz, interrupt) import each other without a cycle, so do the files of each
//! module, production code names the module it takes a thing from (not the crate root's
//! re-export, which would hide the edge), and no production file passes 600 lines.
//!
//! Production code is what comes before a file's `#[cfg(test)]`; `tests.rs` files do not count.
//! Tests may drive the engine from its top (a time-zone test runs a whole remap).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The most lines a production file may have: past it a file does more than one job.
const MAX_PRODUCTION_LINES: usize = 600;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
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

/// Whether a file holds only tests (`tests.rs`, or anything under a `tests/` folder).
fn is_test_file(relative: &Path) -> bool {
    relative
        .iter()
        .any(|part| part == "tests" || part == "tests.rs")
}

/// The production part of a source: the lines before its first `#[cfg(test)]`.
fn production(text: &str) -> Vec<&str> {
    text.lines()
        .take_while(|line| !line.starts_with("#[cfg(test)]"))
        .collect()
}

/// A production file of the engine: its module path from the crate root (`remap/writing.rs`
/// is `["remap", "writing"]`, `remap/mod.rs` is `["remap"]`) and its code without comment lines.
struct Source {
    relative: PathBuf,
    module: Vec<String>,
    code: String,
}

fn sources() -> Vec<Source> {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut out = Vec::new();
    for path in files {
        let relative = path.strip_prefix(&root).expect("under src").to_owned();
        if is_test_file(&relative) || relative == Path::new("lib.rs") {
            continue;
        }
        let mut module: Vec<String> = relative
            .iter()
            .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
            .collect();
        if module.last().is_some_and(|m| m == "mod") {
            module.pop();
        }
        let text = std::fs::read_to_string(&path).expect("source");
        // Doc links and comments name paths without importing them.
        let code = production(&text)
            .into_iter()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        out.push(Source {
            relative,
            module,
            code,
        });
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths of a use tree or path expression starting at `at` (`super::{a, b::{c, self}}`
/// gives `super::a`, `super::b::c`, `super::b`), as their segments.
fn paths_at(code: &str, at: usize) -> Vec<Vec<String>> {
    fn tree(chars: &[char], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let mut path = prefix.to_vec();
        loop {
            while *i < chars.len() && chars[*i].is_whitespace() {
                *i += 1;
            }
            if chars.get(*i) == Some(&'{') {
                *i += 1;
                loop {
                    tree(chars, i, &path, out);
                    while *i < chars.len() && chars[*i].is_whitespace() {
                        *i += 1;
                    }
                    match chars.get(*i) {
                        Some(',') => *i += 1,
                        Some('}') => {
                            *i += 1;
                            return;
                        }
                        _ => return,
                    }
                    while *i < chars.len() && chars[*i].is_whitespace() {
                        *i += 1;
                    }
                    if chars.get(*i) == Some(&'}') {
                        *i += 1;
                        return;
                    }
                }
            }
            let start = *i;
            while *i < chars.len() && is_ident(chars[*i]) {
                *i += 1;
            }
            let segment: String = chars[start..*i].iter().collect();
            if segment.is_empty() {
                break;
            }
            if segment != "self" || path.is_empty() {
                path.push(segment);
            }
            if chars.get(*i) == Some(&':') && chars.get(*i + 1) == Some(&':') {
                *i += 2;
            } else {
                break;
            }
        }
        out.push(path);
    }
    let chars: Vec<char> = code[at..].chars().take(2000).collect();
    let mut out = Vec::new();
    tree(&chars, &mut 0, &[], &mut out);
    out
}

/// Where the paths of a source lead, from the crate root: `crate::`, `super::` and `self::`
/// paths, and paths through the file's own child modules (`writer::Writer` in `remap/mod.rs`).
fn imports(source: &Source, children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let code = &source.code;
    let mut found = Vec::new();
    let starts_path = |at: usize| {
        !code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| is_ident(c) || c == ':')
    };
    let mut starts: Vec<usize> = Vec::new();
    for keyword in ["crate::", "super::", "self::"] {
        starts.extend(code.match_indices(keyword).map(|(at, _)| at));
    }
    for child in children {
        starts.extend(code.match_indices(&format!("{child}::")).map(|(at, _)| at));
    }
    for at in starts.into_iter().filter(|&at| starts_path(at)) {
        for path in paths_at(code, at) {
            let mut resolved: Vec<String> = Vec::new();
            let mut segments = path.iter().peekable();
            match segments.peek().map(|s| s.as_str()) {
                Some("crate") => {
                    segments.next();
                }
                Some("super") => {
                    resolved.clone_from(&source.module);
                    while segments.peek().is_some_and(|s| *s == "super") {
                        segments.next();
                        resolved.pop();
                    }
                }
                Some("self") => {
                    segments.next();
                    resolved.clone_from(&source.module);
                }
                _ => resolved.clone_from(&source.module),
            }
            resolved.extend(segments.cloned());
            found.push(resolved);
        }
    }
    found
}

/// The child modules of a module: the files and folders beside its `mod.rs` (or in the folder
/// named like its file), tests left out.
fn children_of(module: &[String]) -> BTreeSet<String> {
    let dir = module.iter().fold(src(), |path, m| path.join(m));
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return BTreeSet::new();
    };
    entries
        .map(|e| e.expect("entry").path())
        .filter_map(|p| {
            let name = p.file_name()?.to_string_lossy().into_owned();
            let name = name.strip_suffix(".rs").unwrap_or(&name).to_owned();
            (name != "mod" && name != "tests" && (p.is_dir() || p.extension()? == "rs"))
                .then_some(name)
        })
        .collect()
}

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The module graph of the engine's top-level modules, one graph per module of its parts (the
/// part `mod` is the module's `mod.rs`, and what it defines or re-exports), and the places that
/// name a crate-root re-export.
fn graphs() -> (Graph, BTreeMap<String, Graph>, Vec<String>) {
    let modules = children_of(&[]);
    let mut top: Graph = modules
        .iter()
        .filter(|m| *m != "lib")
        .map(|m| (m.clone(), BTreeSet::new()))
        .collect();
    let mut parts: BTreeMap<String, Graph> = BTreeMap::new();
    let mut through_root = Vec::new();
    for source in sources() {
        let own = source.module[0].clone();
        let module_parts = children_of(&source.module[..1]);
        let part_of = |path: &[String]| match path.get(1) {
            Some(p) if module_parts.contains(p) => p.clone(),
            _ => "mod".to_owned(),
        };
        let from_part = part_of(&source.module);
        if !module_parts.is_empty() {
            let graph = parts.entry(own.clone()).or_default();
            graph.entry(from_part.clone()).or_default();
        }
        for path in imports(&source, &children_of(&source.module)) {
            let Some(first) = path.first() else {
                continue;
            };
            if !top.contains_key(first) {
                through_root.push(format!(
                    "{} names `crate::{first}`: name the module it comes from",
                    source.relative.display()
                ));
                continue;
            }
            if *first != own {
                top.entry(own.clone()).or_default().insert(first.clone());
            } else if !module_parts.is_empty() {
                let to_part = part_of(&path);
                if to_part != from_part {
                    let graph = parts.entry(own.clone()).or_default();
                    graph.entry(from_part.clone()).or_default().insert(to_part);
                }
            }
        }
    }
    (top, parts, through_root)
}

/// A cycle in `graph`, as the nodes along it, if it has one (depth-first search with colours:
/// a neighbour still on the current path closes a cycle).
fn cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &Graph,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|p| p == node) {
            let mut cycle = path[start..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, done, path) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut done, &mut Vec::new()))
}

#[test]
fn the_engines_modules_import_each_other_without_cycles() {
    let (top, _, _) = graphs();
    assert!(
        top.len() >= 7,
        "expected ics, template, mapping, config, remap, tz and interrupt: {top:?}"
    );
    assert!(
        top["remap"].contains("ics"),
        "the reader should see remap import ics: {top:?}"
    );
    if let Some(cycle) = cycle(&top) {
        panic!(
            "the engine's modules import each other in a cycle: {}",
            cycle.join(" → ")
        );
    }
}

#[test]
fn the_parts_of_each_module_import_each_other_without_cycles() {
    let (_, parts, _) = graphs();
    assert!(
        parts.get("remap").is_some_and(|g| g.len() >= 5),
        "the reader should see remap's parts: {parts:?}"
    );
    let mut problems = Vec::new();
    for (module, graph) in &parts {
        if let Some(cycle) = cycle(graph) {
            problems.push(format!("{module}: {}", cycle.join(" → ")));
        }
    }
    assert!(
        problems.is_empty(),
        "the parts of a module import each other in a cycle (put what both need below both; \
         `mod` is the module's mod.rs):\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn production_code_names_modules_not_the_crate_roots_re_exports() {
    let (_, _, through_root) = graphs();
    assert!(
        through_root.is_empty(),
        "a path through the crate root hides which module is imported:\n  {}",
        through_root.join("\n  ")
    );
}

#[test]
fn no_production_file_passes_600_lines() {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut long = Vec::new();
    for path in &files {
        let relative = path.strip_prefix(&root).expect("under src");
        if is_test_file(relative) {
            continue;
        }
        let text = std::fs::read_to_string(path).expect("source");
        let lines = production(&text).len();
        if lines > MAX_PRODUCTION_LINES {
            long.push(format!("{} has {lines}", relative.display()));
        }
    }
    assert!(
        files.len() >= 20,
        "the reader should see the engine's files: {files:?}"
    );
    assert!(
        long.is_empty(),
        "production files over {MAX_PRODUCTION_LINES} lines (split them by job):\n  {}",
        long.join("\n  ")
    );
}

#[test]
fn the_reader_finds_use_trees_and_resolves_them() {
    let source = Source {
        relative: PathBuf::from("remap/survey.rs"),
        module: vec!["remap".to_owned(), "survey".to_owned()],
        code:
            "use super::event::{head_text, EvLine};\nuse super::{RemapError, request::{self, X}};\n\
               use crate::ics::{self, line_name};\nlet x = crate::tz::plan(&u);\n\
               use super::super::config;\nSelf::new(); itself::no();"
                .to_owned(),
    };
    let found = imports(&source, &BTreeSet::new());
    let found: BTreeSet<String> = found.into_iter().map(|p| p.join("::")).collect();
    let expected: BTreeSet<String> = [
        "remap::event::head_text",
        "remap::event::EvLine",
        "remap::RemapError",
        "remap::request",
        "remap::request::X",
        "ics",
        "ics::line_name",
        "tz::plan",
        "config",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(found, expected);
    let face = Source {
        relative: PathBuf::from("remap/mod.rs"),
        module: vec!["remap".to_owned()],
        code: "use writer::Writer;\npub use survey::{decide, Decision};\nlet w = tz::writer::x;"
            .to_owned(),
    };
    let children: BTreeSet<String> = ["writer", "survey"].map(str::to_owned).into();
    let found: BTreeSet<String> = imports(&face, &children)
        .into_iter()
        .map(|p| p.join("::"))
        .collect();
    let expected: BTreeSet<String> = [
        "remap::writer::Writer",
        "remap::survey::decide",
        "remap::survey::Decision",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(found, expected);
}
