//! Whether the database can be trusted: an integrity check at start, bounded in time so a large
//! file on an SD card cannot hold up a restart, and the free space of the disk it lives on.

use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode};

use super::StoreError;

/// Files up to this size get the full `integrity_check` (index contents too); larger ones the
/// cheaper `quick_check`, which still reads every page.
pub const FULL_CHECK_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// How long the check at start may take before it is cut short.
pub const CHECK_TIME_LIMIT: Duration = Duration::from_secs(5);

/// Below this much free space the store reports itself not ready: SQLite needs room for its
/// write-ahead log and a checkpoint, and a feed copy can be megabytes.
pub const MIN_FREE_BYTES: u64 = 16 * 1024 * 1024;

/// Problems listed in the error at most; the first ones say enough to decide to restore.
const MAX_PROBLEMS: usize = 5;

/// How the check ended when it found no damage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checked {
    Complete,
    /// The time limit ran out first; the part that was read is sound.
    CutShort,
}

/// Checks the database at `path` (opened as `conn`) for damage, within `limit`.
pub fn integrity(
    conn: &mut Connection,
    path: &Path,
    file_size: u64,
    limit: Duration,
) -> Result<Checked, StoreError> {
    let pragma = if file_size <= FULL_CHECK_MAX_BYTES {
        "integrity_check"
    } else {
        "quick_check"
    };
    let deadline = Instant::now() + limit;
    // Called every hundred VM steps (and, inside the check, every hundred pages); returning true
    // interrupts the statement. A clock read that often costs nothing next to reading pages.
    conn.progress_handler(100, Some(move || Instant::now() >= deadline))?;
    let result = list_problems(conn, pragma);
    conn.progress_handler(0, None::<fn() -> bool>)?;
    match result {
        Ok(problems) if problems.iter().all(|p| p == "ok") => Ok(Checked::Complete),
        Ok(problems) => Err(StoreError::Corrupt {
            path: path.display().to_string(),
            detail: problems
                .into_iter()
                .take(MAX_PROBLEMS)
                .collect::<Vec<_>>()
                .join("; "),
        }),
        Err(e) if e.sqlite_error_code() == Some(ErrorCode::OperationInterrupted) => {
            Ok(Checked::CutShort)
        }
        Err(e) => Err(StoreError::Sqlite(e)),
    }
}

fn list_problems(conn: &Connection, pragma: &str) -> rusqlite::Result<Vec<String>> {
    let mut statement = conn.prepare(&format!("PRAGMA {pragma}({MAX_PROBLEMS})"))?;
    let rows = statement.query_map([], |r| r.get::<_, String>(0))?;
    rows.collect()
}

/// Bytes an unprivileged process may still write on the filesystem holding `dir`.
pub fn free_bytes(dir: &Path) -> std::io::Result<u64> {
    let stat = rustix::fs::statvfs(dir)?;
    Ok(stat.f_bavail.saturating_mul(stat.f_frsize))
}

/// Bytes the database in `data_dir` takes on disk: the file and its write-ahead log (what a
/// copy of it needs at most).
pub fn database_bytes(data_dir: &Path) -> u64 {
    ["", "-wal"]
        .iter()
        .filter_map(|suffix| {
            std::fs::metadata(data_dir.join(format!("{}{suffix}", super::DB_FILE))).ok()
        })
        .map(|m| m.len())
        .sum()
}

/// `DiskFull` when the filesystem holding `dir` has less than `min` bytes free.
pub fn free_space(dir: &Path, min: u64) -> Result<(), StoreError> {
    let free = free_bytes(dir).map_err(|source| StoreError::Stat {
        path: dir.display().to_string(),
        source,
    })?;
    if free < min {
        return Err(StoreError::DiskFull {
            path: dir.display().to_string(),
            free,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sound_database_passes_and_a_spent_time_limit_cuts_the_check_short() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("x.db");
        let mut conn = Connection::open(&path).expect("open");
        conn.execute_batch(
            "CREATE TABLE t (x TEXT); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
             INSERT INTO t SELECT printf('%0200d', i) FROM n; CREATE INDEX t_x ON t (x);",
        )
        .expect("fill");
        assert_eq!(
            integrity(&mut conn, &path, 0, CHECK_TIME_LIMIT).expect("sound"),
            Checked::Complete
        );
        assert_eq!(
            integrity(&mut conn, &path, u64::MAX, Duration::ZERO).expect("no damage found"),
            Checked::CutShort
        );
        // The handler is gone afterwards: ordinary statements are not interrupted.
        let count: i64 = conn
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .expect("count");
        assert_eq!(count, 5000);
    }

    #[test]
    fn the_quick_check_for_large_files_finds_overwritten_pages_too() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = crate::store::tests::damaged_database(dir.path());
        let mut conn = Connection::open(&path).expect("opens lazily");
        for size in [0, u64::MAX] {
            let err = integrity(&mut conn, &path, size, CHECK_TIME_LIMIT).expect_err("damaged");
            assert!(matches!(err, StoreError::Corrupt { .. }), "{size}: {err:?}");
        }
    }

    #[test]
    fn free_space_is_measured_and_a_threshold_above_it_is_a_full_disk() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(free_bytes(dir.path()).expect("statvfs") > 0);
        free_space(dir.path(), 0).expect("some space");
        let err = free_space(dir.path(), u64::MAX).expect_err("never that much");
        assert!(err.is_disk_full());
        assert!(err.to_string().contains("disk"), "{err}");
    }
}
