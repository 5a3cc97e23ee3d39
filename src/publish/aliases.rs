//! A second hosted address of a calendar, for Google: Google Calendar fetches a subscription
//! every 8 to 24 hours whatever the feed asks, but fetches a new address at once, so the editor
//! offers "A new address for Google". An alias, `/cal/{id}~{10 hex}.ics`, is kept in SQL
//! (`calendar_aliases`), made with the calendar's edit token (`POST
//! /api/calendars/{id}/aliases`; listed newest first as `googleAddresses` in the calendar's
//! status, so its editor shows the one given to Google again), at most [`MAX_ALIASES`] per
//! calendar, and served exactly as `/cal/{id}.ics` is (the same render, budgets and allowance
//! of polls, counted as that calendar's polls); the old addresses stay served. `~` is not a
//! character of calendar ids, so an alias never names another calendar. Deleting the calendar
//! deletes its aliases, which are answered 410 afterwards as its own address is.

use std::collections::HashMap;
use std::sync::RwLock;

use rusqlite::OptionalExtension;

use super::validate;
use crate::clock::to_millis;
use crate::store::{Db, StoreError};

/// The most second addresses one calendar may have.
pub const MAX_ALIASES: i64 = 5;
/// Aliases held in memory once read (each is one calendar's; the bound keeps a flood of
/// calendars from growing it without end).
const MAX_KNOWN: usize = 10_000;

/// Aliases read so far, alias → calendar id, so a poll of one needs no database read.
#[derive(Default)]
pub struct Aliases {
    known: RwLock<HashMap<String, String>>,
}

impl Aliases {
    /// The calendar `alias` names, if any (from memory, else the database).
    pub async fn resolve(&self, db: &Db, alias: &str) -> Result<Option<String>, StoreError> {
        if let Some(id) = self
            .known
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(alias)
        {
            return Ok(Some(id.clone()));
        }
        let wanted = alias.to_owned();
        let found: Option<String> = db
            .read(move |conn| {
                Ok(conn
                    .query_row(
                        "SELECT calendar_id FROM calendar_aliases WHERE alias = ?1",
                        [&wanted],
                        |r| r.get(0),
                    )
                    .optional()?)
            })
            .await?;
        if let Some(id) = &found {
            let mut known = self.known.write().unwrap_or_else(|e| e.into_inner());
            if known.len() < MAX_KNOWN {
                known.insert(alias.to_owned(), id.clone());
            }
        }
        Ok(found)
    }

    /// Forgets the aliases of calendar `id` (deleted).
    pub fn forget(&self, id: &str) {
        self.known
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|_, calendar| calendar != id);
    }
}

/// Whether `stem` (a hosted file's name without `.ics`) is an alias: `{id}~{10 hex}`.
pub fn is_alias(stem: &str) -> bool {
    stem.split_once('~').is_some_and(|(id, tag)| {
        validate::validate_id(id).is_ok()
            && tag.len() == 10
            && tag
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    })
}

/// The aliases of calendar `id`, newest first: for its status (its editor shows the newest, the
/// one given to Google last), and before it is deleted, so they are answered 410 after.
pub async fn of(db: &Db, id: String) -> Result<Vec<String>, StoreError> {
    db.read(move |conn| {
        let mut statement = conn.prepare(
            "SELECT alias FROM calendar_aliases WHERE calendar_id = ?1
             ORDER BY created_at DESC, rowid DESC",
        )?;
        let aliases = statement
            .query_map([&id], |r| r.get(0))?
            .collect::<Result<Vec<String>, _>>()?;
        Ok(aliases)
    })
    .await
}

/// What storing a new alias came to.
pub enum Made {
    Alias { alias: String, count: i64 },
    Full,
    NoCalendar,
}

pub async fn store(db: &Db, id: String, now: std::time::SystemTime) -> Result<Made, StoreError> {
    let alias = format!("{id}~{}", &uuid::Uuid::new_v4().simple().to_string()[..10]);
    let at = to_millis(now);
    db.write(move |conn| {
        let tx = conn.transaction()?;
        let exists: bool = tx
            .query_row("SELECT 1 FROM calendars WHERE id = ?1", [&id], |_| Ok(()))
            .optional()?
            .is_some();
        if !exists {
            return Ok(Made::NoCalendar);
        }
        let count: i64 = tx.query_row(
            "SELECT count(*) FROM calendar_aliases WHERE calendar_id = ?1",
            [&id],
            |r| r.get(0),
        )?;
        if count >= MAX_ALIASES {
            return Ok(Made::Full);
        }
        tx.execute(
            "INSERT INTO calendar_aliases (alias, calendar_id, created_at) VALUES (?1, ?2, ?3)",
            rusqlite::params![alias, id, at],
        )?;
        tx.commit()?;
        Ok(Made::Alias {
            alias,
            count: count + 1,
        })
    })
    .await
}
