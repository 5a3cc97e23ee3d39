//! Online copies of the database: `VACUUM INTO` from a read-only connection gives a consistent,
//! compact file while the server keeps writing. Copies are owner-only, and a copy that failed
//! is removed rather than left half-written in the way of the next try.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::{create_owner_only, open_connection, StoreError, DB_FILE};

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
}

/// Writes a consistent copy of the database in `data_dir` to `target`; returns its size.
pub fn backup_to(data_dir: &Path, target: &Path) -> Result<u64, BackupError> {
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
        .and_then(|conn| vacuum_into(&conn, target));
    if let Err(e) = copied {
        discard(target);
        return Err(e);
    }
    Ok(std::fs::metadata(target).map(|m| m.len()).unwrap_or(0))
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

/// Removes a copy that failed part-way, so it neither passes for a backup nor blocks a retry.
fn discard(target: &Path) {
    if let Err(e) = std::fs::remove_file(target) {
        if e.kind() != std::io::ErrorKind::NotFound {
            tracing::warn!(path = %target.display(), error = %e, "could not remove the failed copy");
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
