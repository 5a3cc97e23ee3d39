//! `hearth doctor`: a self-check an owner (or a cron job, or a systemd timer) runs with the
//! same flags and variables as `hearth serve`. It reads the configuration and the data
//! directory (and, when replicated, asks the replica where it stands), and says per check ok, warn or fail, with what to do; any
//! fail makes the exit status non-zero, warnings do not. The owner page shows the same findings.

mod logins;
mod operation;
mod replication;
mod storage;
mod usage;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::SystemTime;

use rusqlite::{Connection, OpenFlags, OptionalExtension};
use serde::Serialize;

use crate::backups::replication::Measured;
use crate::config::{BackupSettings, Config, ReplicationSettings};
use crate::store::DB_FILE;

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Warn,
    Fail,
}

impl Status {
    pub fn word(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fail => "fail",
        }
    }
}

/// One check's outcome: what was checked, and in words what was found and what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub status: Status,
    pub check: &'static str,
    pub message: String,
}

impl Finding {
    fn ok(check: &'static str, message: impl Into<String>) -> Finding {
        Finding {
            status: Status::Ok,
            check,
            message: message.into(),
        }
    }

    fn warn(check: &'static str, message: impl Into<String>) -> Finding {
        Finding {
            status: Status::Warn,
            check,
            message: message.into(),
        }
    }

    fn fail(check: &'static str, message: impl Into<String>) -> Finding {
        Finding {
            status: Status::Fail,
            check,
            message: message.into(),
        }
    }
}

/// What the checks need of the configuration.
#[derive(Debug, Clone)]
pub struct Setup {
    pub data_dir: PathBuf,
    pub listen: SocketAddr,
    /// `--metrics-listen`, if set.
    pub metrics_listen: Option<SocketAddr>,
    pub public_url: Option<String>,
    pub publish_key: bool,
    pub backups: BackupSettings,
    pub max_calendars: usize,
    pub max_feed_storage: u64,
    pub sync_enabled: bool,
    pub max_vaults: usize,
    pub max_shares: usize,
    pub max_sync_storage: u64,
    /// The full integrity check (the command); the owner page leaves it to the start's.
    pub thorough: bool,
    /// Replication by Litestream, and (in the server) its last measurement, which the owner
    /// page shows instead of asking the replica at every visit.
    pub replication: ReplicationSettings,
    pub measured: Option<LiveMeasure>,
}

/// The running server's last measurement of the replica.
#[derive(Clone)]
pub struct LiveMeasure(pub std::sync::Arc<dyn Fn() -> Option<Measured> + Send + Sync>);

impl std::fmt::Debug for LiveMeasure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LiveMeasure")
    }
}

impl Setup {
    pub fn of(config: &Config) -> Setup {
        Setup {
            data_dir: config.data_dir.clone(),
            listen: config.listen,
            metrics_listen: config.metrics_listen,
            public_url: config.public_url.clone(),
            publish_key: config.edge.publish_key.is_some(),
            backups: config.backups.clone(),
            max_calendars: config.calendars.max_calendars,
            max_feed_storage: config.calendars.max_feed_storage,
            sync_enabled: config.sync.enabled,
            max_vaults: config.sync.max_vaults,
            max_shares: config.sync.max_shares,
            max_sync_storage: config.sync.max_sync_storage,
            thorough: true,
            replication: config.replication.clone(),
            measured: None,
        }
    }
}

/// Every check, in the order they are printed. Blocking: file system and SQLite reads.
pub fn run(setup: &Setup, now: SystemTime) -> Vec<Finding> {
    let path = setup.data_dir.join(DB_FILE);
    let conn = if path.is_file() {
        Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .ok()
        // Litestream's checkpoints hold the file for a moment; a read waits rather than fails.
        .filter(|c| c.busy_timeout(std::time::Duration::from_secs(5)).is_ok())
    } else {
        None
    };
    let mut findings = vec![storage::database(setup, conn.as_ref())];
    findings.push(storage::free_space(setup));
    findings.push(storage::file_modes(setup));
    findings.push(operation::backups(setup, conn.as_ref(), now));
    findings.extend(replication::checks(setup, conn.as_ref(), now));
    findings.push(operation::public_url(setup));
    findings.push(operation::publish_key(setup));
    findings.push(operation::metrics(setup));
    findings.push(operation::proxy(conn.as_ref()));
    findings.push(operation::clock(conn.as_ref(), now));
    findings.push(operation::time_zones());
    if let Some(conn) = &conn {
        findings.extend(usage::quotas(setup, conn));
        findings.extend(usage::failing_sources(conn, now));
        findings.extend(logins::logins(setup, conn));
    }
    findings
}

/// The worst status among `findings` (ok for none).
pub fn worst(findings: &[Finding]) -> Status {
    findings
        .iter()
        .map(|f| f.status)
        .max()
        .unwrap_or(Status::Ok)
}

/// A value from the database's `meta` table.
fn meta(conn: &Connection, key: &str) -> Option<String> {
    conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
        .optional()
        .ok()
        .flatten()
}

/// Bytes as people read them: 512 B, 70.5 KiB, 12.3 MiB, 1.2 GiB.
fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// A duration as people read them, to the largest unit: 3 hours, 2 days.
fn age(duration: std::time::Duration) -> String {
    let secs = duration.as_secs();
    let (n, unit) = match secs {
        s if s < 120 => (s, "second"),
        s if s < 7200 => (s / 60, "minute"),
        s if s < 2 * 86_400 => (s / 3600, "hour"),
        s => (s / 86_400, "day"),
    };
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{n} {unit}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn sizes_and_ages_read_as_people_say_them() {
        assert_eq!(size(512), "512 B");
        assert_eq!(size(72 * 1024), "72.0 KiB");
        assert_eq!(size(3 * 1024 * 1024 + 300 * 1024), "3.3 MiB");
        assert_eq!(age(Duration::from_secs(1)), "1 second");
        assert_eq!(age(Duration::from_secs(3 * 3600 + 59)), "3 hours");
        assert_eq!(age(Duration::from_secs(9 * 86_400)), "9 days");
    }
}
