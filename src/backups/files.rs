//! The backup folder: files named by the UTC time they were made (`hearth-20261125T030000Z.db`),
//! listed newest first, the oldest beyond the keep count removed. A copy being written has a
//! name of its own (`.partial`), so it is never listed, kept or removed as a backup.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// One backup in the folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupFile {
    pub path: PathBuf,
    /// When it was made, read from its name.
    pub made_at: SystemTime,
    pub size: u64,
}

const PREFIX: &str = "hearth-";
const SUFFIX: &str = ".db";

/// The file name of a backup made at `at`.
pub fn name_for(at: SystemTime) -> String {
    // 2026-11-25T03:00:00Z → 20261125T030000Z: no colons, which some filesystems refuse.
    let stamp: String = humantime::format_rfc3339_seconds(at)
        .to_string()
        .chars()
        .filter(|c| *c != '-' && *c != ':')
        .collect();
    format!("{PREFIX}{stamp}{SUFFIX}")
}

/// The time in a backup's file name, if it is one.
pub fn made_at(name: &str) -> Option<SystemTime> {
    let stamp = name.strip_prefix(PREFIX)?.strip_suffix(SUFFIX)?;
    // 20261125T030000Z back to 2026-11-25T03:00:00Z.
    let b = stamp.as_bytes();
    if b.len() != 16 || b[8] != b'T' || b[15] != b'Z' {
        return None;
    }
    let text = format!(
        "{}-{}-{}T{}:{}:{}Z",
        &stamp[0..4],
        &stamp[4..6],
        &stamp[6..8],
        &stamp[9..11],
        &stamp[11..13],
        &stamp[13..15]
    );
    humantime::parse_rfc3339(&text).ok()
}

/// The backups in `dir`, newest first (an absent folder has none).
pub fn list(dir: &Path) -> std::io::Result<Vec<BackupFile>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry?;
        let Some(made) = entry.file_name().to_str().and_then(made_at) else {
            continue;
        };
        let meta = entry.metadata()?;
        if meta.is_file() {
            found.push(BackupFile {
                path: entry.path(),
                made_at: made,
                size: meta.len(),
            });
        }
    }
    found.sort_by_key(|b| std::cmp::Reverse(b.made_at));
    Ok(found)
}

/// Removes the backups beyond the newest `keep`; returns those removed.
pub fn prune(dir: &Path, keep: usize) -> std::io::Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    for old in list(dir)?.into_iter().skip(keep) {
        std::fs::remove_file(&old.path)?;
        removed.push(old.path);
    }
    Ok(removed)
}

/// Whether `name` is what a copy cut short leaves: the partial copy (`.hearth-….db.partial`),
/// or SQLite's journal (`-journal`) or log (`-wal`, `-shm`) of it.
fn is_partial(name: &str) -> bool {
    let Some(rest) = name.strip_prefix(".hearth-") else {
        return false;
    };
    ["", "-journal", "-wal", "-shm"]
        .iter()
        .any(|suffix| rest.ends_with(&format!(".db.partial{suffix}")))
}

/// Removes what copies cut short left in `dir` (see [`is_partial`]).
pub fn remove_partial(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if is_partial(&name) {
            if let Err(e) = std::fs::remove_file(entry.path()) {
                tracing::warn!(file = %name, error = %e, "could not remove a partial backup");
            }
        }
    }
}

/// How long ago `at` was, at `now` (zero for a time ahead of the clock).
pub fn age(at: SystemTime, now: SystemTime) -> Duration {
    now.duration_since(at).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_utc_time_and_only_backups_are_listed_and_pruned() {
        let dir = tempfile::tempdir().expect("tempdir");
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_795_000_000);
        let name = name_for(t0);
        assert_eq!(name, "hearth-20261118T110640Z.db");
        assert_eq!(made_at(&name), Some(t0));
        for hour in 0..4 {
            let at = t0 + Duration::from_secs(hour * 3600);
            std::fs::write(dir.path().join(name_for(at)), b"x").expect("writes");
        }
        for other in [
            "notes.txt",
            ".hearth-20261118T110640Z.db.partial",
            ".hearth-20261118T110640Z.db.partial-journal",
            "hearth-x.db",
        ] {
            std::fs::write(dir.path().join(other), b"x").expect("writes");
        }
        let listed = list(dir.path()).expect("lists");
        assert_eq!(listed.len(), 4);
        assert_eq!(listed[0].made_at, t0 + Duration::from_secs(3 * 3600));
        remove_partial(dir.path());
        for partial in [
            ".hearth-20261118T110640Z.db.partial",
            ".hearth-20261118T110640Z.db.partial-journal",
        ] {
            assert!(!dir.path().join(partial).exists(), "{partial}");
        }
        let removed = prune(dir.path(), 2).expect("prunes");
        assert_eq!(removed.len(), 2);
        let left: Vec<SystemTime> = list(dir.path())
            .expect("lists")
            .iter()
            .map(|b| b.made_at)
            .collect();
        assert_eq!(
            left,
            [
                t0 + Duration::from_secs(3 * 3600),
                t0 + Duration::from_secs(2 * 3600)
            ]
        );
        assert!(dir.path().join("notes.txt").exists());
        assert!(list(&dir.path().join("absent")).expect("lists").is_empty());
    }
}
