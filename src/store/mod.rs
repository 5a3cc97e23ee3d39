//! The SQLite file in the data directory: opening it with the right pragmas, migrating it, and
//! running queries on blocking threads so that no connection is ever held across an `.await`.

mod backup;
mod migrations;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

pub use backup::{backup_to, BackupError};
pub use migrations::SCHEMA_VERSION;

/// File name of the database inside the data directory.
pub const DB_FILE: &str = "hearth.db";

/// How long a statement waits for a lock held by another connection before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Reader connections kept open for reuse; more are opened on demand and closed after use.
const MAX_IDLE_READERS: usize = 4;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot create the data directory {path}: {source}")]
    CreateDir {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot open the database {path}: {source}")]
    Open {
        path: String,
        source: rusqlite::Error,
    },
    #[error(
        "the database {path} has schema version {found}, newer than this hearth supports ({supported}): \
         run a newer hearth, or restore a backup made by this version"
    )]
    TooNew {
        path: String,
        found: i64,
        supported: i64,
    },
    #[error("migrating the database to schema version {version} failed: {source}")]
    Migration {
        version: i64,
        source: rusqlite::Error,
    },
    #[error("could not snapshot the database before migrating: {0}")]
    Snapshot(#[from] BackupError),
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("the database task stopped unexpectedly")]
    TaskFailed,
}

/// Handle to the database: one writer connection and a small pool of readers (WAL lets them run
/// beside the writer). Cheap to clone.
#[derive(Clone)]
pub struct Db {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    writer: Mutex<Connection>,
    readers: Mutex<Vec<Connection>>,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("path", &self.inner.path)
            .finish()
    }
}

impl Db {
    /// Opens (creating if needed) `hearth.db` in `data_dir` and brings its schema up to date.
    pub fn open(data_dir: &Path) -> Result<Db, StoreError> {
        std::fs::create_dir_all(data_dir).map_err(|source| StoreError::CreateDir {
            path: data_dir.display().to_string(),
            source,
        })?;
        let path = data_dir.join(DB_FILE);
        let mut writer = open_connection(&path, OpenFlags::default())?;
        migrations::migrate(&mut writer, &path)?;
        Ok(Db {
            inner: Arc::new(Inner {
                path,
                writer: Mutex::new(writer),
                readers: Mutex::new(Vec::new()),
            }),
        })
    }

    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Runs `f` with a reader connection on a blocking thread.
    pub async fn read<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || {
            let conn = match lock(&inner.readers).pop() {
                Some(conn) => conn,
                None => open_connection(&inner.path, OpenFlags::SQLITE_OPEN_READ_ONLY)?,
            };
            let result = f(&conn);
            let mut idle = lock(&inner.readers);
            if idle.len() < MAX_IDLE_READERS {
                idle.push(conn);
            }
            result
        })
        .await
        .map_err(|_| StoreError::TaskFailed)?
    }

    /// Runs `f` with the writer connection on a blocking thread; writes are serialised here
    /// rather than by SQLite's busy handler.
    pub async fn write<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || f(&mut lock(&inner.writer)))
            .await
            .map_err(|_| StoreError::TaskFailed)?
    }

    /// Readiness: opens a fresh connection to the file and reads its schema, so a file that was
    /// removed, replaced or made unreadable is noticed (a pooled connection would not notice).
    pub async fn check(&self) -> Result<(), StoreError> {
        let path = self.inner.path.clone();
        tokio::task::spawn_blocking(move || {
            let conn = open_connection(&path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
            conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| {
                r.get::<_, i64>(0)
            })?;
            Ok(())
        })
        .await
        .map_err(|_| StoreError::TaskFailed)?
    }

    /// Leaves the file tidy at shutdown: lets SQLite refresh its statistics and folds the WAL
    /// back into the main file. Connections close when the last handle is dropped.
    pub fn close(&self) {
        lock(&self.inner.readers).clear();
        let writer = lock(&self.inner.writer);
        if let Err(e) = writer.execute_batch("PRAGMA optimize; PRAGMA wal_checkpoint(TRUNCATE);") {
            tracing::warn!(error = %e, "tidying the database at shutdown failed");
        }
    }
}

/// A poisoned lock only means another thread panicked while holding it; the connection itself
/// is still usable, so carry on rather than spreading the panic.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Opens a connection with the pragmas every connection needs.
pub(crate) fn open_connection(path: &Path, flags: OpenFlags) -> Result<Connection, StoreError> {
    let flags = flags | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
    let flags = if flags.contains(OpenFlags::SQLITE_OPEN_READ_ONLY) {
        flags - OpenFlags::SQLITE_OPEN_READ_WRITE - OpenFlags::SQLITE_OPEN_CREATE
    } else {
        flags
    };
    let conn = Connection::open_with_flags(path, flags).map_err(|source| StoreError::Open {
        path: path.display().to_string(),
        source,
    })?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    if !flags.contains(OpenFlags::SQLITE_OPEN_READ_ONLY) {
        // WAL is a property of the file; setting it needs write access.
        conn.pragma_update(None, "journal_mode", "WAL")?;
    }
    conn.execute_batch("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;")?;
    Ok(conn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn opens_in_wal_mode_with_the_current_schema() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(dir.path()).expect("opens");
        let (mode, version, fk) = db
            .write(|c| {
                let mode: String = c.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
                let version: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0))?;
                let fk: i64 = c.query_row("PRAGMA foreign_keys", [], |r| r.get(0))?;
                Ok((mode, version, fk))
            })
            .await
            .expect("query");
        assert_eq!(mode, "wal");
        assert_eq!(version, SCHEMA_VERSION);
        assert_eq!(fk, 1);
        db.check().await.expect("ready");
    }

    #[tokio::test]
    async fn check_fails_when_the_file_is_no_database() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(dir.path()).expect("opens");
        db.close();
        std::fs::write(db.path(), vec![0x55u8; 8192]).expect("overwrite");
        assert!(db.check().await.is_err());
    }

    #[test]
    fn reopening_is_idempotent() {
        let dir = tempfile::tempdir().expect("tempdir");
        drop(Db::open(dir.path()).expect("first open"));
        drop(Db::open(dir.path()).expect("second open"));
    }
}
