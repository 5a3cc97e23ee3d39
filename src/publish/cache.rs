//! One memory budget for the publishing caches: upstream copies and rendered feeds are held
//! here, charged by size, and the least recently used go first when the budget is full. What is
//! evicted comes back from SQLite (copies) or is rendered again (feeds) when next needed.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use super::feeds::FeedCopy;
use super::hosted::Rendered;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    /// An upstream copy, by normalised URL.
    Feed(String),
    /// A rendered hosted feed, by calendar id.
    Render(String),
}

#[derive(Clone)]
enum Value {
    Feed(Arc<FeedCopy>),
    Render(Arc<Rendered>),
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
        self.lru
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
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

    pub fn forget_render(&self, id: &str) {
        self.lru().remove(&Key::Render(id.to_owned()));
    }

    pub fn forget_feed(&self, url: &str) {
        self.lru().remove(&Key::Feed(url.to_owned()));
    }
}
