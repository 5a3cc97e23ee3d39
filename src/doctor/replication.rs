//! The doctor's checks of replication by Litestream (`--replica-url`): `replication`, whether
//! the database is replicated and how far behind the replica is (measured: `hearth doctor` asks
//! the replica itself; the owner page reads the running server's last measurement), and
//! `replication drill`, the last restore drill (a failed one is a fail).

use std::sync::atomic::AtomicBool;
use std::time::{Duration, SystemTime};

use rusqlite::Connection;

use super::{age, Finding, Setup};
use crate::backups::every;
use crate::backups::replica::{self, Position};
use crate::backups::replication::{read_heartbeat, DrillReport, Measured, FIRST_DRILL_AFTER};
use crate::clock::from_millis;

/// Behind by more than this is a warning (Litestream copies every second).
pub const BEHIND_WARN: Duration = Duration::from_secs(30);
/// Behind by more than this is a fail: the promise of a second is broken.
pub const BEHIND_FAIL: Duration = Duration::from_secs(300);

pub(super) fn checks(setup: &Setup, conn: Option<&Connection>, now: SystemTime) -> Vec<Finding> {
    vec![position(setup, conn, now), drill(setup, conn, now)]
}

fn position(setup: &Setup, conn: Option<&Connection>, now: SystemTime) -> Finding {
    const CHECK: &str = "replication";
    let settings = &setup.replication;
    let Some(replica) = settings.replica_shown() else {
        return Finding::ok(
            CHECK,
            "not replicated (--replica-url unset): what was written since the last backup is lost \
             with the disk; README.md, \"Replication with Litestream\", sets it up",
        );
    };
    let measured = match (&setup.measured, setup.thorough) {
        (Some(live), false) => match (live.0)() {
            Some(measured) => measured,
            None => {
                return Finding::ok(
                    CHECK,
                    format!("replicated to {replica} by Litestream; not measured yet"),
                )
            }
        },
        _ => {
            let heartbeat = conn.and_then(|c| read_heartbeat(c).ok().flatten());
            Measured {
                at: now,
                result: replica::measure(
                    settings,
                    &setup.data_dir,
                    heartbeat,
                    now,
                    &AtomicBool::new(false),
                )
                .map_err(|e| e.to_string()),
            }
        }
    };
    match measured.result {
        Err(e) => Finding::fail(
            CHECK,
            format!("replicated to {replica}, but its position cannot be read: {e}"),
        ),
        Ok(p) => judge(&replica, &p),
    }
}

/// The words and status of a position.
pub(super) fn judge(replica: &str, p: &Position) -> Finding {
    const CHECK: &str = "replication";
    let behind = p.behind();
    if let Some(since) = p.not_taken_since {
        let since = humantime::format_rfc3339_seconds(from_millis(since));
        return Finding::fail(
            CHECK,
            format!(
                "replicated to {replica}, but Litestream has not taken the writes since {since} \
                 ({} behind): is it running? (journalctl -u hearth)",
                age(behind)
            ),
        );
    }
    if behind.is_zero() {
        return Finding::ok(
            CHECK,
            format!(
                "replicated to {replica} by Litestream; the replica holds every write (transaction {})",
                p.replica_txid
            ),
        );
    }
    let said = format!(
        "replicated to {replica}; the replica is {} behind (it holds transaction {} of {})",
        age(behind),
        p.replica_txid,
        p.local_txid
    );
    if behind > BEHIND_FAIL {
        Finding::fail(
            CHECK,
            format!("{said}: is the storage reachable? (journalctl -u hearth)"),
        )
    } else if behind > BEHIND_WARN {
        Finding::warn(CHECK, said)
    } else {
        Finding::ok(CHECK, said)
    }
}

fn drill(setup: &Setup, conn: Option<&Connection>, now: SystemTime) -> Finding {
    const CHECK: &str = "replication drill";
    let settings = &setup.replication;
    if !settings.replicated() {
        return Finding::ok(CHECK, "no restore drill: not replicated");
    }
    let Some(interval) = settings.drill_interval else {
        return Finding::warn(
            CHECK,
            "the restore drill is off (--restore-drill-interval off): nobody checks that the replica restores",
        );
    };
    let report = conn.and_then(|c| DrillReport::read(c).ok().flatten());
    let Some(report) = report else {
        return Finding::ok(
            CHECK,
            format!(
                "no restore drill yet: the first runs {} after the server starts, then {}",
                age(FIRST_DRILL_AFTER.min(interval)),
                every(interval)
            ),
        );
    };
    let when = from_millis(report.at);
    let how_old = now.duration_since(when).unwrap_or_default();
    let said = format!(
        "the last restore drill, {} ago, took {:.1} s: {}",
        age(how_old),
        report.took_ms as f64 / 1000.0,
        report.message
    );
    if !report.ok {
        return Finding::fail(CHECK, format!("{said}; the replica may not restore"));
    }
    let fresh = report
        .restored_heartbeat
        .map(|beat| {
            let lag = when.duration_since(from_millis(beat)).unwrap_or_default();
            format!(
                "; the newest heartbeat in it (written once a minute) was {} old",
                age(lag)
            )
        })
        .unwrap_or_default();
    if how_old > interval * 2 + FIRST_DRILL_AFTER {
        return Finding::warn(
            CHECK,
            format!("{said}{fresh}: overdue ({})", every(interval)),
        );
    }
    Finding::ok(CHECK, format!("{said}{fresh}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backups::replica::Position;

    fn at(behind_ms: u64, not_taken_since: Option<i64>) -> Position {
        Position {
            local_txid: 9,
            replica_txid: if behind_ms == 0 { 9 } else { 7 },
            replica_at: None,
            behind_ms,
            not_taken_since,
        }
    }

    #[test]
    fn the_replica_is_judged_by_how_far_behind_it_is() {
        use super::super::Status;
        assert_eq!(judge("file:///r", &at(0, None)).status, Status::Ok);
        assert_eq!(judge("file:///r", &at(1_500, None)).status, Status::Ok);
        assert_eq!(judge("file:///r", &at(60_000, None)).status, Status::Warn);
        let late = judge("file:///r", &at(600_000, None));
        assert_eq!(late.status, Status::Fail);
        assert!(
            late.message.contains("10 minutes behind"),
            "{}",
            late.message
        );
        let stopped = judge("file:///r", &at(90_000, Some(1_000)));
        assert_eq!(stopped.status, Status::Fail);
        assert!(
            stopped.message.contains("is it running"),
            "{}",
            stopped.message
        );
    }
}
