//! A source's login is write-only and sealed at rest, checked on the real binary: after a
//! publish, the editor's reads, the status, the preview, the hosted feed, the owner page and a
//! metrics scrape, no answer, no line of its debug log, no byte of `hearth.db*` and none of a
//! backup holds the password (nor the header it makes); the key file is owner-only; and
//! `hearth doctor` fails in words, naming the calendar, when the key is missing or another.

mod common;
#[path = "common/guarded.rs"]
mod guarded;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{hearth_bin, TestServer};
use guarded::{base64, basic, Guarded};
use reqwest::header::AUTHORIZATION;
use reqwest::StatusCode;
use serde_json::{json, Value};

const PASSWORD: &str = "pw-Zq8u3vT-hunter";
const KEY: &str = "publish-key-for-tests";

/// `hearth serve` with debug logging, its stderr kept.
struct Logged {
    child: Child,
    addr: String,
    log: Arc<Mutex<String>>,
}

impl Logged {
    fn start(data_dir: &Path, metrics: &str) -> Logged {
        let mut child = hearth_bin()
            .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
            .arg(data_dir)
            .env("HEARTH_LOG", "debug")
            .env("HEARTH_ALLOW_PRIVATE_FEEDS", "true")
            .env("HEARTH_PUBLISH_KEY", KEY)
            .env("HEARTH_METRICS_LISTEN", metrics)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("hearth starts");
        let stderr = child.stderr.take().expect("stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let kept = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("listening on http://").nth(1) {
                    let _ = tx.send(
                        rest.split_whitespace()
                            .next()
                            .unwrap_or_default()
                            .to_owned(),
                    );
                }
                let mut log = kept.lock().expect("lock");
                log.push_str(&line);
                log.push('\n');
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("hearth logs its address");
        Logged { child, addr, log }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for Logged {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Every form the secret could take in bytes: the password, and the Basic header it makes.
fn secrets() -> [String; 2] {
    [
        PASSWORD.to_owned(),
        base64(format!("ann:{PASSWORD}").as_bytes()),
    ]
}

fn assert_clean(what: &str, bytes: &[u8]) {
    for secret in secrets() {
        assert!(
            !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
            "{what} holds the login"
        );
    }
}

async fn text(response: reqwest::Response, what: &str) -> String {
    let status = response.status();
    let body = response.text().await.expect("text");
    assert!(status.is_success(), "{what}: {status} {body}");
    body
}

#[tokio::test]
async fn the_password_is_in_no_answer_no_log_line_no_database_file_and_no_backup() {
    let feed = Guarded::start(Some(basic("ann", PASSWORD))).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let metrics = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .to_string();
    let server = Logged::start(dir.path(), &metrics);
    let client = common::client();
    let url = feed.url("/c.ics");
    let sources = json!([{ "url": url, "label": "Work",
        "auth": { "username": "ann", "password": PASSWORD } }]);
    let mut answers = Vec::new();

    let published = client
        .post(server.url("/api/calendars"))
        .header("x-publish-key", KEY)
        .json(&json!({ "id": "private", "name": "Private", "sources": sources, "mapping": {} }))
        .send()
        .await
        .expect("sent");
    assert_eq!(published.status(), StatusCode::CREATED);
    let published: Value = published.json().await.expect("json");
    let token = published["editToken"].as_str().expect("token").to_owned();
    answers.push(published.to_string());

    let set = json!([{ "url": url, "auth": "set" }]);
    let bearer = format!("Bearer {token}");
    let reads = [
        (
            "/api/feed",
            json!({ "sources": set, "calendar": "private" }),
        ),
        (
            "/api/preview",
            json!({ "calendar": "private", "config": { "mapping": {}, "sources": set } }),
        ),
        (
            "/api/preview",
            json!({ "config": { "mapping": {}, "sources": sources } }),
        ),
    ];
    for (path, body) in reads {
        let response = client
            .post(server.url(path))
            .header("x-publish-key", KEY)
            .header(AUTHORIZATION, &bearer)
            .json(&body)
            .send()
            .await
            .expect("sent");
        answers.push(text(response, path).await);
    }
    assert!(answers[1].contains("Private standup"), "{}", answers[1]);
    for (path, auth) in [
        ("/api/calendars/private/status", Some(bearer.as_str())),
        ("/cal/private.ics", None),
        ("/api/owner", None),
    ] {
        let mut request = client.get(server.url(path)).header("x-publish-key", KEY);
        if let Some(auth) = auth {
            request = request.header(AUTHORIZATION, auth);
        }
        answers.push(text(request.send().await.expect("sent"), path).await);
    }
    let scraped = reqwest::get(format!("http://{metrics}/metrics"))
        .await
        .expect("scraped");
    answers.push(text(scraped, "metrics").await);
    for answer in &answers {
        assert_clean("an answer", answer.as_bytes());
    }
    // A republish with "set" answers the same.
    let republished = client
        .post(server.url("/api/calendars"))
        .header("x-publish-key", KEY)
        .header(AUTHORIZATION, &bearer)
        .json(&json!({ "id": "private", "name": "Private", "sources": set, "mapping": {} }))
        .send()
        .await
        .expect("sent");
    assert_clean(
        "a republish",
        text(republished, "republish").await.as_bytes(),
    );

    drop(server);
    for name in ["hearth.db", "hearth.db-wal", "hearth.db-shm"] {
        if let Ok(bytes) = std::fs::read(dir.path().join(name)) {
            assert_clean(name, &bytes);
        }
    }
    let backup = dir.path().join("copy.db");
    let made = hearth_bin()
        .arg("backup")
        .arg("--data-dir")
        .arg(dir.path())
        .arg(&backup)
        .output()
        .expect("runs");
    assert!(made.status.success(), "{made:?}");
    assert_clean(
        "the backup",
        &std::fs::read(&backup).expect("backup written"),
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let key = std::fs::metadata(dir.path().join("source-logins.key")).expect("key file");
        assert_eq!(key.permissions().mode() & 0o777, 0o600);
    }
}

#[tokio::test]
async fn the_debug_log_never_holds_the_login() {
    let feed = Guarded::start(Some(basic("ann", PASSWORD))).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let metrics = "127.0.0.1:0";
    let server = Logged::start(dir.path(), metrics);
    let client = common::client();
    let sources = json!([{ "url": feed.url("/c.ics"),
        "auth": { "username": "ann", "password": PASSWORD } }]);
    let response = client
        .post(server.url("/api/calendars"))
        .header("x-publish-key", KEY)
        .json(&json!({ "id": "logged", "name": "Logged", "sources": sources, "mapping": {} }))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::CREATED);
    let wrong = json!([{ "url": feed.url("/c.ics"),
        "auth": { "username": "ann", "password": format!("{PASSWORD}-wrong") } }]);
    let refused = client
        .post(server.url("/api/feed"))
        .header("x-publish-key", KEY)
        .json(&json!({ "sources": wrong }))
        .send()
        .await
        .expect("sent");
    assert!(refused
        .text()
        .await
        .expect("text")
        .contains("the login was refused"));
    let served = client
        .get(server.url("/cal/logged.ics"))
        .send()
        .await
        .expect("sent");
    assert_eq!(served.status(), StatusCode::OK);
    // The log has lines of these requests (it is the debug log), and none holds the login.
    let deadline = Instant::now() + Duration::from_secs(10);
    let log = loop {
        let log = server.log.lock().expect("lock").clone();
        if log.contains("/cal/logged.ics") || Instant::now() > deadline {
            break log;
        }
        tokio::task::yield_now().await;
    };
    assert!(log.contains("DEBUG"), "debug logging is on: {log}");
    assert_clean("the log", log.as_bytes());
}

#[tokio::test]
async fn the_doctor_fails_in_words_naming_the_calendar_when_the_key_is_missing_or_another() {
    let feed = Guarded::start(Some(basic("ann", PASSWORD))).await;
    let server = TestServer::calendars(|_| {}).await;
    let sources = json!([{ "url": feed.url("/c.ics"),
        "auth": { "username": "ann", "password": PASSWORD } }]);
    let response = server
        .client
        .post(server.url("/api/calendars"))
        .json(&json!({ "id": "team", "name": "Team", "sources": sources, "mapping": {} }))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::CREATED);
    let dir = server.stop().await;
    let doctor = || {
        let output = hearth_bin()
            .arg("doctor")
            .arg("--data-dir")
            .arg(dir.path())
            .output()
            .expect("runs");
        let lines = String::from_utf8_lossy(&output.stdout).into_owned();
        let line = lines
            .lines()
            .find(|l| l.contains("source logins"))
            .unwrap_or_else(|| panic!("no source logins line in {lines}"))
            .to_owned();
        (output.status.success(), line)
    };
    let (_, line) = doctor();
    assert!(line.starts_with("ok"), "{line}");
    assert!(line.contains("source-logins.key"), "{line}");

    let key = dir.path().join("source-logins.key");
    let kept = std::fs::read(&key).expect("key");
    std::fs::remove_file(&key).expect("removed");
    let (ok, line) = doctor();
    assert!(!ok);
    assert!(
        line.starts_with("fail") && line.contains("'team'") && line.contains("missing"),
        "{line}"
    );

    std::fs::write(&key, [9u8; 32]).expect("another key");
    let (ok, line) = doctor();
    assert!(!ok);
    assert!(
        line.contains("'team'") && line.contains("not the one"),
        "{line}"
    );
    std::fs::write(&key, kept).expect("the key back");
    assert!(doctor().1.starts_with("ok"));
}
