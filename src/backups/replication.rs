//! Replication's part in the server, when `--replica-url` says Litestream replicates the
//! database: a heartbeat written into `meta` once a minute (so the replica always holds a recent
//! write to be measured by), the replica's position measured every minute and kept for
//! the metrics and the owner page, and the restore drill on the server's clock
//! (`--restore-drill-interval`, weekly): the replica restored into a temporary file beside the
//! database, checked like a backup, removed, and the outcome kept in `meta` for `hearth doctor`
//! and the owner page. Litestream runs on blocking threads, never on the async ones.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use rusqlite::{Connection, OpenFlags, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::replica::{self, Position, DRILL_FILE, DRILL_KEY, HEARTBEAT_KEY};
use crate::clock::{from_millis, to_millis, Clock};
use crate::config::ReplicationSettings;
use crate::lock::lock;
use crate::store::{database_bytes, free_bytes, integrity, Checked, Db, StoreError};
use crate::store::{CHECK_TIME_LIMIT, MIN_FREE_BYTES};

/// How often the replica's position is measured (one listing of the replica each time: 1,440 a
/// day, within what S3-compatible stores give free).
pub const MEASURE_EVERY: Duration = Duration::from_secs(60);
/// How often the heartbeat is written.
pub const HEARTBEAT_EVERY: Duration = Duration::from_secs(60);
/// The first drill after a start waits at least this long (or the interval, when shorter).
pub const FIRST_DRILL_AFTER: Duration = Duration::from_secs(300);

/// The last restore drill, as kept in `meta` (JSON; times in unix ms).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DrillReport {
    pub at: i64,
    pub ok: bool,
    /// What it found, in words.
    pub message: String,
    pub took_ms: u64,
    /// The newest heartbeat the restored copy held: how fresh the replica was.
    pub restored_heartbeat: Option<i64>,
}

impl DrillReport {
    /// The report kept in the database, if a drill ran.
    pub fn read(conn: &Connection) -> Result<Option<DrillReport>, StoreError> {
        let text: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [DRILL_KEY], |r| {
                r.get(0)
            })
            .optional()?;
        Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
    }
}

/// The heartbeat kept in the database.
pub fn read_heartbeat(conn: &Connection) -> Result<Option<SystemTime>, StoreError> {
    let text: Option<String> = conn
        .query_row(
            "SELECT value FROM meta WHERE key = ?1",
            [HEARTBEAT_KEY],
            |r| r.get(0),
        )
        .optional()?;
    Ok(text.and_then(|t| t.parse::<i64>().ok()).map(from_millis))
}

/// A measurement: when, and the position or why there is none.
#[derive(Debug, Clone)]
pub struct Measured {
    pub at: SystemTime,
    pub result: Result<Position, String>,
}

/// The server's replication: its measurements and drills.
pub struct Replication {
    settings: ReplicationSettings,
    data_dir: PathBuf,
    db: Db,
    clock: Clock,
    measured: Mutex<Option<Measured>>,
    drill: Mutex<Option<DrillReport>>,
    /// Ends a litestream run under way with the server.
    stop: Arc<AtomicBool>,
    tasks: Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

impl Replication {
    pub fn new(
        settings: ReplicationSettings,
        data_dir: &Path,
        db: Db,
        clock: Clock,
    ) -> Arc<Replication> {
        db.set_replicated(settings.replicated());
        Arc::new(Replication {
            settings,
            data_dir: data_dir.to_owned(),
            db,
            clock,
            measured: Mutex::new(None),
            drill: Mutex::new(None),
            stop: Arc::new(AtomicBool::new(false)),
            tasks: Mutex::new(Vec::new()),
        })
    }

    pub fn settings(&self) -> &ReplicationSettings {
        &self.settings
    }

    /// The last measurement of the replica's position.
    pub fn measured(&self) -> Option<Measured> {
        lock(&self.measured).clone()
    }

    /// The last drill's report.
    pub fn last_drill(&self) -> Option<DrillReport> {
        lock(&self.drill).clone()
    }

    /// Starts the heartbeat, the measurements and the drill schedule (nothing when not
    /// replicated).
    pub async fn spawn(self: &Arc<Self>) {
        if !self.settings.replicated() {
            return;
        }
        // What a drill cut short by a kill left goes now.
        let target = self.data_dir.join(DRILL_FILE);
        let _ = tokio::task::spawn_blocking(move || replica::remove_with_companions(&target)).await;
        if let Ok(Some(report)) = self.db.read(DrillReport::read).await {
            *lock(&self.drill) = Some(report);
        }
        tracing::info!(
            replica = self.settings.replica_shown().unwrap_or_default(),
            "replicated by Litestream: checkpoints left to it, the replica measured every {:?}",
            MEASURE_EVERY
        );
        let me = self.clone();
        let watch = tokio::spawn(async move {
            // Litestream takes the start's writes within a second: the first measurement after
            // that. Each measurement judges the heartbeat written a minute before it (one written
            // a moment before would be too fresh to tell anything), then writes the next.
            tokio::time::sleep(Duration::from_secs(2)).await;
            let mut beat: Option<SystemTime> = None;
            let mut beat_at: Option<Instant> = None;
            loop {
                me.measure(beat).await;
                if beat_at.is_none_or(|at| at.elapsed() >= HEARTBEAT_EVERY) {
                    match me.heartbeat().await {
                        Ok(now) => beat = Some(now),
                        Err(e) => {
                            tracing::warn!(error = %e, "could not write the replication heartbeat")
                        }
                    }
                    beat_at = Some(Instant::now());
                }
                tokio::time::sleep(MEASURE_EVERY).await;
            }
        });
        let mut tasks = vec![watch];
        if let Some(interval) = self.settings.drill_interval {
            let last = self.last_drill().map(|d| from_millis(d.at));
            let now = self.clock.wall();
            let first = last
                .map(|at| (at + interval).duration_since(now).unwrap_or_default())
                .unwrap_or_default()
                .max(FIRST_DRILL_AFTER.min(interval));
            let me = self.clone();
            let mut due = self.clock.now() + first;
            tasks.push(tokio::spawn(async move {
                loop {
                    me.clock.sleep_until(due).await;
                    me.run_drill().await;
                    due += interval;
                    let now = me.clock.now();
                    while due < now {
                        due += interval;
                    }
                }
            }));
        } else {
            tracing::warn!("the restore drill is off (--restore-drill-interval off)");
        }
        *lock(&self.tasks) = tasks;
    }

    /// Stops the schedule and any litestream run under way (at shutdown).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
        for task in lock(&self.tasks).drain(..) {
            task.abort();
        }
    }

    async fn heartbeat(&self) -> Result<SystemTime, StoreError> {
        let now = self.clock.wall();
        let value = to_millis(now).to_string();
        self.db.set_meta(HEARTBEAT_KEY, value).await?;
        Ok(now)
    }

    async fn measure(&self, heartbeat: Option<SystemTime>) {
        let settings = self.settings.clone();
        let data_dir = self.data_dir.clone();
        let stop = self.stop.clone();
        let now = self.clock.wall();
        let result = tokio::task::spawn_blocking(move || {
            replica::measure(&settings, &data_dir, heartbeat, now, &stop)
        })
        .await
        .unwrap_or(Err(replica::ReplicaError::Stopped))
        .map_err(|e| e.to_string());
        if let Err(e) = &result {
            tracing::warn!(error = %e, "could not measure the replica");
        }
        *lock(&self.measured) = Some(Measured { at: now, result });
    }

    /// One drill, its outcome logged and kept.
    pub async fn run_drill(&self) -> DrillReport {
        let settings = self.settings.clone();
        let data_dir = self.data_dir.clone();
        let stop = self.stop.clone();
        let now = self.clock.wall();
        let report = tokio::task::spawn_blocking(move || drill(&settings, &data_dir, now, &stop))
            .await
            .unwrap_or_else(|_| DrillReport {
                at: to_millis(now),
                ok: false,
                message: "the drill's task stopped".into(),
                took_ms: 0,
                restored_heartbeat: None,
            });
        if report.ok {
            tracing::info!(
                took_ms = report.took_ms,
                "restore drill: {}",
                report.message
            );
        } else {
            tracing::error!("restore drill failed: {}", report.message);
        }
        *lock(&self.drill) = Some(report.clone());
        if let Err(e) = self.db.set_meta_json(DRILL_KEY, &report).await {
            tracing::warn!(error = %e, "could not keep the drill's report in the database");
        }
        report
    }
}

/// The drill (blocking): the replica restored into a temporary file beside the database within
/// the drill's time limit, its integrity checked within the start's, the heartbeat it holds
/// read, and the file removed whatever happened.
pub fn drill(
    settings: &ReplicationSettings,
    data_dir: &Path,
    now: SystemTime,
    stop: &AtomicBool,
) -> DrillReport {
    let started = Instant::now();
    let target = data_dir.join(DRILL_FILE);
    let outcome = restore_and_check(settings, data_dir, &target, stop);
    replica::remove_with_companions(&target);
    let took_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let (ok, message, restored_heartbeat) = match outcome {
        Ok((message, beat)) => (true, message, beat),
        Err(message) => (false, message, None),
    };
    DrillReport {
        at: to_millis(now),
        ok,
        message,
        took_ms,
        restored_heartbeat,
    }
}

fn restore_and_check(
    settings: &ReplicationSettings,
    data_dir: &Path,
    target: &Path,
    stop: &AtomicBool,
) -> Result<(String, Option<i64>), String> {
    // The restored copy is at most the database and its log.
    let needed = database_bytes(data_dir);
    let free = free_bytes(data_dir).unwrap_or(0);
    if free < needed.saturating_add(MIN_FREE_BYTES) {
        return Err(format!(
            "skipped: {free} bytes are free in {}, and the restored copy needs about {needed}",
            data_dir.display()
        ));
    }
    replica::restore_to(settings, data_dir, target, settings.drill_timeout, stop)
        .map_err(|e| e.to_string())?;
    let size = std::fs::metadata(target).map_or(0, |m| m.len());
    let mut conn = Connection::open_with_flags(
        target,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| format!("the restored copy does not open: {e}"))?;
    conn.busy_timeout(Duration::from_secs(5))
        .map_err(|e| e.to_string())?;
    let checked = integrity(&mut conn, target, size, CHECK_TIME_LIMIT)
        .map_err(|e| format!("the restored copy is damaged: {e}"))?;
    let schema: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| format!("the restored copy is not Hearth's: {e}"))?;
    let beat = read_heartbeat(&conn)
        .map_err(|e| format!("the restored copy is not Hearth's: {e}"))?
        .map(to_millis);
    let how = match checked {
        Checked::Complete => "sound",
        Checked::CutShort => "sound as far as the check's time limit read",
    };
    Ok((
        format!("restored the replica ({size} bytes, schema {schema}) and checked it: {how}"),
        beat,
    ))
}
