//! Which copy of a shared event the merged feed keeps, and what happens to time zones that two
//! sources both define.
//!
//! Events: all components with one UID in a source form its series (the master and its
//! overrides). When several sources hold a UID, one source's series is kept whole, so overrides
//! stay with their series: a source holding the master wins over one holding only overrides;
//! then the one whose master (or, with no master, newest component) has the highest SEQUENCE,
//! then the later LAST-MODIFIED (else DTSTAMP), then the earlier source.
//! Events without a UID are all kept. Within one source nothing is dropped.
//!
//! Time zones: one VTIMEZONE per TZID. A later definition of a TZID that says the same (its
//! lines equal but for LAST-MODIFIED, DTSTAMP and TZURL) is dropped; one that differs is kept
//! under a new name (`Europe/Berlin-2`, the number of its source), and that source's events
//! follow it.

use std::collections::{HashMap, HashSet};

use super::scan::{line_text, Kind, Line, Part, Scanned};

/// What the merge keeps: `kept[source][part]`, and for each source the TZIDs it renames.
pub(super) struct Picks {
    pub kept: Vec<Vec<bool>>,
    pub renames: Vec<HashMap<String, String>>,
    /// Events left out because another source's copy won.
    pub duplicates: usize,
}

/// (holds the master, SEQUENCE, stamp) of a source's series: its master's, else its newest
/// component's.
type Rank = (bool, u64, String);

pub(super) fn pick(inputs: &[&[u8]], sources: &[Scanned]) -> Picks {
    let mut kept: Vec<Vec<bool>> = sources.iter().map(|s| vec![true; s.parts.len()]).collect();
    // UID -> for each source holding it, its series' rank.
    let mut series: HashMap<&str, Vec<(usize, Rank)>> = HashMap::new();
    for (s, source) in sources.iter().enumerate() {
        let mut ranks: HashMap<&str, Rank> = HashMap::new();
        for part in &source.parts {
            let Kind::Event(key) = &part.kind else {
                continue;
            };
            let Some(uid) = key.uid.as_deref() else {
                continue;
            };
            let rank = (key.recurrence_id.is_none(), key.sequence, key.stamp.clone());
            // The master's rank once there is one, else the newest override's.
            ranks
                .entry(uid)
                .and_modify(|best| {
                    if !best.0 && rank > *best {
                        *best = rank.clone();
                    }
                })
                .or_insert(rank);
        }
        for (uid, rank) in ranks {
            series.entry(uid).or_default().push((s, rank));
        }
    }
    let mut winner: HashMap<&str, usize> = HashMap::new();
    for (uid, holders) in &series {
        if holders.len() < 2 {
            continue;
        }
        // Highest rank, then the earliest source.
        let best = holders
            .iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
            .map_or(0, |h| h.0);
        winner.insert(uid, best);
    }
    let mut duplicates = 0;
    for (s, source) in sources.iter().enumerate() {
        for (p, part) in source.parts.iter().enumerate() {
            let Kind::Event(key) = &part.kind else {
                continue;
            };
            let Some(uid) = key.uid.as_deref() else {
                continue;
            };
            if winner.get(uid).is_some_and(|&w| w != s) {
                kept[s][p] = false;
                duplicates += 1;
            }
        }
    }
    let renames = pick_timezones(inputs, sources, &mut kept);
    Picks {
        kept,
        renames,
        duplicates,
    }
}

/// A VTIMEZONE's lines as compared: unfolded, without the lines that change with every export.
fn definition(input: &[u8], part: &Part) -> Vec<String> {
    part.lines(input)
        .filter_map(|l| match l {
            Line::Raw { start, len, depth } => {
                let text = line_text(input, start, len);
                let name = text
                    .split([':', ';'])
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_ascii_uppercase();
                let volatile =
                    depth == 1 && matches!(name.as_str(), "LAST-MODIFIED" | "DTSTAMP" | "TZURL");
                (!volatile).then(|| text.trim_end().to_owned())
            }
            Line::MissingEnd(_) => None,
        })
        .collect()
}

fn pick_timezones(
    inputs: &[&[u8]],
    sources: &[Scanned],
    kept: &mut [Vec<bool>],
) -> Vec<HashMap<String, String>> {
    let mut renames = vec![HashMap::new(); sources.len()];
    // TZID (as written in the output) -> its definition.
    let mut defined: HashMap<String, Vec<String>> = HashMap::new();
    let mut taken: HashSet<String> = HashSet::new();
    for (s, source) in sources.iter().enumerate() {
        // Within one source nothing is dropped: a zone it defines twice stays twice.
        let mut own: HashSet<&str> = HashSet::new();
        for (p, part) in source.parts.iter().enumerate() {
            let Kind::Timezone { tzid: Some(tzid) } = &part.kind else {
                continue;
            };
            if !own.insert(tzid) {
                continue;
            }
            let this = definition(inputs[s], part);
            match defined.get(tzid) {
                None => {
                    defined.insert(tzid.clone(), this);
                    taken.insert(tzid.clone());
                }
                Some(same) if *same == this => kept[s][p] = false,
                Some(_) => {
                    let mut n = s + 1;
                    let mut name = format!("{tzid}-{n}");
                    while taken.contains(&name) || defined.contains_key(&name) {
                        n += sources.len();
                        name = format!("{tzid}-{n}");
                    }
                    taken.insert(name.clone());
                    defined.insert(name.clone(), this);
                    renames[s].insert(tzid.clone(), name);
                }
            }
        }
    }
    renames
}
