//! `hearth restore FILE`: a backup put in place of the database. The file is checked first (a
//! sound SQLite database of Hearth, of a schema this binary can open), the current database is
//! kept aside under a dated name rather than overwritten, and nothing happens while a server
//! holds the data directory (`serve` locks `hearth.lock` there for as long as it runs).

use std::fs::File;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::{create_owner_only, migrations::SCHEMA_VERSION, DB_FILE};

const LOCK_FILE: &str = "hearth.lock";

#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error("a Hearth server is running on {0}: stop it first (systemctl stop hearth)")]
    ServerRunning(String),
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not a Hearth backup: {why}")]
    NotABackup { path: String, why: String },
    #[error("{path} is damaged: {problems}")]
    Damaged { path: String, problems: String },
    #[error("{path} was written by a newer Hearth (schema {found}; this one reads up to {supported}): restore it with that version")]
    TooNew {
        path: String,
        found: i64,
        supported: i64,
    },
    #[error("cannot prepare the data directory {path}: {source}")]
    DataDir {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot fold the current database's log into it before keeping it aside: {0}")]
    Checkpoint(String),
}

/// The data directory held by a running server; released when dropped.
#[derive(Debug)]
pub struct DataDirLock {
    _file: File,
}

/// Takes the data directory (made owner-only when missing) for a server or a restore. `None`
/// when another process holds it.
pub fn lock_data_dir(data_dir: &Path) -> std::io::Result<Option<DataDirLock>> {
    use std::os::unix::fs::DirBuilderExt;
    if !data_dir.is_dir() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(data_dir)?;
    }
    let path = data_dir.join(LOCK_FILE);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(DataDirLock { _file: file })),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

/// What a restore did.
#[derive(Debug)]
pub struct Restored {
    pub database: PathBuf,
    /// Where the database that was there is kept (none when there was none).
    pub kept_aside: Option<PathBuf>,
    pub schema: i64,
}

/// Checks `backup` and puts it in place as `data_dir`'s database; `stamp` names the copy kept
/// aside (the caller's UTC time).
pub fn restore(backup: &Path, data_dir: &Path, stamp: &str) -> Result<Restored, RestoreError> {
    let schema = check_backup(backup)?;
    let dir_error = |source| RestoreError::DataDir {
        path: data_dir.display().to_string(),
        source,
    };
    let _held = lock_data_dir(data_dir)
        .map_err(dir_error)?
        .ok_or_else(|| RestoreError::ServerRunning(data_dir.display().to_string()))?;
    let database = data_dir.join(DB_FILE);
    // The copy is made beside the database first, so the swap is two renames on one disk.
    let incoming = data_dir.join(format!("{DB_FILE}.restoring"));
    let _ = std::fs::remove_file(&incoming);
    copy_owner_only(backup, &incoming).map_err(|source| RestoreError::Read {
        path: backup.display().to_string(),
        source,
    })?;
    give_to_owner_of(data_dir, &incoming);
    let kept_aside = if database.exists() {
        if let Err(e) = fold_log(&database) {
            let _ = std::fs::remove_file(&incoming);
            return Err(RestoreError::Checkpoint(e.to_string()));
        }
        let aside = data_dir.join(format!("{DB_FILE}.before-restore-{stamp}"));
        std::fs::rename(&database, &aside).map_err(dir_error)?;
        // What a reader kept the checkpoint from folding in (Litestream's, when it runs on its
        // own) stays with the copy it belongs to.
        let log = data_dir.join(format!("{DB_FILE}-wal"));
        if std::fs::metadata(&log).is_ok_and(|m| m.len() > 0) {
            std::fs::rename(
                &log,
                data_dir.join(format!("{DB_FILE}.before-restore-{stamp}-wal")),
            )
            .map_err(dir_error)?;
        }
        Some(aside)
    } else {
        None
    };
    // The old database's log and shared memory belong to it, not to the backup.
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(data_dir.join(format!("{DB_FILE}{suffix}")));
    }
    std::fs::rename(&incoming, &database).map_err(dir_error)?;
    if let Err(e) = File::open(data_dir).and_then(|d| d.sync_all()) {
        tracing::debug!(error = %e, "syncing the data directory failed");
    }
    Ok(Restored {
        database,
        kept_aside,
        schema,
    })
}

/// A backup is a sound SQLite file with Hearth's `meta` table and a schema this binary opens
/// (an older one is brought up to date at the next start). Returns its schema version.
pub fn check_backup(path: &Path) -> Result<i64, RestoreError> {
    let shown = path.display().to_string();
    let not_a_backup = |why: String| RestoreError::NotABackup {
        path: shown.clone(),
        why,
    };
    let meta = std::fs::metadata(path).map_err(|source| RestoreError::Read {
        path: shown.clone(),
        source,
    })?;
    if !meta.is_file() || meta.len() == 0 {
        return Err(not_a_backup("it is empty or not a file".into()));
    }
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| not_a_backup(e.to_string()))?;
    conn.busy_timeout(std::time::Duration::from_secs(5))
        .map_err(|e| not_a_backup(e.to_string()))?;
    let problems: Vec<String> = conn
        .prepare("PRAGMA integrity_check(10)")
        .and_then(|mut s| {
            s.query_map([], |r| r.get::<_, String>(0))?
                .collect::<Result<Vec<_>, _>>()
        })
        .map_err(|e| not_a_backup(e.to_string()))?;
    if problems != ["ok"] {
        return Err(RestoreError::Damaged {
            path: shown,
            problems: problems.join("; "),
        });
    }
    let has_meta: bool = conn
        .query_row(
            "SELECT count(*) > 0 FROM sqlite_schema WHERE type = 'table' AND name = 'meta'",
            [],
            |r| r.get(0),
        )
        .map_err(|e| not_a_backup(e.to_string()))?;
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| not_a_backup(e.to_string()))?;
    if !has_meta || version < 1 {
        return Err(not_a_backup("it has no Hearth tables".into()));
    }
    if version > SCHEMA_VERSION {
        return Err(RestoreError::TooNew {
            path: shown,
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    Ok(version)
}

fn copy_owner_only(from: &Path, to: &Path) -> std::io::Result<()> {
    let mut source = File::open(from)?;
    let mut target = create_owner_only(to)?;
    std::io::copy(&mut source, &mut target)?;
    target.sync_all()
}

/// Gives `file` to the owner of `dir`, so a restore run as root leaves the database to the
/// service's user; a user who may not (not root, and not the owner) leaves it as it is.
fn give_to_owner_of(dir: &Path, file: &Path) {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::metadata(dir) else {
        return;
    };
    if let Err(e) = std::os::unix::fs::chown(file, Some(meta.uid()), Some(meta.gid())) {
        tracing::debug!(error = %e, "the restored database keeps its owner");
    }
}

/// Folds a database's write-ahead log into its main file, so the file alone is the whole
/// database when it is kept aside. A passive checkpoint, which never waits for a reader: with
/// Litestream replicating the file, a TRUNCATE would wait on its read transaction. Closing the
/// last connection removes the log; one a reader still holds is kept aside with the copy.
fn fold_log(database: &Path) -> rusqlite::Result<()> {
    let conn = Connection::open_with_flags(
        database,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.execute_batch("PRAGMA wal_checkpoint(PASSIVE);")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{backup_to, Db};

    fn calendars(dir: &Path) -> i64 {
        let conn = Connection::open(dir.join(DB_FILE)).expect("opens");
        conn.query_row("SELECT count(*) FROM calendars", [], |r| r.get(0))
            .expect("counts")
    }

    #[test]
    fn a_backup_comes_back_and_the_database_it_replaces_is_kept_aside() {
        let dir = tempfile::tempdir().expect("tempdir");
        let data = dir.path().join("data");
        drop(Db::open(&data).expect("opens"));
        let add = |id: &str| {
            let conn = Connection::open(data.join(DB_FILE)).expect("opens");
            conn.execute(
                "INSERT INTO calendars (id, name, url, mapping, token_hash, created_at, updated_at)
                 VALUES (?1, 'n', 'https://example.com/a.ics', '{}', 'x', 0, 0)",
                [id],
            )
            .expect("inserts");
        };
        add("kept");
        let backup = dir.path().join("backup.db");
        backup_to(&data, &backup).expect("backs up");
        add("after");
        assert_eq!(calendars(&data), 2);

        let held = lock_data_dir(&data).expect("locks").expect("free");
        assert!(matches!(
            restore(&backup, &data, "20261125T030000Z"),
            Err(RestoreError::ServerRunning(_))
        ));
        drop(held);
        let restored = restore(&backup, &data, "20261125T030000Z").expect("restores");
        assert_eq!(restored.schema, SCHEMA_VERSION);
        assert_eq!(calendars(&data), 1);
        let aside = restored.kept_aside.expect("kept aside");
        let conn = Connection::open(&aside).expect("opens");
        let before: i64 = conn
            .query_row("SELECT count(*) FROM calendars", [], |r| r.get(0))
            .expect("counts");
        assert_eq!(before, 2, "the replaced database is whole");
        drop(Db::open(&data).expect("the restored database opens"));
    }

    #[test]
    fn files_that_are_not_sound_hearth_backups_are_refused_and_nothing_changes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let data = dir.path().join("data");
        drop(Db::open(&data).expect("opens"));
        let text = dir.path().join("notes.db");
        std::fs::write(&text, b"not a database at all, just some text").expect("writes");
        let other = dir.path().join("other.db");
        Connection::open(&other)
            .and_then(|c| c.execute_batch("CREATE TABLE t (x);"))
            .expect("makes");
        let newer = dir.path().join("newer.db");
        backup_to(&data, &newer).expect("backs up");
        Connection::open(&newer)
            .and_then(|c| c.pragma_update(None, "user_version", SCHEMA_VERSION + 1))
            .expect("bumps");
        for (file, expected) in [
            (&text, "is not a Hearth backup"),
            (&other, "is not a Hearth backup"),
            (&newer, "newer Hearth"),
            (&dir.path().join("absent.db"), "cannot read"),
        ] {
            let error = restore(file, &data, "x").expect_err("refused").to_string();
            assert!(error.contains(expected), "{error}");
        }
        let left: Vec<_> = std::fs::read_dir(&data)
            .expect("lists")
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .filter(|n| n.contains("before-restore") || n.contains("restoring"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
