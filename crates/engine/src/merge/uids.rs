//! `"uids": "content"`: each event of one source given a UID made from its content, for
//! sources whose UIDs are missing or change at every fetch. The content is the source's key
//! (which feed it is: the server gives its address), the series' DTSTART as written (with its
//! TZID), its SUMMARY as the source has it (before any prefix or mapping) and its RRULE, hashed
//! with 128-bit FNV-1a (stable across builds and machines). Every component of one series (the
//! master and its overridden instances, by their source UID) gets the master's; a series
//! without a master takes its first instance's RECURRENCE-ID in place of DTSTART. Two series
//! with the same content get `-2`, `-3`… in the order they come. Every other line is copied
//! byte for byte; a written UID line is folded with CRLF.

use std::collections::HashMap;

use super::scan::{line_text, Kind, Line, Scan};
use crate::ics::line::{split_line, unescape_text};
use crate::ics::{self, write_folded, Limits, ParseError, Warnings};
use crate::interrupt::{self, Interrupt, Interrupted};

/// Why a source's UIDs could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UidError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
}

/// What one event part is made of, for its UID.
#[derive(Default)]
struct Content {
    uid_line: Option<(usize, usize)>,
    begin_end: usize,
    dtstart: String,
    summary: String,
    rrule: String,
}

fn fnv128(parts: &[&str]) -> u128 {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
    let mut h = OFFSET;
    for part in parts {
        // The length first, so that no two lists of parts hash the same bytes.
        for b in (part.len() as u64)
            .to_le_bytes()
            .iter()
            .chain(part.as_bytes())
        {
            h ^= u128::from(*b);
            h = h.wrapping_mul(PRIME);
        }
    }
    h
}

/// Each event part of `input`: its series (the source UID, or its own index without one), its
/// RECURRENCE-ID when it is an instance, and what it is made of.
fn event_contents(
    input: &[u8],
    limits: &Limits,
    stop: Option<&Interrupt>,
) -> Result<Vec<(String, Option<String>, Content)>, UidError> {
    interrupt::check(stop)?;
    let mut scan = Scan::default();
    ics::walk(input, limits, &mut scan, &mut Warnings::default())?;
    interrupt::check(stop)?;
    let mut events: Vec<(String, Option<String>, Content)> = Vec::new();
    for (p, part) in scan.out.parts.iter().enumerate() {
        let Kind::Event(key) = &part.kind else {
            continue;
        };
        if p % 256 == 0 {
            interrupt::check(stop)?;
        }
        let mut content = Content::default();
        for line in part.lines(input) {
            let Line::Raw { start, len, depth } = line else {
                continue;
            };
            if depth == 0 && content.begin_end == 0 {
                content.begin_end = start + len;
                continue;
            }
            if depth != 1 {
                continue;
            }
            let text = line_text(input, start, len);
            let parts = split_line(&text);
            let is = |n: &str| parts.name.eq_ignore_ascii_case(n);
            if is("UID") {
                content.uid_line.get_or_insert((start, len));
            } else if is("DTSTART") {
                content.dtstart = text.get(parts.name.len()..).unwrap_or("").trim().to_owned();
            } else if is("SUMMARY") {
                content.summary = unescape_text(parts.value).trim().to_owned();
            } else if is("RRULE") {
                content.rrule = parts.value.trim().to_ascii_uppercase();
            }
        }
        let series = match &key.uid {
            Some(uid) => format!("u:{uid}"),
            None => format!("i:{p}"),
        };
        events.push((series, key.recurrence_id.clone(), content));
    }
    Ok(events)
}

/// How many events of a new copy of a feed are old events under new UIDs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UidChurn {
    /// Events (series, counted by their master) of the new copy that have a UID.
    pub events: usize,
    /// Those whose UID the old copy did not have, while it had an event with the same start,
    /// summary and recurrence under another UID.
    pub renamed: usize,
}

impl UidChurn {
    /// Whether most events changed their UIDs (at least two): a source whose UIDs do not hold
    /// still, for which `"uids": "content"` is the remedy.
    pub fn most_renamed(&self) -> bool {
        self.renamed >= 2 && self.renamed * 2 > self.events
    }
}

/// Compares two consecutive copies of one feed by their events' content: linear in their size,
/// within `limits`.
pub fn uid_churn(old: &[u8], new: &[u8], limits: &Limits) -> Result<UidChurn, UidError> {
    let master_hash = |c: &Content| fnv128(&["", "master", &c.dtstart, &c.summary, &c.rrule]);
    let old_events = event_contents(old, limits, None)?;
    let old_uids: std::collections::HashSet<&str> = old_events
        .iter()
        .filter_map(|(series, _, _)| series.strip_prefix("u:"))
        .collect();
    let old_content: HashMap<u128, &str> = old_events
        .iter()
        .filter(|(_, rid, _)| rid.is_none())
        .filter_map(|(series, _, c)| Some((master_hash(c), series.strip_prefix("u:")?)))
        .collect();
    let mut churn = UidChurn::default();
    for (series, rid, c) in &event_contents(new, limits, None)? {
        let Some(uid) = series.strip_prefix("u:") else {
            continue;
        };
        if rid.is_some() {
            continue;
        }
        churn.events += 1;
        if !old_uids.contains(uid)
            && old_content
                .get(&master_hash(c))
                .is_some_and(|was| *was != uid)
        {
            churn.renamed += 1;
        }
    }
    Ok(churn)
}

/// `input` with every event's UID made from its content, `source` naming the feed.
pub fn content_uids(
    input: &[u8],
    source: &str,
    limits: &Limits,
    stop: Option<&Interrupt>,
) -> Result<Vec<u8>, UidError> {
    let events = event_contents(input, limits, stop)?;
    // Each series' UID, in the order series first come.
    let mut order: Vec<&str> = Vec::new();
    let mut masters: HashMap<&str, usize> = HashMap::new();
    let mut first: HashMap<&str, usize> = HashMap::new();
    for (i, (series, rid, _)) in events.iter().enumerate() {
        if !first.contains_key(series.as_str()) {
            first.insert(series, i);
            order.push(series);
        }
        if rid.is_none() {
            masters.entry(series).or_insert(i);
        }
    }
    let mut uids: HashMap<&str, String> = HashMap::new();
    let mut taken: HashMap<u128, u32> = HashMap::new();
    for series in order {
        let hash = match masters.get(series) {
            Some(&m) => {
                let c = &events[m].2;
                fnv128(&[source, "master", &c.dtstart, &c.summary, &c.rrule])
            }
            None => {
                let (_, rid, c) = &events[first[series]];
                let rid = rid.as_deref().unwrap_or("");
                fnv128(&[source, "instance", rid, &c.summary, &c.rrule])
            }
        };
        let seen = taken.entry(hash).or_insert(0);
        *seen += 1;
        let uid = match *seen {
            1 => format!("hearth-{hash:032x}"),
            n => format!("hearth-{hash:032x}-{n}"),
        };
        uids.insert(series, uid);
    }
    // The output: the input with each event's UID line replaced (or added after its BEGIN).
    let mut edits: Vec<(usize, usize, &str)> = events
        .iter()
        .map(|(series, _, c)| {
            let uid = uids.get(series.as_str()).map_or("", String::as_str);
            match c.uid_line {
                Some((start, len)) => (start, len, uid),
                None => (c.begin_end, 0, uid),
            }
        })
        .collect();
    edits.sort_by_key(|(start, _, _)| *start);
    let mut out = Vec::with_capacity(input.len() + events.len() * 48);
    let mut at = 0;
    for (start, len, uid) in edits {
        if start < at {
            continue;
        }
        out.extend_from_slice(&input[at..start]);
        if !out.is_empty() && !out.ends_with(b"\n") {
            out.extend_from_slice(b"\r\n");
        }
        write_folded(&mut out, format!("UID:{uid}").as_bytes());
        at = start + len;
    }
    out.extend_from_slice(&input[at..]);
    Ok(out)
}
