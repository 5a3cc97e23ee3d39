//! What publishing may store: how many calendars (and each client's share of them), and the
//! refusals of the feed storage, whose shares and reservations live in `storage.rs`. Messages
//! never tell anyone what others use.

use rusqlite::OptionalExtension;

use crate::config::CalendarSettings;
use crate::fair::{self, Level, Refusal, Shares};
use crate::store::{ClientTags, StoreError};

/// One client's share of the calendars is this part of `--max-calendars`.
const SHARE_DIVISOR: usize = 8;

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
    #[error(
        "your address already has its share of this server's storage for calendar feeds (the \
         feeds your calendars read and the past events they keep): unpublish a calendar you no \
         longer need, or keep fewer days of history"
    )]
    FeedShareTaken,
    #[error(
        "your network already has its share of this server's storage for calendar feeds: \
         unpublish a calendar you no longer need first"
    )]
    FeedNetworkShareTaken,
    #[error(
        "the server's storage for calendar feeds is nearly full, and what is left is kept for \
         visitors who have published nothing here yet: unpublish a calendar you no longer need \
         first"
    )]
    FeedStorageKeptForNewcomers,
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

#[cfg(test)]
mod tests {
    use super::*;

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
