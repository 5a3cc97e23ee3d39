//! Litestream, the program that replicates the database when `--replica-url` is set: how far
//! behind the replica is, and the restore drill. The position is measured, not assumed: the
//! newest transaction Litestream has taken from the database is the newest of its own files
//! beside it (`.hearth.db-litestream/ltx/0/MIN-MAX.ltx`, what Litestream itself reads as its
//! position), the newest the replica holds is what `litestream ltx` lists there, and a write
//! Hearth made (the write-ahead log's last change, or the heartbeat in `meta`) that Litestream has
//! not taken shows that it stopped.
//! The drill is `litestream restore -o` to a temporary file beside the database, checked like a
//! backup and removed. Every call runs the program within a time limit on the calling (blocking)
//! thread and ends it early when told to stop.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

use crate::clock::to_millis;
use crate::config::ReplicationSettings;
use crate::store::DB_FILE;

/// The `meta` key of Hearth's heartbeat (unix ms), written while replicated so that the replica
/// always holds a recent write to measure by.
pub const HEARTBEAT_KEY: &str = "replication_heartbeat";
/// The `meta` key of the last restore drill's report (JSON).
pub const DRILL_KEY: &str = "restore_drill";
/// How long `litestream ltx` may take (it lists the replica: one request to S3).
pub const LIST_TIMEOUT: Duration = Duration::from_secs(10);
/// Litestream takes a write from the log within a second; past this, a write not taken is late.
const TAKE_GRACE: Duration = Duration::from_secs(5);
/// Output of the program kept for a message, from the end.
const MAX_OUTPUT: usize = 600;
/// The drill's temporary database, beside the real one (same disk, owner-only directory).
pub const DRILL_FILE: &str = "hearth.db.drill";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplicaError {
    #[error("cannot run {program}: {why}")]
    NotStarted { program: String, why: String },
    #[error("{what} ran past its time limit of {limit:?} and was stopped")]
    TimedOut { what: String, limit: Duration },
    #[error("{what} failed: {output}")]
    Failed { what: String, output: String },
    #[error("stopped with the server")]
    Stopped,
    #[error(
        "Litestream has not replicated this database (no {0} beside it): start Hearth with \
         `litestream replicate -exec` as deploy/hearth-litestream.service does"
    )]
    NoLocalState(String),
    #[error("cannot read {what}: {why}")]
    Unreadable { what: String, why: String },
}

/// Where the replica stands against the database.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Position {
    /// The newest transaction Litestream took from the database, and the newest the replica holds.
    pub local_txid: u64,
    pub replica_txid: u64,
    /// When the replica's newest file was written (unix ms).
    pub replica_at: Option<i64>,
    /// How long the oldest write the replica lacks has waited (zero: it holds every write).
    pub behind_ms: u64,
    /// A write Hearth made that Litestream has not taken: Litestream is not running.
    pub not_taken_since: Option<i64>,
}

impl Position {
    pub fn behind(&self) -> Duration {
        Duration::from_millis(self.behind_ms)
    }
}

/// One of Litestream's files: its transactions and when it was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LtxFile {
    pub min_txid: u64,
    pub max_txid: u64,
    pub at: SystemTime,
}

/// Litestream's directory beside the database.
pub fn local_state_dir(data_dir: &Path) -> PathBuf {
    data_dir.join(format!(".{DB_FILE}-litestream"))
}

/// The level-0 files Litestream keeps beside the database (it never removes the newest).
pub fn local_files(data_dir: &Path) -> Result<Vec<LtxFile>, ReplicaError> {
    let state = local_state_dir(data_dir);
    if !state.is_dir() {
        return Err(ReplicaError::NoLocalState(state.display().to_string()));
    }
    let level0 = state.join("ltx").join("0");
    let entries = match std::fs::read_dir(&level0) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(ReplicaError::Unreadable {
                what: level0.display().to_string(),
                why: e.to_string(),
            })
        }
    };
    let mut files = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some((min_txid, max_txid)) = name.to_str().and_then(txid_range) else {
            continue;
        };
        let Ok(at) = entry.metadata().and_then(|m| m.modified()) else {
            continue;
        };
        files.push(LtxFile {
            min_txid,
            max_txid,
            at,
        });
    }
    Ok(files)
}

/// `0000000000000001-0000000000000002.ltx` → (1, 2).
fn txid_range(name: &str) -> Option<(u64, u64)> {
    let (min, max) = name.strip_suffix(".ltx")?.split_once('-')?;
    Some((
        u64::from_str_radix(min, 16).ok()?,
        u64::from_str_radix(max, 16).ok()?,
    ))
}

#[derive(Deserialize)]
struct ListedFile {
    max_txid: String,
    timestamp: String,
}

/// The files `litestream ltx -json` lists: the newest transaction and when it was written.
pub fn parse_listing(json: &[u8]) -> Result<Option<(u64, Option<SystemTime>)>, ReplicaError> {
    let unreadable = |why: String| ReplicaError::Unreadable {
        what: "the replica's listing".into(),
        why,
    };
    let listed: Vec<ListedFile> =
        serde_json::from_slice(json).map_err(|e| unreadable(e.to_string()))?;
    let mut newest: Option<(u64, Option<SystemTime>)> = None;
    for file in listed {
        let txid =
            u64::from_str_radix(&file.max_txid, 16).map_err(|e| unreadable(e.to_string()))?;
        let at = humantime::parse_rfc3339_weak(&file.timestamp).ok();
        if newest.is_none_or(|(t, _)| txid > t) {
            newest = Some((txid, at));
        }
    }
    Ok(newest)
}

/// The position from what was read: caught up when the replica holds Litestream's newest
/// transaction; else behind by the age of the oldest file it lacks. A write (`written`, the
/// newest Hearth made) that Litestream has not taken within [`TAKE_GRACE`] makes it at least
/// that old.
pub fn position(
    local: &[LtxFile],
    replica: Option<(u64, Option<SystemTime>)>,
    written: Option<SystemTime>,
    now: SystemTime,
) -> Position {
    let local_txid = local.iter().map(|f| f.max_txid).max().unwrap_or(0);
    let (replica_txid, replica_at) = replica.unwrap_or((0, None));
    let lacking = local
        .iter()
        .filter(|f| f.max_txid > replica_txid)
        .map(|f| f.at)
        .min();
    let mut behind = lacking.map_or(Duration::ZERO, |at| {
        now.duration_since(at).unwrap_or_default()
    });
    let newest_taken = local.iter().map(|f| f.at).max();
    let not_taken_since = written.filter(|&beat| {
        now.duration_since(beat).unwrap_or_default() > TAKE_GRACE
            && newest_taken.is_none_or(|taken| taken + TAKE_GRACE < beat)
    });
    if let Some(beat) = not_taken_since {
        behind = behind.max(now.duration_since(beat).unwrap_or_default());
    }
    Position {
        local_txid,
        replica_txid,
        replica_at: replica_at.map(to_millis),
        behind_ms: u64::try_from(behind.as_millis()).unwrap_or(u64::MAX),
        not_taken_since: not_taken_since.map(to_millis),
    }
}

/// Measures where the replica stands (blocking: reads a directory and lists the replica).
pub fn measure(
    settings: &ReplicationSettings,
    data_dir: &Path,
    heartbeat: Option<SystemTime>,
    now: SystemTime,
    stop: &AtomicBool,
) -> Result<Position, ReplicaError> {
    let local = local_files(data_dir)?;
    let database = data_dir.join(DB_FILE);
    // The newest write Hearth made: the heartbeat, or the write-ahead log's last change (only
    // writes change it), whichever is later.
    let log = std::fs::metadata(data_dir.join(format!("{DB_FILE}-wal")))
        .and_then(|m| m.modified())
        .ok();
    let written = heartbeat.max(log);
    let listing = run(
        settings,
        data_dir,
        &[
            "ltx".as_ref(),
            "-json".as_ref(),
            "-level".as_ref(),
            "all".as_ref(),
            "-config".as_ref(),
            settings.config.as_os_str(),
            database.as_os_str(),
        ],
        LIST_TIMEOUT,
        stop,
    )?;
    let replica = parse_listing(&listing)?;
    Ok(position(&local, replica, written, now))
}

/// `litestream restore -o` of the replica into `target` (any file there first removed).
pub fn restore_to(
    settings: &ReplicationSettings,
    data_dir: &Path,
    target: &Path,
    limit: Duration,
    stop: &AtomicBool,
) -> Result<(), ReplicaError> {
    remove_with_companions(target);
    let database = data_dir.join(DB_FILE);
    run(
        settings,
        data_dir,
        &[
            "restore".as_ref(),
            "-config".as_ref(),
            settings.config.as_os_str(),
            "-o".as_ref(),
            target.as_os_str(),
            database.as_os_str(),
        ],
        limit,
        stop,
    )
    .map(drop)
}

/// Removes a database file with its log and shared memory, whatever of them exists.
pub fn remove_with_companions(path: &Path) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(name));
    }
}

/// Runs litestream with `args` for the database in `data_dir`, whose directory and replica it
/// reads from the variables the configuration names; its output when it succeeds.
fn run(
    settings: &ReplicationSettings,
    data_dir: &Path,
    args: &[&std::ffi::OsStr],
    limit: Duration,
    stop: &AtomicBool,
) -> Result<Vec<u8>, ReplicaError> {
    let program = settings.litestream.display().to_string();
    let what = format!(
        "litestream {}",
        args.first()
            .map_or(String::new(), |a| a.to_string_lossy().into_owned())
    );
    let mut command = Command::new(&settings.litestream);
    command
        .args(args)
        .env("HEARTH_DATA_DIR", data_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(url) = &settings.replica_url {
        command.env("HEARTH_REPLICA_URL", url);
    }
    let mut child = command.spawn().map_err(|e| ReplicaError::NotStarted {
        program: program.clone(),
        why: e.to_string(),
    })?;
    // Both pipes are drained while it runs, so it never blocks on a full pipe.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut text);
            }
            text
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) if stop.load(Ordering::Relaxed) => break Err(ReplicaError::Stopped),
            Ok(None) if started.elapsed() >= limit => {
                break Err(ReplicaError::TimedOut {
                    what: what.clone(),
                    limit,
                })
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(25)),
            Err(e) => {
                break Err(ReplicaError::Failed {
                    what: what.clone(),
                    output: e.to_string(),
                })
            }
        }
    };
    if status.is_err() {
        let _ = child.kill();
        let _ = child.wait();
    }
    let out = out.join().unwrap_or_default();
    let err = err.join().unwrap_or_default();
    let status = status?;
    if status.success() {
        return Ok(out);
    }
    let text = String::from_utf8_lossy(&err);
    let text = text.trim();
    let tail = match text.char_indices().rev().nth(MAX_OUTPUT) {
        Some((at, _)) => &text[at..],
        None => text,
    };
    Err(ReplicaError::Failed {
        what,
        output: format!("{status}: {tail}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> SystemTime = |s| SystemTime::UNIX_EPOCH + Duration::from_secs(s);

    fn file(min: u64, max: u64, at: u64) -> LtxFile {
        LtxFile {
            min_txid: min,
            max_txid: max,
            at: S(at),
        }
    }

    #[test]
    fn file_names_are_transaction_ranges_in_hex() {
        assert_eq!(
            txid_range("0000000000000001-000000000000001f.ltx"),
            Some((1, 31))
        );
        assert_eq!(
            txid_range("0000000000000001-0000000000000002.ltx.tmp"),
            None
        );
        assert_eq!(txid_range("notes.txt"), None);
    }

    #[test]
    fn the_listing_gives_the_newest_transaction_of_any_level() {
        let json = br#"[
          {"level":0,"min_txid":"0000000000000001","max_txid":"0000000000000003","size":1,"timestamp":"2026-11-27T20:53:05Z"},
          {"level":9,"min_txid":"0000000000000001","max_txid":"0000000000000010","size":1,"timestamp":"2026-11-27T20:53:09Z"}
        ]"#;
        let (txid, at) = parse_listing(json).expect("parses").expect("some");
        assert_eq!(txid, 16);
        assert!(at.is_some());
        assert_eq!(parse_listing(b"[]").expect("empty"), None);
        assert!(parse_listing(b"Error: no such bucket").is_err());
    }

    #[test]
    fn caught_up_when_the_replica_holds_the_newest_transaction() {
        let local = [file(1, 1, 100), file(2, 4, 150)];
        let p = position(&local, Some((4, Some(S(151)))), Some(S(149)), S(200));
        assert_eq!((p.local_txid, p.replica_txid, p.behind_ms), (4, 4, 0));
        assert_eq!(p.not_taken_since, None);
    }

    #[test]
    fn behind_by_the_age_of_the_oldest_file_the_replica_lacks() {
        let local = [file(1, 1, 100), file(2, 2, 150), file(3, 3, 170)];
        let p = position(&local, Some((1, None)), Some(S(169)), S(200));
        assert_eq!(p.behind(), Duration::from_secs(50));
        let p = position(&local, None, None, S(200));
        assert_eq!(
            p.behind(),
            Duration::from_secs(100),
            "an empty replica lacks all"
        );
    }

    #[test]
    fn a_heartbeat_litestream_never_took_means_it_stopped() {
        let local = [file(1, 5, 100)];
        let p = position(&local, Some((5, None)), Some(S(160)), S(200));
        assert_eq!(p.not_taken_since, Some(160_000));
        assert_eq!(p.behind(), Duration::from_secs(40));
        // Written a moment ago: Litestream has a second or so to take it.
        let p = position(&local, Some((5, None)), Some(S(198)), S(200));
        assert_eq!((p.not_taken_since, p.behind_ms), (None, 0));
    }

    #[test]
    fn no_state_beside_the_database_is_said_as_such() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = local_files(dir.path()).expect_err("none");
        assert!(matches!(err, ReplicaError::NoLocalState(_)), "{err:?}");
        let level0 = local_state_dir(dir.path()).join("ltx/0");
        std::fs::create_dir_all(&level0).expect("mkdir");
        std::fs::write(level0.join("0000000000000001-0000000000000002.ltx"), b"x").expect("w");
        std::fs::write(level0.join("junk"), b"x").expect("w");
        let files = local_files(dir.path()).expect("reads");
        assert_eq!(files.len(), 1);
        assert_eq!((files[0].min_txid, files[0].max_txid), (1, 2));
    }

    #[test]
    fn a_missing_program_and_one_past_its_time_are_errors_that_say_so() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut settings = ReplicationSettings {
            replica_url: Some("file:///nowhere".into()),
            config: dir.path().join("litestream.yml"),
            litestream: dir.path().join("no-such-litestream"),
            drill_interval: None,
            drill_timeout: Duration::from_secs(1),
        };
        let stop = AtomicBool::new(false);
        let err =
            run(&settings, dir.path(), &["x".as_ref()], LIST_TIMEOUT, &stop).expect_err("missing");
        assert!(matches!(err, ReplicaError::NotStarted { .. }), "{err:?}");
        settings.litestream = "sleep".into();
        let started = Instant::now();
        let err = run(
            &settings,
            dir.path(),
            &["5".as_ref()],
            Duration::from_millis(200),
            &stop,
        )
        .expect_err("slow");
        assert!(matches!(err, ReplicaError::TimedOut { .. }), "{err:?}");
        assert!(started.elapsed() < Duration::from_secs(2));
        settings.litestream = "sh".into();
        let err = run(
            &settings,
            dir.path(),
            &["-c".as_ref(), "echo nope >&2; exit 3".as_ref()],
            LIST_TIMEOUT,
            &stop,
        )
        .expect_err("fails");
        assert!(err.to_string().contains("nope"), "{err}");
    }
}
