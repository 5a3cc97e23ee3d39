//! Sources' logins, write-only: given with a publish (or an editor's read of a source not
//! published yet), sealed at rest under a key kept apart from the database (`seal`), stored
//! per calendar and address in a table of their own, never in the options JSON (which says
//! `"auth": "set"`), and opened only to fetch: for the calendar's own fetches, for a republish
//! that keeps it (`"set"` with the edit token, to the same origin), and for its owner's editor.

pub mod editor;
mod given;
pub mod seal;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::params;

use super::fetch::Login;
use crate::calendar::config::SourceAuth;
use crate::lock::lock;
use crate::store::{Db, StoreError};
pub use seal::{Keys, SealError, KEY_FILE};

/// Why a stored login could not be had.
#[derive(Debug, thiserror::Error)]
pub enum LoginError {
    #[error(transparent)]
    Seal(#[from] SealError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// One stored login, opened.
#[derive(Debug, Clone)]
pub struct Stored {
    pub url: String,
    pub auth: SourceAuth,
}

/// The data directory's key, loaded (or made) at first need and kept.
pub struct Logins {
    data_dir: PathBuf,
    keys: Mutex<Option<Arc<Keys>>>,
}

impl std::fmt::Debug for Logins {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Logins")
            .field("data_dir", &self.data_dir)
            .finish()
    }
}

impl Logins {
    pub fn new(data_dir: &Path) -> Logins {
        Logins {
            data_dir: data_dir.to_owned(),
            keys: Mutex::new(None),
        }
    }

    /// The key; made when `make` and the data directory has none (a login is being stored).
    fn keys(&self, make: bool) -> Result<Arc<Keys>, SealError> {
        let mut held = lock(&self.keys);
        if let Some(keys) = held.as_ref() {
            return Ok(keys.clone());
        }
        let keys = Arc::new(Keys::load(&self.data_dir, make)?);
        *held = Some(keys.clone());
        Ok(keys)
    }

    /// `auth` (given in full) for fetching `url`, with the tag its copies are kept under.
    pub fn login(&self, url: &str, auth: SourceAuth, plain_http: bool) -> Result<Login, SealError> {
        let tag = self.keys(true)?.tag(url, &auth);
        Ok(Login {
            auth,
            plain_http,
            tag,
        })
    }

    /// Every login stored for calendar `id`, opened.
    pub async fn stored(&self, db: &Db, id: &str) -> Result<Vec<Stored>, LoginError> {
        let calendar = id.to_owned();
        let rows = db.read(move |conn| sealed_of(conn, &calendar)).await?;
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let keys = self.keys(false)?;
        rows.into_iter()
            .map(|(url, sealed)| {
                let auth = keys.open(id, &url, &sealed)?;
                Ok(Stored { url, auth })
            })
            .collect()
    }

    /// Sealed rows for calendar `id`'s logins (address, login, its copies' tag), to be written
    /// with the calendar by [`replace`].
    pub fn seal_all(
        &self,
        id: &str,
        logins: &[(String, Login)],
    ) -> Result<Vec<SealedRow>, SealError> {
        if logins.is_empty() {
            return Ok(Vec::new());
        }
        let keys = self.keys(true)?;
        logins
            .iter()
            .map(|(url, login)| {
                Ok(SealedRow {
                    url: url.clone(),
                    sealed: keys.seal(id, url, &login.auth)?,
                    tag: login.tag.clone(),
                })
            })
            .collect()
    }
}

/// A login ready to store.
#[derive(Debug, Clone)]
pub struct SealedRow {
    pub url: String,
    pub sealed: Vec<u8>,
    pub tag: String,
}

/// The sealed logins of calendar `id`: (address, sealed bytes).
pub fn sealed_of(
    conn: &rusqlite::Connection,
    id: &str,
) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
    let mut statement = conn.prepare_cached(
        "SELECT url, sealed FROM source_logins WHERE calendar_id = ?1 ORDER BY url",
    )?;
    let rows = statement
        .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Calendar `id`'s logins become `rows` (inside the caller's transaction).
pub fn replace(
    conn: &rusqlite::Connection,
    id: &str,
    rows: &[SealedRow],
) -> Result<(), StoreError> {
    conn.execute("DELETE FROM source_logins WHERE calendar_id = ?1", [id])?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO source_logins (calendar_id, url, sealed, tag) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for row in rows {
        insert.execute(params![id, row.url, row.sealed, row.tag])?;
    }
    Ok(())
}

/// A calendar's id, and how many of its logins open (or why one does not).
pub type CalendarLogins = (String, Result<usize, SealError>);

/// For `hearth doctor`: each calendar with a stored login, and whether all its logins open with
/// the key in `data_dir` (the first failure in words when not). Empty: no login is stored.
pub fn check_all(
    conn: &rusqlite::Connection,
    data_dir: &Path,
) -> Result<Vec<CalendarLogins>, StoreError> {
    // A database a server of this version has not migrated yet holds no login.
    let table: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'source_logins'",
        [],
        |r| r.get(0),
    )?;
    if table == 0 {
        return Ok(Vec::new());
    }
    let mut statement =
        conn.prepare("SELECT calendar_id, url, sealed FROM source_logins ORDER BY calendar_id")?;
    let rows = statement
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Vec<u8>>(2)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let keys = Keys::load(data_dir, false);
    let mut out: Vec<CalendarLogins> = Vec::new();
    for (calendar, url, sealed) in rows {
        let opened = match &keys {
            Ok(keys) => keys.open(&calendar, &url, &sealed).map(|_| ()),
            Err(e) => Err(e.clone()),
        };
        match out.last_mut() {
            Some((last, state)) if *last == calendar => {
                if let (Ok(n), Ok(())) = (&*state, &opened) {
                    *state = Ok(n + 1);
                } else if let (Ok(_), Err(e)) = (&*state, opened) {
                    *state = Err(e);
                }
            }
            _ => out.push((calendar, opened.map(|()| 1))),
        }
    }
    Ok(out)
}
