//! Fuzzes the merge of several feeds: the input's first byte chooses the options (which feeds
//! get a prefix, whether UIDs come from content first), then NUL-separated parts: the prefixes
//! (one per line) and 1 to 4 feeds. A merge answers with the merged feed or a typed error; the
//! merged feed parses, says where each of its events came from, and remaps.
#![no_main]

#[path = "common.rs"]
mod common;

use hearth_engine::{
    content_uids, merge, remap, CompiledConfig, MergeError, MergeInput, RemapOptions,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let parts = common::parts(rest);
    let Some((prefix_text, feeds)) = parts.split_first() else {
        return;
    };
    if feeds.is_empty() {
        return;
    }
    let feeds = &feeds[..feeds.len().min(4)];
    let limits = common::limits();
    let prefix_lines: Vec<&str> = std::str::from_utf8(prefix_text)
        .map(|t| t.split('\n').collect())
        .unwrap_or_default();

    // `"uids": "content"` runs over each source before the merge, as the server does.
    let mut owned: Vec<Vec<u8>> = Vec::with_capacity(feeds.len());
    for (i, feed) in feeds.iter().enumerate() {
        if control & 0x10 != 0 && !feed.is_empty() {
            match content_uids(
                feed,
                &format!("https://source{i}.test/feed.ics"),
                &limits,
                None,
            ) {
                Ok(bytes) => owned.push(bytes),
                Err(_) => return,
            }
        } else {
            owned.push(feed.to_vec());
        }
    }
    let inputs: Vec<MergeInput<'_>> = owned
        .iter()
        .enumerate()
        .map(|(i, bytes)| MergeInput {
            bytes,
            prefix: (control & (1 << i) != 0)
                .then(|| prefix_lines.get(i).copied())
                .flatten(),
        })
        .collect();
    let merged = match merge(&inputs, &limits, None) {
        Ok(m) => m,
        Err(MergeError::Source { .. } | MergeError::TooLarge { .. }) => return,
        Err(e) => panic!("unexpected merge error: {e}"),
    };

    assert_eq!(merged.source_events.len(), inputs.len());
    assert!(merged
        .origins
        .iter()
        .all(|&o| usize::from(o) < inputs.len()));
    let total: usize = merged.source_events.iter().sum();
    assert!(
        merged.origins.windows(2).all(|w| w[0] <= w[1]),
        "events out of their sources' order: {:?}",
        merged.origins
    );
    assert!(
        merged.origins.len() + merged.duplicates == total,
        "{} events kept and {} duplicates out of {total}",
        merged.origins.len(),
        merged.duplicates
    );
    common::reparse(&merged.bytes);

    // The same sources merge the same way.
    let again = merge(&inputs, &limits, None).expect("a merge that worked once works again");
    assert_eq!(again, merged, "the merge is not deterministic");

    // What a calendar of merged sources serves: the default remap over the merged feed.
    let out = remap(
        &merged.bytes,
        &CompiledConfig::default(),
        &RemapOptions::default(),
        &common::roomy(),
    )
    .expect("a merged feed remaps");
    common::check_remapped(&out.bytes);
});
