//! Feed storage (`--max-feed-storage`): the stored copies of upstream feeds and the past events
//! kept from them (history) together, held to the rule every global resource follows (`fair`):
//! a publisher (a client, its /56 and /48 at their multiples, known by the tags its calendars
//! carry) may hold an eighth, and the last eighth is kept for publishers holding none. What a
//! publisher holds is every address its calendars read, each counted once and whole: an
//! address read by calendars of several publishers is charged to each of them (sharing an
//! address with someone else never halves a charge, and nobody can be charged by another
//! publisher's choice of address without choosing it too). The site's owner (the publish key)
//! has no share, only the whole.
//!
//! A publish reserves room for a new address before fetching it (the fetch may bring no more);
//! a copy that grows later, and the past events it dropped, are stored only within the room the
//! address has: its publishers' shares and the whole, each counting the address's own copy. When
//! that room is short, the oldest kept events go first; a copy that still does not fit is served
//! from memory and not stored. Messages never tell anyone what others use.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rusqlite::{params, Connection, OptionalExtension};

use super::quotas::QuotaError;
use crate::fair::{Level, Shares};
use crate::lock::lock;
use crate::store::{ClientTags, StoreError};

/// One publisher's share of the feed storage is this part of it, and so is the room kept for
/// publishers holding none.
const SHARE_DIVISOR: u64 = 8;

/// Room smaller than this is no room: no calendar feed is that small.
pub const MIN_ROOM: u64 = 1024;

/// The feed storage by the one rule.
pub fn shares(max: u64) -> Shares {
    Shares::divided(max, SHARE_DIVISOR, MIN_ROOM)
}

fn bytes(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// What one address takes: (its copy, its kept events).
pub fn address_bytes(conn: &Connection, url: &str) -> Result<(u64, u64), StoreError> {
    let (copy, kept): (i64, i64) = conn.query_row(
        "SELECT coalesce((SELECT length(body) FROM feed_copies WHERE url = ?1), 0),
                coalesce((SELECT sum(length(component)) FROM kept_events WHERE url = ?1), 0)",
        [url],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    Ok((bytes(copy), bytes(kept)))
}

/// All feed storage in use: every copy and every kept event.
pub fn stored_total(conn: &Connection) -> Result<u64, StoreError> {
    let total: i64 = conn.query_row(
        "SELECT (SELECT coalesce(sum(length(body)), 0) FROM feed_copies)
              + (SELECT coalesce(sum(length(component)), 0) FROM kept_events)",
        [],
        |r| r.get(0),
    )?;
    Ok(bytes(total))
}

/// What the publisher tagged `tags` holds at each level (client, /56, /48): the addresses its
/// calendars read, each once, with their kept events.
pub fn held_by(conn: &Connection, tags: &ClientTags) -> Result<[u64; 3], StoreError> {
    let mut held = [0; 3];
    for level in Level::ALL {
        let (tag, column) = tags.at(level);
        let n: i64 = conn
            .prepare_cached(&format!(
                "SELECT coalesce(sum(
                    coalesce((SELECT length(body) FROM feed_copies f WHERE f.url = a.url), 0)
                  + coalesce((SELECT sum(length(component)) FROM kept_events k WHERE k.url = a.url), 0)
                 ), 0)
                 FROM (SELECT DISTINCT u.url FROM calendar_urls u
                       JOIN calendars c ON c.id = u.calendar_id WHERE c.{column} = ?1) a"
            ))?
            .query_row([tag], |r| r.get(0))?;
        held[level as usize] = bytes(n);
    }
    Ok(held)
}

/// The publishers whose calendars read `url` (the owner's calendars carry no tags: no share).
pub fn publishers_of(conn: &Connection, url: &str) -> Result<Vec<ClientTags>, StoreError> {
    let mut statement = conn.prepare_cached(
        "SELECT DISTINCT c.client, c.net56, c.net48 FROM calendar_urls u
         JOIN calendars c ON c.id = u.calendar_id WHERE u.url = ?1 AND c.client != ''",
    )?;
    let publishers = statement
        .query_map([url], |r| {
            Ok(ClientTags {
                client: r.get(0)?,
                net56: r.get(1)?,
                net48: r.get(2)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(publishers)
}

/// Whether a calendar of the publisher tagged `tags` reads `url` already.
fn reads(conn: &Connection, tags: &ClientTags, url: &str) -> Result<bool, StoreError> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM calendar_urls u JOIN calendars c ON c.id = u.calendar_id
             WHERE u.url = ?1 AND c.client = ?2 LIMIT 1",
            [url, tags.client.as_str()],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// How many bytes an address may take, and what bounds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Room {
    pub bytes: u64,
    short: Short,
}

impl Room {
    /// Why more than [`Room::bytes`] is refused.
    pub fn refusal(&self) -> QuotaError {
        self.short.error()
    }

    fn bound(&mut self, bytes: u64, short: Short) {
        if bytes < self.bytes {
            *self = Room { bytes, short };
        }
    }
}

/// How many bytes `url` may take, its copy and its kept events together: every publisher of it
/// within its share (with what publishes under way hold for it), everything within the whole
/// with the room kept for newcomers (when a visitor publishes it), and `storage`'s reservations
/// for other addresses counted.
pub fn room_for(conn: &Connection, url: &str, storage: &FeedStorage) -> Result<Room, StoreError> {
    let shares = storage.shares;
    let (copy, kept) = address_bytes(conn, url)?;
    let mine = copy + kept;
    let others = stored_total(conn)?
        .saturating_sub(mine)
        .saturating_add(storage.reserved_besides(url));
    let mut room = Room {
        bytes: shares.total.saturating_sub(others),
        short: Short::Whole,
    };
    let publishers = publishers_of(conn, url)?;
    if !publishers.is_empty() {
        let visitors = shares.total.saturating_sub(shares.newcomers);
        room.bound(visitors.saturating_sub(others), Short::Newcomers);
    }
    for tags in &publishers {
        let held = held_by(conn, tags)?;
        let pending = storage.reserved_by(tags, Some(url));
        for level in Level::ALL {
            let i = level as usize;
            let besides = held[i].saturating_sub(mine).saturating_add(pending[i]);
            room.bound(
                shares.cap(level).saturating_sub(besides),
                Short::Share(level),
            );
        }
    }
    Ok(room)
}

/// Drops `url`'s kept events, the oldest first, until they take at most `max_bytes` and number
/// at most `max_count`; returns how many went.
pub fn trim_kept(
    conn: &Connection,
    url: &str,
    max_bytes: u64,
    max_count: usize,
) -> Result<usize, StoreError> {
    let mut statement = conn.prepare_cached(
        "SELECT uid, recurrence_id, length(component) FROM kept_events WHERE url = ?1
         ORDER BY ends_at DESC, uid DESC, recurrence_id DESC",
    )?;
    let rows = statement
        .query_map([url], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, i64>(2)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let (mut used, mut count, mut dropped) = (0u64, 0usize, 0usize);
    for (uid, recurrence_id, size) in rows {
        let size = bytes(size);
        if count < max_count && used + size <= max_bytes {
            used += size;
            count += 1;
            continue;
        }
        conn.execute(
            "DELETE FROM kept_events WHERE url = ?1 AND uid = ?2 AND recurrence_id = ?3",
            params![url, uid, recurrence_id],
        )?;
        dropped += 1;
    }
    Ok(dropped)
}

/// Room reserved for feed copies being fetched for a publish, by address, with the publisher
/// each is for; and the rule they are held to.
#[derive(Debug)]
pub struct FeedStorage {
    shares: Shares,
    reserved: Mutex<HashMap<String, Reserved>>,
}

#[derive(Debug, Clone)]
struct Reserved {
    bytes: u64,
    holders: usize,
    /// The publisher it is held for (none: the owner).
    tags: Option<ClientTags>,
    short: Short,
}

/// What bounds a reservation when it is smaller than what was wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Short {
    Whole,
    Newcomers,
    Share(Level),
}

impl Short {
    fn error(self) -> QuotaError {
        match self {
            Short::Whole => QuotaError::FeedStorageFull,
            Short::Newcomers => QuotaError::FeedStorageKeptForNewcomers,
            Short::Share(level) => share_taken(level),
        }
    }
}

impl FeedStorage {
    pub fn new(max: u64) -> Arc<FeedStorage> {
        Arc::new(FeedStorage {
            shares: shares(max),
            reserved: Mutex::new(HashMap::new()),
        })
    }

    pub fn max(&self) -> u64 {
        self.shares.total
    }

    pub fn shares(&self) -> Shares {
        self.shares
    }

    /// Bytes reserved for addresses other than `url`.
    pub fn reserved_besides(&self, url: &str) -> u64 {
        lock(&self.reserved)
            .iter()
            .filter(|(u, _)| u.as_str() != url)
            .map(|(_, held)| held.bytes)
            .sum()
    }

    /// Bytes reserved for the publisher tagged `tags` at each level, besides `url`'s.
    fn reserved_by(&self, tags: &ClientTags, besides: Option<&str>) -> [u64; 3] {
        let mut held = [0; 3];
        for (url, r) in lock(&self.reserved).iter() {
            if Some(url.as_str()) == besides {
                continue;
            }
            let Some(theirs) = &r.tags else { continue };
            for level in Level::ALL {
                if theirs.at(level).0 == tags.at(level).0 {
                    held[level as usize] += r.bytes;
                }
            }
        }
        held
    }

    /// Reserves room for a new copy of `url` (none stored), at most `want` bytes, for the
    /// publisher tagged `tags` (none: the site's owner, held to the whole only) while `conn`
    /// shows what is stored. Publishes of the same address share one reservation.
    pub fn reserve(
        self: &Arc<Self>,
        conn: &Connection,
        url: &str,
        tags: Option<&ClientTags>,
        want: u64,
    ) -> Result<FeedReservation, QuotaError> {
        let stored = stored_total(conn)?;
        let held = match tags {
            Some(tags) => Some(held_by(conn, tags)?),
            None => None,
        };
        let mut reserved = lock(&self.reserved);
        if let Some(r) = reserved.get_mut(url) {
            r.holders += 1;
            return Ok(FeedReservation {
                storage: self.clone(),
                url: url.to_owned(),
                bytes: r.bytes,
                short: r.short,
            });
        }
        let others: u64 = reserved.values().map(|r| r.bytes).sum();
        let used = stored.saturating_add(others);
        let mut room = self.shares.total.saturating_sub(used);
        let mut short = Short::Whole;
        if let (Some(tags), Some(held)) = (tags, held) {
            let mut pending = [0u64; 3];
            for r in reserved.values() {
                let Some(theirs) = &r.tags else { continue };
                for level in Level::ALL {
                    if theirs.at(level).0 == tags.at(level).0 {
                        pending[level as usize] += r.bytes;
                    }
                }
            }
            let holds = held[0] + pending[0] > 0;
            if holds {
                let visitors = self.shares.total.saturating_sub(self.shares.newcomers);
                let kept = visitors.saturating_sub(used);
                if kept < room {
                    room = kept;
                    short = Short::Newcomers;
                }
            }
            for level in Level::ALL {
                let i = level as usize;
                let left = self.shares.cap(level).saturating_sub(held[i] + pending[i]);
                if left < room {
                    room = left;
                    short = Short::Share(level);
                }
            }
        }
        if room < MIN_ROOM {
            return Err(short.error());
        }
        let bytes = want.min(room);
        reserved.insert(
            url.to_owned(),
            Reserved {
                bytes,
                holders: 1,
                tags: tags.cloned(),
                short,
            },
        );
        Ok(FeedReservation {
            storage: self.clone(),
            url: url.to_owned(),
            bytes,
            short,
        })
    }

    /// When `url` is stored already: whether the publisher tagged `tags` may start reading it,
    /// as it is then charged for it whole. Nothing new is stored, so only its share is asked.
    pub fn check_adding(
        &self,
        conn: &Connection,
        url: &str,
        tags: &ClientTags,
    ) -> Result<(), QuotaError> {
        if reads(conn, tags, url)? {
            return Ok(());
        }
        let (copy, kept) = address_bytes(conn, url)?;
        let held = held_by(conn, tags)?;
        let pending = self.reserved_by(tags, None);
        for level in Level::ALL {
            let i = level as usize;
            if held[i] + pending[i] + copy + kept > self.shares.cap(level) {
                return Err(share_taken(level));
            }
        }
        Ok(())
    }
}

fn share_taken(level: Level) -> QuotaError {
    match level {
        Level::Client => QuotaError::FeedShareTaken,
        _ => QuotaError::FeedNetworkShareTaken,
    }
}

/// Room held for one address until dropped.
#[derive(Debug)]
pub struct FeedReservation {
    storage: Arc<FeedStorage>,
    url: String,
    bytes: u64,
    short: Short,
}

impl FeedReservation {
    /// The most the fetch may bring.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Why a feed larger than [`FeedReservation::bytes`] is refused: the whole is full, or the
    /// publisher's share is taken, or what is left is kept for newcomers.
    pub fn refusal(&self) -> QuotaError {
        self.short.error()
    }
}

impl Drop for FeedReservation {
    fn drop(&mut self) {
        let mut reserved = lock(&self.storage.reserved);
        if let Some(held) = reserved.get_mut(&self.url) {
            held.holders = held.holders.saturating_sub(1);
            if held.holders == 0 {
                reserved.remove(&self.url);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Db;

    const MIB: u64 = 1024 * 1024;

    fn tags(n: u8) -> ClientTags {
        ClientTags {
            client: format!("c{n}"),
            net56: format!("c{n}"),
            net48: format!("c{n}"),
        }
    }

    fn db() -> (tempfile::TempDir, Connection) {
        let dir = tempfile::tempdir().expect("tempdir");
        drop(Db::open(dir.path()).expect("opens"));
        let conn = Connection::open(dir.path().join(crate::store::DB_FILE)).expect("opens");
        (dir, conn)
    }

    /// A calendar `id` of the publisher tagged `tags` reading `url`, whose copy takes `copy`
    /// bytes and kept events `kept` (in events of `each` bytes, ending one a day).
    fn seed(conn: &Connection, id: &str, tags: &ClientTags, url: &str, copy: u64, kept: &[u64]) {
        conn.execute(
            "INSERT INTO calendars (id, name, url, mapping, token_hash, created_at, updated_at, client, net56, net48)
             VALUES (?1, ?1, ?2, '{}', 'x', 0, 0, ?3, ?4, ?5)",
            params![id, url, tags.client, tags.net56, tags.net48],
        )
        .expect("calendar");
        conn.execute(
            "INSERT INTO feed_copies (url, body, fetched_at, changed_at) VALUES (?1, zeroblob(?2), 0, 0)
             ON CONFLICT (url) DO NOTHING",
            params![url, copy as i64],
        )
        .expect("copy");
        for (day, size) in kept.iter().enumerate() {
            conn.execute(
                "INSERT INTO kept_events (url, uid, ends_at, component) VALUES (?1, ?2, ?3, zeroblob(?4))",
                params![url, format!("e{day}"), day as i64 * 86_400, *size as i64],
            )
            .expect("kept");
        }
    }

    #[test]
    fn a_publisher_is_charged_each_address_it_reads_once_and_whole() {
        let (_dir, conn) = db();
        seed(&conn, "a1", &tags(1), "https://x/a", 100, &[10, 20]);
        seed(&conn, "a2", &tags(1), "https://x/a", 100, &[]);
        seed(&conn, "b1", &tags(2), "https://x/a", 100, &[]);
        seed(&conn, "b2", &tags(2), "https://x/b", 50, &[]);
        assert_eq!(held_by(&conn, &tags(1)).expect("held"), [130; 3]);
        assert_eq!(held_by(&conn, &tags(2)).expect("held"), [180; 3]);
        assert_eq!(stored_total(&conn).expect("total"), 180);
        assert_eq!(
            publishers_of(&conn, "https://x/a")
                .expect("publishers")
                .len(),
            2
        );
    }

    #[test]
    fn the_room_of_an_address_counts_its_own_copy_and_every_publishers_share() {
        let (_dir, conn) = db();
        let storage = FeedStorage::new(8 * MIB);
        // A publisher holding its share (1 MiB) with this address and another one.
        seed(&conn, "a1", &tags(1), "https://x/a", 300 * 1024, &[]);
        seed(&conn, "a2", &tags(1), "https://x/b", 500 * 1024, &[]);
        let room = room_for(&conn, "https://x/a", &storage).expect("room");
        assert_eq!(
            room.bytes,
            MIB - 500 * 1024,
            "its share, less its other address"
        );
        assert!(matches!(room.refusal(), QuotaError::FeedShareTaken));
        let room = room.bytes;
        // Past events beyond that room go, the oldest first.
        for day in 0..10 {
            conn.execute(
                "INSERT INTO kept_events (url, uid, ends_at, component) VALUES ('https://x/a', ?1, ?2, zeroblob(30000))",
                params![format!("k{day}"), day * 86_400],
            )
            .expect("kept");
        }
        let dropped = trim_kept(&conn, "https://x/a", room - 300 * 1024, 5_000).expect("trims");
        assert_eq!(dropped, 3, "224 KiB hold 7 of 30,000 bytes");
        let oldest: i64 = conn
            .query_row("SELECT min(ends_at) FROM kept_events", [], |r| r.get(0))
            .expect("oldest");
        assert_eq!(oldest, 3 * 86_400, "the three oldest went");
        assert!(address_bytes(&conn, "https://x/a").expect("bytes").1 <= room - 300 * 1024);
    }

    #[test]
    fn reservations_hold_to_the_whole_the_share_and_the_room_kept_for_newcomers() {
        let (_dir, conn) = db();
        let storage = FeedStorage::new(8 * MIB);
        let want = 5 * MIB;
        // The owner has no share: only the whole.
        let owner = storage
            .reserve(&conn, "https://x/o", None, want)
            .expect("o");
        assert_eq!(owner.bytes(), want);
        // A newcomer gets its share, however much it wants.
        let a = storage
            .reserve(&conn, "https://x/a", Some(&tags(1)), want)
            .expect("a");
        assert_eq!(a.bytes(), MIB);
        // Its next address has no share left.
        assert!(matches!(
            storage.reserve(&conn, "https://x/a2", Some(&tags(1)), want),
            Err(QuotaError::FeedShareTaken)
        ));
        // The same address shares its reservation.
        let a_again = storage
            .reserve(&conn, "https://x/a", Some(&tags(1)), want)
            .expect("shared");
        assert_eq!(a_again.bytes(), MIB);
        drop((a, a_again));
        // 7 MiB stored by others: a publisher holding some cannot take the last eighth, a
        // newcomer can.
        drop(owner);
        seed(
            &conn,
            "big",
            &tags(9),
            "https://x/big",
            7 * MIB - 1_500,
            &[],
        );
        seed(&conn, "c", &tags(3), "https://x/c", 1_000, &[]);
        assert!(matches!(
            storage.reserve(&conn, "https://x/c2", Some(&tags(3)), want),
            Err(QuotaError::FeedStorageKeptForNewcomers)
        ));
        let newcomer = storage
            .reserve(&conn, "https://x/n", Some(&tags(4)), want)
            .expect("a newcomer has the top");
        assert_eq!(newcomer.bytes(), MIB);
    }

    #[test]
    fn reading_a_stored_address_is_charged_to_the_new_reader_too() {
        let (_dir, conn) = db();
        let storage = FeedStorage::new(8 * MIB);
        seed(&conn, "big", &tags(1), "https://x/big", 900 * 1024, &[]);
        seed(&conn, "mine", &tags(2), "https://x/mine", 200 * 1024, &[]);
        assert!(storage
            .check_adding(&conn, "https://x/big", &tags(1))
            .is_ok());
        assert!(matches!(
            storage.check_adding(&conn, "https://x/big", &tags(2)),
            Err(QuotaError::FeedShareTaken)
        ));
        assert!(storage
            .check_adding(&conn, "https://x/big", &tags(3))
            .is_ok());
    }
}
