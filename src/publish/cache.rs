//! One memory budget for the publishing caches: upstream copies, rendered feeds and published
//! calendars with their compiled mappings are held here, charged by the size their owner names,
//! and the least recently used go first when the budget is full. The cache knows none of those
//! types (each kind's module puts and gets its own), so nothing here imports them. What is evicted comes back from SQLite (copies,
//! calendars, compiled again) or is rendered again (feeds) when next needed. Copies the editor
//! fetched for a visitor count against that visitor's share (an eighth of the budget; its /56
//! and /48 in aggregate at their multiples, see [`Level::cap`]): past it, the oldest copies of
//! the group that is over go first, so a few visitors, or the /64s of one /48, reading many
//! feeds hold at most half of it and cannot push out everyone else's.

use std::any::Any;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::fair::{ClientKey, Group, Level};
use crate::lock::lock;

/// One visitor's share of the cache is this part of it.
const SHARE_DIVISOR: usize = 8;

/// What an entry holds; each kind has its own map, keyed by URL (copies) or calendar id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Upstream copies (`feeds::FeedCopy`), by address.
    Feed = 0,
    /// Rendered hosted feeds (`rendered::Rendered`), by calendar id.
    Render = 1,
    /// Published calendars with their compiled configs (`served::HostedCalendar`), by id.
    Calendar = 2,
    /// Agendas made from renders (`agenda::AgendaAnswer`), by calendar id.
    Agenda = 3,
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
    entries: [HashMap<String, Entry>; 4],
    /// Entries by last use, oldest first.
    order: BTreeMap<u64, (Kind, String)>,
    /// Bytes the entries of each visitor, and of each of their networks, hold.
    owned: HashMap<Group, usize>,
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
        for group in entry.owner.into_iter().flat_map(ClientKey::groups) {
            if let Some(n) = self.owned.get_mut(&group) {
                *n = n.saturating_sub(entry.size);
                if *n == 0 {
                    self.owned.remove(&group);
                }
            }
        }
    }

    /// Removes the least recently used entry of a visitor in `group` (any entry when `None`).
    fn evict_oldest(&mut self, group: Option<Group>) -> bool {
        let tick = self
            .order
            .iter()
            .find(|(_, (kind, key))| {
                group.is_none_or(|g| {
                    self.entries[*kind as usize]
                        .get(key)
                        .and_then(|e| e.owner)
                        .is_some_and(|o| o.group(g.level) == g)
                })
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
        for group in owner.into_iter().flat_map(ClientKey::groups) {
            let cap = group_cap(group.level, share);
            while self.owned.get(&group).copied().unwrap_or(0) + size > cap {
                if !self.evict_oldest(Some(group)) {
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
        for group in owner.into_iter().flat_map(ClientKey::groups) {
            *self.owned.entry(group).or_insert(0) += size;
        }
    }
}

/// What a visitor's group at `level` may hold when one visitor may hold `share`.
fn group_cap(level: Level, share: usize) -> usize {
    usize::try_from(level.cap(share as u64)).unwrap_or(usize::MAX)
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
        let cache = Cache::new(80_000);
        let me = ClientKey::of("198.51.100.1".parse().expect("ip"));
        put(&cache, "shared", 9000, None);
        for n in 0..5 {
            put(&cache, &format!("mine-{n}"), 3000, Some(me));
        }
        // An eighth of 80 000 bytes: only the newest three of mine fit.
        assert!(!has(&cache, "mine-0") && !has(&cache, "mine-1"));
        assert!(has(&cache, "mine-4"));
        assert!(has(&cache, "shared"), "others' entries stay");
        assert!(
            cache
                .lru()
                .owned
                .get(&me.group(Level::Client))
                .copied()
                .unwrap_or(0)
                <= 10_000,
            "within the share"
        );
        // Larger than a visitor's share: not kept for that visitor at all.
        put(&cache, "huge", 11_000, Some(me));
        assert!(!has(&cache, "huge"));
    }

    #[test]
    fn the_64s_of_one_48_hold_twice_one_visitors_share_and_a_bystanders_copy_stays() {
        let cache = Cache::new(80_000);
        let bystander = ClientKey::of("192.0.2.7".parse().expect("ip"));
        put(&cache, "theirs", 3000, Some(bystander));
        for n in 1..=16 {
            let from = ClientKey::of(format!("2001:db8:48:{n:x}::1").parse().expect("ip"));
            for m in 0..3 {
                put(&cache, &format!("v6-{n}-{m}"), 3000, Some(from));
            }
        }
        let held = cache
            .lru()
            .owned
            .get(&ClientKey::of("2001:db8:48::1".parse().expect("ip")).group(Level::Net48))
            .copied()
            .unwrap_or(0);
        assert!(held <= 20_000, "the /48 holds {held}");
        assert!(has(&cache, "v6-16-2"), "the newest stay");
        assert!(has(&cache, "theirs"), "the bystander's copy stays");
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
