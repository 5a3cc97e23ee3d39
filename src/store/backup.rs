//! Online copies of the database: `VACUUM INTO` from a read-only connection gives a consistent,
//! compact file while the server keeps writing.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::{open_connection, StoreError, DB_FILE};

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("no database at {0}: is the data directory right?")]
    Missing(String),
    #[error("{0} exists already: choose a new file name")]
    TargetExists(String),
    #[error("cannot open the database: {0}")]
    Open(String),
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
    if target.exists() {
        return Err(BackupError::TargetExists(target.display().to_string()));
    }
    let conn = open_connection(&source, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(|e| match e {
        StoreError::Open { source, .. } => BackupError::Open(source.to_string()),
        other => BackupError::Open(other.to_string()),
    })?;
    vacuum_into(&conn, target)?;
    Ok(std::fs::metadata(target).map(|m| m.len()).unwrap_or(0))
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
    vacuum_into(conn, &target)?;
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
    fn a_missing_database_is_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = backup_to(dir.path(), &dir.path().join("x.db")).expect_err("fails");
        assert!(err.to_string().contains("hearth.db"));
    }
}
