//! One memory budget for the publishing caches: upstream copies, rendered feeds and published
//! calendars with their compiled mappings are held here, charged by size, and the least recently
//! used go first when the budget is full. What is evicted comes back from SQLite (copies,
//! calendars, compiled again) or is rendered again (feeds) when next needed. Copies the editor
//! fetched for a visitor count against that visitor's share (a quarter of the budget): past it,
//! the visitor's own oldest copies go first, so one visitor reading many feeds cannot push out
//! everyone else's.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use super::feeds::FeedCopy;
use super::hosted::Rendered;
use super::HostedCalendar;
use crate::http::client::ClientKey;
use crate::lock::lock;

/// One visitor's share of the cache is this part of it.
const SHARE_DIVISOR: usize = 4;

/// What an entry holds; each kind has its own map, keyed by URL (copies) or calendar id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Feed = 0,
    Render = 1,
    Calendar = 2,
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

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Bytes held now (never more than the capacity).
    pub fn used(&self) -> usize {
        self.lru().used
    }

    pub fn feed(&self, url: &str) -> Option<Arc<FeedCopy>> {
        match self.lru().get(Kind::Feed, url) {
            Some(Value::Feed(copy)) => Some(copy),
            _ => None,
        }
    }

    /// Keeps a feed copy; `owner`: the visitor whose editor fetched it (its share pays).
    pub fn put_feed(&self, url: &str, copy: Arc<FeedCopy>, owner: Option<ClientKey>) {
        let size = copy.body.len() + url.len() + 256;
        self.lru().insert(
            Kind::Feed,
            url,
            Value::Feed(copy),
            size,
            owner,
            self.capacity,
        );
    }

    pub fn render(&self, id: &str) -> Option<Arc<Rendered>> {
        match self.lru().get(Kind::Render, id) {
            Some(Value::Render(r)) => Some(r),
            _ => None,
        }
    }

    pub fn put_render(&self, id: &str, rendered: Arc<Rendered>) {
        let size = rendered.size() + id.len() + 256;
        self.lru().insert(
            Kind::Render,
            id,
            Value::Render(rendered),
            size,
            None,
            self.capacity,
        );
    }

    pub fn calendar(&self, id: &str) -> Option<Arc<HostedCalendar>> {
        match self.lru().get(Kind::Calendar, id) {
            Some(Value::Calendar(c)) => Some(c),
            _ => None,
        }
    }

    pub fn put_calendar(&self, calendar: Arc<HostedCalendar>) {
        let size = calendar.size();
        let id = calendar.record.id.clone();
        self.lru().insert(
            Kind::Calendar,
            &id,
            Value::Calendar(calendar),
            size,
            None,
            self.capacity,
        );
    }

    pub fn forget_calendar(&self, id: &str) {
        self.lru().remove(Kind::Calendar, id);
    }

    pub fn forget_render(&self, id: &str) {
        self.lru().remove(Kind::Render, id);
    }

    pub fn forget_feed(&self, url: &str) {
        self.lru().remove(Kind::Feed, url);
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
        cache.put_feed("a", copy(3000), None);
        cache.put_feed("b", copy(3000), None);
        cache.put_feed("c", copy(3000), None);
        assert!(cache.feed("a").is_some()); // a is now the most recent
        cache.put_feed("d", copy(3000), None);
        assert!(cache.feed("b").is_none(), "b was the least recently used");
        assert!(cache.feed("a").is_some() && cache.feed("c").is_some());
        assert!(cache.used() <= 10_000, "{}", cache.used());
    }

    #[test]
    fn an_entry_larger_than_the_budget_is_not_kept() {
        let cache = Cache::new(10_000);
        cache.put_feed("small", copy(100), None);
        cache.put_feed("huge", copy(20_000), None);
        assert!(cache.feed("huge").is_none());
        assert!(cache.feed("small").is_some());
    }

    #[test]
    fn a_visitors_editor_copies_make_room_among_themselves_first() {
        let cache = Cache::new(40_000);
        let me = ClientKey::of("198.51.100.1".parse().expect("ip"));
        cache.put_feed("shared", copy(9000), None);
        for n in 0..5 {
            cache.put_feed(&format!("mine-{n}"), copy(3000), Some(me));
        }
        // A quarter of 40 000 bytes: only the newest three of mine fit.
        assert!(cache.feed("mine-0").is_none() && cache.feed("mine-1").is_none());
        assert!(cache.feed("mine-4").is_some());
        assert!(cache.feed("shared").is_some(), "others' entries stay");
        assert!(
            cache.lru().owned.get(&me).copied().unwrap_or(0) <= 10_000,
            "within the share"
        );
        // Larger than a visitor's share: not kept for that visitor at all.
        cache.put_feed("huge", copy(11_000), Some(me));
        assert!(cache.feed("huge").is_none());
    }

    #[test]
    fn replacing_an_entry_charges_only_the_new_size() {
        let cache = Cache::new(10_000);
        cache.put_feed("a", copy(4000), None);
        cache.put_feed("a", copy(1000), None);
        assert!(cache.used() < 2000, "{}", cache.used());
        cache.forget_feed("a");
        assert_eq!(cache.used(), 0);
    }
}
