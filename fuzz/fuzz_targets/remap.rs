//! Fuzzes the whole remap with a calendar config, as a hosted calendar runs it: the input is a
//! config's JSON (the engine's own schema), then NUL-separated feeds. UIDs from content when the
//! config asks; with `history` and two feeds or more, the last one is an older copy of the first,
//! whose vanished ended events are merged back; several feeds (or `sources`) are merged with the
//! sources' prefixes; then the remap with filters, the window, occurrences (rrule), overrides,
//! privacy, alarms and properties, at a fixed "now". The engine's errors are answers; its output
//! must be well-formed lines that parse, and `decide` must judge the same feed.
#![no_main]

#[path = "common.rs"]
mod common;

use hearth_engine::{
    content_uids, decide, kept_calendar, merge, output_limit, remap, unmatched_overrides,
    vanished_events, CalendarConfig, CompiledConfig, MergeError, MergeInput, RemapError,
    RemapOptions, MAX_SOURCES,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parts = common::parts(data);
    let Some((json, feeds)) = parts.split_first() else {
        return;
    };
    let Ok(config) = serde_json::from_slice::<CalendarConfig>(json) else {
        return;
    };
    let Ok(compiled) = CompiledConfig::compile(&config) else {
        return;
    };
    if feeds.is_empty() {
        return;
    }
    let feeds = &feeds[..feeds.len().min(MAX_SOURCES + 1)];
    let limits = common::limits();

    let mut owned: Vec<Vec<u8>> = Vec::with_capacity(feeds.len());
    for (i, feed) in feeds.iter().enumerate() {
        let url = compiled.sources().get(i).and_then(|s| s.url.clone());
        if compiled.content_uids() && !feed.is_empty() {
            let key = url.unwrap_or_else(|| format!("feed-{i}"));
            match content_uids(feed, &key, &limits, None) {
                Ok(bytes) => owned.push(bytes),
                Err(_) => return,
            }
        } else {
            owned.push(feed.to_vec());
        }
    }

    // History: the last feed is the copy stored before the first one was fetched again.
    let mut kept = None;
    if let (Some(days), true) = (compiled.keep_days(), owned.len() >= 2) {
        let old = owned.pop().unwrap_or_default();
        let Ok(vanished) = vanished_events(&old, &owned[0], common::NOW, &limits) else {
            return;
        };
        let horizon = common::NOW - i64::from(days) * 86_400;
        let texts: Vec<&[u8]> = vanished
            .ended
            .iter()
            .filter(|e| e.ends_at >= horizon && !vanished.present.contains(&e.uid))
            .map(|e| e.text.as_slice())
            .collect();
        if !texts.is_empty() {
            let calendar = kept_calendar(texts);
            common::reparse(&calendar);
            kept = Some(calendar);
        }
    }

    let merged;
    let input: &[u8] = if owned.len() == 1 && compiled.sources().is_empty() && kept.is_none() {
        &owned[0]
    } else {
        let mut inputs: Vec<MergeInput<'_>> = owned
            .iter()
            .enumerate()
            .map(|(i, bytes)| MergeInput {
                bytes,
                prefix: compiled.sources().get(i).and_then(|s| s.prefix.as_deref()),
            })
            .collect();
        if let Some(k) = &kept {
            inputs.push(MergeInput {
                bytes: k,
                prefix: None,
            });
        }
        merged = match merge(&inputs, &limits, None) {
            Ok(m) => m,
            Err(
                MergeError::Source { .. } | MergeError::TooLarge { .. } | MergeError::TooMany(_),
            ) => return,
            Err(e) => panic!("unexpected merge error: {e}"),
        };
        &merged.bytes
    };

    let options = RemapOptions {
        calendar_name: Some("Fuzz".to_owned()),
        refresh_interval: None,
        sequence_offset: 1,
        max_output_bytes: Some(output_limit(input.len())),
        now: Some(common::NOW),
        interrupt: None,
    };
    let roomy = hearth_engine::Limits {
        max_input_bytes: usize::MAX,
        ..limits
    };
    let out = match remap(input, &compiled, &options, &roomy) {
        Ok(out) => out,
        Err(RemapError::Parse(_) | RemapError::TooLarge { .. }) => return,
        Err(e) => panic!("unexpected remap error: {e}"),
    };
    if out.bytes.is_empty() {
        // A feed of bare components (no VCALENDAR, which the parser accepts) whose every event
        // the config dropped: nothing is left to write.
        let (doc, _) = hearth_engine::parse(input, &roomy).expect("a feed that remapped parses");
        assert!(
            doc.components.iter().all(|c| c.name != "VCALENDAR"),
            "a VCALENDAR remapped to nothing"
        );
    } else {
        common::check_remapped(&out.bytes);
    }
    assert!(out.kept_events <= out.event_count);

    let decisions =
        decide(input, &compiled, &options, &roomy).expect("a feed that remaps is judged");
    assert_eq!(
        decisions.len(),
        out.event_count,
        "decide saw another number of events"
    );
    let _ = unmatched_overrides(input, &compiled, &roomy).expect("a feed that remaps is read");
});
