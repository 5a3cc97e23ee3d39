//! Scheduled backups, on by default: a consistent copy of the database (`store::backup_to`,
//! safe while the server writes) every `--backup-interval` into `--backup-dir`, written under a
//! temporary name and renamed into place so no partial file ever passes for a backup, skipped
//! and reported when the disk is short of room, the oldest beyond `--backup-keep` removed, then
//! `--backup-command` run on the new file. Each run's outcome is logged and kept in the
//! database's `meta` table, where `hearth doctor` and the owner's views read it.

pub mod command;
pub mod files;
pub mod replica;
pub mod replication;

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::clock::{from_millis, to_millis, Clock};
use crate::config::BackupSettings;
use crate::lock::lock;
use crate::store::{backup_file, database_bytes, free_bytes, CopyStop, Db, StoreError};

/// The first backup after a start with none due sooner waits this long, so a start is quick.
pub const FIRST_AFTER: Duration = Duration::from_secs(60);

/// The `meta` key the last report is kept under.
const REPORT_KEY: &str = "backup_report";

/// What the last runs came to, as kept in `meta` (JSON; times in unix ms).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// The last run: when it ended and what it came to in words.
    pub last_run_at: Option<i64>,
    pub last_outcome: Option<String>,
    /// The last backup written: when, where, how large.
    pub last_ok_at: Option<i64>,
    pub last_ok_file: Option<String>,
    pub last_ok_size: Option<u64>,
    /// The last failure or skip, in words, and when (cleared by a success).
    pub last_error: Option<String>,
    pub last_error_at: Option<i64>,
    /// The backup command's last outcome in words, and whether it succeeded.
    pub command: Option<String>,
    pub command_ok: Option<bool>,
}

impl Report {
    pub fn last_ok(&self) -> Option<SystemTime> {
        self.last_ok_at.map(from_millis)
    }

    /// The report kept in the database, if any run happened.
    pub fn read(conn: &rusqlite::Connection) -> Result<Option<Report>, StoreError> {
        use rusqlite::OptionalExtension;
        let text: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [REPORT_KEY], |r| {
                r.get(0)
            })
            .optional()?;
        Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
    }
}

/// Why a run wrote no backup.
#[derive(Debug, thiserror::Error)]
pub enum BackupFailure {
    #[error("skipped: {free} bytes are free in {dir}, and the backup needs about {needed} (leaving {reserve} free)")]
    NoRoom {
        dir: String,
        free: u64,
        needed: u64,
        reserve: u64,
    },
    #[error("cannot create the backup folder {dir}: {source}")]
    Folder { dir: String, source: std::io::Error },
    #[error("{0}")]
    Copy(String),
}

/// The scheduler and its last report.
pub struct Backups {
    settings: BackupSettings,
    data_dir: PathBuf,
    db: Db,
    clock: Clock,
    report: Mutex<Report>,
    /// The schedule, stopped with the server.
    task: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// Stops the copy under way with the server (it then leaves no file).
    copying: CopyStop,
}

impl Backups {
    pub fn new(settings: BackupSettings, data_dir: &Path, db: Db, clock: Clock) -> Arc<Backups> {
        Arc::new(Backups {
            settings,
            data_dir: data_dir.to_owned(),
            db,
            clock,
            report: Mutex::new(Report::default()),
            task: Mutex::new(None),
            copying: CopyStop::default(),
        })
    }

    pub fn settings(&self) -> &BackupSettings {
        &self.settings
    }

    /// Starts the schedule (nothing when backups are off). The first backup is due an interval
    /// after the newest one in the folder, and at least [`FIRST_AFTER`] after the start.
    pub async fn spawn(self: &Arc<Self>) {
        // What a server killed mid-copy left (the partial copy and SQLite's journal of it) goes
        // now, not at the next run a day later.
        let dir = self.settings.dir.clone();
        let _ = tokio::task::spawn_blocking(move || files::remove_partial(&dir)).await;
        let Some(interval) = self.settings.interval else {
            tracing::info!("scheduled backups are off (--backup-interval off)");
            return;
        };
        // The report of the last server's runs, so the doctor and the owner still see it.
        if let Ok(Some(report)) = self.db.read(Report::read).await {
            *lock(&self.report) = report;
        }
        let dir = self.settings.dir.clone();
        let newest = tokio::task::spawn_blocking(move || files::list(&dir))
            .await
            .ok()
            .and_then(Result::ok)
            .and_then(|all| all.first().map(|b| b.made_at));
        let now = self.clock.wall();
        let first = newest
            .map(|at| (at + interval).duration_since(now).unwrap_or_default())
            .unwrap_or_default()
            .max(FIRST_AFTER);
        tracing::info!(
            dir = %self.settings.dir.display(),
            every = %every(interval),
            keep = self.settings.keep,
            "scheduled backups on: the next in {}",
            humantime::format_duration(Duration::from_secs(first.as_secs()))
        );
        let backups = self.clone();
        // Due times follow the schedule, not the end of each run; a run that took longer than
        // the interval is followed by the next at once, not by a catching-up burst.
        let mut due = self.clock.now() + first;
        let task = tokio::spawn(async move {
            loop {
                backups.clock.sleep_until(due).await;
                backups.run().await;
                due += interval;
                let now = backups.clock.now();
                while due < now {
                    due += interval;
                }
            }
        });
        *lock(&self.task) = Some(task);
    }

    /// Stops the schedule (at shutdown). A copy being written is interrupted and removed with
    /// its journal (what a kill leaves instead is removed at the next start); a running command
    /// is killed.
    pub fn stop(&self) {
        self.copying.stop();
        if let Some(task) = lock(&self.task).take() {
            task.abort();
        }
    }

    /// One scheduled run: the backup, then the pruning and the command; the outcome logged and
    /// reported.
    pub async fn run(&self) -> Report {
        let result = self.write_backup().await;
        let now = self.clock.wall();
        let mut report = lock(&self.report).clone();
        report.last_run_at = Some(to_millis(now));
        match &result {
            Ok((path, size)) => {
                tracing::info!(file = %path.display(), size, "wrote a backup");
                report.last_outcome = Some(format!("wrote {} ({size} bytes)", path.display()));
                report.last_ok_at = Some(to_millis(now));
                report.last_ok_file = Some(path.display().to_string());
                report.last_ok_size = Some(*size);
                report.last_error = None;
                report.last_error_at = None;
            }
            Err(e) => {
                tracing::error!(error = %e, "the scheduled backup failed");
                report.last_outcome = Some(format!("failed: {e}"));
                report.last_error = Some(e.to_string());
                report.last_error_at = Some(to_millis(now));
            }
        }
        if let Ok((path, _)) = &result {
            self.prune();
            if let Some(command) = &self.settings.command {
                let ran = command::run(command, path, self.settings.command_timeout).await;
                if ran.ok() {
                    tracing::info!("the backup command {ran}");
                } else {
                    tracing::error!("the backup command {ran}");
                }
                report.command = Some(format!("the backup command {ran}"));
                report.command_ok = Some(ran.ok());
            }
        }
        *lock(&self.report) = report.clone();
        if let Err(e) = self.db.set_meta_json(REPORT_KEY, &report).await {
            tracing::warn!(error = %e, "could not keep the backup report in the database");
        }
        report
    }

    /// The last report.
    pub fn report(&self) -> Report {
        lock(&self.report).clone()
    }

    /// Writes the copy under a temporary name and renames it into place.
    async fn write_backup(&self) -> Result<(PathBuf, u64), BackupFailure> {
        let dir = self.settings.dir.clone();
        let data_dir = self.data_dir.clone();
        let reserve = self.settings.min_free;
        let name = files::name_for(self.clock.wall());
        let stop = self.copying.clone();
        tokio::task::spawn_blocking(move || write_in(&data_dir, &dir, &name, reserve, &stop))
            .await
            .map_err(|_| BackupFailure::Copy("the backup task stopped".into()))?
    }

    fn prune(&self) {
        match files::prune(&self.settings.dir, self.settings.keep) {
            Ok(removed) => {
                for path in removed {
                    tracing::info!(file = %path.display(), "removed an old backup");
                }
            }
            Err(e) => tracing::warn!(error = %e, "could not remove old backups"),
        }
    }
}

/// The blocking part of a backup.
fn write_in(
    data_dir: &Path,
    dir: &Path,
    name: &str,
    reserve: u64,
    stop: &CopyStop,
) -> Result<(PathBuf, u64), BackupFailure> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|source| BackupFailure::Folder {
            dir: dir.display().to_string(),
            source,
        })?;
    // Partial copies left by a crash are removed first (they take room too), and never count
    // as backups; the copy is written under a partial name of its own and renamed into place
    // when whole.
    files::remove_partial(dir);
    // The copy is at most the database and its log together.
    let needed = database_bytes(data_dir);
    let free = free_bytes(dir).unwrap_or(0);
    if free < needed.saturating_add(reserve) {
        return Err(BackupFailure::NoRoom {
            dir: dir.display().to_string(),
            free,
            needed,
            reserve,
        });
    }
    let target = dir.join(name);
    let written =
        backup_file(data_dir, &target, stop).map_err(|e| BackupFailure::Copy(e.to_string()));
    files::remove_partial(dir);
    let size = written?;
    Ok((target, size))
}

/// How often, as people say it: "every day", "every 6 hours", "every 7 days", "every 1 hour and
/// 30 minutes" (humantime's "1day" and "6h" are for flags, not sentences). The owner page says
/// the same from the API's duration (ui/src/owner/words.ts, `intervalWords`).
pub fn every(interval: Duration) -> String {
    let mut left = interval.as_secs();
    let mut parts = Vec::new();
    for (size, unit) in [
        (86_400, "day"),
        (3600, "hour"),
        (60, "minute"),
        (1, "second"),
    ] {
        let n = left / size;
        left %= size;
        match n {
            0 => {}
            1 => parts.push(format!("1 {unit}")),
            n => parts.push(format!("{n} {unit}s")),
        }
    }
    match parts.as_slice() {
        [] => "every moment".to_owned(),
        [one] => match one.strip_prefix("1 ") {
            Some(unit) => format!("every {unit}"),
            None => format!("every {one}"),
        },
        [rest @ .., last] => format!("every {} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::every;
    use std::time::Duration;

    #[test]
    fn intervals_read_as_people_say_them() {
        let h = |n: u64| Duration::from_secs(n * 3600);
        assert_eq!(every(h(24)), "every day");
        assert_eq!(every(h(6)), "every 6 hours");
        assert_eq!(every(h(1)), "every hour");
        assert_eq!(every(h(7 * 24)), "every 7 days");
        assert_eq!(
            every(Duration::from_secs(90 * 60)),
            "every 1 hour and 30 minutes"
        );
        assert_eq!(every(h(36)), "every 1 day and 12 hours");
        assert_eq!(
            every(Duration::from_secs(86_400 + 3600 + 60)),
            "every 1 day, 1 hour and 1 minute"
        );
        assert_eq!(every(Duration::from_secs(15 * 60)), "every 15 minutes");
    }
}
