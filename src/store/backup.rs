//! Online copies of the database: `VACUUM INTO` from a read-only connection gives a consistent,
//! compact file while the server keeps writing. Copies are owner-only, and a copy that failed
//! is removed with SQLite's journal of it rather than left half-written in the way of the next
//! try. A copy can be stopped from another thread (a shutdown, Ctrl-C), which is such a failure.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, InterruptHandle, OpenFlags};

use super::{create_owner_only, open_connection, StoreError, DB_FILE};
use crate::lock::lock;

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("no database at {0}: is the data directory right?")]
    Missing(String),
    #[error("{0} exists already: choose a new file name")]
    TargetExists(String),
    #[error("cannot open the database: {0}")]
    Open(String),
    #[error("cannot create {path}: {source}")]
    Create {
        path: String,
        source: std::io::Error,
    },
    #[error("writing the copy to {path} failed: {source}")]
    Write {
        path: String,
        source: rusqlite::Error,
    },
    #[error("the copy to {0} was stopped before it was complete; nothing was left behind")]
    Stopped(String),
    #[error("cannot put the copy in place as {path}: {source}")]
    Place {
        path: String,
        source: std::io::Error,
    },
}

/// Stops a copy under way from another thread: SQLite is interrupted, the copy fails with
/// [`BackupError::Stopped`] and its files are removed. Stopping before the copy starts stops it
/// at its start.
#[derive(Clone, Default)]
pub struct CopyStop(Arc<Mutex<StopState>>);

#[derive(Default)]
struct StopState {
    stopped: bool,
    copying: Option<InterruptHandle>,
}

impl std::fmt::Debug for CopyStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CopyStop")
            .field("stopped", &self.is_stopped())
            .finish()
    }
}

impl CopyStop {
    pub fn stop(&self) {
        let mut state = lock(&self.0);
        state.stopped = true;
        if let Some(copying) = &state.copying {
            copying.interrupt();
        }
    }

    pub fn is_stopped(&self) -> bool {
        lock(&self.0).stopped
    }

    /// Makes `conn` the one to interrupt; false when stopped already.
    fn arm(&self, conn: &Connection) -> bool {
        let mut state = lock(&self.0);
        state.copying = Some(conn.get_interrupt_handle());
        !state.stopped
    }

    fn disarm(&self) {
        lock(&self.0).copying = None;
    }
}

/// The files SQLite may make beside a database at `path`: its rollback journal (what a copy by
/// `VACUUM INTO` writes as it goes), and a write-ahead log with its index.
pub fn companions(path: &Path) -> [PathBuf; 3] {
    let with = |suffix: &str| {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    };
    [with("-journal"), with("-wal"), with("-shm")]
}

/// Writes a consistent copy of the database in `data_dir` to `target`; returns its size.
pub fn backup_to(data_dir: &Path, target: &Path) -> Result<u64, BackupError> {
    backup_until(data_dir, target, &CopyStop::default())
}

/// As [`backup_to`], stopped by `stop`.
pub fn backup_until(data_dir: &Path, target: &Path, stop: &CopyStop) -> Result<u64, BackupError> {
    let source = data_dir.join(DB_FILE);
    if !source.is_file() {
        return Err(BackupError::Missing(source.display().to_string()));
    }
    claim(target)?;
    let copied = open_connection(&source, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| match e {
            StoreError::Open { source, .. } => BackupError::Open(source.to_string()),
            other => BackupError::Open(other.to_string()),
        })
        .and_then(|conn| {
            let copied = if stop.arm(&conn) {
                vacuum_into(&conn, target)
            } else {
                Err(BackupError::Stopped(target.display().to_string()))
            };
            stop.disarm();
            copied
        });
    if let Err(e) = copied {
        discard(target);
        if stop.is_stopped() {
            return Err(BackupError::Stopped(target.display().to_string()));
        }
        return Err(e);
    }
    Ok(std::fs::metadata(target).map(|m| m.len()).unwrap_or(0))
}

/// Where a copy to `target` is written until it is whole: a hidden name beside it, so a copy
/// cut short (the process killed) never passes for the file asked for.
pub fn partial_of(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(format!(".{name}.partial"))
}

/// Writes a copy to `target` under [`partial_of`] it, synced and renamed into place when whole.
/// What an earlier copy to the same name left behind (killed mid-copy: the partial file and its
/// journal) is removed first, and a copy that fails or is stopped leaves nothing. Refuses a
/// `target` that exists.
pub fn backup_file(data_dir: &Path, target: &Path, stop: &CopyStop) -> Result<u64, BackupError> {
    if target.exists() {
        return Err(BackupError::TargetExists(target.display().to_string()));
    }
    let partial = partial_of(target);
    discard(&partial);
    let size = backup_until(data_dir, &partial, stop)?;
    let placed = std::fs::File::open(&partial)
        .and_then(|f| f.sync_all())
        .and_then(|()| std::fs::rename(&partial, target));
    if let Err(source) = placed {
        discard(&partial);
        return Err(BackupError::Place {
            path: target.display().to_string(),
            source,
        });
    }
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Err(e) = std::fs::File::open(dir).and_then(|d| d.sync_all()) {
            tracing::debug!(error = %e, "syncing the backup's folder failed");
        }
    }
    Ok(size)
}

/// Creates `target` empty and owner-only (`VACUUM INTO` fills an existing empty file and keeps
/// its mode); refuses a name that is taken, without touching that file.
fn claim(target: &Path) -> Result<(), BackupError> {
    create_owner_only(target)
        .map(drop)
        .map_err(|source| match source.kind() {
            std::io::ErrorKind::AlreadyExists => {
                BackupError::TargetExists(target.display().to_string())
            }
            _ => BackupError::Create {
                path: target.display().to_string(),
                source,
            },
        })
}

/// Removes a copy that failed part-way, and SQLite's journal of it, so it neither passes for a
/// backup nor blocks a retry nor stays on the disk for good.
pub fn discard(target: &Path) {
    let [journal, wal, shm] = companions(target);
    for path in [target.to_owned(), journal, wal, shm] {
        if let Err(e) = std::fs::remove_file(&path) {
            if e.kind() != std::io::ErrorKind::NotFound {
                tracing::warn!(path = %path.display(), error = %e, "could not remove the failed copy");
            }
        }
    }
}

/// Before a migration: a copy named after the version it had, next to the database.
pub(super) fn pre_migration_snapshot(
    conn: &Connection,
    db_path: &Path,
    version: i64,
) -> Result<PathBuf, BackupError> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let target = db_path.with_file_name(format!("{DB_FILE}.v{version}-{stamp}.bak"));
    claim(&target)?;
    if let Err(e) = vacuum_into(conn, &target) {
        discard(&target);
        return Err(e);
    }
    Ok(target)
}

fn vacuum_into(conn: &Connection, target: &Path) -> Result<(), BackupError> {
    let target_str = target.to_string_lossy().into_owned();
    conn.execute("VACUUM INTO ?1", [&target_str])
        .map(|_| ())
        .map_err(|source| BackupError::Write {
            path: target_str,
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tests::mode;
    use crate::store::Db;

    #[test]
    fn a_backup_opens_as_a_database_with_the_same_schema() {
        let dir = tempfile::tempdir().expect("tempdir");
        drop(Db::open(dir.path()).expect("opens"));
        let target = dir.path().join("copy.db");
        let size = backup_to(dir.path(), &target).expect("backs up");
        assert!(size > 0);
        let copy = Connection::open_with_flags(&target, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .expect("opens copy");
        let check: String = copy
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .expect("check");
        assert_eq!(check, "ok");
    }

    #[test]
    fn a_backup_never_overwrites_a_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        drop(Db::open(dir.path()).expect("opens"));
        let target = dir.path().join("taken.db");
        std::fs::write(&target, b"keep me").expect("write");
        assert!(matches!(
            backup_to(dir.path(), &target),
            Err(BackupError::TargetExists(_))
        ));
        assert_eq!(std::fs::read(&target).expect("read"), b"keep me");
    }

    #[test]
    fn a_backup_is_readable_by_its_owner_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        drop(Db::open(dir.path()).expect("opens"));
        let target = dir.path().join("copy.db");
        backup_to(dir.path(), &target).expect("backs up");
        assert_eq!(mode(&target), 0o600);
    }

    #[test]
    fn a_failed_backup_leaves_no_file_and_the_retry_works() {
        let dir = tempfile::tempdir().expect("tempdir");
        let source = dir.path().join(DB_FILE);
        // Not a database: opening succeeds lazily, the copy itself fails.
        std::fs::write(&source, vec![0x55u8; 8192]).expect("garbage");
        let target = dir.path().join("copy.db");
        let err = backup_to(dir.path(), &target).expect_err("fails");
        assert!(
            matches!(err, BackupError::Write { .. } | BackupError::Open(_)),
            "{err:?}"
        );
        assert!(!target.exists(), "the partial copy was left behind");

        std::fs::remove_file(&source).expect("remove garbage");
        drop(Db::open(dir.path()).expect("opens"));
        backup_to(dir.path(), &target).expect("the retry is not blocked");
    }

    #[test]
    fn a_target_whose_directory_is_missing_fails_cleanly() {
        let dir = tempfile::tempdir().expect("tempdir");
        drop(Db::open(dir.path()).expect("opens"));
        let target = dir.path().join("gone").join("copy.db");
        let err = backup_to(dir.path(), &target).expect_err("fails");
        assert!(matches!(err, BackupError::Create { .. }), "{err:?}");
        assert!(err.to_string().contains("copy.db"), "{err}");
    }

    #[test]
    fn a_snapshot_before_migrating_is_owner_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(DB_FILE);
        let conn = Connection::open(&path).expect("open");
        conn.execute_batch("CREATE TABLE t (x); PRAGMA user_version = 1;")
            .expect("old schema");
        let snapshot = pre_migration_snapshot(&conn, &path, 1).expect("snapshot");
        assert_eq!(mode(&snapshot), 0o600);
        let copy = Connection::open(&snapshot).expect("opens");
        let version: i64 = copy
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .expect("version");
        assert_eq!(version, 1);
    }

    #[test]
    fn a_missing_database_is_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = backup_to(dir.path(), &dir.path().join("x.db")).expect_err("fails");
        assert!(err.to_string().contains("hearth.db"));
    }
}
