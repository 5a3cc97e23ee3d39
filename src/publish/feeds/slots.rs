//! One slot per feed address being fetched: one fetch at a time for everyone asking, what the
//! last fetch said, and a bounded map that forgets addresses that hold nothing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use tokio::sync::Mutex as AsyncMutex;

use super::{Feeds, MAX_SLOTS, RETRY_AFTER_FAILURE};
use crate::lock::lock;
use crate::publish::fetch::FetchError;

#[derive(Default)]
pub(super) struct SlotState {
    pub(super) failed: Option<(Instant, FetchError)>,
    pub(super) refreshing: bool,
}

/// Per address: one fetch at a time, and what the last fetch said.
#[derive(Default)]
pub(super) struct Slot {
    pub(super) state: Mutex<SlotState>,
    pub(super) fetch: AsyncMutex<()>,
}

impl Slot {
    pub(super) fn state(&self) -> MutexGuard<'_, SlotState> {
        lock(&self.state)
    }
}

/// Whether a slot can be forgotten: no refresh under way and no failure worth remembering.
fn idle(slot: &Slot, now: Instant) -> bool {
    let state = slot.state();
    !state.refreshing
        && state
            .failed
            .as_ref()
            .is_none_or(|(at, _)| now.saturating_duration_since(*at) >= RETRY_AFTER_FAILURE)
}

impl Feeds {
    fn slots(&self) -> MutexGuard<'_, HashMap<String, Arc<Slot>>> {
        lock(&self.slots)
    }

    pub(super) fn slot(&self, key: &str) -> Arc<Slot> {
        let mut slots = self.slots();
        if let Some(slot) = slots.get(key) {
            return slot.clone();
        }
        if slots.len() >= MAX_SLOTS {
            let now = self.clock.now();
            slots.retain(|_, s| Arc::strong_count(s) > 1 || !idle(s, now));
            if slots.len() >= MAX_SLOTS {
                slots.retain(|_, s| Arc::strong_count(s) > 1);
            }
        }
        slots.entry(key.to_owned()).or_default().clone()
    }

    /// Hands a slot back; one nobody uses and that remembers nothing is dropped.
    pub(super) fn release(&self, key: &str, slot: Arc<Slot>) {
        let mut slots = self.slots();
        drop(slot);
        let now = self.clock.now();
        if slots
            .get(key)
            .is_some_and(|s| Arc::strong_count(s) == 1 && idle(s, now))
        {
            slots.remove(key);
        }
    }

    /// Addresses tracked now (for tests and the attack benchmark's reasoning).
    pub fn tracked(&self) -> usize {
        self.slots().len()
    }
}
