//! One memory budget for the publishing caches: upstream copies, rendered feeds and published
//! calendars with their compiled mappings are held here, charged by size, and the least recently
//! used go first when the budget is full. What is evicted comes back from SQLite (copies,
//! calendars, compiled again) or is rendered again (feeds) when next needed.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use super::feeds::FeedCopy;
use super::hosted::Rendered;
use super::HostedCalendar;
use crate::lock::lock;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    /// An upstream copy, by normalised URL.
    Feed(String),
    /// A rendered hosted feed, by calendar id.
    Render(String),
    /// A published calendar, by id.
    Calendar(String),
}

#[derive(Clone)]
enum Value {
    Feed(Arc<FeedCopy>),
    Render(Arc<Rendered>),
    Calendar(Arc<HostedCalendar>),
}

struct Entry {
    value: Value,
    size: usize,
    tick: u64,
}

#[derive(Default)]
struct Lru {
    used: usize,
    tick: u64,
    entries: HashMap<Key, Entry>,
    /// Entries by last use, oldest first.
    order: BTreeMap<u64, Key>,
}

impl Lru {
    fn get(&mut self, key: &Key) -> Option<Value> {
        self.tick += 1;
        let tick = self.tick;
        let entry = self.entries.get_mut(key)?;
        self.order.remove(&entry.tick);
        entry.tick = tick;
        self.order.insert(tick, key.clone());
        Some(entry.value.clone())
    }

    fn remove(&mut self, key: &Key) {
        if let Some(old) = self.entries.remove(key) {
            self.order.remove(&old.tick);
            self.used -= old.size;
        }
    }

    fn insert(&mut self, key: Key, value: Value, size: usize, capacity: usize) {
        self.remove(&key);
        if size > capacity {
            // Larger than the whole budget: not kept at all.
            return;
        }
        while self.used + size > capacity {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            if let Some(old) = self.entries.remove(&oldest) {
                self.used -= old.size;
            }
        }
        self.tick += 1;
        self.order.insert(self.tick, key.clone());
        self.entries.insert(
            key,
            Entry {
                value,
                size,
                tick: self.tick,
            },
        );
        self.used += size;
    }
}

/// The cache; `capacity` is `--cache-size`.
pub struct Cache {
    capacity: usize,
    lru: Mutex<Lru>,
}

impl Cache {
    pub fn new(capacity: usize) -> Cache {
        Cache {
            capacity,
            lru: Mutex::new(Lru::default()),
        }
    }

    fn lru(&self) -> MutexGuard<'_, Lru> {
        lock(&self.lru)
    }

    /// Bytes held now (never more than the capacity).
    pub fn used(&self) -> usize {
        self.lru().used
    }

    pub fn feed(&self, url: &str) -> Option<Arc<FeedCopy>> {
        match self.lru().get(&Key::Feed(url.to_owned())) {
            Some(Value::Feed(copy)) => Some(copy),
            _ => None,
        }
    }

    pub fn put_feed(&self, url: &str, copy: Arc<FeedCopy>) {
        let size = copy.body.len() + url.len() + 256;
        self.lru().insert(
            Key::Feed(url.to_owned()),
            Value::Feed(copy),
            size,
            self.capacity,
        );
    }

    pub fn render(&self, id: &str) -> Option<Arc<Rendered>> {
        match self.lru().get(&Key::Render(id.to_owned())) {
            Some(Value::Render(r)) => Some(r),
            _ => None,
        }
    }

    pub fn put_render(&self, id: &str, rendered: Arc<Rendered>) {
        let size = rendered.size() + id.len() + 256;
        self.lru().insert(
            Key::Render(id.to_owned()),
            Value::Render(rendered),
            size,
            self.capacity,
        );
    }

    pub fn calendar(&self, id: &str) -> Option<Arc<HostedCalendar>> {
        match self.lru().get(&Key::Calendar(id.to_owned())) {
            Some(Value::Calendar(c)) => Some(c),
            _ => None,
        }
    }

    pub fn put_calendar(&self, calendar: Arc<HostedCalendar>) {
        let id = calendar.record.id.clone();
        let size = calendar.size();
        self.lru().insert(
            Key::Calendar(id),
            Value::Calendar(calendar),
            size,
            self.capacity,
        );
    }

    pub fn forget_calendar(&self, id: &str) {
        self.lru().remove(&Key::Calendar(id.to_owned()));
    }

    pub fn forget_render(&self, id: &str) {
        self.lru().remove(&Key::Render(id.to_owned()));
    }

    pub fn forget_feed(&self, url: &str) {
        self.lru().remove(&Key::Feed(url.to_owned()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    fn copy(bytes: usize) -> Arc<FeedCopy> {
        Arc::new(FeedCopy {
            body: vec![b'x'; bytes].into(),
            etag: None,
            last_modified: None,
            fetched_at: SystemTime::UNIX_EPOCH,
            changed_at: SystemTime::UNIX_EPOCH,
            version: 1,
            confirmed: None,
        })
    }

    #[test]
    fn the_least_recently_used_go_first_and_the_total_stays_within_the_budget() {
        let cache = Cache::new(10_000);
        cache.put_feed("a", copy(3000));
        cache.put_feed("b", copy(3000));
        cache.put_feed("c", copy(3000));
        assert!(cache.feed("a").is_some()); // a is now the most recent
        cache.put_feed("d", copy(3000));
        assert!(cache.feed("b").is_none(), "b was the least recently used");
        assert!(cache.feed("a").is_some() && cache.feed("c").is_some());
        assert!(cache.used() <= 10_000, "{}", cache.used());
    }

    #[test]
    fn an_entry_larger_than_the_budget_is_not_kept() {
        let cache = Cache::new(10_000);
        cache.put_feed("small", copy(100));
        cache.put_feed("huge", copy(20_000));
        assert!(cache.feed("huge").is_none());
        assert!(cache.feed("small").is_some());
    }

    #[test]
    fn replacing_an_entry_charges_only_the_new_size() {
        let cache = Cache::new(10_000);
        cache.put_feed("a", copy(4000));
        cache.put_feed("a", copy(1000));
        assert!(cache.used() < 2000, "{}", cache.used());
        cache.forget_feed("a");
        assert_eq!(cache.used(), 0);
    }
}
