//! `hearth doctor`, the real binary against real data directories: a fresh install passes with
//! exit status 0, and each seeded misconfiguration is named on its own line with what to do
//! (warnings keep the status 0, failures make it 1). And the owner page's answer, which carries
//! the same findings.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::{hearth_bin, TestServer};
use reqwest::StatusCode;

struct Doctor {
    success: bool,
    lines: Vec<String>,
}

impl Doctor {
    /// The line of `check`.
    fn line(&self, check: &str) -> &str {
        self.lines
            .iter()
            .find(|l| {
                l.split_whitespace()
                    .skip(1)
                    .collect::<Vec<_>>()
                    .join(" ")
                    .starts_with(check)
            })
            .map(String::as_str)
            .unwrap_or_else(|| panic!("no line for {check} in {:#?}", self.lines))
    }
}

fn doctor(data_dir: &Path, args: &[&str]) -> Doctor {
    let output = hearth_bin()
        .arg("doctor")
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .output()
        .expect("runs");
    Doctor {
        success: output.status.success(),
        lines: String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::to_owned)
            .collect(),
    }
}

/// A data directory with a database, as after a first start (owner-only, as systemd's
/// StateDirectoryMode=0700 and Hearth itself make it).
fn installed() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).expect("chmod");
    drop(hearth::Db::open(dir.path()).expect("opens"));
    dir
}

fn sql(dir: &Path, statements: &str) {
    let conn = rusqlite::Connection::open(dir.join("hearth.db")).expect("opens");
    conn.execute_batch(statements).expect("seeds");
}

#[test]
fn a_fresh_install_with_nothing_wrong_passes() {
    let dir = installed();
    let report = doctor(dir.path(), &[]);
    assert!(report.success, "{:#?}", report.lines);
    for line in &report.lines {
        assert!(line.starts_with("ok "), "{line}");
    }
    for check in [
        "database",
        "free space",
        "file modes",
        "backups",
        "public url",
        "publish key",
        "metrics",
        "proxy",
        "clock",
        "tz database",
        "quotas",
        "calendar sources",
    ] {
        report.line(check);
    }
    assert!(report.line("database").contains("sound"));
    assert!(report.line("backups").contains("no backup yet"));
    // The interval in words, not as a flag's value ("every 1day").
    assert!(
        report.line("backups").ends_with("then every day"),
        "{}",
        report.line("backups")
    );
    let report = doctor(dir.path(), &["--backup-interval", "6h"]);
    assert!(
        report.line("backups").ends_with("then every 6 hours"),
        "{}",
        report.line("backups")
    );
    // The restore drill's interval likewise ("every 7 days", not "every 7days").
    let replicated = [
        "--replica-url",
        "file:///nowhere",
        "--litestream",
        "/bin/false",
    ];
    let report = doctor(dir.path(), &replicated);
    assert!(
        report
            .line("replication drill")
            .ends_with("the first runs 5 minutes after the server starts, then every 7 days"),
        "{}",
        report.line("replication drill")
    );
}

#[test]
fn a_damaged_or_too_new_database_fails() {
    let dir = installed();
    sql(dir.path(), "PRAGMA user_version = 999;");
    let report = doctor(dir.path(), &[]);
    assert!(!report.success);
    assert!(
        report.line("database").starts_with("fail") && report.line("database").contains("newer"),
        "{}",
        report.line("database")
    );

    let dir = installed();
    let path = dir.path().join("hearth.db");
    let mut bytes = std::fs::read(&path).expect("reads");
    // Past the header: the pages of the tables.
    for b in bytes.iter_mut().skip(4096).take(8192) {
        *b = 0x5a;
    }
    std::fs::write(&path, bytes).expect("writes");
    let report = doctor(dir.path(), &[]);
    assert!(!report.success);
    assert!(
        report.line("database").starts_with("fail"),
        "{}",
        report.line("database")
    );
    assert!(report.line("database").contains("restore"));
}

#[test]
fn files_others_may_read_are_named_with_the_mode_to_set() {
    let dir = installed();
    std::fs::set_permissions(
        dir.path().join("hearth.db"),
        std::fs::Permissions::from_mode(0o644),
    )
    .expect("chmod");
    let report = doctor(dir.path(), &[]);
    assert!(report.success, "a warning does not fail");
    let line = report.line("file modes");
    assert!(
        line.starts_with("warn") && line.contains("644") && line.contains("chmod 600"),
        "{line}"
    );
}

#[test]
fn old_missing_or_turned_off_backups_are_reported() {
    let dir = installed();
    let backups = dir.path().join("backups");
    std::fs::create_dir(&backups).expect("mkdir");
    std::fs::write(backups.join("hearth-20250101T030000Z.db"), b"old").expect("writes");
    let report = doctor(dir.path(), &[]);
    assert!(!report.success);
    let line = report.line("backups");
    assert!(
        line.starts_with("fail") && line.contains("days old"),
        "{line}"
    );

    let report = doctor(dir.path(), &["--backup-interval", "off"]);
    assert!(report.line("backups").starts_with("warn"));
    assert!(report.line("backups").contains("off"));

    // A database a week old with no backup at all.
    let dir = installed();
    sql(dir.path(), "UPDATE meta SET value = strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-7 days') WHERE key = 'created_at';");
    let report = doctor(dir.path(), &[]);
    assert!(!report.success);
    assert!(
        report.line("backups").contains("no backup"),
        "{}",
        report.line("backups")
    );
}

#[test]
fn an_open_site_without_a_key_or_public_address_is_warned_about() {
    let dir = installed();
    let report = doctor(dir.path(), &["--listen", "0.0.0.0:8080"]);
    assert!(report.success);
    assert!(report.line("publish key").starts_with("warn"));
    assert!(report.line("public url").starts_with("warn"));
    assert!(report.line("public url").contains("--public-url"));

    let report = doctor(
        dir.path(),
        &["--public-url", "http://example.org", "--publish-key", "k"],
    );
    assert!(
        report.line("public url").starts_with("warn")
            && report.line("public url").contains("https")
    );
    assert!(report.line("publish key").starts_with("ok"));
}

#[test]
fn metrics_served_beyond_this_machine_are_warned_about_with_what_to_do() {
    let dir = installed();
    let report = doctor(dir.path(), &["--metrics-listen", "127.0.0.1:9090"]);
    assert!(
        report.line("metrics").starts_with("ok"),
        "{:#?}",
        report.lines
    );
    for beyond in ["0.0.0.0:9090", "192.168.1.20:9090", "[::]:9090"] {
        let report = doctor(dir.path(), &["--metrics-listen", beyond]);
        assert!(report.success, "a warning keeps the status 0");
        let line = report.line("metrics");
        assert!(line.starts_with("warn"), "{line}");
        assert!(
            line.contains("bind it to 127.0.0.1") && line.contains("firewall"),
            "{line}"
        );
        assert!(line.contains("without a key"), "says why: {line}");
    }
}

#[test]
fn what_the_server_saw_of_its_proxy_is_explained() {
    let dir = installed();
    sql(
        dir.path(),
        r#"INSERT INTO meta (key, value) VALUES ('proxy_report', '{"from_proxies":500,"from_proxies_bare":480,"forwarded_by_others":7}');"#,
    );
    let report = doctor(dir.path(), &[]);
    let line = report.line("proxy");
    assert!(line.starts_with("warn"), "{line}");
    assert!(
        line.contains("480 of 500") && line.contains("X-Forwarded-For"),
        "{line}"
    );
    assert!(
        line.contains("7 requests") && line.contains("--trusted-proxy"),
        "{line}"
    );
}

#[test]
fn forwarding_headers_from_this_machine_without_a_proxy_named_are_explained() {
    let dir = installed();
    sql(
        dir.path(),
        r#"INSERT INTO meta (key, value) VALUES ('proxy_report', '{"from_proxies":0,"from_proxies_bare":0,"forwarded_by_others":0,"forwarded_from_loopback":12}');"#,
    );
    let report = doctor(dir.path(), &[]);
    let line = report.line("proxy");
    assert!(line.starts_with("warn"), "{line}");
    assert!(
        line.contains("12 requests from this machine") && line.contains("--trust-loopback true"),
        "{line}"
    );
}

#[test]
fn a_clock_behind_the_database_fails() {
    let dir = installed();
    sql(
        dir.path(),
        "UPDATE meta SET value = '2099-01-01T00:00:00Z' WHERE key = 'created_at';",
    );
    let report = doctor(dir.path(), &[]);
    assert!(!report.success);
    assert!(report.line("clock").starts_with("fail") && report.line("clock").contains("NTP"));
}

#[test]
fn quotas_near_full_and_failing_sources_are_named() {
    let dir = installed();
    sql(
        dir.path(),
        "INSERT INTO calendars (id, name, url, mapping, token_hash, created_at, updated_at)
           VALUES ('w', 'Work', 'https://example.com/w.ics', '{}', 'x', 0, 0);
         INSERT INTO upstream_health (url, last_fetch_at, last_error, failures, failing_since)
           VALUES ('https://example.com/w.ics', CAST(unixepoch('now') * 1000 AS INTEGER), '404 Not Found', 9,
                   CAST(unixepoch('now', '-3 days') * 1000 AS INTEGER));",
    );
    let report = doctor(dir.path(), &["--max-calendars", "1"]);
    assert!(report.success, "warnings only: {:#?}", report.lines);
    let quotas = report.line("quotas");
    assert!(
        quotas.starts_with("warn") && quotas.contains("--max-calendars"),
        "{quotas}"
    );
    let sources = report.line("calendar sources");
    assert!(
        sources.starts_with("warn")
            && sources.contains("'Work'")
            && sources.contains("404 Not Found"),
        "{sources}"
    );
}

#[tokio::test]
async fn the_owner_page_needs_the_key_and_does_not_exist_without_one() {
    let open = TestServer::start(|_| {}).await;
    assert_eq!(open.get("/api/owner").await.status(), StatusCode::NOT_FOUND);
    assert_eq!(open.get("/owner").await.status(), StatusCode::NOT_FOUND);

    let server = TestServer::start(|c| c.edge.publish_key = Some("owner-key".into())).await;
    // The page itself is the app's (it asks for the key); its data is behind the key.
    assert_eq!(server.get("/owner").await.status(), StatusCode::OK);
    assert_eq!(
        server.get("/api/owner").await.status(),
        StatusCode::UNAUTHORIZED
    );
    let answer = server
        .get_json("/api/owner", &[("x-publish-key", "owner-key")])
        .await;
    let checks = answer["checks"].as_array().expect("checks");
    assert!(
        checks
            .iter()
            .any(|c| c["check"] == "database" && c["status"] == "ok"),
        "{answer}"
    );
    assert!(
        checks
            .iter()
            .any(|c| c["check"] == "metrics" && c["status"] == "ok"),
        "{answer}"
    );
    assert_eq!(answer["sync"]["maxVaults"], 200);
    assert_eq!(answer["feeds"]["calendars"], 0);
    assert_eq!(answer["backups"]["keep"], 7);
    assert!(answer["calendars"]
        .as_array()
        .expect("calendars")
        .is_empty());
}

#[tokio::test]
async fn the_owner_page_warns_of_metrics_served_beyond_this_machine() {
    let any = std::net::TcpListener::bind("0.0.0.0:0").expect("binds");
    let metrics = any.local_addr().expect("addr");
    drop(any);
    let server = TestServer::start(|c| {
        c.edge.publish_key = Some("owner-key".into());
        c.metrics_listen = Some(metrics);
    })
    .await;
    let answer = server
        .get_json("/api/owner", &[("x-publish-key", "owner-key")])
        .await;
    let checks = answer["checks"].as_array().expect("checks");
    let finding = checks
        .iter()
        .find(|c| c["check"] == "metrics")
        .unwrap_or_else(|| panic!("{answer}"));
    assert_eq!(finding["status"], "warn", "{finding}");
    assert!(
        finding["message"]
            .as_str()
            .is_some_and(|m| m.contains("127.0.0.1")),
        "{finding}"
    );
}
