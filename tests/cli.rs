//! The `hearth` command as an owner uses it: version, flag errors, environment variables,
//! backups while serving, refusing a database from the future, and shutting down on SIGTERM.

mod common;

use std::io::{BufRead, BufReader};
use std::time::Duration;

use common::{hearth_bin, ServeProcess};

#[test]
fn version_prints_the_version_and_revision_and_touches_nothing() {
    let cwd = tempfile::tempdir().expect("tempdir");
    let out = hearth_bin()
        .arg("--version")
        .current_dir(cwd.path())
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert!(
        text.starts_with(&format!("hearth {}", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
    assert!(
        text.contains('(') && text.contains(')'),
        "revision in parentheses: {text}"
    );
    assert_eq!(
        std::fs::read_dir(cwd.path()).expect("read").count(),
        0,
        "--version created files"
    );
}

#[test]
fn a_bad_flag_or_value_exits_2_with_one_line() {
    for args in [
        vec!["serve", "--no-such-flag"],
        vec!["serve", "--listen", "not-an-address"],
        vec!["serve", "--feed-ttl", "soon"],
        vec!["serve", "--public-url", "ftp://example.org"],
        vec!["frobnicate"],
    ] {
        let out = hearth_bin().args(&args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).expect("utf8");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("hearth: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn an_unreadable_avatar_exits_2_with_one_line() {
    let out = hearth_bin()
        .args(["serve", "--avatar", "/nonexistent/me.png"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).expect("utf8");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("/nonexistent/me.png"), "{err}");
}

#[tokio::test]
async fn api_site_reflects_environment_and_flags_win_over_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(
        dir.path(),
        &["--owner-name", "From Flag"],
        &[
            ("HEARTH_OWNER_NAME", "From Env"),
            ("HEARTH_BEEHIVE_URL", "https://beehive.example/me"),
        ],
    );
    let profile: serde_json::Value = common::client()
        .get(server.url("/api/site"))
        .send()
        .await
        .expect("sent")
        .json()
        .await
        .expect("json");
    assert_eq!(profile["name"], "From Flag");
    assert_eq!(profile["beehiveUrl"], "https://beehive.example/me");
}

#[tokio::test]
async fn state_directory_is_the_default_data_dir_under_systemd() {
    let state = tempfile::tempdir().expect("tempdir");
    let mut cmd = hearth_bin();
    cmd.args(["serve", "--listen", "127.0.0.1:0"])
        .env("STATE_DIRECTORY", state.path())
        .env("HEARTH_LOG", "info")
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("starts");
    // It listens only once its database is open.
    let stderr = child.stderr.take().expect("stderr piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let listening = BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
            .any(|line| line.contains("listening on"));
        let _ = tx.send(listening);
    });
    let listening = rx.recv_timeout(Duration::from_secs(20));
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(listening, Ok(true), "hearth did not start");
    assert!(
        state.path().join(hearth::store::DB_FILE).exists(),
        "no database in $STATE_DIRECTORY"
    );
}

#[tokio::test]
async fn backup_while_serving_writes_a_valid_database() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(dir.path(), &[], &[]);
    assert_eq!(
        common::client()
            .get(server.url("/readyz"))
            .send()
            .await
            .expect("sent")
            .status(),
        200
    );
    let target = dir.path().join("backup.db");
    let out = hearth_bin()
        .args(["backup", "--data-dir"])
        .arg(dir.path())
        .arg(&target)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let copy =
        rusqlite::Connection::open_with_flags(&target, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .expect("opens");
    let check: String = copy
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("check");
    assert_eq!(check, "ok");
    let version: i64 = copy
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .expect("version");
    assert_eq!(version, hearth::store::SCHEMA_VERSION);
    // A second backup to the same file is refused rather than overwriting it.
    let again = hearth_bin()
        .args(["backup", "--data-dir"])
        .arg(dir.path())
        .arg(&target)
        .output()
        .expect("runs");
    assert!(!again.status.success());
    drop(server);
}

#[test]
fn a_database_newer_than_the_binary_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let conn = rusqlite::Connection::open(dir.path().join(hearth::store::DB_FILE)).expect("open");
    conn.pragma_update(None, "user_version", 999).expect("set");
    drop(conn);
    let out = hearth_bin()
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path())
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).expect("utf8");
    assert!(err.contains("schema version 999"), "{err}");
    assert!(err.contains("newer than this hearth supports"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[cfg(unix)]
#[tokio::test]
async fn sigterm_stops_the_server_cleanly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(dir.path(), &[], &[]);
    assert_eq!(
        common::client()
            .get(server.url("/healthz"))
            .send()
            .await
            .expect("sent")
            .status(),
        200
    );
    let pid = server.id().to_string();
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let exit = server
        .exit_within(Duration::from_secs(10))
        .expect("did not stop within 10 s");
    assert!(exit.success(), "{exit:?}");
    // A clean stop folds the WAL back into the database file.
    let wal = dir.path().join("hearth.db-wal");
    assert!(
        !wal.exists() || std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0) == 0,
        "WAL left behind"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn systemd_hears_ready_watchdog_pings_and_stopping() {
    use std::os::unix::net::UnixDatagram;
    let dir = tempfile::tempdir().expect("tempdir");
    let socket_path = dir.path().join("notify.sock");
    let socket = UnixDatagram::bind(&socket_path).expect("bind");
    socket
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let mut child = hearth_bin()
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path().join("data"))
        .env("NOTIFY_SOCKET", &socket_path)
        .env("WATCHDOG_USEC", "200000")
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("starts");
    let mut received = Vec::new();
    let mut buf = [0u8; 256];
    while !received.iter().any(|m: &String| m == "WATCHDOG=1") {
        let n = socket.recv(&mut buf).expect("a notification");
        received.push(String::from_utf8_lossy(&buf[..n]).into_owned());
    }
    assert_eq!(received.first().map(String::as_str), Some("READY=1"));
    let pid = child.id().to_string();
    std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill runs");
    loop {
        let n = socket.recv(&mut buf).expect("a notification");
        if &buf[..n] == b"STOPPING=1" {
            break;
        }
    }
    assert!(child.wait().expect("exits").success());
}

/// `hearth serve` on `dir`: must exit non-zero; returns its stderr.
fn serve_refused(dir: &std::path::Path) -> String {
    let out = hearth_bin()
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir)
        .output()
        .expect("runs");
    let err = String::from_utf8(out.stderr).expect("utf8");
    assert!(!out.status.success(), "served anyway: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn an_empty_database_file_stops_the_server_with_the_way_to_restore() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join(hearth::store::DB_FILE);
    std::fs::write(&db, b"").expect("empty file");
    let err = serve_refused(dir.path());
    assert!(err.contains(&db.display().to_string()), "{err}");
    assert!(err.contains("Back up and restore"), "{err}");
    assert!(err.contains("empty"), "{err}");
    assert_eq!(std::fs::metadata(&db).expect("kept").len(), 0);
}

#[test]
fn a_damaged_database_stops_the_server_with_the_way_to_restore() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join(hearth::store::DB_FILE);
    // A real hearth database with 30+ pages of published calendars and feed copies.
    drop(hearth::Db::open(dir.path()).expect("creates"));
    let conn = rusqlite::Connection::open(&db).expect("open");
    conn.execute_batch(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
         INSERT INTO feed_copies (url, body, fetched_at, changed_at)
         SELECT 'https://example.org/' || i, randomblob(600), 0, 0 FROM n;
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
         INSERT INTO calendars (id, name, url, mapping, token_hash, created_at, updated_at)
         SELECT 'c' || i, 'Work', 'https://example.org/' || i, '{}', 'h', 0, 0 FROM n;
         PRAGMA wal_checkpoint(TRUNCATE);",
    )
    .expect("fill");
    let page_size: i64 = conn
        .query_row("PRAGMA page_size", [], |r| r.get(0))
        .expect("page size");
    drop(conn);
    let page_size = page_size as usize;
    let mut bytes = std::fs::read(&db).expect("read");
    assert!(bytes.len() >= 30 * page_size, "only {} bytes", bytes.len());
    // Pages 10 to 29 (counted from 1) overwritten with garbage.
    for (i, b) in bytes[9 * page_size..29 * page_size].iter_mut().enumerate() {
        *b = (i * 31 + 7) as u8;
    }
    std::fs::write(&db, &bytes).expect("write");

    let err = serve_refused(dir.path());
    assert!(err.contains(&db.display().to_string()), "{err}");
    assert!(err.contains("damaged"), "{err}");
    assert!(err.contains("Back up and restore"), "{err}");
}

#[test]
fn a_failed_backup_leaves_no_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join(hearth::store::DB_FILE), vec![0x5Au8; 8192]).expect("garbage");
    let target = dir.path().join("backup.db");
    let out = hearth_bin()
        .args(["backup", "--data-dir"])
        .arg(dir.path())
        .arg(&target)
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).expect("utf8");
    assert!(err.starts_with("hearth: backup failed"), "{err}");
    assert!(!target.exists(), "a partial backup was left behind");
}
