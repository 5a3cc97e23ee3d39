//! What publishing may store: how many calendars (and each client's share of them) and how many
//! bytes their feed copies take. A publish reserves room for its feed before fetching it (the
//! fetch may bring no more than the room reserved) and is charged what it stores, checked again
//! in the write; a copy that grows on a later fetch is stored only while it fits. So no race of
//! concurrent publishes and no growing feed gets past the budget. Messages never tell anyone
//! what others use.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rusqlite::OptionalExtension;

use crate::config::CalendarSettings;
use crate::fair::{self, Level, Refusal, Shares};
use crate::lock::lock;
use crate::store::{ClientTags, StoreError};

/// One client's share of the calendars is this part of `--max-calendars`.
const SHARE_DIVISOR: usize = 8;

/// Room smaller than this is no room: no calendar feed is that small.
const MIN_ROOM: u64 = 1024;

/// Limits on what publishing may store (`--max-calendars`, `--max-feed-storage`).
#[derive(Debug, Clone, Copy)]
pub struct Quotas {
    pub max_calendars: usize,
    pub max_feed_storage: u64,
}

impl Quotas {
    pub fn of(settings: &CalendarSettings) -> Quotas {
        Quotas {
            max_calendars: settings.max_calendars,
            max_feed_storage: settings.max_feed_storage,
        }
    }

    /// How many calendars one client (who is not the site's owner) may have published.
    pub fn calendar_share(&self) -> usize {
        (self.max_calendars / SHARE_DIVISOR).max(1)
    }

    /// The calendars by the rule every global resource follows: a client an eighth (its /56
    /// and /48 a bounded multiple), the last eighth kept for clients that have none.
    fn calendar_shares(&self) -> Shares {
        let total = self.max_calendars as u64;
        Shares {
            total,
            per_client: self.calendar_share() as u64,
            newcomers: total / SHARE_DIVISOR as u64,
            server: 0,
        }
    }
}

/// Why a publish may not store anything more. Answered 507 Insufficient Storage rather than
/// 403: nothing is wrong with the request, the server is out of the room its owner gave it (or
/// gives one visitor), and the same request succeeds once room is made.
#[derive(Debug, thiserror::Error)]
pub enum QuotaError {
    #[error(
        "this server holds as many published calendars as its owner allows: unpublish one you \
         no longer need, or ask the site's owner to raise --max-calendars"
    )]
    TooManyCalendars,
    #[error(
        "your address already has its share of this server's published calendars ({share}): \
         unpublish one you no longer need first"
    )]
    CalendarShareTaken { share: usize },
    #[error(
        "your network already has its share of this server's published calendars: unpublish \
         one you no longer need first"
    )]
    NetworkShareTaken,
    #[error(
        "this server is nearly full, and the calendars left are kept for visitors who have \
         published none here yet: unpublish one you no longer need first"
    )]
    CalendarsKeptForNewcomers,
    #[error(
        "the server's storage for calendar feeds is full: unpublish a calendar you no longer \
         need, or ask the site's owner to raise --max-feed-storage"
    )]
    FeedStorageFull,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Before anything is fetched or stored: refuses a new calendar beyond the count, or beyond
/// the share of the client tagged `tags` and its networks, or into the room kept for newcomers
/// (the site's owner has no share to keep to). A calendar that exists already costs nothing new.
pub fn count_problem(
    conn: &rusqlite::Connection,
    id: &str,
    tags: &ClientTags,
    owner: bool,
    quotas: Quotas,
) -> Result<Option<QuotaError>, StoreError> {
    let exists = conn
        .query_row("SELECT 1 FROM calendars WHERE id = ?1", [id], |_| Ok(()))
        .optional()?
        .is_some();
    if exists {
        return Ok(None);
    }
    let count = |sql: &str, args: &[&dyn rusqlite::ToSql]| -> Result<u64, StoreError> {
        let n: i64 = conn.query_row(sql, args, |r| r.get(0))?;
        Ok(u64::try_from(n).unwrap_or(u64::MAX))
    };
    let mut held = fair::Held {
        total: count("SELECT count(*) FROM calendars", &[])?,
        ..fair::Held::default()
    };
    for level in Level::ALL {
        let (tag, column) = tags.at(level);
        held.by[level as usize] = count(
            &format!("SELECT count(*) FROM calendars WHERE {column} = ?1"),
            &[&tag],
        )?;
    }
    // The owner is held to the count only, like the server's own work.
    let shares = quotas.calendar_shares();
    let checked = if owner {
        shares.check_server(&held, 1)
    } else {
        shares.check_client(&held, 1)
    };
    Ok(match checked {
        Ok(()) => None,
        Err(Refusal::Full) => Some(QuotaError::TooManyCalendars),
        Err(Refusal::Share(Level::Client)) => Some(QuotaError::CalendarShareTaken {
            share: quotas.calendar_share(),
        }),
        Err(Refusal::Share(_)) => Some(QuotaError::NetworkShareTaken),
        Err(Refusal::KeptForNewcomers) => Some(QuotaError::CalendarsKeptForNewcomers),
    })
}

/// Bytes of the stored feed copies of every address but `url` (with every kept past event,
/// which counts against the same storage), and whether `url` has one.
pub fn stored_besides(conn: &rusqlite::Connection, url: &str) -> Result<(u64, bool), StoreError> {
    let (elsewhere, here): (i64, i64) = conn.query_row(
        "SELECT coalesce(sum(CASE WHEN url != ?1 THEN length(body) END), 0)
                  + (SELECT coalesce(sum(length(component)), 0) FROM kept_events),
                count(CASE WHEN url = ?1 THEN 1 END)
         FROM feed_copies",
        [url],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    Ok((u64::try_from(elsewhere).unwrap_or(0), here > 0))
}

/// Room reserved for feed copies being fetched for a publish, by address.
#[derive(Debug)]
pub struct FeedStorage {
    max: u64,
    reserved: Mutex<HashMap<String, Held>>,
}

#[derive(Debug, Clone, Copy)]
struct Held {
    bytes: u64,
    holders: usize,
}

impl FeedStorage {
    pub fn new(max: u64) -> Arc<FeedStorage> {
        Arc::new(FeedStorage {
            max,
            reserved: Mutex::new(HashMap::new()),
        })
    }

    pub fn max(&self) -> u64 {
        self.max
    }

    /// Bytes reserved for addresses other than `url`.
    pub fn reserved_besides(&self, url: &str) -> u64 {
        lock(&self.reserved)
            .iter()
            .filter(|(u, _)| u.as_str() != url)
            .map(|(_, held)| held.bytes)
            .sum()
    }

    /// Reserves room for a copy of `url`, at most `want` bytes, while `stored_elsewhere` bytes
    /// are stored for other addresses; publishes of the same address share one reservation.
    pub fn reserve(
        self: &Arc<Self>,
        url: &str,
        stored_elsewhere: u64,
        want: u64,
    ) -> Result<FeedReservation, QuotaError> {
        let mut reserved = lock(&self.reserved);
        if let Some(held) = reserved.get_mut(url) {
            held.holders += 1;
            return Ok(FeedReservation {
                storage: self.clone(),
                url: url.to_owned(),
                bytes: held.bytes,
            });
        }
        let others: u64 = reserved.values().map(|h| h.bytes).sum();
        let room = self
            .max
            .saturating_sub(stored_elsewhere)
            .saturating_sub(others);
        if room < MIN_ROOM {
            return Err(QuotaError::FeedStorageFull);
        }
        let bytes = want.min(room);
        reserved.insert(url.to_owned(), Held { bytes, holders: 1 });
        Ok(FeedReservation {
            storage: self.clone(),
            url: url.to_owned(),
            bytes,
        })
    }
}

/// Room held for one address until dropped.
#[derive(Debug)]
pub struct FeedReservation {
    storage: Arc<FeedStorage>,
    url: String,
    bytes: u64,
}

impl FeedReservation {
    /// The most the fetch may bring.
    pub fn bytes(&self) -> u64 {
        self.bytes
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

    #[test]
    fn concurrent_reservations_share_the_room_and_never_pass_it() {
        let storage = FeedStorage::new(8 * 1024 * 1024);
        let want = 5 * 1024 * 1024;
        let a = storage.reserve("https://a/", 0, want).expect("a");
        assert_eq!(a.bytes(), want);
        let b = storage
            .reserve("https://b/", 0, want)
            .expect("b gets the rest");
        assert_eq!(b.bytes(), 3 * 1024 * 1024);
        assert!(matches!(
            storage.reserve("https://c/", 0, want),
            Err(QuotaError::FeedStorageFull)
        ));
        // The same address shares its reservation.
        let a2 = storage.reserve("https://a/", 0, want).expect("shared");
        assert_eq!(a2.bytes(), want);
        assert_eq!(storage.reserved_besides("https://a/"), 3 * 1024 * 1024);
        drop((a, b));
        assert_eq!(
            storage.reserved_besides("https://z/"),
            want,
            "a2 still holds it"
        );
        drop(a2);
        assert_eq!(storage.reserved_besides("https://z/"), 0);
        // What is stored elsewhere counts too.
        assert!(matches!(
            storage.reserve("https://d/", 8 * 1024 * 1024 - 100, want),
            Err(QuotaError::FeedStorageFull)
        ));
    }

    #[test]
    fn a_client_has_an_eighth_of_the_calendars() {
        let q = Quotas {
            max_calendars: 100,
            max_feed_storage: 1,
        };
        assert_eq!(q.calendar_share(), 12);
        let tiny = Quotas {
            max_calendars: 3,
            ..q
        };
        assert_eq!(tiny.calendar_share(), 1);
    }
}
