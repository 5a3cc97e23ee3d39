//! Notifications (`--notify-url`) against the real server and a receiver on loopback that keeps
//! what it is sent: a check turning bad sends one POST with ntfy's headers and the check's words;
//! staying bad sends nothing more within the day (and a reminder after it); good again sends a
//! recovery; a receiver answering 500 gets the message again; the address (with its token) is
//! in no answer and no log line; the owner page's test button sends one; redirects are followed
//! within the address's origin only.

mod common;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::Router;
use common::{until, TestServer};
use hearth::clock::Clock;
use tokio::net::TcpListener;

const KEY: &str = "owner-key";
const TOKEN: &str = "tk_s3cret-token";

#[derive(Debug, Clone)]
struct Received {
    title: String,
    priority: String,
    tags: String,
    body: String,
}

#[derive(Default)]
struct Inbox {
    received: Mutex<Vec<Received>>,
    /// Statuses to answer with, in order; 200 once they are used up.
    answers: Mutex<VecDeque<u16>>,
    hits: Mutex<usize>,
}

async fn receive(State(inbox): State<Arc<Inbox>>, headers: HeaderMap, body: String) -> StatusCode {
    *inbox.hits.lock().expect("lock") += 1;
    let status = inbox
        .answers
        .lock()
        .expect("lock")
        .pop_front()
        .unwrap_or(200);
    if status == 200 {
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned()
        };
        inbox.received.lock().expect("lock").push(Received {
            title: header("title"),
            priority: header("priority"),
            tags: header("tags"),
            body,
        });
    }
    StatusCode::from_u16(status).expect("status")
}

/// The receiver, and the address the server is given: a topic with a token in its query.
async fn receiver() -> (Arc<Inbox>, String) {
    let inbox = Arc::new(Inbox::default());
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr: SocketAddr = listener.local_addr().expect("addr");
    let moved = move |to: String| {
        axum::routing::post(move || {
            let to = to.clone();
            async move { (StatusCode::TEMPORARY_REDIRECT, [("location", to)]) }
        })
    };
    let app = Router::new()
        .route("/hearth-topic", axum::routing::post(receive))
        // Redirects: within this origin, and to another (localhost, port 9: never reached).
        .route("/moved-here", moved(format!("http://{addr}/hearth-topic")))
        .route(
            "/moved-away",
            moved("http://localhost:9/hearth-topic".to_owned()),
        )
        .with_state(inbox.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (inbox, format!("http://{addr}/hearth-topic?auth={TOKEN}"))
}

impl Inbox {
    fn about(&self, check: &str) -> Vec<Received> {
        let needle = format!(": {check} ");
        self.received
            .lock()
            .expect("lock")
            .iter()
            .filter(|r| r.title.contains(&needle))
            .cloned()
            .collect()
    }
}

async fn start(clock: &Clock, url: &str) -> TestServer {
    let clock = clock.clone();
    let url = url.to_owned();
    TestServer::start(move |c| {
        c.clock = clock;
        c.edge.publish_key = Some(KEY.to_owned());
        c.alerts.url = Some(hearth::config::NotifyUrl::parse(&url).expect("address"));
    })
    .await
}

async fn owner(server: &TestServer) -> serde_json::Value {
    server
        .get_json("/api/owner", &[("x-publish-key", KEY)])
        .await
}

/// Sets the database's `created_at`: a month ahead, the clock check fails ("before the database
/// was created"); back where it was, it passes.
fn created_at(server: &TestServer, value: &str) -> String {
    let conn = rusqlite::Connection::open(server.data_dir.path().join("hearth.db")).expect("opens");
    conn.busy_timeout(Duration::from_secs(5)).expect("timeout");
    let before: String = conn
        .query_row("SELECT value FROM meta WHERE key = 'created_at'", [], |r| {
            r.get(0)
        })
        .expect("created_at");
    conn.execute(
        "UPDATE meta SET value = ?1 WHERE key = 'created_at'",
        [value],
    )
    .expect("updates");
    before
}

/// Moves the clock to the next run of the checks and waits for it to end (every message it
/// queued is then counted as pending or sent).
async fn next_check(server: &TestServer, clock: &Clock, by: Duration) {
    let checks =
        |answer: serde_json::Value| answer["notifications"]["checks"].as_u64().unwrap_or(0);
    let before = checks(owner(server).await);
    clock.advance(by);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while checks(owner(server).await) <= before {
        assert!(
            std::time::Instant::now() < deadline,
            "the checks did not run"
        );
        tokio::task::yield_now().await;
    }
}

/// Waits until nothing is pending; the owner answer then.
async fn settled(server: &TestServer) -> serde_json::Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let answer = owner(server).await;
        if answer["notifications"]["pending"] == 0 {
            return answer;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still pending: {answer}"
        );
        tokio::task::yield_now().await;
    }
}

#[tokio::test]
async fn a_check_turning_bad_is_sent_once_a_day_and_its_recovery_once() {
    let clock = Clock::manual();
    let (inbox, url) = receiver().await;
    let server = start(&clock, &url).await;
    let answer = owner(&server).await;
    assert_eq!(answer["notifications"]["configured"], true);

    let month_ahead =
        humantime::format_rfc3339_seconds(clock.wall() + Duration::from_secs(30 * 86_400))
            .to_string();
    let was = created_at(&server, &month_ahead);
    next_check(&server, &clock, Duration::from_secs(60)).await;
    settled(&server).await;
    let sent = inbox.about("clock");
    assert_eq!(sent.len(), 1, "{sent:?}");
    let first = &sent[0];
    // Named by its --listen address when it has no public address.
    assert_eq!(first.title, "Hearth (127.0.0.1:8080): clock failing");
    assert_eq!(first.priority, "high");
    assert_eq!(first.tags, "rotating_light,hearth");
    assert!(
        first.body.starts_with("clock: the clock says"),
        "{}",
        first.body
    );
    assert!(first.body.contains("before the database was created"));
    // Configuration advice sends nothing (no public address, backups off in tests).
    assert!(inbox.about("public url").is_empty() && inbox.about("backups").is_empty());

    // Still bad: checked again and again within the day, nothing more.
    for _ in 0..3 {
        next_check(&server, &clock, Duration::from_secs(5 * 60)).await;
    }
    settled(&server).await;
    assert_eq!(inbox.about("clock").len(), 1);

    // A restart on the same data does not send it again.
    let dir = server.stop().await;
    let clock_again = clock.clone();
    let url_again = url.clone();
    let server = TestServer::start_in(dir, move |c| {
        c.clock = clock_again;
        c.edge.publish_key = Some(KEY.to_owned());
        c.alerts.url = Some(hearth::config::NotifyUrl::parse(&url_again).expect("address"));
    })
    .await;
    next_check(&server, &clock, Duration::from_secs(60)).await;
    settled(&server).await;
    assert_eq!(inbox.about("clock").len(), 1, "a restart sent it again");

    // A day after the first message: a reminder.
    next_check(&server, &clock, Duration::from_secs(86_400)).await;
    settled(&server).await;
    let sent = inbox.about("clock");
    assert_eq!(sent.len(), 2);
    assert!(
        sent[1].title.ends_with("clock still failing"),
        "{}",
        sent[1].title
    );

    // Good again: one recovery, then nothing.
    created_at(&server, &was);
    next_check(&server, &clock, Duration::from_secs(5 * 60)).await;
    next_check(&server, &clock, Duration::from_secs(5 * 60)).await;
    let answer = settled(&server).await;
    let sent = inbox.about("clock");
    assert_eq!(sent.len(), 3, "{sent:?}");
    assert!(
        sent[2].title.ends_with("clock ok again"),
        "{}",
        sent[2].title
    );
    assert_eq!(
        (sent[2].priority.as_str(), sent[2].tags.as_str()),
        ("low", "white_check_mark,hearth")
    );

    // The address and its token are in no answer.
    let text = answer.to_string();
    assert!(
        !text.contains(TOKEN) && !text.contains("hearth-topic"),
        "{text}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_failed_delivery_is_tried_again() {
    let clock = Clock::manual();
    let (inbox, url) = receiver().await;
    inbox.answers.lock().expect("lock").extend([500]);
    let server = start(&clock, &url).await;
    let ahead = humantime::format_rfc3339_seconds(clock.wall() + Duration::from_secs(30 * 86_400))
        .to_string();
    created_at(&server, &ahead);
    next_check(&server, &clock, Duration::from_secs(60)).await;
    until("the first attempt", || async {
        *inbox.hits.lock().expect("lock") >= 1
    })
    .await;
    assert!(inbox.about("clock").is_empty());
    // The retry waits on the server's clock: moved until the second attempt comes.
    until("the retry", || {
        clock.advance(Duration::from_secs(30));
        async { *inbox.hits.lock().expect("lock") >= 2 }
    })
    .await;
    let answer = settled(&server).await;
    assert_eq!(inbox.about("clock").len(), 1);
    assert_eq!(answer["notifications"]["sent"], 1);
    assert_eq!(answer["notifications"]["failed"], 0);
    server.stop().await;
}

#[tokio::test]
async fn the_test_button_sends_one_and_says_so_without_the_address() {
    let clock = Clock::manual();
    let (inbox, url) = receiver().await;
    let server = start(&clock, &url).await;
    let test = || {
        server
            .client
            .post(server.url("/api/owner/notifications/test"))
            .header("x-publish-key", KEY)
            .send()
    };
    let answer = test().await.expect("sent");
    assert_eq!(answer.status(), 200);
    let body: serde_json::Value = answer.json().await.expect("json");
    assert_eq!(body["delivered"], true);
    let got = inbox.received.lock().expect("lock").clone();
    assert_eq!(got.len(), 1);
    assert!(
        got[0].title.ends_with("test notification"),
        "{}",
        got[0].title
    );
    assert_eq!(got[0].tags, "bell,hearth");

    // Without the key: refused before anything is sent.
    let refused = server
        .client
        .post(server.url("/api/owner/notifications/test"))
        .send()
        .await
        .expect("sent");
    assert_eq!(refused.status(), 401);

    // A receiver that fails: the answer says why, in words without the address.
    inbox.answers.lock().expect("lock").extend([503]);
    let answer = test().await.expect("sent");
    assert_eq!(answer.status(), 502);
    let error = common::error_of(answer).await;
    assert_eq!(
        error,
        "the test notification was not delivered: the notification service answered 503"
    );
    // Within the allowance: three at once, then wait.
    let answer = test().await.expect("sent");
    assert_eq!(answer.status(), 200);
    let answer = test().await.expect("sent");
    assert_eq!(answer.status(), 429);
    assert!(common::error_of(answer).await.contains("wait"));
    server.stop().await;
}

#[tokio::test]
async fn without_an_address_nothing_runs_and_the_test_says_how_to_set_one() {
    let server = TestServer::start(|c| c.edge.publish_key = Some(KEY.to_owned())).await;
    let answer = owner(&server).await;
    assert_eq!(answer["notifications"]["configured"], false);
    let refused = server
        .client
        .post(server.url("/api/owner/notifications/test"))
        .header("x-publish-key", KEY)
        .send()
        .await
        .expect("sent");
    assert_eq!(refused.status(), 409);
    assert!(common::error_of(refused).await.contains("--notify-url"));
    server.stop().await;
}

/// The address is in no log line: the real binary at the debug level, its log read whole after
/// a test notification delivered and one refused; a malformed address is refused unrepeated.
#[tokio::test]
async fn the_address_is_in_no_log_line() {
    let (inbox, url) = receiver().await;
    inbox.answers.lock().expect("lock").extend([500]);
    let dir = tempfile::tempdir().expect("tempdir");
    let log_path = dir.path().join("serve.log");
    let log = std::fs::File::create(&log_path).expect("log file");
    let mut child = common::hearth_bin()
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--publish-key",
            KEY,
            "--data-dir",
        ])
        .arg(dir.path().join("data"))
        .env("HEARTH_NOTIFY_URL", &url)
        .env("HEARTH_LOG", "debug")
        .stdout(std::process::Stdio::null())
        .stderr(log)
        .spawn()
        .expect("starts");
    let read = || std::fs::read_to_string(&log_path).unwrap_or_default();
    let mut addr = None;
    until("the server listens", || {
        let found = read()
            .split("listening on http://")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next().map(str::to_owned));
        addr = found.clone();
        async move { found.is_some() }
    })
    .await;
    let addr = addr.expect("address");
    let client = common::client();
    for expected in [502, 200] {
        let answer = client
            .post(format!("http://{addr}/api/owner/notifications/test"))
            .header("x-publish-key", KEY)
            .send()
            .await
            .expect("sent");
        assert_eq!(answer.status(), expected);
    }
    let _ = child.kill();
    let _ = child.wait();
    let all = read();
    assert!(all.contains("notifications on"), "{all}");
    assert!(
        !all.contains(TOKEN) && !all.contains("hearth-topic"),
        "{all}"
    );

    let output = common::hearth_bin()
        .args(["doctor", "--data-dir"])
        .arg(dir.path().join("data"))
        .env("HEARTH_NOTIFY_URL", format!("ftp://x/{TOKEN}"))
        .output()
        .expect("runs");
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!output.status.success());
    assert!(
        all.contains("--notify-url: not an http:// or https:// address"),
        "{all}"
    );
    assert!(!all.contains(TOKEN), "{all}");
}

#[tokio::test]
async fn redirects_are_followed_within_the_address_origin_only() {
    let clock = Clock::manual();
    let (inbox, url) = receiver().await;
    let base = url.split("/hearth-topic").next().expect("base").to_owned();
    for (path, status) in [("/moved-here", 200), ("/moved-away", 502)] {
        let server = start(&clock, &format!("{base}{path}")).await;
        let answer = server
            .client
            .post(server.url("/api/owner/notifications/test"))
            .header("x-publish-key", KEY)
            .send()
            .await
            .expect("sent");
        assert_eq!(answer.status(), status, "{path}");
        if status == 502 {
            assert_eq!(
                common::error_of(answer).await,
                "the test notification was not delivered: the notification service redirected to another site, which is not followed"
            );
        }
        server.stop().await;
    }
    assert_eq!(inbox.received.lock().expect("lock").len(), 1);
}
