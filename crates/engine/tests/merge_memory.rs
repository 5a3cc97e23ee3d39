//! Peak memory of a merge, counted by this test binary's own global allocator: the bytes held
//! at the worst moment of merging three feeds (what the scan keeps of each source, the output,
//! everything transient), against the three inputs' total. The merge keeps spans per component,
//! not per line, so the peak stays within 1.5× the inputs. `cargo test --release -p
//! hearth-engine --test merge_memory -- --nocapture` prints the figures (`make bench` does).

#[path = "../benches/feedgen/mod.rs"]
mod feedgen;

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use hearth_engine::{merge, Limits, MergeInput};

/// The most a three-feed merge may hold at once, as a multiple of its inputs' total.
const MAX_PEAK_OVER_INPUTS: f64 = 1.5;

/// The system allocator, counting the bytes held now and the most held since the last reset.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = HELD.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call is passed on to `System` unchanged; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is passed on as it is.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc` is passed on as it is.
        unsafe { System.dealloc(ptr, layout) };
        HELD.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract for `realloc` is passed on as it is.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                HELD.fetch_sub(layout.size() - new_size, Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Merges `feeds` with three prefixes; the merged size and the peak bytes held above what was
/// held before it started.
fn peak_of_merge(feeds: &[Vec<u8>]) -> (usize, usize) {
    let prefixes = ["[Work] ", "[Home] ", "[Club] "];
    let inputs: Vec<MergeInput<'_>> = feeds
        .iter()
        .zip(prefixes)
        .map(|(bytes, prefix)| MergeInput {
            bytes,
            prefix: Some(prefix),
        })
        .collect();
    let limits = Limits::default();
    let before = HELD.load(Relaxed);
    PEAK.store(before, Relaxed);
    let merged = merge(&inputs, &limits, None).expect("merges");
    let peak = PEAK.load(Relaxed) - before;
    (merged.bytes.len(), peak)
}

fn check(name: &str, feeds: &[Vec<u8>]) -> Result<(), String> {
    let total: usize = feeds.iter().map(Vec::len).sum();
    let (out, peak) = peak_of_merge(feeds);
    let ratio = peak as f64 / total as f64;
    println!(
        "merge peak memory, {name}: inputs {:.2} MB, output {:.2} MB, peak held {:.2} MB = {ratio:.2}x the inputs (at most {MAX_PEAK_OVER_INPUTS}x)",
        total as f64 / 1e6,
        out as f64 / 1e6,
        peak as f64 / 1e6,
    );
    if ratio > MAX_PEAK_OVER_INPUTS {
        return Err(format!(
            "{name}: a merge held {peak} bytes at its peak, {ratio:.2}x its inputs' {total}"
        ));
    }
    Ok(())
}

/// The three largest files of the shared corpus (beside the project, or HEARTH_ICS_CORPUS).
fn largest_corpus_files() -> Vec<Vec<u8>> {
    let dir = std::env::var_os("HEARTH_ICS_CORPUS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/ics-corpus/files"),
        PathBuf::from,
    );
    let mut files: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| std::fs::read(e.ok()?.path()).ok())
        .collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.len()));
    files.truncate(3);
    files
}

/// Three generated calendars of their own: one feed, its UIDs told apart per source.
fn generated_feeds(events: usize) -> Vec<Vec<u8>> {
    let feed = String::from_utf8(feedgen::feed(events)).expect("the generator writes UTF-8");
    ["a", "b", "c"]
        .iter()
        .map(|k| {
            feed.replace("UID:event-", &format!("UID:{k}-event-"))
                .into_bytes()
        })
        .collect()
}

/// One test, so that no other test of this binary allocates beside the merges it counts.
#[test]
fn a_three_feed_merge_holds_at_most_one_and_a_half_times_its_inputs() {
    let corpus = largest_corpus_files();
    assert_eq!(corpus.len(), 3, "the shared corpus has three files");
    let generated = generated_feeds(2_000);
    let failures: Vec<String> = [
        check("three largest corpus files", &corpus),
        check("three generated feeds of 2,000 events", &generated),
    ]
    .into_iter()
    .filter_map(Result::err)
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
