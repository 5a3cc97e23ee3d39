//! Sources whose UIDs do not hold still: when the stored copy of an address changes, the new
//! copy is compared with the one it replaced by its events' content (`calendar::uid_churn`:
//! linear in their size, on the server's own engine work, at most once an hour per address),
//! and an address where most events came back under new UIDs is noted in memory, for its
//! calendars' status and the editor, which offer `"uids": "content"`. A restart forgets the
//! notes (the next change notes again); at most `MAX_NOTES` addresses are noted, the oldest
//! check forgotten first.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use super::{FeedCopy, Feeds};
use crate::calendar::{self, Limits};
use crate::lock::lock;
use crate::publish::health::UidsChangedAnswer;

/// An address's copies are compared at most this often.
pub const CHECK_EVERY: Duration = Duration::from_secs(3600);
/// Addresses noted at once.
const MAX_NOTES: usize = 4096;

/// The last comparison that found most events under new UIDs: when, of how many events, how
/// many were renamed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UidsChanged {
    pub at: SystemTime,
    pub events: usize,
    pub renamed: usize,
}

#[derive(Debug, Clone, Copy)]
struct Note {
    checked: SystemTime,
    changed: Option<UidsChanged>,
}

/// The last comparison of each address.
#[derive(Debug, Default)]
pub struct UidNotes(Mutex<HashMap<String, Note>>);

impl Feeds {
    /// After `new` replaced `old` as the stored copy of `url`: notes whether most of its events
    /// came back under new UIDs. Never fails a fetch.
    pub(super) async fn note_uids(&self, url: &str, old: &Arc<FeedCopy>, new: &Arc<FeedCopy>) {
        let now = self.clock.wall();
        {
            let mut notes = lock(&self.uid_notes.0);
            let recent = notes.get(url).is_some_and(|n| {
                now.duration_since(n.checked)
                    .is_ok_and(|age| age < CHECK_EVERY)
            });
            if recent {
                return;
            }
            if notes.len() >= MAX_NOTES && !notes.contains_key(url) {
                let oldest = notes
                    .iter()
                    .min_by_key(|(_, n)| n.checked)
                    .map(|(u, _)| u.clone());
                if let Some(oldest) = oldest {
                    notes.remove(&oldest);
                }
            }
            let changed = notes.get(url).and_then(|n| n.changed);
            notes.insert(
                url.to_owned(),
                Note {
                    checked: now,
                    changed,
                },
            );
        }
        let (old_body, new_body) = (old.body.clone(), new.body.clone());
        let churn = self
            .workers
            .run(move || calendar::uid_churn(&old_body, &new_body, &Limits::default()))
            .await;
        let churn = match churn {
            Ok(Ok(churn)) => churn,
            Ok(Err(e)) => {
                tracing::debug!(url, error = %e, "could not compare the feed's copies");
                return;
            }
            Err(e) => {
                tracing::debug!(url, error = %e, "could not compare the feed's copies");
                return;
            }
        };
        if let Some(note) = lock(&self.uid_notes.0).get_mut(url) {
            note.changed = churn.most_renamed().then_some(UidsChanged {
                at: now,
                events: churn.events,
                renamed: churn.renamed,
            });
        }
    }

    /// Whether the last comparison of `url`'s copies found most events under new UIDs, as the
    /// status and the editor say it.
    pub fn uids_changed(&self, url: &str) -> Option<UidsChangedAnswer> {
        lock(&self.uid_notes.0)
            .get(url)
            .and_then(|n| n.changed)
            .map(|c| UidsChangedAnswer::new(c.at, c.events, c.renamed))
    }
}
