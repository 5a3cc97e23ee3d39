//! The SQLite file in the data directory: opening it with the right pragmas after checking it
//! can be trusted, migrating it, and running queries on blocking threads so that no connection
//! is ever held across an `.await`.

mod backup;
mod check;
mod clients;
pub mod meta;
mod migrations;
mod restore;

use std::fs::{DirBuilder, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags};

use crate::lock::lock;
pub use backup::{
    backup_file, backup_to, backup_until, companions, discard, partial_of, BackupError, CopyStop,
};
pub use check::{database_bytes, free_bytes, integrity, Checked, CHECK_TIME_LIMIT, MIN_FREE_BYTES};
pub use clients::{client_tags, ClientTags};
pub use migrations::SCHEMA_VERSION;
pub use restore::{check_backup, lock_data_dir, restore, DataDirLock, RestoreError, Restored};

/// File name of the database inside the data directory.
pub const DB_FILE: &str = "hearth.db";

/// How long a statement waits for a lock held by another connection before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Reader connections kept open for reuse; more are opened on demand and closed after use.
const MAX_IDLE_READERS: usize = 4;

/// What every message about a damaged database tells the owner to do.
const RESTORE_HINT: &str =
    "restore your latest backup as README.md, section \"Back up and restore\", describes";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot create the data directory {path}: {source}")]
    CreateDir {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot create the database {path}: {source}")]
    Create {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot open the database {path}: {source}")]
    Open {
        path: String,
        source: rusqlite::Error,
    },
    #[error(
        "the database {path} is empty (0 bytes), most likely from an interrupted copy or restore: \
         {RESTORE_HINT}, or remove the empty file to start again with no calendars"
    )]
    Empty { path: String },
    #[error(
        "the database {path} is damaged ({detail}), so hearth will not use it: keep the file for \
         inspection and {RESTORE_HINT}"
    )]
    Corrupt { path: String, detail: String },
    #[error("the disk holding {path} is full: {free} bytes free")]
    DiskFull { path: String, free: u64 },
    #[error("cannot read the free space of {path}: {source}")]
    Stat {
        path: String,
        source: std::io::Error,
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

impl StoreError {
    /// Whether the disk ran out of space (SQLITE_FULL, ENOSPC, or below the readiness threshold):
    /// the owner must free space, retrying will not help.
    pub fn is_disk_full(&self) -> bool {
        match self {
            StoreError::DiskFull { .. } => true,
            StoreError::Open { source, .. }
            | StoreError::Migration { source, .. }
            | StoreError::Sqlite(source)
            | StoreError::Snapshot(BackupError::Write { source, .. }) => {
                source.sqlite_error_code() == Some(ErrorCode::DiskFull)
            }
            StoreError::CreateDir { source, .. }
            | StoreError::Create { source, .. }
            | StoreError::Snapshot(BackupError::Create { source, .. }) => {
                source.kind() == std::io::ErrorKind::StorageFull
            }
            _ => false,
        }
    }

    /// SQLite's "malformed" and "not a database" become `Corrupt`, naming the file and the way out.
    fn damaged(self, path: &Path) -> StoreError {
        let source = match &self {
            StoreError::Open { source, .. }
            | StoreError::Migration { source, .. }
            | StoreError::Sqlite(source) => source,
            _ => return self,
        };
        match source.sqlite_error_code() {
            Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => StoreError::Corrupt {
                path: path.display().to_string(),
                detail: source.to_string(),
            },
            _ => self,
        }
    }
}

/// Handle to the database: one writer connection and a small pool of readers (WAL lets them run
/// beside the writer). Cheap to clone.
#[derive(Clone)]
pub struct Db {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    /// Free space below which `ready` fails; `MIN_FREE_BYTES` unless set.
    min_free_bytes: AtomicU64,
    /// Litestream replicates the file: checkpoints are its business (see `close`).
    replicated: AtomicBool,
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
    /// Opens `hearth.db` in `data_dir` (creating both, owner-only, when missing), checks that it
    /// is sound and brings its schema up to date. An empty or damaged file is refused.
    pub fn open(data_dir: &Path) -> Result<Db, StoreError> {
        create_data_dir(data_dir)?;
        let path = data_dir.join(DB_FILE);
        let size = match std::fs::metadata(&path) {
            Ok(meta) if meta.len() == 0 => {
                return Err(StoreError::Empty {
                    path: path.display().to_string(),
                })
            }
            Ok(meta) => meta.len(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                create_database(&path)?;
                0
            }
            Err(source) => {
                return Err(StoreError::Create {
                    path: path.display().to_string(),
                    source,
                })
            }
        };
        let mut writer =
            open_connection(&path, OpenFlags::default()).map_err(|e| e.damaged(&path))?;
        let started = std::time::Instant::now();
        match check::integrity(&mut writer, &path, size, check::CHECK_TIME_LIMIT)
            .map_err(|e| e.damaged(&path))?
        {
            Checked::Complete => {
                tracing::debug!(elapsed = ?started.elapsed(), "the database passed its integrity check")
            }
            Checked::CutShort => tracing::warn!(
                path = %path.display(),
                "the integrity check of the database was cut short after {:?} (the file is large); \
                 the part it read is sound",
                check::CHECK_TIME_LIMIT
            ),
        }
        migrations::migrate(&mut writer, &path).map_err(|e| e.damaged(&path))?;
        migrations::remove_orphaned_feed_copies(&writer)?;
        Ok(Db {
            inner: Arc::new(Inner {
                path,
                min_free_bytes: AtomicU64::new(MIN_FREE_BYTES),
                replicated: AtomicBool::new(false),
                writer: Mutex::new(writer),
                readers: Mutex::new(Vec::new()),
            }),
        })
    }

    /// Changes the free space below which `ready` reports the disk full (tests use it to see
    /// the check fail without filling a disk).
    pub fn set_min_free_bytes(&self, bytes: u64) {
        self.inner.min_free_bytes.store(bytes, Ordering::Relaxed);
    }

    /// Says that Litestream replicates the database (`--replica-url`), so Hearth never runs a
    /// checkpoint that waits for readers: a TRUNCATE, RESTART or FULL checkpoint waits for
    /// Litestream's read transaction and stalls every writer for the whole busy timeout. Only
    /// SQLite's own passive checkpoints run, and Litestream makes the rest.
    pub fn set_replicated(&self, replicated: bool) {
        self.inner.replicated.store(replicated, Ordering::Relaxed);
    }

    pub fn replicated(&self) -> bool {
        self.inner.replicated.load(Ordering::Relaxed)
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

    /// Liveness of the store: opens a fresh connection to the file and reads its schema, so a
    /// file that was removed, replaced or made unreadable is noticed (a pooled connection would
    /// not notice). The systemd watchdog uses it; a restart can help with these.
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

    /// Readiness (`/readyz`): `check`, and room left on the disk for writes. A full disk is not
    /// a reason to restart (reads still work), so it is kept out of `check`.
    pub async fn ready(&self) -> Result<(), StoreError> {
        self.check().await?;
        let dir = self
            .inner
            .path
            .parent()
            .unwrap_or(Path::new("."))
            .to_owned();
        let min_free = self.inner.min_free_bytes.load(Ordering::Relaxed);
        tokio::task::spawn_blocking(move || check::free_space(&dir, min_free))
            .await
            .map_err(|_| StoreError::TaskFailed)?
    }

    /// Leaves the file tidy at shutdown: lets SQLite refresh its statistics and folds the WAL
    /// back into the main file, unless Litestream replicates it (then the log is Litestream's to
    /// fold, after it has copied the last writes). Connections close when the last handle is
    /// dropped.
    pub fn close(&self) {
        lock(&self.inner.readers).clear();
        let writer = lock(&self.inner.writer);
        let tidy = if self.replicated() {
            "PRAGMA optimize;"
        } else {
            "PRAGMA optimize; PRAGMA wal_checkpoint(TRUNCATE);"
        };
        if let Err(e) = writer.execute_batch(tidy) {
            tracing::warn!(error = %e, "tidying the database at shutdown failed");
        }
    }
}

/// Creates the data directory owner-only (0700) when it is missing; an existing one is left as
/// the owner set it up.
fn create_data_dir(data_dir: &Path) -> Result<(), StoreError> {
    if data_dir.is_dir() {
        return Ok(());
    }
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(data_dir)
        .map_err(|source| StoreError::CreateDir {
            path: data_dir.display().to_string(),
            source,
        })
}

/// Creates `path` as an empty file readable only by its owner; fails if it exists. SQLite gives
/// the files it makes beside a database (-wal, -shm, -journal) the database's mode.
pub(crate) fn create_owner_only(path: &Path) -> std::io::Result<std::fs::File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

/// A new, migrated database appears at `path` all at once: it is built under a temporary name
/// and renamed into place, so a crash during the first start never leaves the 0-byte file that
/// `open` refuses as an interrupted restore.
fn create_database(path: &Path) -> Result<(), StoreError> {
    let create_error = |source| StoreError::Create {
        path: path.display().to_string(),
        source,
    };
    let building = path.with_file_name(format!("{DB_FILE}.creating"));
    for leftover in [
        building.clone(),
        path.with_file_name(format!("{DB_FILE}.creating-journal")),
    ] {
        match std::fs::remove_file(&leftover) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(create_error(e)),
            _ => {}
        }
    }
    create_owner_only(&building).map_err(create_error)?;
    {
        let mut conn = Connection::open_with_flags(
            &building,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|source| StoreError::Open {
            path: building.display().to_string(),
            source,
        })?;
        conn.execute_batch("PRAGMA synchronous = FULL;")?;
        migrations::migrate(&mut conn, &building)?;
    }
    std::fs::File::open(&building)
        .and_then(|f| f.sync_all())
        .map_err(create_error)?;
    std::fs::rename(&building, path).map_err(create_error)?;
    // The rename itself must reach the disk too; a directory that cannot be synced (some
    // filesystems) only loses that guarantee.
    if let Some(dir) = path.parent() {
        if let Err(e) = std::fs::File::open(dir).and_then(|d| d.sync_all()) {
            tracing::debug!(error = %e, "syncing the data directory failed");
        }
    }
    tracing::info!(path = %path.display(), "created a new database");
    Ok(())
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
        // The writer syncs the log at every commit: a publish that handed out its edit token
        // must survive a power cut. Readers never commit, so their setting does not matter.
        conn.execute_batch("PRAGMA synchronous = FULL;")?;
    } else {
        conn.execute_batch("PRAGMA synchronous = NORMAL;")?;
    }
    conn.execute_batch("PRAGMA foreign_keys = ON;")?;
    Ok(conn)
}

#[cfg(test)]
pub(crate) mod tests {
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

    /// A file's permission bits (also for the backup tests).
    pub(crate) fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path)
            .expect("metadata")
            .permissions()
            .mode()
            & 0o777
    }

    #[tokio::test]
    async fn the_writer_syncs_every_commit_and_readers_do_not_need_to() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(dir.path()).expect("opens");
        let writer: i64 = db
            .write(|c| Ok(c.query_row("PRAGMA synchronous", [], |r| r.get(0))?))
            .await
            .expect("writer");
        let reader: i64 = db
            .read(|c| Ok(c.query_row("PRAGMA synchronous", [], |r| r.get(0))?))
            .await
            .expect("reader");
        assert_eq!(writer, 2, "FULL");
        assert_eq!(reader, 1, "NORMAL");
    }

    #[tokio::test]
    async fn a_new_data_directory_and_database_are_owner_only() {
        let parent = tempfile::tempdir().expect("tempdir");
        let dir = parent.path().join("data");
        let db = Db::open(&dir).expect("opens");
        db.write(|c| Ok(c.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')", [])?))
            .await
            .expect("write");
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join(DB_FILE)), 0o600);
        assert_eq!(mode(&dir.join(format!("{DB_FILE}-wal"))), 0o600);
        assert_eq!(mode(&dir.join(format!("{DB_FILE}-shm"))), 0o600);
        assert!(!dir.join(format!("{DB_FILE}.creating")).exists());
    }

    #[test]
    fn an_existing_data_directory_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o750))
            .expect("chmod");
        drop(Db::open(dir.path()).expect("opens"));
        assert_eq!(mode(dir.path()), 0o750);
    }

    #[test]
    fn an_empty_database_file_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(DB_FILE);
        std::fs::write(&path, b"").expect("empty file");
        let err = Db::open(dir.path()).expect_err("refused");
        assert!(matches!(err, StoreError::Empty { .. }), "{err:?}");
        let message = err.to_string();
        assert!(message.contains(&path.display().to_string()), "{message}");
        assert!(message.contains("Back up and restore"), "{message}");
        assert_eq!(std::fs::metadata(&path).expect("still there").len(), 0);
    }

    /// A database of 30+ pages with pages 10 to 29 overwritten, as a failing SD card leaves it.
    pub(crate) fn damaged_database(dir: &Path) -> PathBuf {
        let db = Db::open(dir).expect("opens");
        {
            let writer = lock(&db.inner.writer);
            writer
                .execute_batch(
                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400)
                     INSERT INTO feed_copies (url, body, fetched_at, changed_at)
                     SELECT 'https://example.org/' || i, randomblob(500), 0, 0 FROM n;
                     INSERT INTO calendars (id, name, url, mapping, token_hash, created_at, updated_at)
                     SELECT 'c' || i, 'n', 'https://example.org/' || i, '{}', 'h', 0, 0 FROM
                       (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400) SELECT i FROM n);",
                )
                .expect("fill");
        }
        let page_size: i64 = lock(&db.inner.writer)
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .expect("page size");
        let page_size = page_size as u64;
        db.close();
        let path = db.path().to_owned();
        drop(db);
        let len = std::fs::metadata(&path).expect("metadata").len();
        assert!(len >= 30 * page_size, "only {len} bytes");
        let mut bytes = std::fs::read(&path).expect("read");
        let garbage: Vec<u8> = (0..20 * page_size).map(|i| (i * 7 + 13) as u8).collect();
        // The middle of the file: the tables' pages, past the schema's (whose count grows with
        // every migration that adds an index).
        let pages = len / page_size;
        let start = ((pages / 2).min(pages - 20) * page_size) as usize;
        bytes[start..start + garbage.len()].copy_from_slice(&garbage);
        std::fs::write(&path, bytes).expect("write");
        path
    }

    #[test]
    fn a_damaged_database_is_refused_with_the_way_to_restore() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = damaged_database(dir.path());
        let err = Db::open(dir.path()).expect_err("refused");
        assert!(matches!(err, StoreError::Corrupt { .. }), "{err:?}");
        let message = err.to_string();
        assert!(message.contains(&path.display().to_string()), "{message}");
        assert!(message.contains("Back up and restore"), "{message}");
    }

    #[test]
    fn a_file_that_is_no_database_is_refused_as_damaged() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join(DB_FILE), vec![0x55u8; 8192]).expect("garbage");
        let err = Db::open(dir.path()).expect_err("refused");
        assert!(matches!(err, StoreError::Corrupt { .. }), "{err:?}");
    }

    #[tokio::test]
    async fn ready_reports_a_full_disk_and_check_does_not() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(dir.path()).expect("opens");
        db.ready().await.expect("room enough");
        db.set_min_free_bytes(u64::MAX);
        let err = db.ready().await.expect_err("full");
        assert!(err.is_disk_full(), "{err:?}");
        db.check()
            .await
            .expect("the watchdog keeps the server alive");
    }

    #[tokio::test]
    async fn orphaned_feed_copies_are_removed_at_start() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(dir.path()).expect("opens");
        db.write(|c| {
            c.execute_batch(
                "INSERT INTO calendars (id, name, url, mapping, token_hash, created_at, updated_at)
                 VALUES ('a', 'A', 'https://example.org/used.ics', '{}', 'h', 0, 0);
                 INSERT INTO feed_copies (url, body, fetched_at, changed_at) VALUES
                   ('https://example.org/used.ics', x'00', 0, 0),
                   ('https://example.org/orphan.ics', x'00', 0, 0);",
            )?;
            Ok(())
        })
        .await
        .expect("fill");
        db.close();
        drop(db);
        let db = Db::open(dir.path()).expect("reopens");
        let urls: Vec<String> = db
            .read(|c| {
                let mut s = c.prepare("SELECT url FROM feed_copies")?;
                let urls = s.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
                Ok(urls)
            })
            .await
            .expect("read");
        assert_eq!(urls, ["https://example.org/used.ics"]);
    }

    #[tokio::test]
    async fn a_replicated_database_is_never_truncated_at_shutdown() {
        let wal_len = |dir: &Path| {
            std::fs::metadata(dir.join(format!("{DB_FILE}-wal"))).map_or(0, |m| m.len())
        };
        for replicated in [false, true] {
            let dir = tempfile::tempdir().expect("tempdir");
            let db = Db::open(dir.path()).expect("opens");
            db.set_replicated(replicated);
            // Litestream's read transaction, which a TRUNCATE checkpoint would wait for.
            let reader = Connection::open(db.path()).expect("reader");
            reader
                .execute_batch("BEGIN; SELECT count(*) FROM meta;")
                .expect("read");
            db.write(|c| Ok(c.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')", [])?))
                .await
                .expect("write");
            assert!(wal_len(dir.path()) > 0);
            reader.execute_batch("COMMIT").expect("end");
            let started = std::time::Instant::now();
            db.close();
            assert!(started.elapsed() < Duration::from_secs(1));
            if replicated {
                assert!(wal_len(dir.path()) > 0, "the log is left to Litestream");
            } else {
                assert_eq!(wal_len(dir.path()), 0, "folded and truncated");
            }
            assert_eq!(db.replicated(), replicated);
        }
    }

    #[test]
    fn reopening_is_idempotent() {
        let dir = tempfile::tempdir().expect("tempdir");
        drop(Db::open(dir.path()).expect("first open"));
        drop(Db::open(dir.path()).expect("second open"));
    }
}
