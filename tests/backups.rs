//! Scheduled backups and restore, on a real server with a real SQLite file and the injectable
//! clock (the test moves it instead of waiting a day): the interval, the keep count, a disk
//! short of room, the backup command and its failure, and `hearth restore` with the real binary
//! (refused while a server holds the data directory, then a round trip).

mod common;

use std::path::Path;
use std::time::{Duration, SystemTime};

use common::{hearth_bin, until, ServeProcess, TestServer};
use hearth::backups::files;
use hearth::backups::{Report, FIRST_AFTER};
use hearth::clock::Clock;
use hearth::Config;
use reqwest::StatusCode;

const HOUR: Duration = Duration::from_secs(3600);

fn backups_every_hour(clock: &Clock, dir: &Path, keep: usize) -> impl FnOnce(&mut Config) {
    let (clock, dir) = (clock.clone(), dir.to_owned());
    move |c| {
        c.clock = clock;
        c.backups.dir = dir;
        c.backups.interval = Some(HOUR);
        c.backups.keep = keep;
    }
}

/// The backup report kept in the database, once there is one.
fn report_of(data_dir: &Path) -> Option<Report> {
    let conn = rusqlite::Connection::open(data_dir.join("hearth.db")).ok()?;
    Report::read(&conn).ok().flatten()
}

fn report(data_dir: &Path) -> Report {
    report_of(data_dir).expect("a report")
}

/// `at` to the second, as backups are named.
fn to_second(at: SystemTime) -> SystemTime {
    let secs = at
        .duration_since(SystemTime::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
}

/// Waits until the server answers: its schedule is set by then.
async fn started(server: &TestServer) {
    assert_eq!(server.get("/healthz").await.status(), StatusCode::OK);
}

async fn backups_made(dir: &Path, n: usize) {
    until(&format!("{n} backups"), || async {
        files::list(dir).map(|all| all.len()).unwrap_or(0) >= n
    })
    .await;
}

#[tokio::test]
async fn backups_are_made_every_interval_and_only_the_newest_are_kept() {
    let clock = Clock::manual();
    let folder = tempfile::tempdir().expect("tempdir");
    let server = TestServer::start(backups_every_hour(&clock, folder.path(), 2)).await;
    started(&server).await;
    // None yet at the start; the first a minute later.
    assert!(files::list(folder.path()).expect("lists").is_empty());
    clock.advance(FIRST_AFTER);
    backups_made(folder.path(), 1).await;
    let first = files::list(folder.path()).expect("lists");
    assert_eq!(first[0].made_at, to_second(clock.wall()));
    for _ in 0..3 {
        clock.advance(HOUR);
        until("the next backup", || async {
            files::list(folder.path())
                .expect("lists")
                .first()
                .is_some_and(|b| b.made_at == to_second(clock.wall()))
        })
        .await;
    }
    // The oldest beyond two are removed once each backup is written.
    until("the oldest removed", || async {
        files::list(folder.path()).expect("lists").len() == 2
    })
    .await;
    let kept = files::list(folder.path()).expect("lists");
    // Each backup is a whole database: it opens and has the schema.
    let conn = rusqlite::Connection::open(&kept[0].path).expect("opens");
    let ok: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("checks");
    assert_eq!(ok, "ok");
    assert!(hearth::store::check_backup(&kept[0].path).is_ok());
    let dir = server.stop().await;
    let report = report(dir.path());
    assert_eq!(report.last_ok().map(to_second), Some(kept[0].made_at));
    assert_eq!(report.last_error, None);
    // No partial copies are left behind.
    let names: Vec<String> = std::fs::read_dir(folder.path())
        .expect("lists")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| n.starts_with("hearth-")), "{names:?}");
}

#[tokio::test]
async fn a_disk_short_of_room_skips_the_backup_and_says_so() {
    let clock = Clock::manual();
    let folder = tempfile::tempdir().expect("tempdir");
    let server = TestServer::start(|c| {
        backups_every_hour(&clock, folder.path(), 7)(c);
        // More free space than any disk has: as a nearly full disk looks to the check.
        c.backups.min_free = u64::MAX / 2;
    })
    .await;
    started(&server).await;
    clock.advance(FIRST_AFTER);
    let data_dir = server.data_dir.path().to_owned();
    until("the skip is reported", || async {
        report_of(&data_dir).is_some()
    })
    .await;
    let report = report(&data_dir);
    let error = report.last_error.expect("an error");
    assert!(
        error.starts_with("skipped:") && error.contains("free"),
        "{error}"
    );
    assert_eq!(report.last_ok_at, None);
    assert!(
        std::fs::read_dir(folder.path())
            .expect("lists")
            .next()
            .is_none(),
        "no file at all"
    );
    server.stop().await;
}

#[tokio::test]
async fn the_backup_command_gets_the_new_file_and_its_failure_is_reported() {
    let clock = Clock::manual();
    let folder = tempfile::tempdir().expect("tempdir");
    let offsite = tempfile::tempdir().expect("tempdir");
    let copy = format!("cp \"$1\" '{}'/", offsite.path().display());
    let server = TestServer::start(|c| {
        backups_every_hour(&clock, folder.path(), 7)(c);
        c.backups.command = Some(copy);
    })
    .await;
    started(&server).await;
    clock.advance(FIRST_AFTER);
    let offsite_path = offsite.path().to_owned();
    until("the command copied the backup", || async {
        files::list(&offsite_path).map(|a| a.len()).unwrap_or(0) == 1
    })
    .await;
    let data_dir = server.data_dir.path().to_owned();
    until("the report is kept", || async {
        report_of(&data_dir).is_some_and(|r| r.command_ok == Some(true))
    })
    .await;
    let dir = server.stop().await;

    let server = TestServer::start_in(dir, |c| {
        backups_every_hour(&clock, folder.path(), 7)(c);
        c.backups.command = Some("echo 'remote: permission denied' >&2; exit 3".into());
    })
    .await;
    started(&server).await;
    // An hour after the newest backup in the folder.
    clock.advance(HOUR);
    let data_dir = server.data_dir.path().to_owned();
    until("the failure is reported", || async {
        report_of(&data_dir).is_some_and(|r| r.command_ok == Some(false))
    })
    .await;
    let report = report(&data_dir);
    let said = report.command.expect("the command's outcome");
    assert!(
        said.contains("status 3") && said.contains("permission denied"),
        "{said}"
    );
    assert!(report.last_ok_at.is_some(), "the backup itself was made");
    server.stop().await;
}

#[tokio::test]
async fn restore_is_refused_while_a_server_runs_and_brings_a_backup_back_after() {
    let data = tempfile::tempdir().expect("tempdir");
    let backup = data.path().join("backup.db");
    {
        // A database with one calendar row, backed up, then changed.
        let db = hearth::Db::open(data.path()).expect("opens");
        drop(db);
        let conn = rusqlite::Connection::open(data.path().join("hearth.db")).expect("opens");
        conn.execute(
            "INSERT INTO calendars (id, name, url, mapping, token_hash, created_at, updated_at)
             VALUES ('kept', 'Kept', ?1, '{}', 'x', 0, 0)",
            ["https://example.com/a.ics"],
        )
        .expect("inserts");
        drop(conn);
        hearth::store::backup_to(data.path(), &backup).expect("backs up");
        let conn = rusqlite::Connection::open(data.path().join("hearth.db")).expect("opens");
        conn.execute("DELETE FROM calendars", []).expect("deletes");
    }

    let server = ServeProcess::start(data.path(), &["--backup-interval", "off"], &[]);
    let refused = hearth_bin()
        .args(["restore", "--data-dir"])
        .arg(data.path())
        .arg(&backup)
        .output()
        .expect("runs");
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("server is running"), "{said}");
    let health = reqwest::get(server.url("/healthz")).await.expect("sent");
    assert_eq!(health.status(), StatusCode::OK);
    terminate(server.id());
    assert!(
        server.exit_within(Duration::from_secs(20)).is_some(),
        "stopped"
    );

    let restored = hearth_bin()
        .args(["restore", "--data-dir"])
        .arg(data.path())
        .arg(&backup)
        .output()
        .expect("runs");
    let said = String::from_utf8_lossy(&restored.stdout);
    assert!(
        restored.status.success(),
        "{said} {}",
        String::from_utf8_lossy(&restored.stderr)
    );
    assert!(said.contains("kept as"), "{said}");
    let conn = rusqlite::Connection::open(data.path().join("hearth.db")).expect("opens");
    let count: i64 = conn
        .query_row(
            "SELECT count(*) FROM calendars WHERE id = 'kept'",
            [],
            |r| r.get(0),
        )
        .expect("counts");
    assert_eq!(count, 1, "the backup's calendar is back");
    let aside = std::fs::read_dir(data.path())
        .expect("lists")
        .filter_map(Result::ok)
        .any(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("hearth.db.before-restore-")
        });
    assert!(aside, "the replaced database is kept aside");
}

/// Asks the server process to stop as systemd does.
fn terminate(pid: u32) {
    signal(pid, "-TERM");
}

fn signal(pid: u32, which: &str) {
    let status = std::process::Command::new("kill")
        .args([which, &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
}

/// A data directory whose database takes a moment to copy (about 64 MiB of ballast).
fn big_database() -> tempfile::TempDir {
    let data = tempfile::tempdir().expect("tempdir");
    drop(hearth::Db::open(data.path()).expect("opens"));
    let conn = rusqlite::Connection::open(data.path().join("hearth.db")).expect("opens");
    conn.execute_batch("CREATE TABLE ballast (x BLOB)")
        .expect("creates");
    for _ in 0..256 {
        conn.execute("INSERT INTO ballast VALUES (randomblob(262144))", [])
            .expect("inserts");
    }
    data
}

/// The names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("lists")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Runs `hearth backup` of `data` into `folder` and sends it `which` once SQLite's journal of
/// the copy is on the disk (mid-copy); the names in `folder` after it ended. Retries with a new
/// name when a copy ended before its journal was seen.
fn interrupted_backup(data: &Path, folder: &Path, which: &str) -> Vec<String> {
    for attempt in 0..5u64 {
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_790_000_000 + attempt * 3600);
        let mut child = hearth_bin()
            .arg("backup")
            .arg(folder.join(files::name_for(at)))
            .arg("--data-dir")
            .arg(data)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("runs");
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        let mid_copy = loop {
            if names_in(folder).iter().any(|n| n.ends_with("-journal")) {
                break true;
            }
            if child.try_wait().expect("waits").is_some() {
                break false;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the copy never started"
            );
            std::thread::yield_now();
        };
        if mid_copy {
            signal(child.id(), which);
            let status = child.wait().expect("ends");
            assert!(!status.success(), "an interrupted backup is not a success");
            return names_in(folder);
        }
        // Too quick to catch: that backup is whole; try again beside it.
    }
    panic!("no copy was caught mid-way in five tries");
}

#[tokio::test]
async fn a_backup_stopped_mid_copy_leaves_no_file() {
    let data = big_database();
    let folder = tempfile::tempdir().expect("tempdir");
    let left = interrupted_backup(data.path(), folder.path(), "-INT");
    // Nothing but whole backups (of earlier tries too quick to catch), no partial copy, no
    // journal.
    assert!(left.iter().all(|n| files::made_at(n).is_some()), "{left:?}");
}

#[tokio::test]
async fn what_a_backup_killed_mid_copy_left_is_removed_at_the_next_start_and_never_passes_for_a_backup(
) {
    let data = big_database();
    let folder = tempfile::tempdir().expect("tempdir");
    let left = interrupted_backup(data.path(), folder.path(), "-KILL");
    // A kill leaves what it leaves, but never a file that looks like a whole backup.
    let whole_before = files::list(folder.path()).expect("lists").len();
    assert!(
        left.iter().any(|n| n.ends_with(".partial-journal")),
        "the copy was caught mid-way: {left:?}"
    );
    // The next start of a server backing up into that folder removes it at once.
    let clock = Clock::manual();
    let server = TestServer::start(backups_every_hour(&clock, folder.path(), 7)).await;
    started(&server).await;
    let now = names_in(folder.path());
    assert!(
        now.iter()
            .all(|n| !n.contains("partial") && !n.ends_with("-journal")),
        "{now:?}"
    );
    assert_eq!(
        files::list(folder.path()).expect("lists").len(),
        whole_before
    );
    // And a backup run leaves nothing beside its file either.
    clock.advance(FIRST_AFTER);
    backups_made(folder.path(), whole_before + 1).await;
    let after = names_in(folder.path());
    assert!(after.iter().all(|n| n.starts_with("hearth-")), "{after:?}");
    server.stop().await;
}
