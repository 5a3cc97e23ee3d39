//! One memory budget for the publishing caches: upstream copies, rendered feeds and published
//! calendars with their compiled mappings are held here, charged by the size their owner names,
//! and the least recently used go first when the budget is full. The cache knows none of those
//! types (each kind's module puts and gets its own), so nothing here imports them. What is evicted comes back from SQLite (copies,
//! calendars, compiled again) or is rendered again (feeds) when next needed. Copies the editor
//! fetched for a visitor count against that visitor's share (a quarter of the budget): past it,
//! the visitor's own oldest copies go first, so one visitor reading many feeds cannot push out
//! everyone else's.

use std::any::Any;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::http::client::ClientKey;
use crate::lock::lock;

/// One visitor's share of the cache is this part of it.
const SHARE_DIVISOR: usize = 4;

/// What an entry holds; each kind has its own map, keyed by URL (copies) or calendar id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Upstream copies (`feeds::FeedCopy`), by address.
    Feed = 0,
    /// Rendered hosted feeds (`rendered::Rendered`), by calendar id.
    Render = 1,
    /// Published calendars with their compiled configs (`served::HostedCalendar`), by id.
    Calendar = 2,
}

type Value = Arc<dyn Any + Send + Sync>;

struct Entry {
    value: Value,
    size: usize,
    tick: u64,
    /// The visitor whose editor fetched it, if any.
    owner: Option<ClientKey>,
}

#[derive(Default)]
struct Lru {
    used: usize,
    tick: u64,
    /// By kind, then key: a hit looks up a `&str` and allocates nothing.
    entries: [HashMap<String, Entry>; 3],
    /// Entries by last use, oldest first.
    order: BTreeMap<u64, (Kind, String)>,
    /// Bytes each visitor's entries hold.
    owned: HashMap<ClientKey, usize>,
}

impl Lru {
    fn get(&mut self, kind: Kind, key: &str) -> Option<Value> {
        let entry = self.entries[kind as usize].get_mut(key)?;
        self.tick += 1;
        if let Some(name) = self.order.remove(&entry.tick) {
            self.order.insert(self.tick, name);
        }
        entry.tick = self.tick;
        Some(entry.value.clone())
    }

    fn remove(&mut self, kind: Kind, key: &str) {
        if let Some(old) = self.entries[kind as usize].remove(key) {
            self.order.remove(&old.tick);
            self.forget(&old);
        }
    }

    /// Takes what `entry` held off the totals.
    fn forget(&mut self, entry: &Entry) {
        self.used -= entry.size;
        if let Some(owner) = entry.owner {
            if let Some(n) = self.owned.get_mut(&owner) {
                *n = n.saturating_sub(entry.size);
                if *n == 0 {
                    self.owned.remove(&owner);
                }
            }
        }
    }

    /// Removes the least recently used entry of `owner` (any entry when `None`).
    fn evict_oldest(&mut self, owner: Option<ClientKey>) -> bool {
        let tick = self
            .order
            .iter()
            .find(|(_, (kind, key))| {
                owner.is_none()
                    || self.entries[*kind as usize]
                        .get(key)
                        .is_some_and(|e| e.owner == owner)
            })
            .map(|(tick, _)| *tick);
        let Some((kind, key)) = tick.and_then(|t| self.order.remove(&t)) else {
            return false;
        };
        if let Some(old) = self.entries[kind as usize].remove(&key) {
            self.forget(&old);
        }
        true
    }

    fn insert(
        &mut self,
        kind: Kind,
        key: &str,
        value: Value,
        size: usize,
        owner: Option<ClientKey>,
        capacity: usize,
    ) {
        self.remove(kind, key);
        let share = capacity / SHARE_DIVISOR;
        if size > capacity || (owner.is_some() && size > share) {
            // Larger than the whole budget, or than its visitor's share: not kept at all.
            return;
        }
        if let Some(owner) = owner {
            while self.owned.get(&owner).copied().unwrap_or(0) + size > share {
                if !self.evict_oldest(Some(owner)) {
                    break;
                }
            }
        }
        while self.used + size > capacity {
            if !self.evict_oldest(None) {
                break;
            }
        }
        self.tick += 1;
        self.order.insert(self.tick, (kind, key.to_owned()));
        self.entries[kind as usize].insert(
            key.to_owned(),
            Entry {
                value,
                size,
                tick: self.tick,
                owner,
            },
        );
        self.used += size;
        if let Some(owner) = owner {
            *self.owned.entry(owner).or_insert(0) += size;
        }
    }
}

/// The cache; `capacity` is `--cache-size`.
pub struct Cache {
    capacity: usize,
    lru: Mutex<Lru>,
    /// Lookups that found their entry, and those that did not (the metrics read them).
    hits: AtomicU64,
    misses: AtomicU64,
}

impl Cache {
    pub fn new(capacity: usize) -> Cache {
        Cache {
            capacity,
            lru: Mutex::new(Lru::default()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// Lookups since the start: (found, not found).
    pub fn lookups(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }

    fn lru(&self) -> MutexGuard<'_, Lru> {
        lock(&self.lru)
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Bytes held now (never more than the capacity).
    pub fn used(&self) -> usize {
        self.lru().used
    }

    /// The entry of `kind` under `key`, if it is there and of type `T`.
    pub fn get<T: Any + Send + Sync>(&self, kind: Kind, key: &str) -> Option<Arc<T>> {
        let found = self
            .lru()
            .get(kind, key)
            .and_then(|v| v.downcast::<T>().ok());
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Keeps `value` under `key`, charged `size` bytes; `owner`: the visitor whose editor
    /// fetched it (its share pays), or `None` for what the server keeps for everyone.
    pub fn put<T: Any + Send + Sync>(
        &self,
        kind: Kind,
        key: &str,
        value: Arc<T>,
        size: usize,
        owner: Option<ClientKey>,
    ) {
        self.lru()
            .insert(kind, key, value, size, owner, self.capacity);
    }

    pub fn forget(&self, kind: Kind, key: &str) {
        self.lru().remove(kind, key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keeps `bytes` bytes under `key`, charged as a feed copy is.
    fn put(cache: &Cache, key: &str, bytes: usize, owner: Option<ClientKey>) {
        let value = Arc::new(vec![b'x'; bytes]);
        cache.put(Kind::Feed, key, value, bytes + key.len() + 256, owner);
    }

    fn has(cache: &Cache, key: &str) -> bool {
        cache.get::<Vec<u8>>(Kind::Feed, key).is_some()
    }

    #[test]
    fn the_least_recently_used_go_first_and_the_total_stays_within_the_budget() {
        let cache = Cache::new(10_000);
        put(&cache, "a", 3000, None);
        put(&cache, "b", 3000, None);
        put(&cache, "c", 3000, None);
        assert!(has(&cache, "a")); // a is now the most recent
        put(&cache, "d", 3000, None);
        assert!(!has(&cache, "b"), "b was the least recently used");
        assert!(has(&cache, "a") && has(&cache, "c"));
        assert!(cache.used() <= 10_000, "{}", cache.used());
    }

    #[test]
    fn an_entry_larger_than_the_budget_is_not_kept() {
        let cache = Cache::new(10_000);
        put(&cache, "small", 100, None);
        put(&cache, "huge", 20_000, None);
        assert!(!has(&cache, "huge"));
        assert!(has(&cache, "small"));
    }

    #[test]
    fn a_visitors_editor_copies_make_room_among_themselves_first() {
        let cache = Cache::new(40_000);
        let me = ClientKey::of("198.51.100.1".parse().expect("ip"));
        put(&cache, "shared", 9000, None);
        for n in 0..5 {
            put(&cache, &format!("mine-{n}"), 3000, Some(me));
        }
        // A quarter of 40 000 bytes: only the newest three of mine fit.
        assert!(!has(&cache, "mine-0") && !has(&cache, "mine-1"));
        assert!(has(&cache, "mine-4"));
        assert!(has(&cache, "shared"), "others' entries stay");
        assert!(
            cache.lru().owned.get(&me).copied().unwrap_or(0) <= 10_000,
            "within the share"
        );
        // Larger than a visitor's share: not kept for that visitor at all.
        put(&cache, "huge", 11_000, Some(me));
        assert!(!has(&cache, "huge"));
    }

    #[test]
    fn replacing_an_entry_charges_only_the_new_size() {
        let cache = Cache::new(10_000);
        put(&cache, "a", 4000, None);
        put(&cache, "a", 1000, None);
        assert!(cache.used() < 2000, "{}", cache.used());
        cache.forget(Kind::Feed, "a");
        assert_eq!(cache.used(), 0);
    }
}
